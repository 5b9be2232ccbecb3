"""A refuter command has no power over what runs after it: certify end to end on real
repositories, with refuters that plant a hook, move the repository or print without end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import IDENTITY, commit, git
from refuter_helpers import fixture_command

RECORD = "Fix the flaky upload test\n\nThe upload test now retries three times before failing.\n"


def new_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "commit.cleanup", "verbatim")
    return path


def configure_both(repo: Path, user_config: Path, name: str, **settings: object) -> None:
    """The refuter in the user's own config, and the same command committed in .distill.toml:
    a build that still obeyed a committed command would run it too (so each test below also
    fails on one)."""
    lines = ["[refuter]", "command = " + json.dumps(list(fixture_command(name)))]
    lines += [f"{key} = {json.dumps(value)}" for key, value in settings.items()]
    text = "\n".join(lines) + "\n"
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(text, encoding="utf-8")
    commit(repo, "Configure the refuter\n\nThe refuter command is named for certify.\n",
           {".distill.toml": text})


def user_environment(home: Path, **extra: str) -> dict[str, str]:
    """A user's environment: a HOME of their own whose ~/.gitconfig git reads (no
    GIT_CONFIG_GLOBAL), as on a workstation."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith("GIT_") and name not in ("HOME", "XDG_CONFIG_HOME")}
    env.update(IDENTITY, HOME=str(home), GIT_CONFIG_NOSYSTEM="1", NO_COLOR="1", **extra)
    return env


def certify(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "diylisis", "certify", "HEAD", "--role", "reviewer",
                           "--no-input"], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


def notes(repo: Path) -> str:
    return git(repo, "for-each-ref", "refs/notes", "refs/distill")


@pytest.fixture
def workstation(tmp_path: Path) -> tuple[Path, Path]:
    """(home, repository): the repository two levels below tmp_path, the home beside it."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Test Author\n", encoding="utf-8")
    repo = new_repo(tmp_path / "projects" / "repo")
    commit(repo, "Start the project\n\nThe readme says what the project is.\n")
    return home, repo


def test_a_hook_planted_with_git_config_global_does_not_run_on_the_certificate_write(
        workstation: tuple[Path, Path], tmp_path: Path) -> None:
    home, repo = workstation
    configure_both(repo, home / ".config" / "diylisis" / "config.toml", "plant_hook")
    commit(repo, RECORD)
    marker, log = tmp_path / "hook-ran", tmp_path / "refuter.jsonl"
    done = certify(repo, user_environment(home, REFUTER_EVIL=str(tmp_path / "evil"),
                                          REFUTER_MARKER=str(marker), REFUTER_LOG=str(log)))
    assert not marker.exists()
    assert done.returncode == 0, done.stdout + done.stderr
    (call,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert call["home"] != str(home)  # a private home, not the user's
    assert "hooksPath" not in (home / ".gitconfig").read_text()
    assert "refs/notes/distill" in notes(repo)
    assert "[refuter] command is ignored" in done.stderr  # the committed copy was not used


def test_a_hook_planted_in_the_users_global_config_by_path_stops_the_run(
        workstation: tuple[Path, Path], tmp_path: Path) -> None:
    home, repo = workstation
    configure_both(repo, home / ".config" / "diylisis" / "config.toml", "plant_hook", retries=0)
    commit(repo, RECORD)
    marker = tmp_path / "hook-ran"
    done = certify(repo, user_environment(home, REFUTER_EVIL=str(tmp_path / "evil"),
                                          REFUTER_MARKER=str(marker),
                                          REFUTER_GLOBAL_CONFIG=str(home / ".gitconfig")))
    assert not marker.exists()
    assert done.returncode == 1, done.stdout + done.stderr
    assert "git's configuration changed while the refuter ran" in done.stderr
    assert notes(repo) == ""


def test_a_repository_moved_and_replaced_by_a_copy_gets_no_write(
        workstation: tuple[Path, Path], tmp_path: Path) -> None:
    home, repo = workstation
    configure_both(repo, home / ".config" / "diylisis" / "config.toml", "move_repository",
                   retries=0)
    commit(repo, RECORD)
    done = certify(repo, user_environment(home))
    moved = tmp_path / "projects.moved" / "repo"
    assert moved.is_dir() and repo.is_dir()  # the refuter did move it and plant the copy
    planted = sorted(str(p.relative_to(repo)) for p in repo.rglob("*"))
    assert notes(repo) == "" and notes(moved) == ""
    assert done.returncode == 1, done.stdout + done.stderr
    assert "is no longer the folder it was when the refuter started" in done.stderr
    assert not (repo / ".git" / "distill").exists()
    assert sorted(str(p.relative_to(repo)) for p in repo.rglob("*")) == planted


def test_endless_refuter_output_stops_at_the_limit_in_bounded_memory(
        workstation: tuple[Path, Path], tmp_path: Path) -> None:
    home, repo = workstation
    configure_both(repo, home / ".config" / "diylisis" / "config.toml", "endless", retries=0,
                   timeout=60)
    commit(repo, RECORD)
    # certify runs under a parent that reports the peak RSS of everything it waited for (certify,
    # the refuter, git); the address-space limit only keeps a regression from eating the machine
    measure = (
        "import resource, subprocess, sys\n"
        "limit = 2 * 1024 ** 3\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True,\n"
        "    preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))\n"
        "sys.stderr.write(done.stderr)\n"
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "diylisis", "certify",
                           "HEAD", "--role", "reviewer", "--no-input"], cwd=repo,
                          env=user_environment(home), capture_output=True, text=True, timeout=120,
                          check=False)
    code, peak_kib = map(int, done.stdout.split())
    assert code == 1, done.stderr
    assert "printed more than 4 MiB on stdout and stderr; the process group was killed" in done.stderr
    assert peak_kib < 200 * 1024, f"peak RSS {peak_kib} KiB"
    assert notes(repo) == ""


def test_the_refuter_environment_holds_a_private_home_and_no_git_config_or_agent(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from refuter_helpers import refuter_input, settings

    from diylisis.edges.refuter.command import NoVerdict, dispatch

    head = commit(repo, RECORD)
    seen = tmp_path / "env.txt"
    monkeypatch.setenv("SSH_AUTH_SOCK", str(tmp_path / "agent.sock"))
    monkeypatch.setenv("REFUTER_ENV_OUT", str(seen))
    printing = settings("passing", command=("sh", "-c", 'env > "$REFUTER_ENV_OUT"; ls -A "$HOME" >> '
                                            '"$REFUTER_ENV_OUT"; exit 3'), retries=0)
    with pytest.raises(NoVerdict, match="exit status 3"):
        dispatch(refuter_input(RECORD, head), printing, repo)
    env = dict(line.split("=", 1) for line in seen.read_text().splitlines() if "=" in line)
    home = Path(env["HOME"])
    assert home != Path(os.environ["HOME"]) and not home.exists()  # private, and removed after
    assert env["XDG_CONFIG_HOME"] == str(home / ".config")
    assert env["GIT_CONFIG_GLOBAL"] == str(home / ".gitconfig") and env["GIT_CONFIG_NOSYSTEM"] == "1"
    assert "SSH_AUTH_SOCK" not in env
    assert [line for line in seen.read_text().splitlines() if "=" not in line] == []  # home was empty


def test_a_refuter_that_rewrites_the_users_own_config_stops_the_run(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from refuter_helpers import refuter_input, settings

    from diylisis.edges.refuter.command import NoVerdict, dispatch

    head = commit(repo, RECORD)
    mine = tmp_path / "xdg" / "diylisis" / "config.toml"
    mine.parent.mkdir(parents=True)
    mine.write_text('[refuter]\ncommand = ["my-refuter"]\n', encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("REFUTER_TARGET", str(mine))
    # the next run would dispatch whatever this names
    planting = settings("passing", command=("sh", "-c", 'cat > /dev/null; printf \'[refuter]\\n'
                                            'command = ["sh", "-c", "id"]\\n\' > "$REFUTER_TARGET"'),
                        retries=2)
    with pytest.raises(NoVerdict, match="changed while the refuter ran") as caught:
        dispatch(refuter_input(RECORD, head), planting, repo)
    assert "attempt 2" not in caught.value.message  # stopped at once, not asked again
