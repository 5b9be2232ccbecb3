"""Runs with a kind: one run file format, and `answer`, `resume` and `runs` dispatching by kind."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import RETRY_DOCS, RETRY_TASK, commit, distill

from diylisis.app import run_kinds
from diylisis.edges import run_files

RUNS = Path(".git") / "distill" / "runs"


def _paused(repo: Path) -> str:
    commit(repo, "Add the retry tasks\n", {**RETRY_DOCS, "TASK.md": RETRY_TASK.read_text()})
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input", "--format", "json")
    assert paused.returncode == 3, paused.stdout + paused.stderr
    return json.loads(paused.stdout)["run"]


def test_a_certify_run_file_names_its_kind_and_runs_shows_it(repo: Path) -> None:
    run = _paused(repo)
    saved = json.loads((repo / RUNS / f"{run}.json").read_text())
    assert saved["kind"] == "certify"
    stored = run_files.load(str(repo / ".git"), run)
    assert stored.kind == "certify" and "kind" not in stored.data
    [row] = json.loads(distill(repo, "runs", "--format", "json").stdout)["runs"]
    assert (row["run"], row["kind"], row["status"]) == (run, "certify", "paused")
    assert "certify" in distill(repo, "runs").stdout


def test_a_run_file_without_a_kind_is_a_certification(repo: Path) -> None:
    run = _paused(repo)
    path = repo / RUNS / f"{run}.json"
    data = json.loads(path.read_text())
    del data["kind"]
    path.write_text(json.dumps(data))
    done = distill(repo, "answer", run, "task-4", "drop")
    assert done.returncode == 0, done.stderr
    assert "recorded task-4 = drop" in done.stdout


def test_a_run_of_an_unknown_kind_is_bad_input_everywhere(repo: Path) -> None:
    run = _paused(repo)
    path = repo / RUNS / f"{run}.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), "kind": "divination"}))
    for args in (("answer", run, "task-4", "drop"), ("resume", run), ("runs", "show", run)):
        done = distill(repo, *args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and "'divination'" in done.stderr
    [row] = json.loads(distill(repo, "runs", "--format", "json").stdout)["runs"]
    assert row["status"] == "damaged" and "divination" in row["what"]
    aborted = distill(repo, "runs", "abort", run)
    assert aborted.returncode == 0 and not path.exists()


def test_answer_takes_a_verdict_only_for_a_verdict_question(repo: Path) -> None:
    run = _paused(repo)
    before = (repo / RUNS / f"{run}.json").read_bytes()
    for args in (("--verdict", "fine"), ("drop", "--withdraw"), ()):
        done = distill(repo, "answer", run, "task-4", *args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1
    assert (repo / RUNS / f"{run}.json").read_bytes() == before


def test_the_registry_names_every_kind_and_refuses_others() -> None:
    assert run_kinds.kind_named("certify").name == "certify"
    try:
        run_kinds.kind_named("divination")
    except run_kinds.BadInput as error:
        assert "certify" in error.message
    else:
        raise AssertionError("an unknown kind was accepted")
