"""file:PATH and file:PATH@REV: a tracked or work-tree file (DESIGN.md, Records become git).

Snapshot boundary: the file's bytes, from the work tree or from the blob at REV. The
locator is repository-relative (parse_target makes it so) and must stay inside the
repository, symlinks included. A work-tree file is repaired by editing it; the engine
commits the pass's deltas. A file at a revision has no write channel.
"""

from __future__ import annotations

import os

from diylisis.core.errors import BadInput, DistillError
from diylisis.core.model import Snapshot, Target
from diylisis.edges import gitio
from diylisis.edges.records.base import (
    DEFAULT_MAX_BYTES,
    WriteChannel,
    check_record,
    no_channel,
    replace_file,
    repo_relative,
)

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    import pygit2


def read(target: Target, repo_root: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> Snapshot:
    """The file's exact bytes from the work tree, or from the tree of target.revision."""
    path = repo_relative(target.locator, repo_root, repo_root, worktree=target.revision is None)
    repo = gitio.open_repo(repo_root)
    if target.revision is not None:
        commit_id = gitio.resolve_commit(repo, target.revision)
        data = gitio.blob_at(repo, commit_id, path)
        check_record(data, f"{path} at {commit_id[:12]}", max_bytes)
        return Snapshot(
            target=target,
            data=data,
            boundary=f"bytes of {path} in the tree of commit {commit_id}",
            revision=commit_id,
            tree_revision=commit_id,
            path=path,
        )
    data = _read_worktree(os.path.join(repo_root, path), path, max_bytes)
    return Snapshot(
        target=target,
        data=data,
        boundary=f"bytes of {path} in the work tree",
        tree_revision=_head_or_none(repo),
        path=path,
    )


def _read_worktree(full: str, path: str, max_bytes: int) -> bytes:
    try:
        if not os.path.isfile(full):
            what = "a directory" if os.path.isdir(full) else "missing"
            raise BadInput(f"{path} is {what}, not a file in the work tree")
        size = os.stat(full).st_size
        if size > max_bytes:
            raise BadInput(f"{path} is {size} bytes, over the {max_bytes}-byte record limit")
        with open(full, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise BadInput(f"cannot read {path}: {error.strerror}") from None
    return check_record(data, path, max_bytes)


def _head_or_none(repo: pygit2.Repository) -> str | None:
    try:
        return gitio.resolve_commit(repo, "HEAD")
    except DistillError:
        return None  # an empty repository: paths resolve against nothing yet


def write_channel(target: Target, repo_root: str) -> WriteChannel | None:
    """A work-tree file is edited and committed; a file at a revision cannot be written."""
    if target.revision is not None:
        return None
    return WriteChannel(
        kind="worktree-commit", detail=f"edit {target.locator} in the work tree and commit it"
    )


def apply(target: Target, repo_root: str, new_bytes: bytes) -> None:
    """Write the repaired bytes to the work-tree file (the engine commits them)."""
    if target.revision is not None:
        raise no_channel(target, f"a file at revision {target.revision} cannot be edited")
    path = repo_relative(target.locator, repo_root, repo_root)
    full = os.path.realpath(os.path.join(repo_root, path))  # write through an in-repository symlink
    replace_file(full, new_bytes, path)


def describe(target: Target) -> str:
    """The file, in the work tree or at its revision."""
    where = f"at {target.revision}" if target.revision else "in the work tree"
    return f"the file {target.locator} {where}"
