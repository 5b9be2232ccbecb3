"""The preview's gates in their three realizations: an answers file, the terminal, a pause.

An answers file (TOML) gives each gate's answers in order, a value or a list of them:

    spec = "approve"                  # or { adjust = "axis cost: what does it cost?; tier mockup" },
                                      #    { dissolve = "basis" }, "withdraw"
    direction = { select = 1 }        # the probe number; or { synthesize = "..." }, "insufficient",
                                      #    { unprobed = "candidate" }, { interrogate = "question" }, "withdraw"
    micro = "confirm"                 # or "materialize"

A Select may carry `deciding = ["axis", ...]` and `ground = "familiar domain"`. A gate with no
answer left pauses the run (exit 3), unless the terminal is there to ask.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from diylisis.core.errors import BadInput
from diylisis.core.preview import flow

GATE_KEYS = {"qspec": "spec", "qdir": "direction", "qmicro": "micro"}


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenItem:
    id: str  # qspec-1, qdir, qmicro
    gate: str
    options: tuple[str, ...]
    text: str


Answer = flow.QspecAnswer | flow.QdirAnswer | flow.QmicroAnswer


def parse(gate: str, raw: Any) -> Answer:
    """One answer as the answers file or the terminal wrote it (BadInput says what is wrong)."""
    if isinstance(raw, str):
        word, _, rest = raw.strip().partition(" ")
        raw = {word: rest.strip()} if rest.strip() else word
    try:
        if gate == "qspec":
            return _qspec(raw)
        if gate == "qdir":
            return _qdir(raw)
        return _qmicro(raw)
    except (KeyError, TypeError, ValueError) as problem:
        raise BadInput(f"the answer {raw!r} to the {gate} gate cannot be read ({problem}); "
                       f"see git distill preview --help for the answer forms") from None


def _qspec(raw: Any) -> flow.QspecAnswer:
    if raw in ("approve", "withdraw", "dissolve"):
        return flow.QspecAnswer(kind=raw)
    (kind, text), = dict(raw).items()
    if kind not in ("adjust", "dissolve") or not isinstance(text, str):
        raise ValueError("use approve, { adjust = \"...\" }, { dissolve = \"...\" } or withdraw")
    return flow.QspecAnswer(kind=kind, text=text)


def _qdir(raw: Any) -> flow.QdirAnswer:
    if raw in ("insufficient", "withdraw"):
        return flow.QdirAnswer(kind=raw)
    table = dict(raw)
    deciding = tuple(str(axis) for axis in table.pop("deciding", ()))
    ground = table.pop("ground", None)
    (kind, value), = table.items()
    if kind == "select":
        return flow.QdirAnswer(kind="select", probe=int(value), deciding=deciding,
                               ground=str(ground) if ground else None)
    if kind in ("synthesize", "unprobed", "interrogate") and isinstance(value, str):
        return flow.QdirAnswer(kind=kind, text=value)
    raise ValueError("use { select = K }, { synthesize = \"...\" }, insufficient, { unprobed = \"...\" }, "
                     "{ interrogate = \"...\" } or withdraw")


def _qmicro(raw: Any) -> flow.QmicroAnswer:
    if raw not in ("confirm", "materialize"):
        raise ValueError("use confirm or materialize")
    return flow.QmicroAnswer(kind=raw)


class AnswersFile:
    """The answers of a TOML file, taken in order per gate."""

    def __init__(self, path: Path) -> None:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise BadInput(f"the answers file {path} cannot be read: {error}") from None
        unknown = sorted(set(data) - set(GATE_KEYS.values()))
        if unknown:
            raise BadInput(f"the answers file {path} has unknown keys: {', '.join(unknown)} "
                           "(use spec, direction, micro)")
        self._left = {key: list(value) if isinstance(value, list) else [value] for key, value in data.items()}
        # validate everything now: a bad answer is exit 2 before any probe is made
        for gate, key in GATE_KEYS.items():
            for raw in self._left.get(key, []):
                parse(gate, raw)

    def take(self, gate: str) -> Any | None:
        left = self._left.get(GATE_KEYS[gate], [])
        return left.pop(0) if left else None


Ask = Callable[[OpenItem], Any | None]


def chooser(answers: AnswersFile | None, terminal: Ask | None) -> Ask:
    """The answers file first, then the terminal if there is one; None pauses."""
    def ask(item: OpenItem) -> Any | None:
        raw = answers.take(item.gate) if answers is not None else None
        if raw is None and terminal is not None:
            raw = terminal(item)
        return raw

    return ask
