"""The gate's three realizations, one for every kind of run (certify, vet, preview).

API (questions and answers are `diylisis.core.gate` values):
- `Gate` protocol: `ask(questions) -> answers` for some or all of the questions; a question
  left unanswered pauses the run (the kind saves it and exits 3).
- `TerminalGate(check, introduce)`: asks at the terminal (stderr), one question at a time:
  subject, evidence, instructions, then the options (or a verdict and at most one flag,
  where "nothing" is typed like a flag: no default).
  An answer that does not fit (`core.gate.problem`, then the kind's `check`) is refused with
  its reason and asked again. `introduce` prints what comes before the first question.
- `AnswersGate(answers, source, check)`: answers read by `diylisis.edges.answers_file`; an
  answer that does not fit the question it answers is a BadInput naming the file (exit 2),
  raised before the kind acts on any answer of the batch.
- `PausedGate()`: answers nothing.
- `choose(answers, no_input, ...)`: the file's gate when there is one, the terminal on a
  terminal unless no_input, else paused.
- `confirm_change(diff, question)`: the terminal's yes/no before a shown change is applied.
"""

from __future__ import annotations

from msgspec import Struct

from diylisis.core import gate
from diylisis.core.errors import BadInput

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol

else:
    Protocol = object  # a protocol only types: nothing checks isinstance against it


class Gate(Protocol):
    def ask(self, questions: tuple[gate.Question, ...]) -> tuple[gate.Answer, ...]:
        """Answers for some or all questions; an unanswered question pauses the run."""


def _no_check(question: gate.Question, answer: gate.Answer) -> str | None:
    return None


def fits(question: gate.Question, answer: gate.Answer, check: gate.Check) -> str | None:
    """Why answer does not fit question (its shape, then the kind's own check), or None."""
    return gate.problem(question, answer) or check(question, answer)


class PausedGate(Struct, frozen=True, kw_only=True):
    """No one to ask: every question stays open and the run pauses (exit 3)."""

    def ask(self, questions: tuple[gate.Question, ...]) -> tuple[gate.Answer, ...]:
        return ()


class AnswersGate(Struct, frozen=True, kw_only=True):
    """Answers from an answers file, keyed by item id; a misfit is exit 2 naming the file."""

    answers: tuple[gate.Answer, ...]
    source: str
    check: Callable[[gate.Question, gate.Answer], str | None] = _no_check

    def ask(self, questions: tuple[gate.Question, ...]) -> tuple[gate.Answer, ...]:
        by_id = {answer.item_id: answer for answer in self.answers}
        given = tuple((q, by_id[q.id]) for q in questions if q.id in by_id)
        for question, answer in given:
            wrong = fits(question, answer, self.check)
            if wrong is not None:
                raise BadInput(f"answers file {self.source}: {wrong}")
        return tuple(answer for _, answer in given)


class TerminalGate(Struct, frozen=True, kw_only=True):
    """Ask at the terminal with rich prompts; a misfit is refused with its reason and asked again."""

    check: Callable[[gate.Question, gate.Answer], str | None] = _no_check
    introduce: Callable[[Any], None] | None = None

    def ask(self, questions: tuple[gate.Question, ...]) -> tuple[gate.Answer, ...]:
        from rich.console import Console

        console = Console(stderr=True)
        if self.introduce is not None:
            self.introduce(console)
        return tuple(self._one(console, question) for question in questions)

    def _one(self, console: Any, question: gate.Question) -> gate.Answer:
        from diylisis.edges.render import plain

        where = f" line {question.line}" if question.line else ""
        console.print()
        # the subject and the evidence quote records: rich gets them as Text, never as markup
        console.print(plain(question.id, "bold") + plain(f" ({question.kind}){where}: {question.subject!r}"))
        for line in question.evidence:
            console.print(plain(f"  {line}"))
        for line in question.instructions:
            console.print(plain(f"  {line}"))
        while True:
            answer = _verdict_prompt(console, question) if question.verdict else _choice_prompt(console, question)
            wrong = fits(question, answer, self.check)
            if wrong is None:
                return answer
            console.print(plain(f"  not taken: {wrong}"))


def _choice_prompt(console: Any, question: gate.Question) -> gate.Answer:
    from rich.prompt import Prompt

    names = list(question.option_names)
    name = names[0] if len(names) == 1 and question.options[0].takes is not gate.Takes.NOTHING else \
        Prompt.ask("  answer", choices=names, console=console)
    option = gate.option_named(question.options, name)
    value = None
    if option is not None and option.takes is not gate.Takes.NOTHING:
        value = Prompt.ask("  answer" if len(names) == 1 else f"  {name} with", console=console)
    return gate.choice(question.id, name, value)


def _verdict_prompt(console: Any, question: gate.Question) -> gate.Answer:
    from rich.prompt import Prompt

    text = Prompt.ask("  your verdict", console=console)
    flag_name, flag_value = None, None
    if question.flags:
        # no default: "nothing" is an answer the person types, like each flag (vet's gate)
        choices = [*(flag.name for flag in question.flags), "nothing"]
        picked = Prompt.ask("  and", choices=choices, console=console)
        flag = gate.option_named(question.flags, picked)
        if flag is not None:
            flag_name = flag.name
            if flag.takes is not gate.Takes.NOTHING:
                flag_value = Prompt.ask(f"  {flag.name}", console=console)
    return gate.verdict(question.id, text, flag_name, flag_value)


def confirm_change(console: Any, diff: str, question: str | None) -> bool:
    """Show diff, then ask question (yes/no, no default) at the terminal; no question: True."""
    from rich.prompt import Confirm

    from diylisis.edges.render import plain

    for line in diff.splitlines():
        console.print(plain(line))
    return True if question is None else bool(Confirm.ask(question, console=console))


def choose(answers: tuple[gate.Answer, ...] | None, source: str, no_input: bool, *,
           check: Callable[[gate.Question, gate.Answer], str | None] = _no_check,
           introduce: Callable[[Any], None] | None = None) -> Gate:
    """The answers file's gate when answers were read, the terminal when stdin is one, else paused."""
    import sys

    if answers is not None:
        return AnswersGate(answers=answers, source=source, check=check)
    if not no_input and sys.stdin.isatty():
        return TerminalGate(check=check, introduce=introduce)
    return PausedGate()


def paused_lines(run_id: str, questions: tuple[gate.Question, ...]) -> list[str]:
    """Open questions as the paused text lists them, each with the commands that answer it."""
    lines = [f"Paused run {run_id}: {len(questions)} item(s) need your judgment."]
    for q in questions:
        where = f" line {q.line}" if q.line else ""
        lines.append(f"  {q.id} ({q.kind}){where}: {q.subject!r}")
        lines += [f"    {line}" for line in (*q.evidence, *q.instructions)]
        lines += [f"    {command}" for command in gate.command_lines(run_id, q)]
    lines.append(f"Then: git distill resume {run_id}")
    return lines
