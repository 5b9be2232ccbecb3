"""Record adapters, one module per substrate (STYLE.md: ADAPTERS like pre-commit's all_languages).

Each module provides read, write_channel, apply and describe (records.base.RecordAdapter).
The modules import pygit2 only inside the functions that need it, and an adapter module is
imported when a record of its kind is first handled (`adapter`), so the commit-msg hook loads
the msgfile adapter alone.
"""

from __future__ import annotations

import importlib

from diylisis.core.model import RecordKind, Snapshot, Target
from diylisis.edges.records.base import DEFAULT_MAX_BYTES, WriteChannel, parse_target, root_of

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from diylisis.edges.records import commit, file, msgfile, prbody
    from diylisis.edges.records.base import RecordAdapter

    # each adapter module is checked against RecordAdapter here
    _ADAPTER_MODULES: tuple[RecordAdapter, ...] = (commit, file, msgfile, prbody)


def adapter(kind: RecordKind) -> RecordAdapter:
    """The adapter module for a record kind (the module named as the kind), imported on first use."""
    module: RecordAdapter = importlib.import_module(f"{__name__}.{kind.value}")
    return module


def __getattr__(name: str) -> dict[RecordKind, RecordAdapter]:
    """ADAPTERS: kind -> adapter module, every adapter imported when something asks for them all."""
    if name == "ADAPTERS":
        return {kind: adapter(kind) for kind in RecordKind}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def read_snapshot(
    target: Target, repo: str | Path | Any, *, max_bytes: int = DEFAULT_MAX_BYTES
) -> Snapshot:
    """F0 Detect: the target's snapshot through its substrate's adapter."""
    return adapter(target.kind).read(target, root_of(repo), max_bytes=max_bytes)


def write_channel(target: Target, repo: str | Path | Any) -> WriteChannel | None:
    """How a repair of the target would be written, or None."""
    return adapter(target.kind).write_channel(target, root_of(repo))


def no_channel_reason(target: Target, repo_root: str | Path) -> str:
    """Why the target has no write channel ('' when it has one)."""
    if target.kind is RecordKind.COMMIT:
        from diylisis.edges.records import commit

        return commit.no_channel_reason(target, root_of(repo_root))
    if write_channel(target, repo_root) is None:
        return f"{describe(target)} cannot be written"
    return ""


def apply(target: Target, repo: str | Path | Any, new_bytes: bytes) -> None:
    """Write repaired bytes through the target's write channel."""
    adapter(target.kind).apply(target, root_of(repo), new_bytes)


def describe(target: Target) -> str:
    """A short human description of the target."""
    return adapter(target.kind).describe(target)


__all__ = [
    "ADAPTERS",
    "DEFAULT_MAX_BYTES",
    "WriteChannel",
    "adapter",
    "apply",
    "no_channel_reason",
    "describe",
    "parse_target",
    "read_snapshot",
    "root_of",
    "write_channel",
]
