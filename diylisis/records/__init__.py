"""Record adapters, one module per substrate (STYLE.md: ADAPTERS like pre-commit's all_languages).

Each module provides read, write_channel, apply and describe (records.base.RecordAdapter).
The modules import pygit2 only inside the functions that need it, so the msgfile adapter
stays on the commit-msg hook's fast path.
"""

from __future__ import annotations

import os
from types import ModuleType

from diylisis.model import RecordKind, Snapshot, Target
from diylisis.records import commit, file, msgfile, prbody
from diylisis.records.base import DEFAULT_MAX_BYTES, WriteChannel, parse_target

TYPE_CHECKING = False  # true for type checkers only: the hook never imports typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

ADAPTERS: dict[RecordKind, ModuleType] = {
    RecordKind.COMMIT: commit,
    RecordKind.FILE: file,
    RecordKind.MSGFILE: msgfile,
    RecordKind.PRBODY: prbody,
}


def root_of(repo: str | Path | Any) -> str:
    """The work-tree root of a path or of an opened pygit2 repository."""
    workdir = getattr(repo, "workdir", None)
    return os.path.normpath(os.fspath(workdir if workdir is not None else repo))


def read_snapshot(
    target: Target, repo: str | Path | Any, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> Snapshot:
    """F0 Detect: the target's snapshot through its substrate's adapter."""
    return ADAPTERS[target.kind].read(target, root_of(repo), max_bytes=max_bytes)


def write_channel(target: Target, repo: str | Path | Any) -> WriteChannel | None:
    """How a repair of the target would be written, or None."""
    return ADAPTERS[target.kind].write_channel(target, root_of(repo))


def no_channel_reason(target: Target, repo_root: str | Path) -> str:
    """Why the target has no write channel ('' when it has one)."""
    if target.kind is RecordKind.COMMIT:
        return commit.no_channel_reason(target, root_of(repo_root))
    if write_channel(target, repo_root) is None:
        return f"{describe(target)} cannot be written"
    return ""


def apply(target: Target, repo: str | Path | Any, new_bytes: bytes) -> None:
    """Write repaired bytes through the target's write channel."""
    ADAPTERS[target.kind].apply(target, root_of(repo), new_bytes)


def describe(target: Target) -> str:
    """A short human description of the target."""
    return ADAPTERS[target.kind].describe(target)


__all__ = [
    "ADAPTERS",
    "DEFAULT_MAX_BYTES",
    "WriteChannel",
    "apply",
    "no_channel_reason",
    "describe",
    "parse_target",
    "read_snapshot",
    "root_of",
    "write_channel",
]
