"""F0 contract guards on real repositories: contract provenance (Rule 29), competence
substitution (Rule 27) and content_free(edge) (Rule 26, category 8)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import commit, distill

TASK = "# Task\n\nAdd a --json flag to the models list command. It prints model_id and aliases keys.\n"
FILES = {"TASK.md": TASK, "docs/cli.md": "# CLI\n"}


def _run_file(repo: Path, run_id: str) -> dict:
    return json.loads((repo / ".git" / "distill" / "runs" / f"{run_id}.json").read_text(encoding="utf-8"))


def _marks(run: dict) -> dict[str, dict]:
    return {mark["field"]: mark for mark in run["contract_provenance"]}


def test_rule29_field_is_user_stated_only_when_the_utterance_carries_it(repo: Path) -> None:
    commit(repo, "Add the task\n", FILES)
    utterance = "please certify TASK.md so someone can implement the --json flag"
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer",
                     "--activity", "implement the --json flag", "--scope", "may also refactor the whole CLI module",
                     "--utterance", utterance, "--no-input", "--format", "json")
    assert paused.returncode == 3, paused.stdout + paused.stderr
    report = json.loads(paused.stdout)
    assert [item["id"] for item in report["items"]] == ["contract-scope"]
    run = _run_file(repo, report["run"])
    assert _marks(run)["activity"]["provenance"] == "user_stated"
    assert _marks(run)["scope"]["provenance"] == "ai_authored"
    assert run["utterances"] == [utterance]  # only the user's words, nothing the tool composed


def test_rule29_no_utterance_marks_every_field_ai_authored(repo: Path) -> None:
    commit(repo, "Add the task\n", FILES)
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--activity", "implement the flag",
                     "--stop", "the flag prints JSON", "--no-input", "--format", "json")
    assert paused.returncode == 3, paused.stdout + paused.stderr
    report = json.loads(paused.stdout)
    assert {item["id"] for item in report["items"]} == {"contract-activity", "contract-stop"}
    run = _run_file(repo, report["run"])
    assert run["utterances"] == []
    assert {mark["provenance"] for mark in run["contract_provenance"]} == {"ai_authored"}


def test_rule29_confirmed_by_the_user_is_not_stated_by_the_user(repo: Path) -> None:
    commit(repo, "Add the task\n", FILES)
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--activity", "implement the flag",
                     "--stop", "the flag prints JSON", "--no-input", "--format", "json")
    run_id = json.loads(paused.stdout)["run"]
    assert distill(repo, "answer", run_id, "contract-activity", "confirm").returncode == 0
    assert distill(repo, "answer", run_id, "contract-stop", "correct", "stop when the flag prints JSON").returncode == 0
    done = distill(repo, "resume", run_id, "--no-input", "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    marks = _marks(_run_file(repo, run_id))
    assert marks["activity"]["provenance"] == "ai_authored" and marks["activity"]["confirmed"]
    assert marks["stop"]["provenance"] == "user_stated" and not marks["stop"]["confirmed"]
    assert json.loads(done.stdout)["certificate"]["reception"]["stop"] == "stop when the flag prints JSON"
