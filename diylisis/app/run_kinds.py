"""The kinds of run (`certify`, `vet`, `preview`) behind `git distill answer`, `resume` and `runs`.

API (vet and preview register here):
- A kind is a module listed in `KINDS` (kind name -> module name, imported only when a run of
  that kind is acted on) whose `KIND` object satisfies `RunKind`:
  - `open_questions(workspace, run_id)`: the questions a paused run waits on, as
    `diylisis.core.gate.Question`s (the options for an item);
  - `record_answer(workspace, run_id, answer) -> tuple[str, ...]`: check the answer (shape
    and the kind's own checks; a misfit is BadInput, nothing written), save it in the run
    file, and return the ids still open;
  - `resume(workspace, run_id, request: ResumeRequest) -> int`: continue the run; the exit code;
  - `describe(workspace, run_id) -> dict`: the row `git distill runs` shows (at least
    `run`, `kind`, `record`, `status`, `age_seconds`, `what`, `open_items`, and `next`, a list of commands);
  - `abort(workspace, run_id) -> tuple[str, ...]`: undo what the run left half done and
    remove it; sentences saying what was done.
- `workspace` is `diylisis.edges.workspace.Workspace` (root, git_dir, config).
- `kind_of_run(workspace, run_id)` reads a run file's kind (`diylisis.edges.run_files.load`) and
  returns its `RunKind`; an unknown kind is exit 2.
- `answer_from_arguments(...)`: the `git distill answer` arguments as one `Answer`.
"""

from __future__ import annotations

import importlib

from msgspec import Struct

from diylisis.core import gate
from diylisis.core.errors import BadInput
from diylisis.edges import run_files

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Protocol

    from diylisis.edges.workspace import Workspace
else:
    Protocol = object  # a protocol only types: nothing checks isinstance against it

# Explicit, not discovered: a kind's module is imported when a run of that kind is acted on.
KINDS: dict[str, str] = {
    "certify": "diylisis.app.certify_runs",
    "vet": "diylisis.app.vet_run_kind",
    "preview": "diylisis.app.preview_runs",
}


class ResumeRequest(Struct, frozen=True, kw_only=True):
    """What `git distill resume` was given besides the run id."""

    answers_file: Path | None = None
    no_input: bool = False
    output_format: str = "text"
    sign: bool | None = None
    yes: bool = False  # apply a shown change without asking (certify's repaired text)
    verbose: bool = False  # the protocol's own terms in the text output


class RunKind(Protocol):
    name: str

    def open_questions(self, workspace: Workspace, run_id: str) -> tuple[gate.Question, ...]: ...

    def record_answer(self, workspace: Workspace, run_id: str, answer: gate.Answer) -> tuple[str, ...]: ...

    def resume(self, workspace: Workspace, run_id: str, request: ResumeRequest) -> int: ...

    def describe(self, workspace: Workspace, run_id: str) -> dict[str, Any]: ...

    def abort(self, workspace: Workspace, run_id: str) -> tuple[str, ...]: ...


def kind_named(name: str) -> RunKind:
    """The registered kind called name; an unknown one is exit 2."""
    module = KINDS.get(name)
    if module is None:
        raise BadInput(f"runs of kind {name!r} are not known to this version (known: {', '.join(KINDS)})")
    kind: RunKind = importlib.import_module(module).KIND
    return kind


def kind_of_run(workspace: Workspace, run_id: str) -> RunKind:
    """The kind of the saved run run_id (exit 2 when there is none, or its file is damaged)."""
    return kind_named(run_files.load(workspace.git_dir, run_id).kind)


def question_for(kind: RunKind, workspace: Workspace, run_id: str, item_id: str) -> gate.Question:
    """The open question item_id of a paused run; exit 2 naming the open ones when there is none."""
    questions = kind.open_questions(workspace, run_id)
    found = next((q for q in questions if q.id == item_id), None)
    if found is None:
        open_ids = ", ".join(q.id for q in questions) or "none"
        raise BadInput(f"run {run_id} has no open item {item_id}; open: {open_ids}")
    return found


def answer_from_arguments(question: gate.Question, option: str | None, value: str | None,
                          verdict: str | None, flags: dict[str, str | bool | None]) -> gate.Answer:
    """The arguments of `git distill answer` as one answer to question, checked for its shape."""
    given = {name: flag for name, flag in flags.items() if flag not in (None, False)}
    if question.verdict:
        if option is not None:
            raise BadInput(f"{question.id} takes --verdict TEXT, not {option!r}")
        if verdict is None:
            raise BadInput(f"{question.id} needs --verdict TEXT: your judgment in your own words")
        if len(given) > 1:
            raise BadInput(f"{question.id} takes at most one of {', '.join('--' + n for n in given)}")
        (flag, flag_value), = given.items() if given else ((None, None),)
        answer = gate.verdict(question.id, verdict, flag, flag_value if isinstance(flag_value, str) else None)
    else:
        if verdict is not None or given:
            raise BadInput(f"{question.id} takes one of {' | '.join(question.option_names)}, not a verdict")
        if option is None:
            raise BadInput(f"{question.id} needs an answer: one of {' | '.join(question.option_names)}")
        answer = gate.choice(question.id, option, value)
    wrong = gate.problem(question, answer)
    if wrong is not None:
        raise BadInput(wrong)
    return answer
