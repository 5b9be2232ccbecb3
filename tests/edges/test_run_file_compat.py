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


def _stopped(repo: Path, reason: str | None) -> str:
    """The saved run, as a stopped run's file: with an earlier version's reason, or none (the later files)."""
    run_id = _placed(repo)
    path = repo / RUNS / f"{run_id}.json"
    saved = json.loads(path.read_text())
    saved.pop("stop_reason")
    path.write_text(json.dumps(saved | {"status": "stopped"} | ({} if reason is None else {"stop_reason": reason})))
    return run_id


def test_a_stopped_run_file_shows_the_reason_an_earlier_version_kept(repo: Path) -> None:
    run_id = _stopped(repo, "no fixed point after 9 passes")
    assert runs.describe(str(repo), str(repo / ".git"), run_id)["what"] == "no fixed point after 9 passes"
    shown = distill(repo, "runs", "show", run_id)
    assert shown.returncode == 0, shown.stderr
    assert "  no fixed point after 9 passes" in shown.stdout.splitlines()


def test_a_stopped_run_file_without_a_reason_says_it_is_not_kept(repo: Path) -> None:
    run_id = _stopped(repo, None)
    what = runs.describe(str(repo), str(repo / ".git"), run_id)["what"]
    assert what.startswith("stopped in pass 1; the run file does not keep the reason")
