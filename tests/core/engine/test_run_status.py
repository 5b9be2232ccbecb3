"""Run status, outcome and sweep status are enums whose values are the words run files, notes
and `--format json` have always carried: files written before still load, and an unknown word
is a damaged file, not a crash."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import RETRY_DOCS, RETRY_TASK, commit, distill

from diylisis.core.model import Outcome, SweepStatus
from diylisis.core.refuter.verdict import SWEEP_STATUSES
from diylisis.core.state import RunStatus
from diylisis.edges import runs

RUNS = Path(".git") / "distill" / "runs"


def _paused_run(repo: Path) -> tuple[str, Path]:
    commit(repo, "Add the retry tasks\n", {**RETRY_DOCS, "TASK.md": RETRY_TASK.read_text()})
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input", "--format", "json")
    assert paused.returncode == 3, paused.stdout + paused.stderr
    payload = json.loads(paused.stdout)
    assert payload["status"] == "paused"
    return payload["run"], repo / RUNS / f"{payload['run']}.json"


def test_a_run_file_keeps_the_plain_word_and_loads_as_the_enum(repo: Path) -> None:
    run_id, path = _paused_run(repo)
    written = json.loads(path.read_text())
    assert written["status"] == "paused" and type(written["status"]) is str
    state = runs.load(repo / ".git", run_id)
    assert state.status is RunStatus.PAUSED
    assert {"identity", "outcome", "verdict"}.isdisjoint(written)  # the certificate carries its outcome


def test_a_run_file_with_an_unknown_status_is_listed_as_damaged(repo: Path) -> None:
    run_id, path = _paused_run(repo)
    written = json.loads(path.read_text())
    written["status"] = "half-done"
    path.write_text(json.dumps(written))
    listed = distill(repo, "runs")
    assert listed.returncode == 0, listed.stderr
    assert "damaged" in listed.stdout and "Traceback" not in listed.stderr
    resumed = distill(repo, "resume", run_id)
    assert resumed.returncode == 2, resumed.stdout + resumed.stderr
    assert "Traceback" not in resumed.stderr


def test_the_enum_values_are_the_words_of_the_documents() -> None:
    assert [status.value for status in RunStatus] == ["running", "paused", "certified", "stopped"]
    assert [outcome.value for outcome in Outcome] == ["already-portable", "repaired"]
    assert SWEEP_STATUSES == ("clear", "finding", "not-applicable") == tuple(SweepStatus)
    assert json.dumps({"status": RunStatus.PAUSED, "outcome": Outcome.REPAIRED}) == \
        '{"status": "paused", "outcome": "repaired"}'
