"""A refuter cannot choose what diylisis runs after it: programs on PATH and hooks it plants,
and (without the sandbox) the git directory's hooks, attributes, alternates, run files and
config it changes, stop the run before anything is written. Real repositories, real refuter
processes; `dispatch(..., sandbox=False)` takes the unsandboxed path any machine without user
namespaces takes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from conftest import commit, git
from refuter_helpers import FIXTURES, refuter_input, settings

from diylisis.core.errors import ConfigError
from diylisis.edges import gitio
from diylisis.edges.refuter import command
from diylisis.edges.refuter.command import NoVerdict, dispatch

MESSAGE = "Keep the v2 shim for old clients\n\nThe v2 shim stays until clients upgrade.\n"

# a refuter that writes an executable file at each path PLANT names, then passes; a planted
# program that is ever started creates the file PLANT_RAN names
PLANTER = f"""
import os, sys
sys.path.insert(0, {str(FIXTURES)!r})
from _common import read_prompt, verdict
read_prompt()
for path in os.environ["PLANT"].split(os.pathsep):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a", encoding="utf-8") as handle:
            handle.write("#!/bin/sh\\ntouch " + os.environ["PLANT_RAN"] + "\\n")
        os.chmod(path, 0o755)
    except OSError:
        pass
print(verdict([]), end="")
"""


def planter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PLANT_RAN", str(tmp_path / "planted-program-ran"))
    script = tmp_path / "planter.py"
    script.write_text(PLANTER)
    return settings("passing", command=(sys.executable, str(script)), retries=0)


@pytest.fixture
def user_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A writable directory first on PATH, as ~/.local/bin often is."""
    path = tmp_path / "user-bin"
    path.mkdir()
    monkeypatch.setenv("PATH", f"{path}{os.pathsep}{os.environ['PATH']}")
    return path


def test_git_and_the_signing_programs_keep_the_path_found_before_a_refuter_runs(
        repo: Path, tmp_path: Path, user_bin: Path) -> None:
    git_before = gitio.git_program()
    assert os.path.isabs(git_before) and not git_before.startswith(str(user_bin))
    fake = user_bin / "git"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    assert gitio.git_program() == git_before  # resolved once: the planted git is never started
    assert gitio.git_argv(["status"])[0] == git_before


@pytest.mark.parametrize("planted", ["git", "ssh-keygen", "gpg"])
def test_an_unsandboxed_refuter_planting_a_program_on_path_stops_the_run(
        repo: Path, tmp_path: Path, user_bin: Path, monkeypatch: pytest.MonkeyPatch, planted: str) -> None:
    head = commit(repo, MESSAGE, {"README.md": "the project\n"})
    monkeypatch.setenv("PLANT", str(user_bin / planted))
    with pytest.raises(NoVerdict) as caught:
        dispatch(refuter_input(MESSAGE, head), planter(tmp_path, monkeypatch), repo, sandbox=False)
    assert "changed while the refuter ran" in caught.value.message
    assert "nothing was written" in caught.value.message
    assert not (tmp_path / "planted-program-ran").exists()


def test_an_unsandboxed_refuter_planting_a_hook_in_core_hooks_path_stops_the_run(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hooks = tmp_path / "my-hooks"
    hooks.mkdir()
    git(repo, "config", "core.hooksPath", str(hooks))
    head = commit(repo, MESSAGE, {"README.md": "the project\n"})
    monkeypatch.setenv("PLANT", str(hooks / "pre-commit"))
    with pytest.raises(NoVerdict) as caught:
        dispatch(refuter_input(MESSAGE, head), planter(tmp_path, monkeypatch), repo, sandbox=False)
    assert str(hooks) in caught.value.message and "changed while the refuter ran" in caught.value.message


@pytest.mark.skipif(not command.sandbox_available(), reason="no user namespaces on this machine")
def test_the_sandbox_mounts_path_directories_and_the_hooks_directory_read_only(
        repo: Path, tmp_path: Path, user_bin: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hooks = tmp_path / "my-hooks"
    hooks.mkdir()
    git(repo, "config", "core.hooksPath", str(hooks))
    head = commit(repo, MESSAGE, {"README.md": "the project\n"})
    monkeypatch.setenv("PLANT", os.pathsep.join((str(user_bin / "git"), str(hooks / "pre-commit"))))
    verdict = dispatch(refuter_input(MESSAGE, head), planter(tmp_path, monkeypatch), repo, sandbox=True)
    assert verdict.passed
    assert not (user_bin / "git").exists() and not (hooks / "pre-commit").exists()


@pytest.mark.parametrize("part", ["hooks/pre-commit", "info/attributes", "objects/info/alternates",
                                  "distill/runs/planted.json"])
def test_an_unsandboxed_refuter_writing_into_the_git_directory_stops_the_run(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, part: str) -> None:
    head = commit(repo, MESSAGE, {"README.md": "the project\n"})
    monkeypatch.setenv("PLANT", str(repo / ".git" / part))
    with pytest.raises(NoVerdict) as caught:
        dispatch(refuter_input(MESSAGE, head), planter(tmp_path, monkeypatch), repo, sandbox=False)
    message = caught.value.message
    assert "the refuter process changed the repository" in message and part.split("/")[0] in message


def test_a_refuter_command_that_is_not_executable_is_a_config_error(repo: Path, tmp_path: Path) -> None:
    head = commit(repo, MESSAGE, {"README.md": "the project\n"})
    plain = tmp_path / "refuter.txt"
    plain.write_text("not a program\n")
    with pytest.raises(ConfigError, match="not executable"):
        dispatch(refuter_input(MESSAGE, head), settings("passing", command=(str(plain),)), repo)


def test_certify_with_a_refuter_command_that_is_not_executable_exits_2_in_one_line(
        repo: Path, tmp_path: Path) -> None:
    import subprocess

    commit(repo, MESSAGE, {"README.md": "the project\n"})
    config = tmp_path / "xdg" / "diylisis" / "config.toml"
    config.parent.mkdir(parents=True)
    plain = tmp_path / "refuter.txt"
    plain.write_text("not a program\n")
    config.write_text(f'[refuter]\ncommand = ["{plain}"]\n')
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-m", "diylisis", "certify", "HEAD", "--role", "reviewer",
                           "--no-input"], cwd=repo, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "not executable" in done.stderr
    assert git(repo, "for-each-ref", "refs/notes") == ""
