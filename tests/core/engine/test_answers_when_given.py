"""Answers are checked when they are given, and a run asks all it needs in its first pause."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import RETRY_ANSWERS, RETRY_DOCS, RETRY_TASK, commit, distill, git

from tests.terminal import converse

RUNS = Path(".git") / "distill" / "runs"


def _task_repo(repo: Path) -> str:
    commit(repo, "Add the retry tasks\n", {**RETRY_DOCS, "TASK.md": RETRY_TASK.read_text()})
    return git(repo, "rev-parse", "HEAD")


def test_a_route_that_does_not_resolve_is_refused_when_answered(repo: Path) -> None:
    _task_repo(repo)
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input", "--format", "json")
    run = json.loads(paused.stdout)["run"]
    before = (repo / RUNS / f"{run}.json").read_bytes()
    refused = distill(repo, "answer", run, "tmp-run3-log", "route", "docs/nothere.md")
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "does not resolve" in refused.stderr and "docs/nothere.md" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert (repo / RUNS / f"{run}.json").read_bytes() == before
    taken = distill(repo, "answer", run, "tmp-run3-log", "route", "docs/retries.md")
    assert taken.returncode == 0, taken.stderr


def test_an_answers_file_with_a_route_that_does_not_resolve_changes_nothing(repo: Path, tmp_path: Path) -> None:
    head = _task_repo(repo)
    answers = tmp_path / "answers.toml"
    answers.write_text(RETRY_ANSWERS.replace('{ route = "docs/retries.md" }', '{ route = "docs/gone.md" }'))
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--answers", str(answers))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"answers file {answers}" in done.stderr and "does not resolve" in done.stderr
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "status", "--porcelain") == ""
    assert not (repo / RUNS).exists() or not list((repo / RUNS).iterdir())


def test_the_first_pause_asks_the_premises_too_and_one_resume_certifies(repo: Path) -> None:
    _task_repo(repo)
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input", "--format", "json")
    assert paused.returncode == 3, paused.stdout + paused.stderr
    payload = json.loads(paused.stdout)
    run, asked = payload["run"], [item["id"] for item in payload["items"]]
    assert "qp-consumer" in asked and "qp-authority" in asked
    for args in (("as-above", "resolve", "as described in docs/retries.md"), ("task-4", "drop"),
                 ("tmp-run3-log", "route", "docs/retries.md"), ("decision-1", "resolve", "src/upload.py"),
                 ("qp-consumer", "value", "an agent with repository access"), ("qp-authority", "value", "derived")):
        if args[0] in asked:
            given = distill(repo, "answer", run, *args)
            assert given.returncode == 0, given.stderr
    resumed = distill(repo, "resume", run, "--no-input", "--yes", "--format", "json")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert json.loads(resumed.stdout)["status"] == "certified"


def test_the_terminal_asks_again_when_a_route_does_not_resolve(repo: Path) -> None:
    commit(repo, "Add task\n", {"docs/a.md": "# A\n", "TASK.md": "Implement it as above.\n"})
    code, screen = converse(repo, [sys.executable, "-m", "diylisis", "certify", "TASK.md", "--role", "implementer"],
                            [("[resolve/route/drop/defer]", "route"), ("route with", "docs/missing.md"),
                             ("[resolve/route/drop/defer]", "route"), ("route with", "docs/a.md"),
                             ("answer", "an agent with the repository"), ("answer", "derived"),
                             ("[y/n]", "y")])
    assert "does not resolve" in screen and "docs/missing.md" in screen
    assert code == 0, screen
