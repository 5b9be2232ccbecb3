"""Forget a record's certificates: drop its note and its snapshot blob from the certificate refs.

A snapshot blob under refs/distill/snapshots is text that travels with every push of the
certificate refs. When one should not have been kept (a secret, text no one meant to
publish), `git distill forget` removes the blob's note (every role's certificate on it)
and its entry in the snapshots tree, as new commits on both refs moved in one
compare-and-swap, and with --push sends both refs to a remote. The blob object itself stays
in the object store until git gc prunes it, here and on any remote that received it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

from diylisis.app.sync import check_remote, fetch_and_merge
from diylisis.core.errors import BadInput, GitError, StoreConflict
from diylisis.edges import notes, store
from diylisis.edges.gitio import first_line, run_git, try_git

MAX_ATTEMPTS = 20
FORGET_MESSAGE = "distill: forget the certificates of blob {blob}\n"

# what a remote may still hold after a forget, said plainly whenever one is forgotten
STILL_HELD = (
    "clones and forks that fetched the certificate refs before keep the note and the blob, and "
    "their next git distill sync --push brings both back unless they forget it too",
    "a remote keeps the old commits of both refs, and the blob, in its object store until its "
    "own gc prunes them (hosted remotes may keep them longer, and in their reflogs and caches)",
    "this repository keeps the blob until its reflogs expire and gc prunes it: "
    "git reflog expire --expire=now --all && git gc --prune=now",
)


class Forgotten(Struct, frozen=True, kw_only=True):
    """What one forget removed, and where it pushed."""

    blob: str
    certificates: int  # certificate lines the removed note held
    snapshot: bool  # the blob had an entry under refs/distill/snapshots
    pushed: tuple[str, ...]
    remote: str | None
    still_held: tuple[str, ...]


def blob_of(text: str) -> str:
    """The object id of a `blob:ID` argument; BadInput when it is not a full hex id."""
    blob = text.removeprefix("blob:").strip().lower()
    if len(blob) not in (40, 64) or any(c not in "0123456789abcdef" for c in blob):
        raise BadInput(f"{text!r} is not blob:ID with a full 40- or 64-digit object id")
    return blob


def forget(repo_root: str, blob: str, *, remote: str | None = None) -> Forgotten:
    """Remove blob's note and snapshot entry locally and, with remote, there too."""
    config = store.settings(repo_root)
    if remote is not None:
        check_remote(Path(repo_root), remote)
    certificates, snapshot = _remove(repo_root, config, blob)
    pushed: tuple[str, ...] = ()
    if remote is not None:
        pushed = _push(repo_root, config, remote, blob)
    return Forgotten(blob=blob, certificates=certificates, snapshot=snapshot, pushed=pushed,
                     remote=remote, still_held=STILL_HELD if certificates or snapshot else ())


def _remove(repo_root: str, config: store.Settings, blob: str) -> tuple[int, bool]:
    """(certificate lines removed, snapshot entry removed), in one compare-and-swap of both refs."""
    refs = (config.notes_ref, store.SNAPSHOTS_REF)
    for _ in range(MAX_ATTEMPTS):
        tips = notes.ref_tips(repo_root, refs)
        notes_tip, snapshots_tip = tips[config.notes_ref], tips[store.SNAPSHOTS_REF]
        env = dict(config.identity_env)
        new_notes, lines = _without(repo_root, notes_tip, blob, env, config, note=True)
        new_snapshots, kept = _without(repo_root, snapshots_tip, blob, env, config, note=False)
        if new_notes is None and new_snapshots is None:
            return 0, False
        updates = {config.notes_ref: (new_notes or notes_tip, notes_tip),
                   store.SNAPSHOTS_REF: (new_snapshots or snapshots_tip, snapshots_tip)}
        if store.compare_and_swap(repo_root, updates, config.object_format):
            return int(lines), bool(kept)  # the notes tree counts lines, the snapshots tree holds or not
    raise StoreConflict(f"{config.notes_ref} kept moving under {MAX_ATTEMPTS} attempts; nothing was "
                        "forgotten, run the command again")


def _without(repo_root: str, tip: str | None, blob: str, env: dict[str, str], config: store.Settings,
             *, note: bool) -> tuple[str | None, int | bool]:
    """A commit on tip whose tree lacks blob's entry, and what the entry held; (None, 0) without one.

    A notes tree names the note by the annotated blob's id split at any fanout (`ab/cdef...`);
    the snapshots tree holds the blob itself at `ab/cdef...`.
    """
    if tip is None:
        return None, 0 if note else False
    listing = run_git(["ls-tree", "-r", "-z", tip], repo_root).split(b"\0")
    paths, held = [], 0
    for item in listing:
        if not item:
            continue
        meta, _, path = item.decode("utf-8", errors="surrogateescape").partition("\t")
        object_id = meta.split()[2]
        if (path.replace("/", "") == blob) if note else (object_id == blob):
            paths.append(path)
            if note:
                text = run_git(["cat-file", "blob", object_id], repo_root).decode("utf-8", errors="replace")
                held += sum(1 for line in text.splitlines() if line.strip())
    if not paths:
        return None, 0 if note else False
    tree = _tree_without(repo_root, tip, paths, env)
    message = FORGET_MESSAGE.format(blob=blob)
    # no parent: the ref's history holds the blob in every older tree, so keeping it would keep
    # the blob reachable (and pushed); the certificates still present are all in this one tree
    commit = run_git(["commit-tree", tree, "-F", "-"], repo_root,
                     input=message.encode(), env=env).decode().strip()
    return commit, held if note else True


def _tree_without(repo_root: str, tip: str, paths: Sequence[str], env: dict[str, str]) -> str:
    with store.temporary_index(env) as index_env:
        run_git(["read-tree", f"{tip}^{{tree}}"], repo_root, env=index_env)
        run_git(["update-index", "--force-remove", "-z", "--stdin"], repo_root,
                input=b"".join(p.encode("utf-8", errors="surrogateescape") + b"\0" for p in paths),
                env=index_env)
        return run_git(["write-tree"], repo_root, env=index_env).decode().strip()


def _push(repo_root: str, config: store.Settings, remote: str, blob: str) -> tuple[str, ...]:
    """Merge the remote's certificates in, forget the blob again on top, and replace both refs there.

    The new refs do not descend from the remote's (their history held the blob), so the push
    is forced, with a lease on the tips read before the merge: certificates another writer
    pushed meanwhile are never overwritten; the attempt is repeated instead.
    """
    refs = (config.notes_ref, store.SNAPSHOTS_REF)
    for _ in range(3):
        code, out, err = try_git(["ls-remote", remote, *refs], repo_root)
        if code != 0:
            raise GitError(f"forgotten locally, but cannot reach {remote}: {first_line(err) or 'no reason given'}")
        theirs = {line.split("\t")[1]: line.split("\t")[0] for line in out.decode().splitlines() if "\t" in line}
        if theirs:
            fetch_and_merge(Path(repo_root), remote, config)
            _remove(repo_root, config, blob)
        local = [ref for ref, tip in notes.ref_tips(repo_root, refs).items() if tip]
        if not local:
            return ()
        leases = [f"--force-with-lease={ref}:{theirs.get(ref, '')}" for ref in local]
        # --no-verify: only certificate refs are pushed, and our pre-push hook would push them too
        code, _, err = try_git(["push", "-q", "--no-verify", *leases, remote,
                                *(f"+{ref}:{ref}" for ref in local)], repo_root)
        if code == 0:
            return tuple(local)
        reason = err.decode("utf-8", errors="replace")
        if not any(word in reason for word in ("stale info", "rejected", "fetch first")):
            raise GitError(f"forgotten locally, but cannot push to {remote}: {first_line(err) or 'no reason given'}")
    raise StoreConflict(f"{remote}'s certificate refs kept moving; forgotten locally only, run the command again")
