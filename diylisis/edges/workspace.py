"""The repository a command works in: its root, git dir, HEAD, configuration and git config values.

Opening one takes two git processes, `git rev-parse` and `git config`, started side by side.
start_open starts them and Opening.finish() waits for them, so the commit-msg hook starts them
before it imports the certification engine and imports it while they run. This module imports
no more than reading the answers needs.
"""

from __future__ import annotations

import os

from msgspec import Struct

from diylisis.core.errors import GitError
from diylisis.edges import config, gitio
from diylisis.edges.git_keys import SIGNING_KEYS, STORE_KEYS
from diylisis.edges.records import msgfile

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

# Every git config value a certification reads, in one `git config` call: the message file's
# cleanup mode and comment char, the origin remote (GitCommandContext), the store's and signing's.
# The last two are named in git_keys, not imported from store and signing, so that opening a
# workspace loads neither: the commit-msg hook signs nothing and writes no note.
GIT_KEYS = (*msgfile.CONFIG_KEYS, "remote.origin.url", *STORE_KEYS, *SIGNING_KEYS)
_REV_PARSE = ("rev-parse", "--show-toplevel", "--absolute-git-dir", "--verify", "-q", "HEAD^{commit}")


class Workspace(Struct, frozen=True, kw_only=True):
    """The repository a command works in, read once. Its paths are absolute path strings."""

    root: str
    git_dir: str
    config: config.Config
    git_config: Mapping[str, str]  # the GIT_KEYS values set in the repository, read with the rest at open
    head: str | None = None  # the commit HEAD named at open; None on an unborn branch

    def __repr__(self) -> str:
        # git_config holds values such as a remote URL with its token: never printed
        return f"Workspace(root={self.root!r}, git_dir={self.git_dir!r}, head={self.head!r})"

    @classmethod
    def open(cls, path: str | Path = ".") -> Workspace:
        """The repository containing path (no pygit2 import)."""
        return start_open(path).finish()


class Opening:
    """Workspace.open's git processes, started: the root, git dir and HEAD from `git rev-parse`,
    the GIT_KEYS values from `git config`."""

    def __init__(self, path: str | Path) -> None:
        self.path = path
        self._rev_parse = gitio.GitProcess(_REV_PARSE, path)
        try:
            self._config = gitio.GitProcess(gitio.config_command(GIT_KEYS), path)
        except BaseException:
            self._rev_parse.finish()  # reap the one that did start
            raise

    def finish(self) -> Workspace:
        """The Workspace, once both processes have answered."""
        code, out, _ = self._rev_parse.finish()
        values = self._config.finish()
        lines = out.decode("utf-8", errors="surrogateescape").splitlines()
        if code not in (0, 1) or len(lines) < 2 or not lines[0].strip():  # 1: HEAD is unborn
            raise GitError(f"not a git repository with a work tree: {self.path} "
                           "(run inside a repository, or create one with git init)")
        root = os.path.normpath(lines[0].strip())
        head = lines[2].strip() if code == 0 and len(lines) > 2 else None
        return Workspace(root=root, git_dir=os.path.normpath(lines[1].strip()), config=config.load(root),
                         git_config=gitio.config_values_from(values, root), head=head or None)


def start_open(path: str | Path = ".") -> Opening:
    """Start opening the repository containing path; finish() gives its Workspace."""
    return Opening(path)


def git_values(workspace: Workspace) -> Mapping[str, str]:
    """The GIT_KEYS values set in this repository (read when the workspace was opened)."""
    return workspace.git_config
