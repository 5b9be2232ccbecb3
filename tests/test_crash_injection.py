"""Crash injection: SIGKILL at many points of a repairing certify and of the commit-msg hook.

A point is either "before git call N" or "after git call N" (a `git` on PATH that counts its
starts and kills the process that started it, so the Nth git command never runs, or has just
finished), or a named step of a repair (DIYLISIS_CRASH_AT, diylisis/edges/crashpoint.py). After
every kill the repository must be sound (`git fsck`, no index.lock, no temporary file in the
work tree), the file as it was or as repaired, and the run resumable to a certificate and
abortable back to the file's content before the unfinished repair.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import RETRY_ANSWERS, RETRY_DOCS, RETRY_TASK, commit, git

FIXTURE, DOCS, ANSWERS = RETRY_TASK, RETRY_DOCS, RETRY_ANSWERS
GIT = shutil.which("git") or "git"  # the real one: the test's own git commands are never counted
MESSAGE = ("Stop the uploader from retrying forever\n\n"
           "The retry loop now ends after five attempts; closes #12.\n")

# git runs of one repairing certify of the fixture: 21 (open, config, status, blobs, the private
# index, commit-tree, update-ref, index refresh, sources, the certificate), and every named
# step of a repair. Every point listed must kill the process: one past the last git call fails
# its test, so a change that makes fewer git calls shows here instead of testing less.
CERTIFY_GIT_CALLS = 21
REPAIR_STEPS = ("repair-journaled", "repair-written", "repair-tree-written", "repair-commit-created",
                "repair-ref-updated", "repair-index-refreshed")
CERTIFY_POINTS = ([("before", n) for n in range(1, CERTIFY_GIT_CALLS + 1)] + [("after", 14), ("after", 16)]
                  + [("step", name) for name in REPAIR_STEPS])
# the commit-msg hook starts two git processes (rev-parse, config) and writes no ref or object:
# the certificate waits in .git/distill for the post-commit hook
HOOK_POINTS = [("before", 1), ("before", 2), ("after", 1), ("after", 2)]

_WRAPPER = """#!/bin/sh
[ -n "$DISTILL_TEST_GIT_COUNT" ] || exec "{git}" "$@"
# count this start: claim the first free number (noclobber makes the claim atomic)
set -C
i=1
while ! {{ true > "$DISTILL_TEST_GIT_COUNT/$i"; }} 2>/dev/null; do i=$((i+1)); done
printf '%s\\n' "$*" >| "$DISTILL_TEST_GIT_COUNT/$i"
if [ "$i" = "$DISTILL_TEST_KILL_BEFORE" ]; then kill -KILL "$PPID"; exit 137; fi
if [ "$i" = "$DISTILL_TEST_KILL_AFTER" ]; then "{git}" "$@"; code=$?; kill -KILL "$PPID"; exit $code; fi
exec "{git}" "$@"
"""


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A repository with a task file to repair, one with the commit-msg hook, and a counting git."""
    base = tmp_path_factory.mktemp("crash-templates")
    task = base / "task"
    task.mkdir()
    git(task, "init", "-q", "-b", "main")
    commit(task, "Add the retry task\n", {**DOCS, "TASK.md": FIXTURE.read_text()})
    (base / "answers.toml").write_text(ANSWERS)

    wrapper_dir = base / "bin"
    wrapper_dir.mkdir()
    wrapper = wrapper_dir / "git"
    wrapper.write_text(_WRAPPER.format(git=GIT))
    wrapper.chmod(0o755)

    hooked = base / "hooked"
    hooked.mkdir()
    git(hooked, "init", "-q", "-b", "main")
    git(hooked, "remote", "add", "origin", "https://github.com/example/widget.git")
    commit(hooked, "Start the widget repository\n", {"README.md": "widget\n"})
    hooks = hooked / ".git" / "test-hooks"
    hooks.mkdir()
    # git puts its own exec path first on a hook's PATH; the counting git goes before it
    (hooks / "commit-msg").write_text(f'#!/bin/sh\nPATH="{wrapper_dir}:$PATH" '
                                      f'exec "{sys.executable}" -m diylisis hook commit-msg "$@"\n')
    (hooks / "commit-msg").chmod(0o755)
    # the post-commit hook stores the certificate the commit-msg hook judged (not killed here)
    (hooks / "post-commit").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m diylisis hook post-commit "$@"\n')
    (hooks / "post-commit").chmod(0o755)
    git(hooked, "config", "core.hooksPath", str(hooks))
    (base / "message.txt").write_text(MESSAGE)
    return {"task": task, "hooked": hooked, "bin": wrapper_dir, "answers": base / "answers.toml",
            "message": base / "message.txt"}


def _kill_env(tmp_path: Path, templates: dict[str, Path], point: tuple[str, object]) -> dict[str, str]:
    count = tmp_path / "git-starts"
    count.mkdir()
    env = {**os.environ, "DISTILL_TEST_GIT_COUNT": str(count), "DISTILL_TEST_KILL_BEFORE": "",
           "DISTILL_TEST_KILL_AFTER": "", "PATH": f"{templates['bin']}{os.pathsep}{os.environ['PATH']}"}
    how, where = point
    if how == "step":
        env["DIYLISIS_CRASH_AT"] = str(where)
    else:
        env["DISTILL_TEST_KILL_BEFORE" if how == "before" else "DISTILL_TEST_KILL_AFTER"] = str(where)
    return env


def _reached(tmp_path: Path, point: tuple[str, object]) -> bool:
    """The run got as far as the point: a named step always, the Nth git call if it started."""
    how, where = point
    return how == "step" or len(list((tmp_path / "git-starts").iterdir())) >= int(str(where))


def _distill(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "diylisis", *args], cwd=repo, capture_output=True,
                          text=True, check=False)


def _assert_sound(repo: Path) -> None:
    """fsck clean, no lock left, no temporary file of ours in the work tree."""
    fsck = subprocess.run(["git", "fsck", "--no-dangling", "--no-progress"], cwd=repo,
                          capture_output=True, text=True, check=False)
    assert fsck.returncode == 0 and "error" not in fsck.stderr + fsck.stdout, fsck.stderr
    assert not list((repo / ".git").glob("index.lock")) and not list((repo / ".git").rglob("*.lock"))
    for folder, subfolders, files in os.walk(repo):
        subfolders[:] = [name for name in subfolders if name != ".git"]
        assert not [name for name in files if "distill" in name], (folder, files)
    changed = {line[3:] for line in git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()}
    assert changed <= {"TASK.md"}, changed


def _repair_commits(repo: Path, run: str) -> list[str]:
    return git(repo, "log", "--format=%H", f"--grep=^Distill-Run: {run}$").split()


def _run_files(repo: Path) -> list[str]:
    folder = repo / ".git" / "distill" / "runs"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def _runs(repo: Path) -> list[dict]:
    listed = _distill(repo, "runs", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    return json.loads(listed.stdout)["runs"]


@pytest.mark.parametrize("point", CERTIFY_POINTS, ids=lambda p: f"{p[0]}-{p[1]}")
def test_a_killed_repairing_certify_resumes_or_aborts(tmp_path: Path, templates: dict[str, Path],
                                                      point: tuple[str, object]) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(templates["task"], repo, symlinks=True)
    original = (repo / "TASK.md").read_bytes()
    head = git(repo, "rev-parse", "HEAD").strip()
    answers = str(templates["answers"])
    killed = subprocess.run([sys.executable, "-m", "diylisis", "certify", "TASK.md", "--role", "implementer",
                             "--yes", "--answers", answers], cwd=repo, capture_output=True, text=True, check=False,
                            env=_kill_env(tmp_path, templates, point))
    assert _reached(tmp_path, point), f"certify made fewer git calls than {point} needs: update CERTIFY_POINTS"
    assert killed.returncode == -9, killed.stderr
    _assert_sound(repo)
    now = (repo / "TASK.md").read_bytes()
    committed = git(repo, "show", "HEAD:TASK.md").encode()
    runs = _runs(repo)
    if not runs:  # killed before the run was first saved: nothing was touched
        assert now == original and git(repo, "rev-parse", "HEAD").strip() == head
        return
    [run] = runs
    in_flight = run["repair_in_flight"]
    if in_flight is None:
        assert now == committed  # the original, or a repair already committed
    else:
        repaired = git(repo, "cat-file", "blob", _blob_of(repo, run["run"], "repaired_blob")).encode()
        assert now in (committed, repaired) and (now == committed or in_flight["committed"] is None)

    aborting = tmp_path / "aborting"
    shutil.copytree(repo, aborting, symlinks=True)
    resumed = _distill(repo, "resume", run["run"], "--yes", "--answers", answers, "--format", "json")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert json.loads(resumed.stdout)["certificate"]["outcome"] == "repaired"
    _assert_sound(repo)
    assert git(repo, "status", "--porcelain") == ""
    made = _repair_commits(repo, run["run"])
    passes = [git(repo, "show", "-s", "--format=%(trailers:key=Distill-Pass,valueonly)", c).strip() for c in made]
    assert made and len(passes) == len(set(passes))  # no pass committed twice
    assert _run_files(repo) == []

    aborted = _distill(aborting, "runs", "abort", run["run"])
    assert aborted.returncode == 0, aborted.stderr
    _assert_sound(aborting)
    assert git(aborting, "status", "--porcelain") == ""
    if not _repair_commits(aborting, run["run"]):
        assert (aborting / "TASK.md").read_bytes() == original
        assert git(aborting, "rev-parse", "HEAD").strip() == head
    assert _run_files(aborting) == []


def _blob_of(repo: Path, run: str, field: str) -> str:
    data = json.loads((repo / ".git" / "distill" / "runs" / f"{run}.json").read_text())
    return data["pending_repair"][field]


@pytest.mark.parametrize("point", HOOK_POINTS, ids=lambda p: f"{p[0]}-{p[1]}")
def test_a_killed_commit_msg_hook_leaves_a_commit_that_can_be_retried(
        tmp_path: Path, templates: dict[str, Path], point: tuple[str, object]) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(templates["hooked"], repo, symlinks=True)
    head = git(repo, "rev-parse", "HEAD").strip()
    message = str(templates["message"])
    killed = subprocess.run([GIT, "commit", "-q", "--allow-empty", "-F", message], cwd=repo,
                            capture_output=True, text=True, check=False,
                            env=_kill_env(tmp_path, templates, point))
    assert _reached(tmp_path, point), f"the hook made fewer git calls than {point} needs: update HOOK_POINTS"
    assert killed.returncode != 0, killed.stderr
    assert git(repo, "rev-parse", "HEAD").strip() == head  # the hook's death stopped the commit
    _assert_sound(repo)
    assert git(repo, "status", "--porcelain") == ""
    assert _run_files(repo) == []
    again = subprocess.run(["git", "commit", "-q", "--allow-empty", "-F", message], cwd=repo,
                           capture_output=True, text=True, check=False)
    assert again.returncode == 0, again.stderr
    assert "issues/12" in git(repo, "log", "-1", "--format=%B")
    verified = _distill(repo, "verify", "HEAD")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    _assert_sound(repo)


def test_every_named_crash_point_is_killed_at_and_at_least_20_points_kill() -> None:
    package = Path(__file__).resolve().parent.parent / "diylisis"
    named = {match for source in package.rglob("*.py")
             for match in re.findall(r"""crashpoint\.reached\(\s*["']([^"']+)["']""", source.read_text())}
    assert named and named == set(REPAIR_STEPS), named  # each test above asserts its point killed
    assert {where for how, where in CERTIFY_POINTS if how == "step"} == named
    assert len(set(CERTIFY_POINTS)) + len(set(HOOK_POINTS)) >= 20
