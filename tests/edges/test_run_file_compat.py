"""A run file saved by an earlier version still reads back and resumes.

fixtures/runs/certify-paused-at-a-repair.json was written by `git distill certify TASK.md --role
implementer --no-input --answers <RETRY_ANSWERS>` over the RETRY_DOCS repository, at the version
whose RunState still stored the verdict, the identity digest and the outcome (later versions keep
them out of the run file). It paused with the repair's diff awaiting the author's confirmation."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import RETRY_DOCS, RETRY_TASK, commit, distill

from diylisis.core.state import RunStatus
from diylisis.edges import runs

SAVED = Path(__file__).resolve().parent.parent.parent / "fixtures" / "runs" / "certify-paused-at-a-repair.json"
RUNS = Path(".git") / "distill" / "runs"


def _placed(repo: Path) -> str:
    commit(repo, "Add the retry tasks\n", {**RETRY_DOCS, "TASK.md": RETRY_TASK.read_text()})
    run_id = json.loads(SAVED.read_text())["run_id"]
    (repo / RUNS).mkdir(parents=True)
    shutil.copyfile(SAVED, repo / RUNS / f"{run_id}.json")
    return run_id


def test_the_saved_file_holds_the_fields_later_versions_dropped() -> None:
    saved = json.loads(SAVED.read_text())
    assert saved["status"] == "paused" and saved["proposed_change"].startswith("--- file:TASK.md")
    assert {"verdict", "identity", "outcome"} <= saved.keys()


def test_an_earlier_run_file_loads_as_a_paused_run_with_its_change(repo: Path) -> None:
    run_id = _placed(repo)
    state = runs.load(repo / ".git", run_id)
    assert state.status is RunStatus.PAUSED
    assert state.proposed_change is not None and "+Implement the retry as described in docs/retries.md." \
        in state.proposed_change.splitlines()
    assert len(state.answers) == 6 and state.pass_n == 1
    listed = distill(repo, "runs")
    assert listed.returncode == 0, listed.stderr
    assert run_id in listed.stdout and "damaged" not in listed.stdout


def test_an_earlier_run_file_resumes_to_a_certificate(repo: Path) -> None:
    run_id = _placed(repo)
    resumed = distill(repo, "resume", run_id, "--yes", "--format", "json")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    payload = json.loads(resumed.stdout)
    assert payload["status"] == "certified" and payload["run"] == run_id
    assert "as described in docs/retries.md" in (repo / "TASK.md").read_text()
