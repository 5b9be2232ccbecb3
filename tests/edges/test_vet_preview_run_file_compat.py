"""Vet and preview run files saved by an earlier version still read back and resume.

fixtures/runs/vet-paused-at-two-claims.json was written by `vet_session.start(..., MERGE,
PausedGate())` over the vet fixture (tests/vet_fixture.py, fixed dates): it paused on the two
claims of docs/design.md it asks, a third settled by the certificate.

fixtures/runs/preview-paused-at-the-spec-gate.json was written by `git distill preview` with the
three cache candidates, one axis and `--no-input` over a repository holding one commit of app.py
dated 2024-01-02; it paused at the spec gate before any probe was made. Its `before` fingerprint
(file sizes and times of the repository it ran in) is blanked in the fixture and taken from the
repository the test places it in, so that only the stored format is under test."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from diylisis.app import preview, vet_session
from diylisis.core.vet import judgment
from diylisis.edges import run_files, vet_note, vet_runs
from diylisis.edges.gate import PausedGate
from tests.conftest import distill
from tests.vet_fixture import VERDICTS, build, commit_at

RUNS = Path(__file__).resolve().parent.parent.parent / "fixtures" / "runs"
VET = RUNS / "vet-paused-at-two-claims.json"
PREVIEW = RUNS / "preview-paused-at-the-spec-gate.json"


def _place(repo: Path, saved: Path, data: dict[str, object] | None = None) -> str:
    stored = json.loads(saved.read_text(encoding="utf-8"))
    run_id = str(stored["run"])
    folder = repo / ".git" / "distill" / "runs"
    folder.mkdir(parents=True, exist_ok=True)
    if data is None:
        shutil.copyfile(saved, folder / f"{run_id}.json")
    else:
        (folder / f"{run_id}.json").write_text(json.dumps({**stored, **data}, indent=1), encoding="utf-8")
    return run_id


def test_an_earlier_vet_run_file_loads_with_its_pinned_sources_and_open_claims(repo: Path) -> None:
    build(repo)
    run_id = _place(repo, VET)
    run = vet_runs.load(repo / ".git", run_id)
    assert run.commit == json.loads(VET.read_text())["commit"]
    assert {s.path for s in run.sources} >= {"docs/design.md"}
    assert len([audit for audit in run.formed if run.ledger.get(audit) is None]) == 2
    assert all(e.assigned_by is judgment.AssignedBy.CERTIFICATE for e in run.ledger.entries)
    listed = distill(repo, "runs")
    assert listed.returncode == 0 and run_id in listed.stdout and "damaged" not in listed.stdout, listed.stderr


def test_an_earlier_vet_run_file_is_answered_and_resumes_to_a_note(repo: Path) -> None:
    build(repo)
    run_id = _place(repo, VET)
    run = vet_runs.load(repo / ".git", run_id)
    by_claim = {a.thesis: a for a in run.antitheses}
    for claim, (verdict, instruction) in VERDICTS.items():
        antithesis = by_claim[claim]
        vet_session.answer(repo, repo / ".git", run_id, antithesis.audit, verdict, antithesis=antithesis.index,
                           withdraw=instruction == "withdraw", revisit=None, handoff=None)
    done = vet_session.resume(repo, repo / ".git", run_id, PausedGate())
    assert isinstance(done, vet_session.Vetted)
    assert not Path(run_files.run_file(repo / ".git", run_id)).exists()
    stored = vet_note.read(repo, run.commit)
    assert len(stored) == 1 and stored[0]["action"] == run.action


def test_an_earlier_preview_run_file_is_listed_answered_and_resumes_to_an_exit(repo: Path) -> None:
    base = commit_at(repo, "2024-01-02", "Add the app\n", {"app.py": "print('hello')\n"})
    saved = json.loads(PREVIEW.read_text(encoding="utf-8"))
    assert saved["base"] == base and saved["next"] == "qspec" and saved["before"] == {}
    run_id = _place(repo, PREVIEW)
    _place(repo, PREVIEW, {"before": preview.repository_marks(repo)})
    listed = distill(repo, "runs")
    assert listed.returncode == 0 and run_id in listed.stdout and "damaged" not in listed.stdout, listed.stderr
    assert distill(repo, "answer", run_id, "qspec-1", "select", "1").returncode == 2
    answered = distill(repo, "answer", run_id, "qspec-1", "withdraw")
    assert answered.returncode == 0, answered.stderr
    resumed = distill(repo, "resume", run_id, "--no-input", "--format", "json")
    assert resumed.returncode == 1, resumed.stdout + resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["arm"] == "EarlyExit" and report["status"] == "done" and "repository_changed" not in report
    assert report["record"]["candidates"] == saved["candidates"] and report["record"]["discard_trace"] == []
