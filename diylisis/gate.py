"""The gates (F0 Confirm/Correct, Qd, Qp) behind one Protocol, in three realizations.

- interactive: stdin is a terminal; evidence first, then one question per item;
- answers file: `--answers FILE.toml`, answers keyed by item id;
- paused: neither; the run saves its state and exits 3 with the exact commands to answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from diylisis.errors import BadInput
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


@dataclass(frozen=True, slots=True, kw_only=True)
class PausedGate:
    """No one to ask: every question stays open and the run pauses (exit 3)."""

    def ask(self, questions: tuple[Question, ...], state: RunState) -> tuple[Answer, ...]:
        return ()


@dataclass(frozen=True, slots=True, kw_only=True)
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
        raise BadInput(f"answer {option} for {item_id!r} needs a value")
    return Answer(item_id=item_id, option=option, value=value.strip() if value else None)


ANSWER_OPTIONS = ("resolve", "route", "drop", "defer", "confirm", "correct", "value")


def load_answers(path: Path) -> tuple[Answer, ...]:
    """Read `--answers FILE.toml`: `id = "drop"` or `id = { resolve = "text" }` per item."""
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise BadInput(f"answers file {path} does not exist") from None
    except UnicodeDecodeError as error:
        raise BadInput(f"answers file {path} is not UTF-8 text (byte {error.start})") from None
    except OSError as error:
        raise BadInput(f"answers file {path} cannot be read: {error.strerror or error}") from None
    return parse_answers(text, str(path))


def parse_answers(text: str, name: str) -> tuple[Answer, ...]:
    """The answers in an answers file's text; anything else is BadInput, one line naming the file.

    The items are at the top level, or all in one `[answers]` table."""
    import tomllib  # only an answers file needs it, not the hook's path

    try:
        table: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise BadInput(f"answers file {name} does not parse: {_one_line(str(error))}") from None
    except RecursionError:  # tomllib reads nested arrays and inline tables recursively
        raise BadInput(f"answers file {name} nests arrays or tables too deeply to read") from None
    if "answers" in table:
        table = table["answers"]
        if not isinstance(table, dict):
            raise BadInput(f"answers file {name}: answers must be a table of item = answer, "
                           f"not {_toml_kind(table)}")
    answers = []
    for item_id, entry in table.items():
        if isinstance(entry, str):
            option, value = entry, None
        elif isinstance(entry, dict) and len(entry) == 1:
            (option, value), = entry.items()
            if not isinstance(value, str):
                raise BadInput(f"answers file {name}: the {option!r} answer of {item_id!r} must be a string, "
                               f"not {_toml_kind(value)}")
        else:
            raise BadInput(f"answers file {name}: {item_id!r} must be an option or {{option = value}}, "
                           f"not {_toml_kind(entry)}")
        if option.lower() not in ANSWER_OPTIONS:
            raise BadInput(f"answers file {name}: {option!r} for {item_id!r} is not one of "
                           f"{', '.join(ANSWER_OPTIONS)}")
        try:
            answers.append(parse_answer(item_id, option, value))
        except BadInput as error:
            raise BadInput(f"answers file {name}: {error.message}") from None
    return tuple(answers)


def _toml_kind(value: object) -> str:
    """What a TOML value is, in TOML's words."""
    kinds = {bool: "a boolean", int: "an integer", float: "a float", str: "a string", list: "an array",
             dict: "a table"}
    return kinds.get(type(value), "a date or time")


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True, slots=True, kw_only=True)
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
            value: str | None
            if question.options == ("value",):
                option, value = "value", Prompt.ask("  answer", console=console)
            else:
                option = Prompt.ask("  answer", choices=list(question.options), console=console)
                value = Prompt.ask(f"  {option} with", console=console) if option in VALUE_OPTIONS else None
            answers.append(parse_answer(question.id, option, value))
        return tuple(answers)
