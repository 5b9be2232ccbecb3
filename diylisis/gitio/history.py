"""Range walks over history in one pass with pygit2 (no process per commit) for `scan --range` and `verify --range`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from diylisis.errors import GitError

if TYPE_CHECKING:
    import threading

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
    repo: pygit2.Repository,
    range_spec: str,
    include_merges: bool = False,
    *,
    while_sorting: Callable[[Iterator[tuple[str, bytes]]], None] | None = None,
) -> Iterator[tuple[str, bytes]]:
    """(commit id, exact message bytes after the header) for each commit in A..B, or all of B's history.

    Newest first, topologically. Merges are skipped unless include_merges.

    libgit2 reads the whole range before it yields the first commit of a topological walk
    (about 0.15 s for 20,000 commits), and releases the GIL meanwhile. With while_sorting it
    sorts in a background thread, and while_sorting is called here with the messages along
    the tip's first-parent line, which end when the sort does: a caller can judge them in the
    meantime. They may include commits the range leaves out.
    """
    spec = range_spec.strip()
    if not spec or spec.startswith("-") or "..." in spec:
        raise GitError(f"bad range {range_spec!r}: use A..B or a single revision")
    if repo.is_empty:
        raise GitError("the repository has no commits yet")
    base, sep, tip = spec.partition("..")
    if not sep:
        base, tip = "", spec
    tip_id = _resolve(repo, tip or "HEAD", spec)
    base_id = _resolve(repo, base, spec) if base else None
    if while_sorting is None:
        commits: Iterator[pygit2.Commit] = iter(_walker(repo, tip_id, base_id))
    else:
        commits = _sorted_meanwhile(repo, tip_id, base_id, include_merges, while_sorting)
    for commit in commits:
        if len(commit.parent_ids) > 1 and not include_merges:
            continue
        yield str(commit.id), commit.raw_message


def _walker(repo: pygit2.Repository, tip_id: pygit2.Oid, base_id: pygit2.Oid | None) -> pygit2.Walker:
    import pygit2

    walker = repo.walk(tip_id, pygit2.enums.SortMode.TOPOLOGICAL)
    if base_id is not None:
        walker.hide(base_id)
    return walker


def _sorted_meanwhile(
    repo: pygit2.Repository,
    tip_id: pygit2.Oid,
    base_id: pygit2.Oid | None,
    include_merges: bool,
    while_sorting: Callable[[Iterator[tuple[str, bytes]]], None],
) -> Iterator[pygit2.Commit]:
    """The walk's commits, sorted in a background thread while while_sorting reads the tip's line."""
    import threading

    import pygit2

    # a repository of its own: libgit2 does not let two threads use one at the same time
    walker = _walker(pygit2.Repository(repo.path), tip_id, base_id)
    first: list[object] = []

    def sort() -> None:
        try:
            first.append(next(walker, None))
        except BaseException as error:  # raised again in the caller's thread
            first.append(error)

    sorting = threading.Thread(target=sort, name="diylisis-sort", daemon=True)
    sorting.start()
    try:
        while_sorting(_first_parent_line(repo, tip_id, base_id, include_merges, sorting))
    finally:
        sorting.join()
    if isinstance(first[0], BaseException):
        raise first[0]
    if first[0] is not None:
        yield first[0]
        yield from walker


def _first_parent_line(
    repo: pygit2.Repository,
    tip_id: pygit2.Oid,
    base_id: pygit2.Oid | None,
    include_merges: bool,
    sorting: threading.Thread,
) -> Iterator[tuple[str, bytes]]:
    commit = repo[tip_id]
    while sorting.is_alive() and commit.id != base_id:
        if include_merges or len(commit.parent_ids) <= 1:
            yield str(commit.id), commit.raw_message
        if not commit.parent_ids:
            return
        try:
            commit = repo[commit.parent_ids[0]]
        except KeyError:  # beyond a shallow clone's boundary
            return
