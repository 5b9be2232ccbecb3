"""Helpers for hook tests: real git, the real pre-commit framework, a shared end-to-end flow.

Not a conftest: tests/conftest.py is imported as `conftest` by the other test modules.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[3]  # the repository under test
BIN = Path(sys.executable).parent  # git-distill and pre-commit live beside the interpreter

CLEAN = """Retry failed uploads with exponential backoff

Uploads that fail with a 5xx response are retried up to five times,
waiting twice as long before each attempt.
"""
RESIDUE = "Fix the bug as discussed above"


def env(**extra: str) -> dict[str, str]:
    """The test environment with git-distill and pre-commit on PATH."""
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", **extra}


def run(cwd: Path, *cmd: str, input: str | None = None,
        extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run a command as a user would; never raises on a non-zero exit."""
    return subprocess.run(list(cmd), cwd=cwd, input=input, capture_output=True, text=True,
                          check=False, env=env(**(extra or {})))


def ok(cwd: Path, *cmd: str, input: str | None = None) -> str:
    """Run a command that must succeed; its stdout."""
    done = run(cwd, *cmd, input=input)
    assert done.returncode == 0, f"{' '.join(cmd)} -> {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def distill(cwd: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """`git distill ...` in a fresh process."""
    return run(cwd, sys.executable, "-m", "diylisis", *args, input=input)


def new_repo(path: Path) -> Path:
    """A work repository on main with git's default commit.cleanup (as users have it)."""
    path.mkdir(parents=True)
    ok(path, "git", "init", "-q", "-b", "main")
    ok(path, "git", "config", "core.quotePath", "false")
    return path


def bare(path: Path) -> Path:
    """A bare remote whose HEAD names main, so clones check main out."""
    ok(path.parent, "git", "init", "-q", "--bare", "-b", "main", path.name)
    return path


def write(repo: Path, name: str, text: str) -> None:
    """Write a file and stage it."""
    target = repo / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    ok(repo, "git", "add", "--", name)


def committed_repo(path: Path) -> Path:
    """A new repository at path with one commit (a README)."""
    repo = new_repo(path)
    write(repo, "README.md", "widget\n")
    ok(repo, "git", "commit", "-q", "-m", "Start the widget repository")
    return repo


def checkout_head() -> str:
    """The commit of the checkout under test (what the framework clones)."""
    return ok(CHECKOUT, "git", "rev-parse", "HEAD").strip()


def exercise(work: Path, remote: Path, scratch: Path) -> None:
    """The flow both installs must pass: refuse, certify, push, verify in a clone, detect an amend.

    work has its hooks installed and at least one certified commit; remote is bare.
    """
    write(work, "src/upload.py", "MAX_ATTEMPTS = 5\n")
    before = ok(work, "git", "rev-parse", "HEAD")
    refused = run(work, "git", "commit", "-m", RESIDUE)
    assert refused.returncode != 0
    said = refused.stdout + refused.stderr
    assert "discussed above" in said and "line 1" in said
    assert "git commit -e -F" in said and ".git/COMMIT_EDITMSG" in said
    kept = (work / ".git" / "COMMIT_EDITMSG").read_text(encoding="utf-8")
    assert kept.strip() == RESIDUE
    assert ok(work, "git", "rev-parse", "HEAD") == before  # no commit was made

    ok(work, "git", "commit", "-q", "-m", CLEAN)
    assert distill(work, "verify", "HEAD").returncode == 0

    ok(work, "git", "remote", "add", "origin", str(remote))
    ok(work, "git", "push", "-q", "origin", "main")
    on_remote = ok(work, "git", "ls-remote", "origin")
    assert "refs/notes/distill" in on_remote and "refs/distill/snapshots" in on_remote

    clone = scratch / "clone"
    ok(scratch, "git", "clone", "-q", str(remote), str(clone))
    ok(clone, "git", "fetch", "-q", "origin", "refs/notes/distill:refs/notes/distill",
       "refs/distill/snapshots:refs/distill/snapshots")
    root = ok(clone, "git", "rev-list", "--max-parents=0", "HEAD").strip()
    passed = distill(clone, "verify", "--range", f"{root}..HEAD", "--format", "json")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert distill(clone, "verify", root).returncode == 0

    ok(work, "git", "commit", "-q", "--amend", "--no-verify", "-m",
       CLEAN.replace("five times", "six times"))
    failed = distill(work, "verify", "HEAD")
    assert failed.returncode == 1 and "missing" in failed.stdout
    blocked = run(work, "git", "push", "--force", "origin", "main")
    assert blocked.returncode != 0
    assert "fail verification" in blocked.stdout + blocked.stderr


def distill_on_terminal(cwd: Path, *args: str, environ: dict[str, str] | None = None
                        ) -> tuple[subprocess.CompletedProcess[bytes], bytes]:
    """Run `git distill ARGS` with stderr on a pseudo-terminal; (the run, what stderr showed)."""
    import pty

    leader, follower = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "diylisis", *args], cwd=cwd, stdout=subprocess.PIPE,
                              stderr=follower, env=environ if environ is not None else dict(os.environ),
                              check=False)
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
        return done, shown
    finally:
        os.close(leader)
