"""A committed config is the repository author's: it names no file outside the repository to
write and no program to run; the user's own config and flags do."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import commit, distill, git

from diylisis.core.errors import ConfigError
from diylisis.edges import config, config_trust

RECORD = "Fix the flaky upload test\n\nThe upload test now retries three times before failing.\n"
VICTIM = "#!/bin/sh\necho the user's own script\n"


def committed_target(repo: Path, named: str, files: dict[str, str] | None = None) -> None:
    commit(repo, RECORD, {".distill.toml": f"[contract]\ncertificate_target = {json.dumps(named)}\n",
                          **(files or {})})


def answers(tmp_path: Path) -> str:
    """The answers the carried-downstream questions (Qp) need when a certificate lands in a file."""
    path = tmp_path / "answers.toml"
    path.write_text('qp-consumer = { value = "a person with repository access" }\n'
                    'qp-authority = { value = "derived" }\n', encoding="utf-8")
    return str(path)


def notes(repo: Path) -> str:
    return git(repo, "for-each-ref", "refs/notes", "refs/distill")


@pytest.mark.parametrize(("named", "reason"), [
    ("../victim.sh", "leaves the repository"),
    ("file:../victim.sh", "leaves the repository"),
    ("{outside}", "is an absolute path"),
    ("~/victim.sh", "names a path in a home directory"),
])
def test_a_committed_certificate_target_outside_the_repository_is_refused(
        repo: Path, tmp_path: Path, named: str, reason: str) -> None:
    victim = tmp_path / "victim.sh"
    victim.write_text(VICTIM, encoding="utf-8")
    committed_target(repo, named.format(outside=victim))
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input")
    assert victim.read_text(encoding="utf-8") == VICTIM
    assert done.returncode == 2, done.stdout + done.stderr
    assert f".distill.toml:2: [contract] certificate_target {named.format(outside=victim)!r} {reason}" \
        in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert notes(repo) == ""


def test_a_committed_link_out_of_the_repository_is_refused(repo: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.sh"
    victim.write_text(VICTIM, encoding="utf-8")
    os.symlink(victim, repo / "certificate.json")
    git(repo, "add", "certificate.json")
    committed_target(repo, "certificate.json")
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input")
    assert victim.read_text(encoding="utf-8") == VICTIM
    assert done.returncode == 2 and "leads outside the repository through a symbolic link" in done.stderr


@pytest.mark.parametrize(("named", "reason"), [
    (".git/hooks/post-commit", "is inside the git directory"),
    ("tools/run.sh", "is an executable file"),
])
def test_a_committed_target_that_would_become_a_program_is_refused(
        repo: Path, named: str, reason: str) -> None:
    program = repo / named
    program.parent.mkdir(parents=True, exist_ok=True)
    program.write_text(VICTIM, encoding="utf-8")
    program.chmod(0o755)
    committed_target(repo, named, {"tools/run.sh": VICTIM} if named.startswith("tools") else None)
    program.chmod(0o755)
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input")
    assert program.read_text(encoding="utf-8") == VICTIM
    assert done.returncode == 2 and reason in done.stderr, done.stdout + done.stderr


def test_a_committed_target_inside_the_repository_is_written(repo: Path) -> None:
    committed_target(repo, "certificates/last.json")
    (repo / "certificates").mkdir()
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--yes", "--answers", answers(repo.parent))
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((repo / "certificates" / "last.json").read_text())["role"] == "reviewer"


def test_the_users_own_flag_may_name_a_place_outside(repo: Path, tmp_path: Path) -> None:
    commit(repo, RECORD)
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--yes", "--answers", answers(tmp_path),
                   "--certificate-target", "../mine.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((tmp_path / "mine.json").read_text())["role"] == "reviewer"


def test_the_landing_is_checked_again_when_written_and_never_through_a_link(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    victim = tmp_path / "victim.sh"
    victim.write_text(VICTIM, encoding="utf-8")
    config_trust.write_inside(root, "last.json", "{}\n")
    assert (root / "last.json").read_text() == "{}\n"
    (root / "last.json").unlink()
    os.symlink("../victim.sh", root / "last.json")  # planted after the config was read
    with pytest.raises(ConfigError, match="through a symbolic link; nothing was written"):
        config_trust.write_inside(root, "last.json", "{}\n")
    assert victim.read_text(encoding="utf-8") == VICTIM


def test_a_committed_refuter_command_is_ignored_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / ".distill.toml").write_text(
        '[refuter]\ncommand = ["sh", "-c", "id > owned"]\nrealization = "refuter-subagent"\n'
        "timeout = 30\n", encoding="utf-8")
    loaded = config.load(tmp_path)
    assert loaded.refuter.command == () and loaded.refuter.realization == "generic-subagent"
    assert loaded.refuter.timeout == 30.0  # a limit the repository may tighten
    assert [w.split(" is ignored")[0] for w in loaded.refuter.ignored] == [
        ".distill.toml: [refuter] command", ".distill.toml: [refuter] realization"]


def test_the_users_own_config_names_the_refuter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "xdg"
    (user / "diylisis").mkdir(parents=True)
    (user / "diylisis" / "config.toml").write_text(
        '[refuter]\ncommand = ["my-refuter"]\nrealization = "refuter-subagent"\n', encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(user))
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".distill.toml").write_text("[refuter]\ntimeout = 30\n", encoding="utf-8")
    loaded = config.load(repo)
    assert (loaded.refuter.command, loaded.refuter.realization, loaded.refuter.timeout) == (
        ("my-refuter",), "refuter-subagent", 30.0)
    assert loaded.refuter.source == str(user / "diylisis" / "config.toml")
    (user / "diylisis" / "config.toml").write_text('[contract]\nrole = "x"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"config.toml:1: unknown section \[contract\]; known: refuter"):
        config.load(repo)


def test_refuter_command_named_only_in_a_committed_config_is_exit_2(repo: Path) -> None:
    commit(repo, RECORD, {".distill.toml": '[refuter]\ncommand = ["sh", "-c", "touch owned"]\n'})
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--refuter", "command")
    assert done.returncode == 2
    assert "a committed config may not name one" in done.stderr
    assert not (repo / "owned").exists() and notes(repo) == ""


def test_a_flag_into_the_work_tree_is_not_written_through_a_link_out_of_it(repo: Path,
                                                                           tmp_path: Path) -> None:
    victim = tmp_path / "victim.sh"
    victim.write_text(VICTIM, encoding="utf-8")
    commit(repo, RECORD)
    os.symlink(victim, repo / "certificate.json")  # planted, untracked
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--yes", "--answers", answers(tmp_path),
                   "--certificate-target", "certificate.json")
    assert victim.read_text(encoding="utf-8") == VICTIM
    assert done.returncode == 2 and "leads outside the repository through a symbolic link" in done.stderr
    assert notes(repo) == ""


def test_a_committed_config_may_lower_the_refuter_limits_never_raise_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-user-config"))
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".distill.toml").write_text("[refuter]\nretries = 1000000\ntimeout = 1e9\n", encoding="utf-8")
    loaded = config.load(repo)
    assert (loaded.refuter.retries, loaded.refuter.timeout) == (2, 300.0)  # the defaults
    assert any("retries = 1000000 is above" in w for w in loaded.refuter.ignored)

    user = tmp_path / "xdg"
    (user / "diylisis").mkdir(parents=True)
    (user / "diylisis" / "config.toml").write_text("[refuter]\nretries = 4\ntimeout = 100\n", encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(user))
    assert (config.load(repo).refuter.retries, config.load(repo).refuter.timeout) == (4, 100.0)
    (repo / ".distill.toml").write_text("[refuter]\nretries = 1\ntimeout = 50\n", encoding="utf-8")
    assert (config.load(repo).refuter.retries, config.load(repo).refuter.timeout) == (1, 50.0)


def test_a_committed_retries_count_does_not_re_run_the_users_refuter_more_often(
        tmp_path: Path, repo: Path) -> None:
    import subprocess
    import sys

    malformed = Path(__file__).resolve().parents[2] / "fixtures" / "refuters" / "malformed.py"
    user = tmp_path / "xdg"
    (user / "diylisis").mkdir(parents=True)
    (user / "diylisis" / "config.toml").write_text(
        f"[refuter]\ncommand = {json.dumps([sys.executable, str(malformed)])}\n", encoding="utf-8")
    commit(repo, RECORD, {".distill.toml": "[refuter]\nretries = 6\n"})
    log = tmp_path / "calls.jsonl"
    env = {**os.environ, "XDG_CONFIG_HOME": str(user), "REFUTER_LOG": str(log), "NO_COLOR": "1"}
    done = subprocess.run([sys.executable, "-m", "diylisis", "certify", "HEAD", "--role", "reviewer",
                           "--refuter", "command", "--no-input"], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(log.read_text().splitlines()) == 3  # the default two retries, not the repository's six
    assert notes(repo) == ""
