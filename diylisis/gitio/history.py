"""Range walks over history in one pass with pygit2 (no process per commit) for `scan --range`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from diylisis.errors import GitError

if TYPE_CHECKING:
    import pygit2


def _resolve(repo: pygit2.Repository, rev: str, spec: str) -> pygit2.Oid:
    import pygit2

    try:
        return repo.revparse_single(rev).peel(pygit2.Commit).id
    except (KeyError, ValueError, pygit2.GitError, TypeError):
        hint = (
            "; this clone is shallow, so history beyond its boundary is missing (git fetch --unshallow)"
            if repo.is_shallow
            else ""
        )
        raise GitError(f"bad range {spec!r}: {rev!r} names no commit{hint}") from None


def walk_messages(
    repo: pygit2.Repository, range_spec: str, include_merges: bool = False
) -> Iterator[tuple[str, bytes]]:
    """(commit id, exact message bytes after the header) for each commit in A..B, or all of B's history.

    Newest first, topologically. Merges are skipped unless include_merges.
    """
    import pygit2

    spec = range_spec.strip()
    if not spec or spec.startswith("-") or "..." in spec:
        raise GitError(f"bad range {range_spec!r}: use A..B or a single revision")
    if repo.is_empty:
        raise GitError("the repository has no commits yet")
    base, sep, tip = spec.partition("..")
    if not sep:
        base, tip = "", spec
    tip_id = _resolve(repo, tip or "HEAD", spec)
    walker = repo.walk(tip_id, pygit2.enums.SortMode.TOPOLOGICAL)
    if base:
        walker.hide(_resolve(repo, base, spec))
    for commit in walker:
        if len(commit.parent_ids) > 1 and not include_merges:
            continue
        yield str(commit.id), commit.raw_message
