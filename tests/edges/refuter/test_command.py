"""Dispatch to a refuter command: export, environment, re-dispatch, timeout, protection."""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path

import pytest
from conftest import commit, git
from msgspec.structs import replace
from refuter_helpers import refuter_input, settings

from diylisis.core.errors import ConfigError, GitError
from diylisis.core.model import Realization
from diylisis.core.refuter import refute
from diylisis.edges.refuter import command
from diylisis.edges.refuter.command import NoVerdict, dispatch
from diylisis.edges.refuter_choice import realization_for, settings_for

MESSAGE = "Keep the v2 shim for old clients\n\nThe v2 shim stays until clients upgrade.\n"


def _log(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.fixture
def logged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "refuter-log.jsonl"
    monkeypatch.setenv("REFUTER_LOG", str(path))
    return path


def test_passing_refuter_reads_an_export_with_the_distill_environment(repo: Path, logged: Path,
                                                                       monkeypatch) -> None:
    head = commit(repo, MESSAGE, {"src/shim.py": "VERSION = 2\n", "docs/design.md": "# design\n"})
    monkeypatch.setenv("GIT_DIR", str(repo / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(repo))
    verdict = dispatch(refuter_input(MESSAGE, head), settings("passing"), repo)
    assert verdict.passed and verdict.realization is Realization.GENERIC_SUBAGENT
    assert [row.category for row in verdict.sweep] == list(range(1, 12))
    (call,) = _log(logged)
    assert call["has_target"]
    assert Path(call["cwd"]).name == "tree" and not Path(call["cwd"]).exists()  # removed after
    assert not Path(call["cwd"]).is_relative_to(repo)
    env = call["env"]
    assert env["DISTILL_TARGET"] == "commit:HEAD"
    assert env["DISTILL_ROLE"] == "reviewer"
    assert env["DISTILL_REPOSITORY"] == str(repo)
    assert env["DISTILL_REVISION"] == head
    assert "GIT_DIR" not in env and "GIT_WORK_TREE" not in env


def test_export_holds_the_revision_read_only(repo: Path) -> None:
    first = commit(repo, "Add the shim\n", {"src/shim.py": "VERSION = 1\n"})
    commit(repo, "Bump the shim\n", {"src/shim.py": "VERSION = 2\n", "new.txt": "n\n"})
    (repo / "src" / "shim.py").write_text("uncommitted\n")
    with command.export(repo, first) as tree:
        assert (tree / "src" / "shim.py").read_text() == "VERSION = 1\n"
        assert not (tree / "new.txt").exists() and not (tree / ".git").exists()
        assert not os.stat(tree / "src" / "shim.py").st_mode & 0o222
        assert not os.stat(tree / "src").st_mode & 0o222
    assert not tree.exists()


def test_failing_refuter_findings_come_back_typed(repo: Path, logged: Path) -> None:
    head = commit(repo, MESSAGE)
    verdict = dispatch(refuter_input(MESSAGE, head), settings("failing_once"), repo)
    assert not verdict.passed
    (finding,) = verdict.findings
    assert (finding.token, finding.location, finding.category, finding.advisory) == (
        "the v2 shim", "line 1", 1, "Resolve")
    assert dispatch(refuter_input(MESSAGE, head), settings("failing_once"), repo).passed
    assert len(_log(logged)) == 2


def test_malformed_verdict_is_redispatched_then_stops_with_every_reason(repo: Path,
                                                                       logged: Path) -> None:
    head = commit(repo, MESSAGE)
    with pytest.raises(NoVerdict) as caught:
        dispatch(refuter_input(MESSAGE, head), settings("malformed", retries=2), repo)
    assert len(_log(logged)) == 3
    assert caught.value.exit_code == 1
    message = caught.value.message
    for attempt in (1, 2, 3):
        assert f"attempt {attempt}: the Realization line says 'refuter-subagent'" in message
        assert f"attempt {attempt}: sweep line 10: category 2 says nothing" in message
        assert f"attempt {attempt}: the sweep lacks a valid row for category 2, 4, 5" in message


def test_two_advisory_tags_are_no_verdict(repo: Path, logged: Path) -> None:
    head = commit(repo, MESSAGE)
    with pytest.raises(NoVerdict) as caught:
        dispatch(refuter_input(MESSAGE, head), settings("bad_advisory", retries=0), repo)
    assert len(_log(logged)) == 1
    assert "'Resolve or Drop' is not exactly one of" in caught.value.message


def test_non_zero_exit_is_no_verdict(repo: Path) -> None:
    head = commit(repo, MESSAGE)
    failing = settings("passing", command=("sh", "-c", "echo broken >&2; exit 3"), retries=1)
    with pytest.raises(NoVerdict) as caught:
        dispatch(refuter_input(MESSAGE, head), failing, repo)
    assert "attempt 1: exit status 3 (broken)" in caught.value.message
    assert "attempt 2: exit status 3 (broken)" in caught.value.message


def _running(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker in (entry / "cmdline").read_bytes().decode():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def test_hanging_refuter_and_its_children_are_killed_at_the_timeout(repo: Path, logged: Path,
                                                                   monkeypatch) -> None:
    head = commit(repo, MESSAGE)
    marker = f"600.{random.randrange(10**6):06d}"
    monkeypatch.setenv("REFUTER_SLEEP", marker)
    started = time.monotonic()
    with pytest.raises(NoVerdict) as caught:
        dispatch(refuter_input(MESSAGE, head), settings("hanging", timeout=2, retries=0), repo)
    assert time.monotonic() - started < 15
    assert "no answer within 2 s; the process group was killed" in caught.value.message
    assert len(_log(logged)) == 1  # it really started, and its child with it
    time.sleep(0.2)
    assert _running(marker) == []


def test_missing_command_is_a_configuration_error(repo: Path) -> None:
    head = commit(repo, MESSAGE)
    missing = settings("passing", command=("no-such-refuter-tool",))
    with pytest.raises(ConfigError, match="'no-such-refuter-tool' cannot be run"):
        dispatch(refuter_input(MESSAGE, head), missing, repo)


def test_realization_for_chooses_lint_or_command(repo: Path) -> None:
    configured = settings("passing")
    assert realization_for(replace(configured, command=())) is refute
    assert realization_for(settings_for(configured, "lint")) is refute
    assert realization_for(configured, root=repo) is not refute
    with pytest.raises(ConfigError, match="--refuter command needs a command"):
        settings_for(replace(configured, command=()), "command")


def _repository_state(repo: Path) -> tuple[str, str, str, str]:
    return (git(repo, "for-each-ref"), git(repo, "status", "--porcelain", "--untracked-files=all"),
            (repo / "README.md").read_text(), git(repo, "rev-parse", "HEAD"))


@pytest.mark.skipif(not command.sandbox_available(), reason="no user namespaces on this machine")
def test_sandboxed_refuter_cannot_change_the_work_tree_or_refs(repo: Path, logged: Path) -> None:
    head = commit(repo, MESSAGE, {"README.md": "the project\n"})
    before = _repository_state(repo)
    verdict = dispatch(refuter_input(MESSAGE, head), settings("malicious"), repo, sandbox=True)
    assert verdict.passed
    assert _repository_state(repo) == before
    assert not list(repo.rglob("via-proc.txt")) and not (repo / "planted.txt").exists()
    (call,) = _log(logged)
    attempts = call["attempts"]
    assert attempts, "the malicious refuter made no attempt"
    assert all(outcome != "ok" for outcome in attempts.values()), attempts


def test_unsandboxed_change_to_the_repository_stops_the_run(repo: Path, logged: Path) -> None:
    head = commit(repo, MESSAGE, {"README.md": "the project\n"})
    with pytest.raises(NoVerdict) as caught:
        dispatch(refuter_input(MESSAGE, head), settings("malicious"), repo, sandbox=False)
    assert "the refuter process changed the repository" in caught.value.message
    assert len(_log(logged)) == 1  # not re-dispatched


def test_export_skips_links_that_leave_it_and_names_a_bad_revision(repo: Path) -> None:
    (repo / "inside.txt").write_text("kept\n")
    os.symlink("/etc/hostname", repo / "outside")
    os.symlink("inside.txt", repo / "alias")
    git(repo, "add", "inside.txt", "outside", "alias")
    git(repo, "commit", "-q", "-m", "Add links")
    with command.export(repo, "HEAD") as tree:
        assert (tree / "inside.txt").read_text() == "kept\n"
        assert (tree / "alias").is_symlink()
        assert not (tree / "outside").exists() and not (tree / "outside").is_symlink()
    with pytest.raises(GitError, match="git archive no-such-rev failed"):
        with command.export(repo, "no-such-rev"):
            pass


def test_a_relative_command_path_is_refused_and_an_absolute_one_runs(repo: Path,
                                                                   logged: Path) -> None:
    # a relative path would run whatever each repository keeps at that path
    script = repo / "tools" / "refuter.sh"
    script.parent.mkdir()
    passing = Path(__file__).resolve().parents[3] / "fixtures" / "refuters" / "passing.py"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{passing}"\n')
    script.chmod(0o755)
    head = commit(repo, MESSAGE)  # the script is not in the certified revision
    with pytest.raises(ConfigError, match="is a relative path"):
        dispatch(refuter_input(MESSAGE, head), settings("passing", command=("tools/refuter.sh",)), repo)
    assert _log(logged) == []
    verdict = dispatch(refuter_input(MESSAGE, head), settings("passing", command=(str(script),)), repo)
    assert verdict.passed and len(_log(logged)) == 1
    with pytest.raises(ConfigError, match="no such file"):
        dispatch(refuter_input(MESSAGE, head), settings("passing", command=(str(repo / "tools/none.sh"),)),
                 repo)
