"""Vet's per-claim gate on the shared gate (`diylisis.core.gate`, `diylisis.edges.gate`).

Each open claim is one verdict question, named by its slot `AUDIT.INDEX`: the audit and the index
of the challenge it answers. The answer is a free-text verdict plus at most one of the flags
withdraw, revisit CONDITION and handoff DEFICIT; nothing is offered and there is no default.
The three realizations are the shared ones: the terminal, an answers file read by
`diylisis.edges.answers_file` (`[a-60d67b410f]` holding `1 = { verdict = "...", handoff = "..." }`),
and the paused gate, which answers nothing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from diylisis.core import gate
from diylisis.core.errors import BadInput
from diylisis.core.vet import judgment, text
from diylisis.core.vet.model import Antithesis, Audit
from diylisis.edges import gate as gates

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KIND = "claim"
FLAGS = (gate.Option(name="withdraw"), gate.Option(name="revisit", takes=gate.Takes.TEXT),
         gate.Option(name="handoff", takes=gate.Takes.TEXT))
_SLOT = re.compile(r"^(a-[0-9a-f]{10})\.([1-9][0-9]*)$")


def slot(audit_id: str, index: int) -> str:
    """The question id of a claim at one challenge: `a-60d67b410f.1`."""
    return f"{audit_id}.{index}"


def parse_slot(item_id: str) -> tuple[str, int] | None:
    """(audit id, challenge index) of a slot id, or None when it names no slot."""
    match = _SLOT.match(item_id)
    return (match.group(1), int(match.group(2))) if match else None


def question(audit: Audit, antithesis: Antithesis) -> gate.Question:
    """The verdict question of one claim: its pre-gate block as evidence, the open question, then
    the instruction list with each effect."""
    return gate.Question(id=slot(audit.id, antithesis.index), kind=KIND, subject=audit.claim.text,
                         evidence=(*text.pregate_block(audit, antithesis)[1:], text.QUESTION),
                         instructions=tuple(line.strip() for line in text.instruction_lines()),
                         flags=FLAGS, verdict=True, line=audit.claim.line)


def template_for(key: str) -> gate.Question | None:
    """The question an answers-file key answers: any claim slot (the run matches it to its claims)."""
    if parse_slot(key) is None:
        return None
    return gate.Question(id=key, kind=KIND, subject=key, flags=FLAGS, verdict=True)


def judged(answer: gate.Answer) -> judgment.Judged:
    """The shared gate's verdict answer as vet's Judged, bound to the challenge its slot names."""
    named = parse_slot(answer.item_id)
    if named is None:
        raise BadInput(f"{answer.item_id!r} names no claim slot (AUDIT.INDEX)")
    audit, index = named
    withdraw, revisit, handoff = instruction_of(answer)
    return judgment.judged(audit, index, answer.value, withdraw=withdraw, revisit=revisit, handoff=handoff)


def instruction_of(answer: gate.Answer) -> tuple[bool, str | None, str | None]:
    """(withdraw, revisit condition, handoff deficit) as the answer's one flag gives them."""
    kind = next((k for k in judgment.InstructionKind if k.value == answer.flag), None)
    return (kind is judgment.InstructionKind.WITHDRAW,
            answer.flag_value if kind is judgment.InstructionKind.REVISIT else None,
            answer.flag_value if kind is judgment.InstructionKind.HANDOFF else None)


def check_slots(chosen: gates.Gate, current: Mapping[str, int]) -> None:
    """Exit 2, before anything is recorded, when an answers file answers a claim of the run at
    another challenge than the one open (CURRENT: audit -> open index): the slot stays open."""
    if not isinstance(chosen, gates.AnswersGate):
        return
    for answer in chosen.answers:
        named = parse_slot(answer.item_id)
        if named is not None and named[0] in current:
            judgment.check_index(judged(answer), current[named[0]])


def realization(chosen: gates.Gate) -> judgment.Realization:
    """Who answered, as the note records it: terminal, answers-file or pause."""
    if isinstance(chosen, gates.AnswersGate):
        return judgment.Realization.ANSWERS_FILE
    return judgment.Realization.TERMINAL if isinstance(chosen, gates.TerminalGate) else judgment.Realization.PAUSE


def _reach_note(console: Any) -> None:
    from diylisis.edges.render import plain

    console.print()
    console.print(plain(judgment.REACH_NOTE))


def load_answers(path: Path) -> tuple[gate.Answer, ...]:
    """Read `--answers FILE.toml` through the shared answers-file reader."""
    from diylisis.edges import answers_file

    return answers_file.load(path, template_for)


def choose(answers_path: Path | None, no_input: bool) -> gates.Gate:
    """The answers file's gate when one is named, the terminal when stdin is one (the reach note
    once per batch, then claim by claim), else paused."""
    answers = load_answers(answers_path) if answers_path is not None else None
    return gates.choose(answers, str(answers_path), no_input, introduce=_reach_note)


def ask(chosen: gates.Gate, batch: Sequence[tuple[Audit, Antithesis]]) -> dict[str, judgment.Judged]:
    """The batch put to the gate; the answers given, keyed by audit id."""
    questions = tuple(question(audit, antithesis) for audit, antithesis in batch)
    return {answer.audit: answer for answer in map(judged, chosen.ask(questions))}
