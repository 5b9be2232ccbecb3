"""F7's identity re-check (Rule 24): the certificate is issued only over the bytes the settling
pass reviewed; a record edited after that pass re-enters the loop, and what the pass settled on
(its verdict and the reviewed digest) is handed to F7 without passing through the run state."""

from __future__ import annotations

from pathlib import Path

from conftest import commit
from msgspec.structs import replace

from diylisis.app import certification
from diylisis.core import codec, engine
from diylisis.core.model import RecordKind, Target, sha256_digest
from diylisis.core.state import RunState, RunStatus
from diylisis.edges.certify_gate import PausedGate
from diylisis.edges.config import ContractFields

FIRST = "# Export\n\nAdd a --json flag to the export command.\n"
LATER = FIRST + "It prints one object per line.\n"


def _run(repo: Path, edit_after_pass: int | None) -> tuple[engine.Result, list[RunState]]:
    commit(repo, "Add the export task\n", {"TASK.md": FIRST})
    workspace = certification.Workspace.open(repo)
    target = Target(kind=RecordKind.FILE, locator="TASK.md")
    state = certification.start(workspace, target, ContractFields(role="implementer"), ("implement it",))
    edges = certification.edges(workspace, target, PausedGate(), check_only=True)
    saved: list[RunState] = []

    def save(state: RunState) -> None:
        saved.append(state)
        if state.pass_n == edit_after_pass and (repo / "TASK.md").read_text() == FIRST:
            (repo / "TASK.md").write_text(LATER)  # an editor saves the file while the run goes on

    return engine.run(state, replace(edges, save=save)), saved


def test_a_record_edited_after_the_settling_pass_is_reviewed_again(repo: Path) -> None:
    result, saved = _run(repo, edit_after_pass=1)
    assert isinstance(result, engine.Certified), result
    assert result.state.status is RunStatus.CERTIFIED
    assert result.certificate.identity.digest == sha256_digest(LATER.encode())
    assert [s.pass_n for s in saved if s.status is RunStatus.RUNNING] == [1, 2]


def test_an_unedited_record_is_certified_after_one_pass(repo: Path) -> None:
    result, saved = _run(repo, edit_after_pass=None)
    assert isinstance(result, engine.Certified) and result.state.pass_n == 1
    assert result.certificate.identity.digest == sha256_digest(FIRST.encode())
    written = codec.encode(result.state)
    assert {"identity", "outcome", "verdict"}.isdisjoint(written) and written["stop_reason"] is None
    assert result.certificate.outcome == "already-portable"
