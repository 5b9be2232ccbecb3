"""Confined dispatch of an untrusted program (diylisis.edges.confinement) on real processes."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from diylisis.edges import confinement
from diylisis.edges.confinement import Dispatch

needs_namespaces = pytest.mark.skipif(not confinement.sandbox_available(),
                                      reason="no user namespaces on this machine")


def sh(script: str, cwd: Path, **options: object) -> confinement.Outcome:
    return confinement.run(Dispatch(argv=("sh", "-c", script), cwd=cwd, **options))  # type: ignore[arg-type]


@needs_namespaces
def test_only_the_writable_directory_inside_a_read_only_one_can_be_written(tmp_path: Path) -> None:
    root = tmp_path / "root"
    mine, sibling = root / "probe-0", root / "probe-1"
    mine.mkdir(parents=True)
    sibling.mkdir()
    done = sh("touch mine; touch ../probe-1/theirs; touch ../top; echo ok", mine,
              read_only=(root,), writable=(mine,))
    assert b"ok" in done.stdout and (mine / "mine").exists()
    assert not (sibling / "theirs").exists()
    assert not (root / "top").exists()


@needs_namespaces
def test_a_setsid_child_of_a_confined_program_dies_with_it(tmp_path: Path) -> None:
    done = sh("setsid sh -c 'sleep 1; touch late' >/dev/null 2>&1 & echo started", tmp_path,
              read_only=(), writable=(tmp_path,))
    assert done.returncode == 0 and b"started" in done.stdout
    time.sleep(1.8)
    assert not (tmp_path / "late").exists()


def test_unconfined_a_tagged_setsid_child_is_killed_by_pid_and_start_time(tmp_path: Path) -> None:
    tag = "test-" + os.urandom(4).hex()
    done = sh("setsid sh -c 'sleep 1; touch late' >/dev/null 2>&1 & echo started", tmp_path,
              confined=False, tag=tag)
    assert done.returncode == 0
    assert confinement.tagged_processes(tag) == ()
    time.sleep(1.8)
    assert not (tmp_path / "late").exists()


def test_a_hanging_program_is_stopped_at_the_timeout(tmp_path: Path) -> None:
    began = time.monotonic()
    done = sh("sleep 30", tmp_path, timeout=1.0, confined=False)
    assert done.stop == "timeout"
    assert time.monotonic() - began < 5


def test_output_past_the_cap_stops_the_program(tmp_path: Path) -> None:
    done = sh("yes", tmp_path, output_limit=100_000, confined=False, timeout=10.0)
    assert done.stop == "limit" and done.stdout == b""


def test_the_child_gets_a_private_home_and_no_git_variables(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    done = sh('echo "$HOME|${GIT_DIR-unset}|$GIT_CONFIG_NOSYSTEM|$EXTRA"', tmp_path, confined=False,
              env={"EXTRA": "given"})
    home, git_dir, nosystem, extra = done.stdout.decode().strip().split("|")
    assert home != os.environ["HOME"] and not Path(home).exists()
    assert (git_dir, nosystem, extra) == ("unset", "1", "given")


def test_a_recorded_pid_with_another_start_time_is_not_killed(tmp_path: Path) -> None:
    start = confinement.process_start_time(os.getpid())
    assert start is not None
    assert confinement.kill_recorded(os.getpid(), start + 1) is False


def test_remove_tree_removes_chmod_000_folders_and_does_not_follow_symlinks(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("kept")
    top = tmp_path / "top"
    (top / "locked" / "deeper").mkdir(parents=True)
    (top / "locked" / "deeper" / "file").write_text("x")
    (top / "link").symlink_to(outside)
    os.chmod(top / "locked" / "deeper", 0)
    os.chmod(top / "locked", 0)
    confinement.remove_tree(top)
    assert not os.path.lexists(top)
    assert (outside / "keep").read_text() == "kept"
