"""What a committed config may say, and the user's own config for what it may not.

A `.distill.toml` or `[tool.diylisis]` travels with the repository: it is the repository
author's, not the user's (DESIGN.md, Trust). It may name files inside the repository and
tune detection, but not a program to run, nor a file outside the repository to write. Those
come from the user: `[refuter]` in the user's own config file (`config.user_config_path`), or a
command-line flag (`--certificate-target`). docs/security.md, Configuration, lists each key.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

# The commit-msg hook imports none of this: it reads no [refuter] and writes no landing file.

USER_SECTIONS = ("refuter",)
# [refuter] keys a committed config may not set: they choose the program that runs and the
# rigor the certificate claims for it
USER_ONLY_REFUTER_KEYS = ("command", "realization")


def ignored_refuter_keys(section: Mapping[str, object], source: str | None) -> tuple[str, ...]:
    """A warning for each [refuter] key of a committed config that only the user's config may set."""
    from diylisis.edges.config import user_config_path

    where = display_path(user_config_path())
    return tuple(f"{source}: [refuter] {key} is ignored: a committed config may not choose the "
                 f"program that runs or what it claims; set it in {where} (docs/security.md)"
                 for key in USER_ONLY_REFUTER_KEYS if key in section)


def display_path(path: str) -> str:
    """path with the home directory shown as ~ (a message names no user's home)."""
    home = os.path.expanduser("~")
    return "~" + path[len(home):] if home not in ("", "/") and path.startswith(home + os.sep) else path


def leaves_repository(named: str) -> bool:
    """The path names a place outside the repository by its words alone (absolute, ~, ..)."""
    return _leaving(named) is not None


def _leaving(named: str) -> str | None:
    path = named.removeprefix("file:")
    if path.startswith("~"):
        return "names a path in a home directory"
    if os.path.isabs(path):
        return "is an absolute path"
    normal = os.path.normpath(path)
    if normal == ".." or normal.startswith(".." + os.sep):
        return "leaves the repository"
    return None


def outside_reason(root: str | Path, named: str) -> str | None:
    """Why a path a committed config names may not be written, or None when it may: it must stay
    inside the work tree, outside the git directory, through no link that leaves, and not be a
    program (an executable file would run the certificate's text)."""
    reason = _leaving(named)
    if reason is not None:
        return reason
    normal = os.path.normpath(named.removeprefix("file:"))
    if ".git" in normal.split(os.sep):
        return "is inside the git directory"
    top = os.path.realpath(root)
    real = os.path.realpath(os.path.join(top, normal))
    if not real.startswith(top + os.sep):
        return "leads outside the repository through a symbolic link"
    if real == os.path.join(top, ".git") or real.startswith(os.path.join(top, ".git") + os.sep):
        return "is inside the git directory"
    try:
        info = os.lstat(os.path.join(top, normal))
    except OSError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if info.st_mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH):
        return "is an executable file"
    return None


def check_inside(root: str | Path, named: str) -> None:
    """ConfigError when a path a committed config named may not be written now (outside_reason)."""
    from diylisis.core.errors import ConfigError

    reason = outside_reason(root, named)
    if reason is not None:
        raise ConfigError(f"certificate_target {named!r} {reason}; nothing was written (name a "
                          "regular file in the work tree, or a place outside it with "
                          "--certificate-target)")


def write_inside(root: str | Path, named: str, text: str) -> None:
    """Write text to a file in the work tree, checked again now and never through a link (the
    tree may have changed since the path was named); ConfigError when it may not."""
    from diylisis.core.errors import ConfigError

    check_inside(root, named)
    path = os.path.join(os.path.realpath(root), os.path.normpath(named.removeprefix("file:")))
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    except OSError as error:
        raise ConfigError(f"certificate_target {named!r} cannot be written: {error.strerror}") from None
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
