"""The vet kind of run for `git distill answer`, `resume` and `runs` (diylisis.app.run_kinds)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from diylisis.core import gate
from diylisis.edges import run_files, vet_runs
from diylisis.edges.vet_gate import FLAGS, instruction_of
from diylisis.edges.workspace import Workspace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from diylisis.app.run_kinds import ResumeRequest

def _open(run: vet_runs.VetRun) -> tuple[str, ...]:
    return tuple(audit for audit in run.formed if run.ledger.get(audit) is None)


class VetRuns:
    """A paused vet run: its open claims are verdict questions with at most one instruction."""

    name = "vet"

    def open_questions(self, workspace: Workspace, run_id: str) -> tuple[gate.Question, ...]:
        """One verdict question per claim still open, with its newest challenge as evidence."""
        run = vet_runs.load(Path(workspace.git_dir), run_id)
        questions = []
        for audit in _open(run):
            newest = max((a for a in run.antitheses if a.audit == audit), key=lambda a: a.index)
            questions.append(gate.Question(
                id=audit, kind="vet", subject=newest.thesis, evidence=(newest.antithesis, *newest.evidence),
                instructions=("withdraw", "revisit CONDITION", "handoff DEFICIT", "nothing"),
                flags=FLAGS, verdict=True))
        return tuple(questions)

    def record_answer(self, workspace: Workspace, run_id: str, answer: gate.Answer) -> tuple[str, ...]:
        """Record the verdict (bound to the claim's open challenge) and the one instruction given."""
        from diylisis.app import vet_session

        withdraw, revisit, handoff = instruction_of(answer)
        return vet_session.answer(Path(workspace.root), Path(workspace.git_dir), run_id, answer.item_id,
                                  answer.value, antithesis=None, withdraw=withdraw, revisit=revisit, handoff=handoff)

    def resume(self, workspace: Workspace, run_id: str, request: ResumeRequest) -> int:
        """Continue the run through the gate the request chooses; its exit code."""
        from diylisis.app import vet_session
        from diylisis.commands.vet import emit
        from diylisis.edges import vet_gate

        outcome = vet_session.resume(Path(workspace.root), Path(workspace.git_dir), run_id,
                                     vet_gate.choose(request.answers_file, request.no_input))
        code: int = emit(outcome, request.output_format)
        return code

    def describe(self, workspace: Workspace, run_id: str) -> dict[str, Any]:
        """The row `git distill runs` shows."""
        run = vet_runs.load(Path(workspace.git_dir), run_id)
        open_items = list(_open(run))
        return {"run": run_id, "kind": self.name, "record": ", ".join(s.path for s in run.sources),
                "status": "paused", "age_seconds": run_files.age_seconds(workspace.git_dir, run_id),
                "what": f"vetting claims for: {run.action}", "open_items": open_items,
                "next": [f"git distill answer {run_id} ID --verdict TEXT", f"git distill resume {run_id}"]}

    def abort(self, workspace: Workspace, run_id: str) -> tuple[str, ...]:
        """Remove the run: vet wrote nothing else before it ends."""
        run_files.remove(workspace.git_dir, run_id)
        return (f"removed vet run {run_id}; no note was written",)


KIND = VetRuns()
