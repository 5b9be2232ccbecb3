"""Record adapters, one module per substrate (STYLE.md: ADAPTERS like pre-commit's all_languages).

Each module provides read, write_channel, apply and describe (records.base.RecordAdapter).
The modules import pygit2 only inside the functions that need it, so the msgfile adapter
stays on the commit-msg hook's fast path.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from diylisis.model import RecordKind, Snapshot, Target
from diylisis.records import commit, file, msgfile, prbody
from diylisis.records.base import DEFAULT_MAX_BYTES, WriteChannel, parse_target

ADAPTERS: dict[RecordKind, ModuleType] = {
    RecordKind.COMMIT: commit,
    RecordKind.FILE: file,
    RecordKind.MSGFILE: msgfile,
    RecordKind.PRBODY: prbody,
}


def read_snapshot(
    target: Target, repo_root: str | Path, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> Snapshot:
    """F0 Detect: the target's snapshot through its substrate's adapter."""
    return ADAPTERS[target.kind].read(target, Path(repo_root), max_bytes=max_bytes)


def write_channel(target: Target, repo_root: str | Path) -> WriteChannel | None:
    """How a repair of the target would be written, or None."""
    return ADAPTERS[target.kind].write_channel(target, Path(repo_root))


def apply(target: Target, repo_root: str | Path, new_bytes: bytes) -> None:
    """Write repaired bytes through the target's write channel."""
    ADAPTERS[target.kind].apply(target, Path(repo_root), new_bytes)


def describe(target: Target) -> str:
    """A short human description of the target."""
    return ADAPTERS[target.kind].describe(target)


__all__ = [
    "ADAPTERS",
    "DEFAULT_MAX_BYTES",
    "WriteChannel",
    "apply",
    "describe",
    "parse_target",
    "read_snapshot",
    "write_channel",
]
