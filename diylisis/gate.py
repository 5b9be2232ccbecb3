"""The gates (F0 Confirm/Correct, Qd, Qp) behind one Protocol, in three realizations.

- interactive: stdin is a terminal; evidence first, then one question per item;
- answers file: `--answers FILE.toml`, answers keyed by item id;
- paused: neither; the run saves its state and exits 3 with the exact commands to answer.
"""

from __future__ import annotations

from diylisis.errors import BadInput
from diylisis.frozen import frozen_model
from diylisis.state import Answer, Question, RunState

TYPE_CHECKING = False  # true for type checkers only: the hook never imports typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Protocol
else:
    Protocol = object  # a protocol only types: nothing checks isinstance against it

VALUE_OPTIONS = frozenset({"resolve", "route", "defer", "correct", "value"})


class Gate(Protocol):
    def ask(self, questions: tuple[Question, ...], state: RunState) -> tuple[Answer, ...]:
        """Answers for some or all questions; an unanswered question pauses the run."""


@frozen_model
class PausedGate:
    """No one to ask: every question stays open and the run pauses (exit 3)."""

    def ask(self, questions: tuple[Question, ...], state: RunState) -> tuple[Answer, ...]:
        return ()


@frozen_model
class AnswersGate:
    """Answers read from a TOML file, keyed by item id."""

    answers: tuple[Answer, ...]

    def ask(self, questions: tuple[Question, ...], state: RunState) -> tuple[Answer, ...]:
        by_id = {answer.item_id: answer for answer in self.answers}
        return tuple(by_id[q.id] for q in questions if q.id in by_id and by_id[q.id].option in q.options)


def parse_answer(item_id: str, option: str, value: str | None) -> Answer:
    """One answer from `git distill answer` or a file; a missing value is exit 2."""
    option = option.lower()
    if option in VALUE_OPTIONS and not (value and value.strip()):
        raise BadInput(f"answer {option} for {item_id} needs a value")
    return Answer(item_id=item_id, option=option, value=value.strip() if value else None)


def load_answers(path: Path) -> tuple[Answer, ...]:
    """Read `--answers FILE.toml`: `id = "drop"` or `id = { resolve = "text" }` per item."""
    import tomllib  # only an answers file needs it, not the hook's path

    try:
        table: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInput(f"answers file {path} does not exist") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise BadInput(f"answers file {path} does not parse: {error}") from None
    table = table.get("answers", table)
    answers = []
    for item_id, entry in table.items():
        if isinstance(entry, str):
            answers.append(parse_answer(item_id, entry, None))
        elif isinstance(entry, dict) and len(entry) == 1:
            (option, value), = entry.items()
            answers.append(parse_answer(item_id, option, str(value)))
        else:
            raise BadInput(f"answers file {path}: {item_id} must be an option or {{option = value}}")
    return tuple(answers)


@frozen_model
class InteractiveGate:
    """Ask at the terminal with rich prompts, after showing the evidence as text."""

    def ask(self, questions: tuple[Question, ...], state: RunState) -> tuple[Answer, ...]:
        from rich.console import Console
        from rich.prompt import Prompt

        from diylisis import render

        console = Console(stderr=True)
        render.gate_evidence(console, state)
        answers = []
        for question in questions:
            where = f" line {question.line}" if question.line else ""
            console.print()
            # the token and the reason quote the record: rich gets them as Text, never as markup
            console.print(render.plain(question.id, "bold") + render.plain(
                f" ({question.gate.value}){where}: {question.token!r}"))
            console.print(render.plain(f"  {question.reason}"))
            if question.options == ("value",):
                option, value = "value", Prompt.ask("  answer", console=console)
            else:
                option = Prompt.ask("  answer", choices=list(question.options), console=console)
                value = Prompt.ask(f"  {option} with", console=console) if option in VALUE_OPTIONS else None
            answers.append(parse_answer(question.id, option, value))
        return tuple(answers)
