"""The gate's questions and answers, shared by every kind of run (certify, vet, preview): pure values.

API (certify, vet and preview build on it; the realizations are in `diylisis.edges.gate`):

- `Takes`: what an option needs after it: NOTHING (`drop`), TEXT (`resolve "..."`) or
  NUMBER (preview's `select 2`; kept as its decimal text).
- `Option(name, takes)`: one answer a question allows.
- `Question(id, kind, subject, evidence, instructions, options, flags, verdict, details, line)`:
  - a choice question (`verdict=False`): the answer is one of `options`, with any of the
    named `details` beside it (preview's select: the `deciding` axes, the `ground`);
  - a verdict question (`verdict=True`, vet): the answer is a free-text verdict plus at most
    one of `flags` (`withdraw`, `revisit CONDITION`, `handoff DEFICIT`); nothing is offered
    and nothing is parsed out of the verdict.
  `kind` names the gate (certify: contract / residual / premise; vet: claim; preview: spec,
  direction, micro); `evidence` and `instructions` are lines shown before the question.
- `Answer(item_id, option, value, flag, flag_value, details)`: a choice answer sets `option`
  (and `value` when the option takes one; `details` as (name, words) pairs); a verdict answer
  has `option == VERDICT`, the verdict text in `value`, and the optional flag with its value.
- `problem(question, answer)`: why an answer does not fit its question, or None. Every
  realization checks answers with it when they are given; a kind adds its own checks
  (certify: a route must resolve) through the `check` callables the realizations take.
- `choice(...)` / `verdict(...)`: build an Answer from what a person typed.

Nothing here reads a terminal, a file or git.
"""

from __future__ import annotations

import enum

from msgspec import Struct

# The answer lives beside the run state's other values (a run file holds its answers), so that
# decoding a run file resolves it without loading the gate on the commit-msg hook's path.
from diylisis.core.model import Answer as Answer

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Callable

VERDICT = "verdict"  # the option of every verdict answer


class Takes(enum.Enum):
    NOTHING = "nothing"
    TEXT = "text"
    NUMBER = "number"


class Option(Struct, frozen=True, kw_only=True):
    """One answer a question allows, and what it needs after it."""

    name: str
    takes: Takes = Takes.NOTHING


class Question(Struct, frozen=True, kw_only=True):
    """One item put to the author, with what they need to answer it."""

    id: str
    kind: str
    subject: str
    evidence: tuple[str, ...] = ()
    instructions: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()
    flags: tuple[Option, ...] = ()  # verdict questions: at most one of these rides along
    verdict: bool = False
    details: tuple[str, ...] = ()  # choice questions: the words that may ride along, by name
    line: int = 0

    @property
    def option_names(self) -> tuple[str, ...]:
        return tuple(option.name for option in self.options)


def option_named(options: tuple[Option, ...], name: str) -> Option | None:
    return next((option for option in options if option.name == name), None)


def problem(question: Question, answer: Answer) -> str | None:
    """Why answer does not fit question, in one line; None when it does."""
    if answer.item_id != question.id:
        return f"the answer is for {answer.item_id!r}, not {question.id!r}"
    if question.verdict:
        return _verdict_problem(question, answer)
    if answer.flag is not None:
        return f"{question.id} takes one of {' | '.join(question.option_names)}, not a verdict with {answer.flag}"
    extra = [name for name, _ in answer.details if name not in question.details]
    if extra:
        allowed = ", ".join(question.details) or "nothing"
        return f"{question.id} takes {allowed} beside its answer, not {', '.join(extra)}"
    option = option_named(question.options, answer.option)
    if option is None:
        return f"{question.id} takes {' | '.join(question.option_names)}, not {answer.option}"
    return _value_problem(question.id, option, answer.value)


def _verdict_problem(question: Question, answer: Answer) -> str | None:
    if answer.option != VERDICT:
        return f"{question.id} takes a verdict in your own words, not {answer.option}"
    if not (answer.value and answer.value.strip()):
        return f"{question.id} needs a verdict in your own words"
    if answer.flag is None:
        return None
    flag = option_named(question.flags, answer.flag)
    if flag is None:
        allowed = " | ".join(option.name for option in question.flags) or "no flag"
        return f"{question.id} takes {allowed} beside the verdict, not {answer.flag}"
    return _value_problem(question.id, flag, answer.flag_value)


def _value_problem(item_id: str, option: Option, value: str | None) -> str | None:
    if option.takes is Takes.NOTHING:
        return None
    if not (value and value.strip()):
        return f"answer {option.name} for {item_id!r} needs a value"
    if option.takes is Takes.NUMBER and not value.strip().isdecimal():
        return f"answer {option.name} for {item_id!r} needs a number, not {value.strip()!r}"
    return None


def choice(item_id: str, option: str, value: str | None = None) -> Answer:
    """A choice answer as typed: the option lower-cased, the value stripped."""
    return Answer(item_id=item_id, option=option.strip().lower(), value=value.strip() if value else None)


def verdict(item_id: str, text: str, flag: str | None = None, flag_value: str | None = None) -> Answer:
    """A verdict answer as typed: the verdict kept as written (stripped), never read for a flag."""
    return Answer(item_id=item_id, option=VERDICT, value=text.strip(), flag=flag,
                  flag_value=flag_value.strip() if flag_value else None)


def answer_words(answer: Answer) -> str:
    """An answer as the person gave it, for a confirmation line."""
    said = answer.option if answer.value is None else f"{answer.option} {answer.value!r}"
    if answer.option == VERDICT:
        said = f"verdict {answer.value!r}"
    if answer.flag is not None:
        said += f" and {answer.flag}" + (f" {answer.flag_value!r}" if answer.flag_value else "")
    return said


def command_lines(run_id: str, question: Question) -> tuple[str, ...]:
    """The `git distill answer` commands that answer question in paused run run_id."""
    prefix = f"git distill answer {run_id} {question.id}"
    if question.verdict:
        flags = " ".join(f"[--{flag.name}" + ("" if flag.takes is Takes.NOTHING else " VALUE") + "]"
                         for flag in question.flags)
        return (f"{prefix} --verdict TEXT" + (f" {flags}" if flags else ""),)
    return tuple(f"{prefix} {option.name}" + ("" if option.takes is Takes.NOTHING else " VALUE")
                 for option in question.options)


if TYPE_CHECKING:
    Check = Callable[[Question, Answer], "str | None"]  # a kind's own check of an answer (a route resolves)
