"""Certify's kind of run for `git distill answer`, `resume` and `runs` (see diylisis.app.run_kinds)."""

from __future__ import annotations

from msgspec import Struct

from diylisis.app.run_kinds import ResumeRequest
from diylisis.core import gate

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from typing import Any

    from diylisis.edges.workspace import Workspace


def gate_for(workspace: Workspace, target: Any, answers_file: Any, no_input: bool, yes: bool = False) -> Any:
    """Certify's gate: the answers file's, the terminal's, or paused; each checks answers when given."""
    from diylisis.app import certification
    from diylisis.edges import certify_gate as certify_gate

    check = certification.answer_check(workspace, target)
    if answers_file is not None:
        from diylisis.core.errors import BadInput

        answers = certify_gate.load_answers(answers_file)
        for answer in answers:  # a route that does not resolve is refused before the first pass
            wrong = check(certify_gate.template_for(answer.item_id), answer)
            if wrong is not None:
                raise BadInput(f"answers file {answers_file}: {wrong}")
        return certify_gate.AnswersGate(answers=answers, source=str(answers_file), check=check, yes=yes)
    import sys

    if not no_input and sys.stdin.isatty():
        return certify_gate.InteractiveGate(check=check, yes=yes)
    return certify_gate.PausedGate(yes=yes)


def emit(result: Any, output_format: str, verbose: bool = False) -> int:
    """Print a certification's result (stdout) and return its exit code."""
    import sys

    from diylisis.core.errors import EXIT_FAILED, EXIT_OK, EXIT_PAUSED
    from diylisis.core.state import RunStatus
    from diylisis.edges import render

    text = render.result_json(result) + "\n" if output_format == "json" else render.result_text(result, verbose)
    sys.stdout.write(text)
    sys.stdout.flush()
    return {RunStatus.CERTIFIED: EXIT_OK, RunStatus.PAUSED: EXIT_PAUSED}.get(result.state.status, EXIT_FAILED)


class CertifyRuns(Struct, frozen=True, kw_only=True):
    name: str = "certify"

    def open_questions(self, workspace: Workspace, run_id: str) -> tuple[gate.Question, ...]:
        from diylisis.edges import runs
        from diylisis.edges.certify_gate import as_gate_question

        return tuple(as_gate_question(q) for q in runs.load(workspace.git_dir, run_id).open_questions)

    def record_answer(self, workspace: Workspace, run_id: str, answer: gate.Answer) -> tuple[str, ...]:
        from diylisis.app import certification

        state = certification.answer(workspace, run_id, answer)
        return tuple(q.id for q in state.open_questions if all(a.item_id != q.id for a in state.answers))

    def resume(self, workspace: Workspace, run_id: str, request: ResumeRequest) -> int:
        from diylisis.app import certification
        from diylisis.edges import runs

        workspace = certification.with_signing(workspace, request.sign)
        target = runs.load(workspace.git_dir, run_id).target
        result = certification.resume(workspace, run_id, gate_for(workspace, target, request.answers_file,
                                                                   request.no_input, request.yes))
        return emit(result, request.output_format, request.verbose)

    def describe(self, workspace: Workspace, run_id: str) -> dict[str, Any]:
        from diylisis.edges import runs

        return {"kind": self.name, **runs.describe(workspace.root, workspace.git_dir, run_id)}

    def abort(self, workspace: Workspace, run_id: str) -> tuple[str, ...]:
        from diylisis.edges import repair_commit, runs

        state, pending = runs.load_with_pending(workspace.git_dir, run_id)
        said: tuple[str, ...] = repair_commit.abort(workspace.root, workspace.git_dir, state, pending)
        return said


KIND = CertifyRuns()
