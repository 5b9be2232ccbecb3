"""The preview's gates in their three realizations: an answers file, the terminal, a pause.

The answers file (TOML) is read by `diylisis.edges.answers_file`, as every kind of run's is. It
gives each gate's answers in order, one answer or an array of them for a gate that comes back:

    spec = "approve"                  # or { adjust = "axis cost: what does it cost?; tier mockup" },
                                      #    { dissolve = "basis" }, "withdraw"
    direction = { select = 1 }        # the probe number; or { synthesize = "..." }, "insufficient",
                                      #    { unprobed = "candidate" }, { interrogate = "question" }, "withdraw"
    micro = "confirm"                 # or "materialize"

A Select may carry `deciding = ["axis", ...]` and `ground = "familiar domain"`. The terminal and
`git distill answer` give `OPTION [VALUE]`. A gate with no answer left pauses the run (exit 3),
unless the terminal is there to ask.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from msgspec import Struct
from msgspec.structs import replace

from diylisis.core import gate
from diylisis.core.errors import BadInput
from diylisis.core.preview import flow
from diylisis.edges import answers_file

GATE_KEYS = {"qspec": "spec", "qdir": "direction", "qmicro": "micro"}
_TEXT, _NUMBER = gate.Takes.TEXT, gate.Takes.NUMBER
OPTIONS: dict[str, tuple[gate.Option, ...]] = {
    "qspec": (gate.Option(name="approve"), gate.Option(name="adjust", takes=_TEXT),
              gate.Option(name="dissolve", takes=_TEXT), gate.Option(name="withdraw")),
    "qdir": (gate.Option(name="select", takes=_NUMBER), gate.Option(name="synthesize", takes=_TEXT),
             gate.Option(name="insufficient"), gate.Option(name="unprobed", takes=_TEXT),
             gate.Option(name="interrogate", takes=_TEXT), gate.Option(name="withdraw")),
    "qmicro": (gate.Option(name="confirm"), gate.Option(name="materialize")),
}
DETAILS = {"qdir": ("deciding", "ground")}  # what a select may carry beside the probe number


class OpenItem(Struct, frozen=True, kw_only=True):
    id: str  # qspec-1, qdir, qmicro
    gate: str
    options: tuple[str, ...]
    text: str


Answer = flow.QspecAnswer | flow.QdirAnswer | flow.QmicroAnswer
Ask = Callable[[OpenItem], gate.Answer | None]
Terminal = Callable[[OpenItem], str | None]  # what a person typed, or None


def question(gate_name: str, item_id: str, *, subject: str = "the preview", evidence: tuple[str, ...] = (),
             options: tuple[gate.Option, ...] | None = None) -> gate.Question:
    """The question a preview gate (qspec, qdir, qmicro) asks as item_id."""
    return gate.Question(id=item_id, kind=GATE_KEYS[gate_name], subject=subject, evidence=evidence,
                         options=OPTIONS[gate_name] if options is None else options,
                         details=DETAILS.get(gate_name, ()))


def _template(key: str) -> gate.Question | None:
    """The question an answers-file key (spec, or spec.2 for its second answer) answers."""
    base = key.partition(".")[0]
    gate_name = next((name for name, word in GATE_KEYS.items() if word == base), None)
    return question(gate_name, key) if gate_name is not None else None


def typed(gate_name: str, text: str) -> gate.Answer:
    """An answer as the terminal or `git distill answer` wrote it: `OPTION [VALUE]`."""
    word, _, rest = text.strip().partition(" ")
    return gate.choice(GATE_KEYS[gate_name], word, rest.strip() or None)


def read(gate_name: str, answer: gate.Answer) -> Answer:
    """The gate's answer as the preview's flow takes it; one that does not fit the gate is exit 2."""
    wrong = gate.problem(question(gate_name, answer.item_id), answer)
    details = dict(answer.details)
    ground = details.get("ground", ())
    if wrong is None and len(ground) > 1:
        wrong = "ground is one text, not an array"
    if wrong is not None:
        raise BadInput(f"the answer {gate.answer_words(answer)} to the {gate_name} gate cannot be read ({wrong}); "
                       "see git distill preview --help for the answer forms")
    text = answer.value or ""
    match gate_name, answer.option:
        case "qspec", ("approve" | "adjust" | "dissolve" | "withdraw") as kind:
            return flow.QspecAnswer(kind=kind, text=text)
        case "qdir", "select":
            return flow.QdirAnswer(kind="select", probe=int(text), deciding=details.get("deciding", ()),
                                   ground=ground[0] if ground else None)
        case "qdir", ("synthesize" | "insufficient" | "unprobed" | "interrogate" | "withdraw") as kind:
            return flow.QdirAnswer(kind=kind, text=text)
        case "qmicro", ("confirm" | "materialize") as kind:
            return flow.QmicroAnswer(kind=kind)
    raise AssertionError(f"{answer.option} is an option of {gate_name} that the flow does not know")


class AnswersFile:
    """The answers of a TOML file, taken in order per gate."""

    def __init__(self, path: Path) -> None:
        self._left: dict[str, list[gate.Answer]] = {}
        for answer in answers_file.load(path, _template, in_order=True):
            base = answer.item_id.partition(".")[0]
            self._left.setdefault(base, []).append(replace(answer, item_id=base))
        # read everything now: a bad answer is exit 2 before any probe is made
        for gate_name, key in GATE_KEYS.items():
            for answer in self._left.get(key, []):
                read(gate_name, answer)

    def take(self, gate_name: str) -> gate.Answer | None:
        left = self._left.get(GATE_KEYS[gate_name], [])
        return left.pop(0) if left else None


def chooser(answers: AnswersFile | None, terminal: Terminal | None) -> Ask:
    """The answers file first, then the terminal if there is one; None pauses."""
    def ask(item: OpenItem) -> gate.Answer | None:
        answer = answers.take(item.gate) if answers is not None else None
        if answer is None and terminal is not None:
            text = terminal(item)
            answer = typed(item.gate, text) if text is not None else None
        return answer

    return ask
