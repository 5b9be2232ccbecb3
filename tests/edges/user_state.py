"""A fingerprint of everything of a user's repository a preview must leave as it was."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, env=env, check=False)
    return done.stdout.decode("utf-8", "replace") + f"[{done.returncode}]"


def user_state(repo: Path) -> dict[str, str]:
    """Work-tree bytes and modes, the index, every ref, the stash, config, hooks, the worktree
    list, and the user's global git config; the run files of diylisis are left out."""
    state: dict[str, str] = {}
    for directory, dirs, files in os.walk(repo):
        dirs.sort()
        if Path(directory) == repo:
            dirs[:] = [name for name in dirs if name != ".git"]
        for name in sorted(files):
            path = Path(directory, name)
            info = path.lstat()
            data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
            state[f"tree {path.relative_to(repo)}"] = f"{info.st_mode:o} {hashlib.sha256(data).hexdigest()}"
    git_dir = repo / ".git"
    for name in ("index", "HEAD", "config", "packed-refs"):
        target = git_dir / name
        state[f"git {name}"] = hashlib.sha256(target.read_bytes()).hexdigest() if target.exists() else "absent"
    hooks = git_dir / "hooks"
    for path in sorted(hooks.rglob("*")) if hooks.exists() else ():
        state[f"hook {path.name}"] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
    state["refs"] = _git(repo, "for-each-ref", "--format=%(refname) %(objectname)")
    state["stash"] = _git(repo, "stash", "list", "--format=%H %gs")
    state["worktrees"] = _git(repo, "worktree", "list", "--porcelain")
    state["reflog"] = _git(repo, "reflog", "--all", "--format=%gd %H %gs")
    state["objects"] = _git(repo, "count-objects", "-v").split("size-pack")[0]
    home_config = Path(os.environ["HOME"]) / ".gitconfig"
    state["global config"] = home_config.read_text() if home_config.exists() else "absent"
    return state


def dirty_repository(repo: Path) -> None:
    """Give repo a history, staged, unstaged and untracked changes, a stash and a tripwire hook."""
    def run(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    (repo / "app.py").write_text("print('v1')\n")
    (repo / "README.md").write_text("# app\n")
    run("add", "-A")
    run("commit", "-q", "-m", "Add the app\n\nA first version of the app.\n")
    (repo / "app.py").write_text("print('stashed')\n")
    run("stash", "-q")
    (repo / "staged.txt").write_text("staged\n")
    run("add", "staged.txt")
    (repo / "README.md").write_text("# app, unstaged edit\n")
    (repo / "untracked.txt").write_text("untracked\n")
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {repo.parent / 'HOOK-RAN'}\n")
    hook.chmod(0o755)


def except_the_preview_note(state: dict[str, str]) -> dict[str, str]:
    """The fingerprint less the one change a converged preview may make: a notes commit on
    refs/notes/distill-preview (its ref, its reflog entry and its objects)."""
    kept = dict(state)
    kept["refs"] = "\n".join(line for line in state["refs"].split("\n") if "refs/notes/distill-preview" not in line)
    kept["reflog"] = "\n".join(line for line in state["reflog"].split("\n")
                               if not line.startswith("notes/distill-preview@"))
    kept.pop("objects")
    return kept
