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
    marks = _marks(json.loads(done.stdout))  # the run file is gone once the run is certified
    assert marks["activity"]["provenance"] == "ai_authored" and marks["activity"]["confirmed"]
    assert marks["stop"]["provenance"] == "user_stated" and not marks["stop"]["confirmed"]
    assert json.loads(done.stdout)["certificate"]["reception"]["stop"] == "stop when the flag prints JSON"


# --- Rule 27: the competence-substitution guard ---------------------------------------------


def test_rule27_debugging_and_deploying_are_judgment_bearing(repo: Path) -> None:
    commit(repo, "Add the task\n", FILES)
    activity = "debug and deploy the cache fix by running the author's deploy.sh steps exactly as written"
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--activity", activity)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "deploy.sh" in done.stderr and "owns the method" in done.stderr


def test_rule27_a_bare_verify_command_is_no_verified_operative_artifact(repo: Path) -> None:
    commit(repo, "Add the task\n", FILES)
    done = distill(repo, "certify", "TASK.md", "--role", "reviewer",
                   "--activity", "review the change using the author's checklist.sh", "--verify", "true")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "owns the method" in done.stderr


def test_rule27_a_granted_replayed_artifact_that_resolves_passes_f0(repo: Path) -> None:
    commit(repo, "Add the task\n", {**FILES, "scripts/deploy.sh": "#!/bin/sh\necho deploy\n"})
    activity = "deploy the cache fix by running scripts/deploy.sh exactly as written"
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--activity", activity,
                   "--source", "scripts/deploy.sh", "--verify", "sh scripts/deploy.sh --dry-run",
                   "--utterance", activity + ", reading scripts/deploy.sh", "--no-input", "--format", "json")
    assert done.returncode in (0, 3), done.stdout + done.stderr  # past F0: certified or asking for judgment


# --- content_free(edge): the activation verb carries no task content (category 8) ----------


def test_rule26_activation_verb_must_not_restate_the_target(repo: Path) -> None:
    commit(repo, "Add the task\n", FILES)
    done = distill(repo, "certify", "TASK.md", "--role", "implementer",
                   "--verb", "Read {locator} and add model_id and aliases keys to the JSON array")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "activation verb" in done.stderr and "aliases" in done.stderr
    minimal = distill(repo, "certify", "TASK.md", "--role", "implementer", "--verb", "Read {locator} and carry it out",
                      "--no-input")
    assert minimal.returncode != 2, minimal.stderr


def test_rule27_implement_alone_never_trips() -> None:
    from diylisis.core.model import Contract
    from diylisis.core.phases.f0_contract import competence_substitution

    def nothing_resolves(locator: str) -> bool:
        return False

    assert competence_substitution(Contract(role="implementer", activity="implement the --json flag"),
                                   nothing_resolves) is None
    assert competence_substitution(Contract(role="implementer", activity="implement the flag using the existing "
                                                                         "formatter"), nothing_resolves) is None
    assert competence_substitution(Contract(role="implementer", activity="deploy it by running ops/ship.sh"),
                                   nothing_resolves) is not None


def test_rule4_contract_needs_a_recipient_role(repo: Path) -> None:
    commit(repo, "Add the task\n", FILES)
    done = distill(repo, "certify", "TASK.md", "--no-input")
    assert done.returncode == 2 and "recipient role" in done.stderr
    assert not (repo / ".git" / "distill").exists()
