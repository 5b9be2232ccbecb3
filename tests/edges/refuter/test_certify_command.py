"""certify, verify, show, brief and refuter-prompt with a command refuter, end to end."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from conftest import commit, distill, git
from refuter_helpers import fixture_command

from diylisis.edges.refuter import command as command_realization

RECORD = "Fix the flaky upload test\n\nThe upload test now retries three times before failing.\n"
OTHER = "Document the retry limit\n\nThe retry limit of three is stated in the readme.\n"


@pytest.fixture(autouse=True)
def user_config_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This test's own XDG_CONFIG_HOME, where configure() writes the user's refuter settings."""
    path = tmp_path / "xdg-config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(path))
    return path


def configure(repo: Path, name: str | None, **settings: object) -> None:
    """[refuter] in the user's own config (a committed config may not name a command)."""
    lines = ["[refuter]"]
    if name is not None:
        lines.append("command = " + json.dumps(list(fixture_command(name))))
    lines += [f"{key} = {json.dumps(value)}" for key, value in settings.items()]
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "diylisis" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def logged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "refuter-log.jsonl"
    monkeypatch.setenv("REFUTER_LOG", str(path))
    return path


def calls(log: Path) -> list[dict]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def notes(repo: Path) -> str:
    return git(repo, "notes", "--ref=distill", "list", check=False)


def certificate_of(repo: Path) -> dict:
    shown = distill(repo, "show", "HEAD", "--format", "json")
    return json.loads(shown.stdout)["certificates"][0]


def test_failing_refuter_finding_reaches_the_gate_and_the_next_pass_redispatches(
        repo: Path, logged: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    commit(repo, RECORD)
    configure(repo, "failing_once")
    monkeypatch.setenv("REFUTER_TOKEN", "flaky upload")
    paused = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input")
    assert paused.returncode == 3, paused.stdout + paused.stderr
    assert "'flaky upload'" in paused.stdout and "the record never says what this is" in paused.stdout
    assert notes(repo) == ""

    logged.unlink()
    answers = tmp_path / "answers.toml"
    answers.write_text('refuter-flaky-upload = { defer = "until the test is renamed" }\n'
                       'qp-consumer = { value = "a person with repository access" }\n'
                       'qp-authority = { value = "derived" }\n')
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--yes", "--answers", str(answers))
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(calls(logged)) == 2  # Fail on the first pass, Pass on the second
    certificate = certificate_of(repo)
    assert certificate["realization"] == "generic-subagent"
    assert [row["category"] for row in certificate["sweep"]] == list(range(1, 12))
    assert all(row["status"] == "clear" and row["checked"] for row in certificate["sweep"])
    assert any("until the test is renamed" in premise
               for premise in certificate["reception"]["premises"])


def test_failing_refuter_finding_is_repaired_in_place_and_the_next_dispatch_reads_the_repair(
        repo: Path, logged: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    commit(repo, "Add the upload task\n",
           {"TASK.md": "# Upload task\n\nMake uploads retry as discussed, at most three times.\n"})
    configure(repo, "failing_once")
    monkeypatch.setenv("REFUTER_TOKEN", "as discussed")
    answers = tmp_path / "answers.toml"
    answers.write_text('as-discussed = { resolve = "because mobile uploads fail transiently" }\n'
                       'qp-consumer = { value = "an agent with repository access" }\n'
                       'qp-authority = { value = "derived" }\n')
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--yes", "--answers", str(answers))
    assert done.returncode == 0, done.stdout + done.stderr
    seen = [call["token_line"] for call in calls(logged)]
    assert seen[0] == 3 and seen[-1] is None and len(seen) >= 2, seen
    assert (repo / "TASK.md").read_text() == (
        "# Upload task\n\nMake uploads retry because mobile uploads fail transiently, "
        "at most three times.\n")
    shown = json.loads(distill(repo, "show", "TASK.md", "--format", "json").stdout)
    certificate = shown["certificates"][0]
    assert certificate["outcome"] == "repaired"
    assert certificate["realization"] == "generic-subagent"


def test_malformed_verdict_is_redispatched_then_certify_exits_1_without_a_certificate(
        repo: Path, logged: Path) -> None:
    commit(repo, RECORD)
    configure(repo, "malformed", retries=2)
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input")
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(calls(logged)) == 3
    for attempt in (1, 2, 3):
        assert f"attempt {attempt}: the Realization line says 'refuter-subagent'" in done.stderr
        assert f"attempt {attempt}: the sweep lacks a valid row for category 2, 4" in done.stderr
    assert "no certificate was issued" in done.stderr
    assert notes(repo) == ""


def test_hanging_refuter_is_killed_at_the_timeout(repo: Path, logged: Path) -> None:
    commit(repo, RECORD)
    configure(repo, "hanging", timeout=2, retries=0)
    started = time.monotonic()
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input")
    assert time.monotonic() - started < 30
    assert done.returncode == 1, done.stdout + done.stderr
    assert "no answer within 2 s; the process group was killed" in done.stderr
    assert len(calls(logged)) == 1
    assert notes(repo) == ""


def test_min_realization_passes_a_command_certificate_and_fails_a_lint_one(repo: Path) -> None:
    configure(repo, "passing")
    commit(repo, OTHER, {"README.md": "Uploads retry three times.\n"})
    lint = distill(repo, "certify", "HEAD", "--role", "reviewer", "--refuter", "lint", "--no-input")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert certificate_of(repo)["realization"] == "lint-fallback"
    linted = git(repo, "rev-parse", "HEAD").strip()

    commit(repo, RECORD)
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input")
    assert done.returncode == 0, done.stdout + done.stderr
    assert certificate_of(repo)["realization"] == "generic-subagent"

    bar = ("--role", "reviewer", "--min-realization", "generic-subagent")
    assert distill(repo, "verify", "HEAD", *bar).returncode == 0
    below = distill(repo, "verify", linted, *bar)
    assert below.returncode == 1
    assert "below: refuter lint-fallback is below the required generic-subagent" in below.stdout
    assert distill(repo, "verify", "HEAD", "--role", "reviewer", "--min-realization",
                   "refuter-subagent").returncode == 1
    assert distill(repo, "verify", linted, "--role", "reviewer", "--min-realization",
                   "lint-fallback").returncode == 0

    assert "read by a fresh agent process" in distill(repo, "show", "HEAD").stdout
    brief = distill(repo, "brief", linted, "--role", "reviewer").stdout
    assert "lint-fallback — checked by the built-in deterministic lint, not by a fresh reader" in brief


def test_refuter_command_without_a_configured_command_is_exit_2_and_writes_nothing(
        repo: Path) -> None:
    commit(repo, RECORD)
    configure(repo, None)
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--refuter", "command")
    assert done.returncode == 2
    assert "--refuter command needs a command: set [refuter] command" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert notes(repo) == "" and not (repo / ".git" / "distill").exists()


@pytest.mark.skipif(not command_realization.sandbox_available(),
                    reason="no user namespaces on this machine")
def test_refuter_run_by_certify_cannot_change_the_work_tree_or_refs(repo: Path,
                                                                     logged: Path) -> None:
    commit(repo, RECORD, {"README.md": "the project\n"})
    configure(repo, "malicious")
    before = (git(repo, "for-each-ref", "refs/heads", "refs/tags"), git(repo, "rev-parse", "HEAD"),
              git(repo, "status", "--porcelain", "--untracked-files=all"),
              (repo / "README.md").read_text())
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input")
    assert done.returncode == 0, done.stdout + done.stderr
    after = (git(repo, "for-each-ref", "refs/heads", "refs/tags"), git(repo, "rev-parse", "HEAD"),
             git(repo, "status", "--porcelain", "--untracked-files=all"),
             (repo / "README.md").read_text())
    assert after == before
    (call,) = calls(logged)
    assert call["attempts"] and all(v != "ok" for v in call["attempts"].values()), call["attempts"]


def test_refuter_prompt_prints_the_prompt_and_writes_nothing(repo: Path) -> None:
    commit(repo, RECORD)
    done = distill(repo, "refuter-prompt", "HEAD", "--role", "reviewer",
                   "--realization", "refuter-subagent")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("# Refuter instructions")
    assert "Realization: refuter-subagent" in done.stdout
    assert "1| Fix the flaky upload test\n" in done.stdout
    assert "- role: reviewer" in done.stdout
    assert notes(repo) == "" and not (repo / ".git" / "distill").exists()
