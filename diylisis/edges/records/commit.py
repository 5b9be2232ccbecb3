"""commit:REV: a stored commit's message (DESIGN.md, Records become git).

Snapshot boundary: the bytes after the header of the commit object. The write channel
exists only for HEAD's commit while no remote-tracking ref reaches it: amend.
"""

from __future__ import annotations

from diylisis.core.model import RecordKind, Snapshot, Target
from diylisis.edges import gitio
from diylisis.edges.records.base import DEFAULT_MAX_BYTES, WriteChannel, check_record, no_channel

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    import pygit2


def read(target: Target, repo_root: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> Snapshot:
    """The commit message bytes after the object header, identified by the commit id."""
    repo = gitio.open_repo(repo_root)
    commit_id = gitio.resolve_commit(repo, target.locator)
    return message_snapshot(commit_id, gitio.commit_message_bytes(repo, commit_id), max_bytes, target)


def message_snapshot(commit_id: str, data: bytes, max_bytes: int = DEFAULT_MAX_BYTES,
                     target: Target | None = None) -> Snapshot:
    """The snapshot of a commit's message bytes already read (a range walk, a batch read)."""
    check_record(data, f"the message of commit {commit_id[:12]}", max_bytes)
    return Snapshot(
        target=target or Target(kind=RecordKind.COMMIT, locator=commit_id),
        data=data,
        boundary=f"message bytes after the header of commit {commit_id}",
        revision=commit_id,
        tree_revision=commit_id,
    )


def write_channel(target: Target, repo_root: str) -> WriteChannel | None:
    """Amend when the target is HEAD's commit and no remote-tracking ref reaches it."""
    return _amendable(target, repo_root)[0]


def no_channel_reason(target: Target, repo_root: str) -> str:
    """Why the commit's message cannot be amended ('' when it can)."""
    return _amendable(target, repo_root)[1]


def _amendable(target: Target, repo_root: str) -> tuple[WriteChannel | None, str]:
    repo = gitio.open_repo(repo_root)
    commit_id = gitio.resolve_commit(repo, target.locator)
    head_id = gitio.resolve_commit(repo, "HEAD")
    if commit_id != head_id or not _names_head(repo, target.locator, head_id):
        return None, f"{target.locator} is not HEAD, and only HEAD's message can be amended"
    if gitio.head_is_detached(repo):
        # an amended detached HEAD is reachable from no branch: the repair would be lost
        return None, "HEAD is detached; check out a branch to let the message be amended"
    if gitio.on_remote_tracking_ref(repo, commit_id):
        return None, f"commit {commit_id[:12]} is already on a remote-tracking branch"
    return WriteChannel(
        kind="amend", detail=f"amend HEAD ({commit_id[:12]}) with the new message"
    ), ""


def _names_head(repo: pygit2.Repository, locator: str, head_id: str) -> bool:
    """The locator designates HEAD itself (not another branch that happens to point there)."""
    if locator in ("HEAD", "@") or (len(locator) >= 4 and head_id.startswith(locator.lower())):
        return True
    if gitio.head_is_detached(repo):
        return False
    branch = repo.head.name
    return locator in (branch, branch.removeprefix("refs/heads/"), branch.removeprefix("refs/"))


def apply(target: Target, repo_root: str, new_bytes: bytes) -> None:
    """Amend HEAD: same tree, parents and author, the new message bytes stored verbatim."""
    channel, why = _amendable(target, repo_root)
    if channel is None:
        raise no_channel(target, why)
    import pygit2  # only to write, after open_repo has loaded it

    repo = gitio.open_repo(repo_root)
    head_id = gitio.resolve_commit(repo, "HEAD")
    commit = repo[head_id].peel(pygit2.Commit)
    author = commit.author
    env = {
        "GIT_AUTHOR_NAME": author.name,
        "GIT_AUTHOR_EMAIL": author.email,
        "GIT_AUTHOR_DATE": f"@{author.time} {_offset(author.offset)}",
    }
    args = ["commit-tree", str(commit.tree_id)]
    for parent in commit.parent_ids:
        args += ["-p", str(parent)]
    # commit-tree stores the message as given: no cleanup, no hooks, the index untouched.
    new_id = gitio.run_git([*args, "-F", "-"], repo_root, input=new_bytes, env=env).decode().strip()
    gitio.run_git(
        ["update-ref", "-m", "distill: amend the message of HEAD", "HEAD", new_id, head_id],
        repo_root,
    )


def _offset(minutes: int) -> str:
    sign = "-" if minutes < 0 else "+"
    minutes = abs(minutes)
    return f"{sign}{minutes // 60:02d}{minutes % 60:02d}"


def describe(target: Target) -> str:
    """The message of the commit the target names."""
    return f"the message of commit {target.locator}"
