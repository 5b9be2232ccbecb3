"""Certificates to and from a remote: one fetch-and-merge and one push routine, for `sync` and the pre-push hook.

The certificate refs are every notes ref under `refs/notes/distill` (the configured one,
and those other commands keep, such as `refs/notes/distill-vet`) and `refs/distill/snapshots`,
which keeps the keyed blobs alive. Fetching lands the remote's refs on temporary refs, merges
each notes ref with `git notes merge -s cat_sort_uniq` (each side's JSON lines survive) and the
snapshot trees as a union, then moves the local refs in one compare-and-swap.

`push_certificates` is the only place that pushes them, with one rule for a push that fails:
a rejection because the remote moved is fetched and merged (when the caller allows fetching)
and pushed again; a remote that held a ref lock at that moment (another clone pushing the same
refs) is waited out with a growing, jittered delay. Every push passes `--no-verify`: it carries
certificates, no commits, so the pre-push hook has nothing to verify, and a hook that pushed
the same refs from inside this push would find them locked.

No click here: the pre-push hook imports this module.
"""

from __future__ import annotations

import os
import random
import time

from msgspec import Struct

from diylisis.core.errors import GitError, StoreConflict
from diylisis.edges import notes, store
from diylisis.edges.gitio import first_line, remote_names, run_git, try_git

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from pathlib import Path

INCOMING_PREFIX = store.TEMP_NOTES_PREFIX + "incoming-"
NOTES_FAMILY = "refs/notes/distill"  # every refs/notes/distill* ref is a certificate ref
MAX_MERGES = 20  # compare-and-swap attempts while merging fetched certificates
PUSH_ATTEMPTS = 12
FIRST_DELAY = 0.05  # seconds before the second attempt; doubled each time, up to MAX_DELAY
MAX_DELAY = 2.0

# what git prints when the remote moved since our last fetch
_MOVED = ("fetch first", "non-fast-forward", "stale info", "[rejected]")
# what git prints when the remote could not take a ref lock: someone else is updating it now
_LOCKED = ("failed to lock", "cannot lock ref", "failed to update ref", "Unable to create",
           ".lock': File exists", "incorrect old value")


class SyncResult(Struct, frozen=True, kw_only=True):
    """What one sync moved, for text and JSON rendering."""

    remote: str
    notes_ref: str
    fetched: tuple[str, ...]  # refs the remote had and that were merged in
    pushed: tuple[str, ...]  # refs sent to the remote
    certified_blobs: int  # snapshot blobs with a note locally after the sync


def sync(repo_root: Path, remote: str = "origin", *, fetch: bool = True, push: bool = True) -> SyncResult:
    """Fetch-and-merge, then push, the certificate refs with a remote."""
    config = store.settings(repo_root)
    check_remote(repo_root, remote)
    fetched: tuple[str, ...] = ()
    pushed: tuple[str, ...] = ()
    if fetch:
        fetched = fetch_and_merge(repo_root, remote, config)
    if push:
        pushed, merged = push_certificates(repo_root, remote, config, merge=fetch)
        fetched = tuple(dict.fromkeys(fetched + merged))
    listing = run_git(["notes", "--ref", config.notes_ref, "list"], repo_root).decode() \
        if notes.ref_tips(repo_root, (config.notes_ref,))[config.notes_ref] else ""
    return SyncResult(remote=remote, notes_ref=config.notes_ref, fetched=fetched, pushed=pushed,
                      certified_blobs=len(listing.splitlines()))


def check_remote(repo_root: Path, remote: str) -> None:
    """GitError naming the known remotes when remote is not one of them."""
    names = remote_names(repo_root)
    if remote not in names:
        known = ", ".join(names) if names else "none"
        raise GitError(f"no remote named {remote!r} (remotes: {known}); add one with git remote add {remote} URL")


def default_remote(repo_root: str | Path) -> str | None:
    """The remote a command means when none is named: origin when there is one, else the first."""
    names = remote_names(repo_root)
    return ("origin" if "origin" in names else names[0]) if names else None


def certificate_refs(repo_root: Path, config: store.Settings) -> tuple[str, ...]:
    """The local certificate refs that exist: notes refs first, then the snapshots ref."""
    listing = run_git(["for-each-ref", "--format=%(refname)", "refs/notes/", store.SNAPSHOTS_REF],
                      repo_root).decode().split()
    notes_refs = sorted(ref for ref in listing if is_notes_ref(ref, config))
    return (*notes_refs, *(ref for ref in listing if ref == store.SNAPSHOTS_REF))


def is_notes_ref(ref: str, config: store.Settings) -> bool:
    """A notes ref that holds certificates: the configured one or any refs/notes/distill*, never a temporary one."""
    if ref.startswith(store.TEMP_NOTES_PREFIX):
        return False
    return ref == config.notes_ref or ref.startswith(NOTES_FAMILY)


def push_certificates(repo_root: Path, remote: str, config: store.Settings, *,
                      merge: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Push every local certificate ref to remote; (refs pushed, refs fetched and merged on the way).

    A push the remote rejects because it moved is fetched and merged first when merge is set,
    and refused (GitError) when not; a ref lock the remote could not take is waited out. Each
    outgoing blob is checked for secrets before anything leaves (publish_check).
    """
    from diylisis.edges import publish_check

    refs = certificate_refs(repo_root, config)
    if not refs:
        return (), ()
    # a merge below adds only what the remote already holds: what leaves is checked once, here
    tips = notes.ref_tips(repo_root, refs)
    for ref in refs:
        named_by = config.notes_ref if ref == store.SNAPSHOTS_REF else ref
        publish_check.refuse_secrets(repo_root, remote, {ref: tips[ref]}, named_by)
    merged: tuple[str, ...] = ()
    for attempt in range(PUSH_ATTEMPTS):
        refs = certificate_refs(repo_root, config)
        code, out, err = try_git(["push", "--porcelain", "--no-verify", remote,
                                  *(f"{ref}:{ref}" for ref in refs)], repo_root)
        if code == 0:
            return refs, merged
        said = (out + b"\n" + err).decode("utf-8", errors="replace")
        moved = any(word in said for word in _MOVED)
        locked = any(word in said for word in _LOCKED)
        if not (moved or locked):
            raise GitError(f"cannot push certificates to {remote!r}: {_reason(out, err, code)}")
        if moved and not merge:
            raise GitError(f"{remote} has certificates this repository lacks ({_reason(out, err, code)}); "
                           f"run git distill sync {remote} to fetch and merge them first")
        if attempt == PUSH_ATTEMPTS - 1:
            break
        time.sleep(random.uniform(0.5, 1.0) * min(MAX_DELAY, FIRST_DELAY * 2 ** attempt))
        if merge:
            merged = tuple(dict.fromkeys(merged + fetch_and_merge(repo_root, remote, config)))
    raise StoreConflict(f"the certificate refs on {remote} kept moving under {PUSH_ATTEMPTS} pushes; "
                        f"run git distill sync {remote} again")


def _reason(out: bytes, err: bytes, code: int) -> str:
    """The line of git's push output that says why, else its first error line."""
    for line in out.decode("utf-8", errors="replace").splitlines():
        if line.startswith("!"):
            return " ".join(line.split("\t")[1:]).strip()
    return first_line(err) or f"exit {code}"


def fetch_and_merge(repo_root: Path, remote: str, config: store.Settings) -> tuple[str, ...]:
    """Fetch the remote's certificate refs and merge them into the local ones; the refs merged."""
    code, out, err = try_git(["ls-remote", remote, f"{NOTES_FAMILY}*", config.notes_ref, store.SNAPSHOTS_REF],
                             repo_root)
    if code != 0:
        raise GitError(f"cannot reach remote {remote!r}: {first_line(err) or 'no reason given'}")
    listed = [line.split("\t", 1)[1] for line in out.decode().splitlines() if "\t" in line]
    present = tuple(dict.fromkeys(ref for ref in listed if is_notes_ref(ref, config) or ref == store.SNAPSHOTS_REF))
    if not present:
        return ()
    token = f"{os.getpid()}-{os.urandom(6).hex()}"
    incoming = {ref: f"{INCOMING_PREFIX}{token}-{index}" for index, ref in enumerate(present)}
    try:
        run_git(["fetch", "-q", "--no-tags", "--no-write-fetch-head", remote]
                + [f"+{ref}:{incoming[ref]}" for ref in present], repo_root)
        theirs = notes.ref_tips(repo_root, tuple(incoming.values()))
        for _ in range(MAX_MERGES):
            if _merge_once(repo_root, config, {ref: theirs[incoming[ref]] for ref in present}):
                return present
        raise StoreConflict(f"{config.notes_ref} kept moving while merging certificates from {remote}")
    finally:
        for name in incoming.values():
            try_git(["update-ref", "-d", name], repo_root)


def _merge_once(repo_root: Path, config: store.Settings, theirs: dict[str, str | None]) -> bool:
    """Merge the fetched tips into the local refs in one compare-and-swap; False on a lost race."""
    env = dict(config.identity_env)
    ours = notes.ref_tips(repo_root, tuple(theirs))
    updates: dict[str, tuple[str | None, str | None]] = {}
    for ref, their_tip in theirs.items():
        our_tip = ours[ref]
        if not their_tip or _contains(repo_root, our_tip, their_tip):
            continue
        if ref != store.SNAPSHOTS_REF:
            updates[ref] = (_merge_notes(repo_root, our_tip, their_tip, env), our_tip)
        elif our_tip is None or _contains(repo_root, their_tip, our_tip):
            updates[ref] = (their_tip, our_tip)  # fast-forward
        else:
            updates[ref] = (store.merged_snapshots(repo_root, our_tip, their_tip, env), our_tip)
    if not updates:
        return True
    return store.compare_and_swap(repo_root, updates, config.object_format)


def _contains(repo_root: Path, ours: str | None, theirs: str) -> bool:
    """Our tip already holds theirs (equal, or theirs is an ancestor)."""
    if ours is None:
        return False
    if ours == theirs:
        return True
    code, _, _ = try_git(["merge-base", "--is-ancestor", theirs, ours], repo_root)
    return code == 0


def _merge_notes(repo_root: Path, ours: str | None, theirs: str, env: dict[str, str]) -> str:
    if ours is None or _contains(repo_root, theirs, ours):
        return theirs  # fast-forward
    work = f"{store.TEMP_NOTES_PREFIX}merge-{os.getpid()}-{os.urandom(6).hex()}"
    side = f"{store.TEMP_NOTES_PREFIX}side-{os.getpid()}-{os.urandom(6).hex()}"
    try:
        run_git(["update-ref", work, ours], repo_root)
        run_git(["update-ref", side, theirs], repo_root)
        # cat_sort_uniq keeps every certificate line of both sides (DESIGN.md, Certificate store)
        run_git(["notes", "--ref", work, "merge", "-q", "-s", "cat_sort_uniq", side], repo_root, env=env)
        return notes.ref_tips(repo_root, (work,))[work] or ours
    finally:
        try_git(["update-ref", "-d", work], repo_root)
        try_git(["update-ref", "-d", side], repo_root)
