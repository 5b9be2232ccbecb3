"""Certify's gates (F0 Confirm/Correct, Qd, Qp) on the shared gate of `diylisis.edges.gate`.

This module only translates: a certify `Question` (diylisis.core.state) becomes a gate question
(`diylisis.core.gate`), answers come back as the shared `Answer`. The three realizations are
the shared ones:

- interactive: stdin is a terminal; evidence first, then one question per item;
- answers file: `--answers FILE.toml`, answers keyed by item id (`diylisis.edges.answers_file`);
- paused: neither; the run saves its state and exits 3 with the exact commands to answer.

Every realization checks an answer when it is given, with `check` (a route that does not
resolve is refused then, not ten answers later).
"""

from __future__ import annotations

from msgspec import Struct

from diylisis.core import gate as core_gate
from diylisis.core.gate import Answer
from diylisis.core.state import Question, RunState

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Protocol

    Check = Callable[[core_gate.Question, Answer], str | None]
else:
    Protocol = object  # a protocol only types: nothing checks isinstance against it

VALUE_OPTIONS = frozenset({"resolve", "route", "defer", "correct", "value"})
ANSWER_OPTIONS = ("resolve", "route", "drop", "defer", "confirm", "correct", "value")


class Gate(Protocol):
    def ask(self, questions: tuple[Question, ...], state: RunState) -> tuple[Answer, ...]:
        """Answers for some or all questions; an unanswered question pauses the run."""

    def confirm(self, change: str, state: RunState) -> bool:
        """Whether the repair shown as the diff change may be applied; False pauses the run
        with the diff (the author confirms with `resume --yes`)."""


def _option(name: str) -> core_gate.Option:
    return core_gate.Option(name=name, takes=core_gate.Takes.TEXT if name in VALUE_OPTIONS else core_gate.Takes.NOTHING)


def as_gate_question(question: Question) -> core_gate.Question:
    """A certify question as the shared gate asks it."""
    return core_gate.Question(id=question.id, kind=question.gate.value, subject=question.token,
                              instructions=(question.reason,), line=question.line,
                              options=tuple(_option(name) for name in question.options))


def template_for(key: str) -> core_gate.Question:
    """What an answers file may say for any certify item: which options fit is known only once
    the item is asked (its question is checked again then)."""
    return core_gate.Question(id=key, kind="certify", subject=key,
                              options=tuple(_option(name) for name in ANSWER_OPTIONS))


def _no_check(question: core_gate.Question, answer: Answer) -> str | None:
    return None


class PausedGate(Struct, frozen=True, kw_only=True):
    """No one to ask: every question stays open and the run pauses (exit 3)."""

    yes: bool = False  # --yes: the shown repair is applied without a pause

    def ask(self, questions: tuple[Question, ...], state: RunState) -> tuple[Answer, ...]:
        return ()

    def confirm(self, change: str, state: RunState) -> bool:
        return self.yes


class AnswersGate(Struct, frozen=True, kw_only=True):
    """Answers read from a TOML file, keyed by item id; one that does not fit its question is exit 2."""

    answers: tuple[Answer, ...]
    source: str = "--answers"
    check: Callable[[core_gate.Question, Answer], str | None] = _no_check
    yes: bool = False  # --yes: the shown repair is applied; without it the run pauses before it

    def confirm(self, change: str, state: RunState) -> bool:
        return self.yes

    def ask(self, questions: tuple[Question, ...], state: RunState) -> tuple[Answer, ...]:
        from diylisis.edges.gate import AnswersGate as FileGate

        return FileGate(answers=self.answers, source=self.source, check=self.check).ask(
            tuple(as_gate_question(q) for q in questions))


class InteractiveGate(Struct, frozen=True, kw_only=True):
    """Ask at the terminal, after showing the evidence as text; a misfit is asked again."""

    check: Callable[[core_gate.Question, Answer], str | None] = _no_check
    yes: bool = False  # --yes: the diff is shown and applied without asking

    def confirm(self, change: str, state: RunState) -> bool:
        from rich.console import Console

        from diylisis.edges.gate import confirm_change

        console = Console(stderr=True)
        if self.yes:
            confirm_change(console, change, None)
            return True
        return confirm_change(console, change, "Apply this repair to the record?")

    def ask(self, questions: tuple[Question, ...], state: RunState) -> tuple[Answer, ...]:
        from diylisis.edges import render
        from diylisis.edges.gate import TerminalGate

        def introduce(console: object) -> None:
            render.gate_evidence(console, state)

        return TerminalGate(check=self.check, introduce=introduce).ask(tuple(as_gate_question(q) for q in questions))


def load_answers(path: Path) -> tuple[Answer, ...]:
    """Read `--answers FILE.toml`: `id = "drop"` or `id = { resolve = "text" }` per item."""
    from diylisis.edges import answers_file

    return answers_file.load(path, template_for)
