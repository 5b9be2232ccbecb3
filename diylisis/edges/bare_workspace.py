"""A Workspace for a bare repository (a CI mirror, a server-side hook): history, notes, no work tree.

A bare repository has no checked-out configuration file, so the built-in settings apply, as
`git distill scan` does there; command-line flags still apply on top.
"""

from __future__ import annotations

import os

from diylisis.core.errors import GitError
from diylisis.edges import config, gitio
from diylisis.edges.workspace import GIT_KEYS, Workspace


def open_bare(path: str = ".") -> Workspace:
    """The bare repository at path as a Workspace whose root is its git dir; GitError when path
    is not inside a bare repository."""
    code, out, _ = gitio.try_git(["rev-parse", "--is-bare-repository", "--absolute-git-dir"], path)
    lines = out.decode("utf-8", errors="surrogateescape").splitlines()
    if code != 0 or len(lines) < 2 or lines[0].strip() != "true":
        raise GitError(f"not a git repository: {path} (run inside a repository, or create one with git init)")
    git_dir = os.path.normpath(lines[1].strip())
    code, head, _ = gitio.try_git(["rev-parse", "--verify", "-q", "HEAD^{commit}"], git_dir)
    values = gitio.GitProcess(gitio.config_command(GIT_KEYS), git_dir).finish()
    return Workspace(root=git_dir, git_dir=git_dir, config=config.Config(),
                     git_config=gitio.config_values_from(values, git_dir),
                     head=head.decode().strip() if code == 0 else None)
