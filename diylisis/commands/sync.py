"""`git distill sync [REMOTE] [--push|--fetch]`: move certificates to and from a remote.

Certificates live in two refs: the notes ref (refs/notes/distill) and
refs/distill/snapshots, which keeps the keyed blobs alive. Fetching lands the remote's
refs on temporary refs, merges the notes with `git notes merge -s cat_sort_uniq` (each
side's JSON lines survive) and the snapshot trees as a union, then moves both local refs
in one compare-and-swap. Pushing sends both refs; after a fetch they fast-forward.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from diylisis import codec, store
from diylisis.errors import GitError, StoreConflict
from diylisis.frozen import frozen_model
from diylisis.gitio import first_line, run_git, toplevel, try_git

INCOMING_PREFIX = store.TEMP_NOTES_PREFIX + "incoming-"
MAX_ATTEMPTS = 20


@frozen_model
class SyncResult:
    """What one sync moved, for text and JSON rendering."""

    remote: str
    notes_ref: str
    fetched: tuple[str, ...]  # refs the remote had and that were merged in
    pushed: tuple[str, ...]  # refs sent to the remote
    certified_blobs: int  # snapshot blobs with a note locally after the sync


def sync(
    repo_root: Path, remote: str = "origin", *, fetch: bool = True, push: bool = True
) -> SyncResult:
    """Fetch-and-merge, then push, the certificate refs with a remote."""
    config = store.settings(repo_root)
    refs = (config.notes_ref, store.SNAPSHOTS_REF)
    _check_remote(repo_root, remote)
    fetched: tuple[str, ...] = ()
    pushed: tuple[str, ...] = ()
    for attempt in range(3):
        if fetch:
            fetched = fetch_and_merge(repo_root, remote, config)
        if not push:
            break
        rejected, pushed = _push(repo_root, remote, refs)
        if not rejected:
            break
        if not fetch or attempt == 2:
            raise GitError(
                f"{remote} has certificates this repository lacks ({rejected}); "
                f"run git distill sync {remote} to fetch and merge them first"
            )
    _sync_preview_records(repo_root, remote, config, fetch=fetch, push=push)
    listing = run_git(["notes", "--ref", config.notes_ref, "list"], repo_root).decode()
    return SyncResult(
        remote=remote,
        notes_ref=config.notes_ref,
        fetched=fetched,
        pushed=pushed,
        certified_blobs=len(listing.splitlines()),
    )


def _sync_preview_records(repo_root: Path, remote: str, config: store.Settings, *, fetch: bool,
                          push: bool) -> None:
    """The records of `git distill preview` (refs/notes/distill-preview) travel with the certificates."""
    from diylisis.edges import preview_sync

    if fetch:
        preview_sync.fetch_and_merge(repo_root, remote, dict(config.identity_env))
    if push:
        preview_sync.push(repo_root, remote)


def _check_remote(repo_root: Path, remote: str) -> None:
    names = run_git(["remote"], repo_root).decode().split()
    if remote not in names:
        known = ", ".join(names) if names else "none"
        raise GitError(
            f"no remote named {remote!r} (remotes: {known}); "
            f"add one with git remote add {remote} URL"
        )


def fetch_and_merge(repo_root: Path, remote: str, config: store.Settings) -> tuple[str, ...]:
    """Fetch the remote's certificate refs and merge them into the local ones."""
    refs = (config.notes_ref, store.SNAPSHOTS_REF)
    code, out, err = try_git(["ls-remote", remote, *refs], repo_root)
    if code != 0:
        raise GitError(f"cannot reach remote {remote!r}: {first_line(err) or 'no reason given'}")
    present = [
        ref for ref in refs if any(line.endswith("\t" + ref) for line in out.decode().splitlines())
    ]
    if not present:
        return ()
    token = f"{os.getpid()}-{os.urandom(6).hex()}"
    incoming = {ref: f"{INCOMING_PREFIX}{token}-{index}" for index, ref in enumerate(refs)}
    try:
        run_git(
            ["fetch", "-q", "--no-tags", "--no-write-fetch-head", remote]
            + [f"+{ref}:{incoming[ref]}" for ref in present],
            repo_root,
        )
        theirs = store.ref_tips(repo_root, tuple(incoming[ref] for ref in present))
        for _ in range(MAX_ATTEMPTS):
            if _merge_once(repo_root, config, {ref: theirs[incoming[ref]] for ref in present}):
                return tuple(present)
        raise StoreConflict(
            f"{config.notes_ref} kept moving while merging certificates from {remote}"
        )
    finally:
        for name in incoming.values():
            try_git(["update-ref", "-d", name], repo_root)


def _merge_once(repo_root: Path, config: store.Settings, theirs: dict[str, str | None]) -> bool:
    """Merge the fetched tips into the local refs in one compare-and-swap; False on a lost race."""
    env = dict(config.identity_env)
    ours = store.ref_tips(repo_root, (config.notes_ref, store.SNAPSHOTS_REF))
    updates: dict[str, tuple[str | None, str | None]] = {}
    notes_theirs = theirs.get(config.notes_ref)
    notes_ours = ours[config.notes_ref]
    if notes_theirs and not _contains(repo_root, notes_ours, notes_theirs):
        updates[config.notes_ref] = (
            _merge_notes(repo_root, config, notes_ours, notes_theirs, env),
            notes_ours,
        )
    snap_theirs = theirs.get(store.SNAPSHOTS_REF)
    snap_ours = ours[store.SNAPSHOTS_REF]
    if snap_theirs and not _contains(repo_root, snap_ours, snap_theirs):
        if snap_ours is None or _contains(repo_root, snap_theirs, snap_ours):
            merged = snap_theirs  # fast-forward
        else:
            merged = store.snapshots_commit(
                repo_root,
                snap_ours,
                (),
                env,
                extra_parents=(snap_theirs,),
                extra_trees=(snap_theirs,),
            )
        updates[store.SNAPSHOTS_REF] = (merged, snap_ours)
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


def _merge_notes(
    repo_root: Path, config: store.Settings, ours: str | None, theirs: str, env: dict[str, str]
) -> str:
    if ours is None or _contains(repo_root, theirs, ours):
        return theirs  # fast-forward
    work = f"{store.TEMP_NOTES_PREFIX}merge-{os.getpid()}-{os.urandom(6).hex()}"
    side = f"{store.TEMP_NOTES_PREFIX}side-{os.getpid()}-{os.urandom(6).hex()}"
    try:
        run_git(["update-ref", work, ours], repo_root)
        run_git(["update-ref", side, theirs], repo_root)
        # cat_sort_uniq keeps every certificate line of both sides (DESIGN.md, Certificate store)
        run_git(
            ["notes", "--ref", work, "merge", "-q", "-s", "cat_sort_uniq", side], repo_root, env=env
        )
        return store.ref_tips(repo_root, (work,))[work] or ours
    finally:
        try_git(["update-ref", "-d", work], repo_root)
        try_git(["update-ref", "-d", side], repo_root)


def _push(repo_root: Path, remote: str, refs: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """Push the local certificate refs; (rejection reason or '', refs pushed)."""
    from diylisis import publish_check

    tips = store.ref_tips(repo_root, refs)
    local = [ref for ref, tip in tips.items() if tip]
    if not local:
        return "", ()
    publish_check.refuse_secrets(repo_root, remote, tips, refs[0])
    # --no-verify: the pushed refs hold certificates, no commits; our own pre-push hook would
    # push the same refs from inside this push, and this push would then find them taken
    code, _, err = try_git(
        ["push", "-q", "--porcelain", "--no-verify", remote, *(f"{ref}:{ref}" for ref in local)], repo_root
    )
    if code == 0:
        return "", tuple(local)
    text = err.decode("utf-8", errors="replace")
    if "rejected" in text or "fetch first" in text or "non-fast-forward" in text:
        return first_line(err) or "no reason given", ()
    raise GitError(f"cannot push certificates to {remote!r}: {first_line(err) or 'no reason given'}")


def render_text(result: SyncResult) -> str:
    """A few lines saying what moved."""
    lines = []
    if result.fetched:
        lines.append(f"fetched and merged {', '.join(result.fetched)} from {result.remote}")
    if result.pushed:
        lines.append(f"pushed {', '.join(result.pushed)} to {result.remote}")
    if not lines:
        lines.append(f"nothing to move: neither side has certificates under {result.notes_ref}")
    lines.append(f"{result.certified_blobs} certified snapshot(s) under {result.notes_ref}")
    return "\n".join(lines)


@click.command("sync")
@click.argument("remote", required=False, default="origin")
@click.option("--push", "mode", flag_value="push", help="Only push local certificates.")
@click.option("--fetch", "mode", flag_value="fetch", help="Only fetch and merge the remote's.")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True
)
def command(remote: str, mode: str | None, fmt: str) -> int:
    """Push or fetch certificates (refs/notes/distill) with a remote; default: fetch, then push."""
    from diylisis.safe_text import visible_block, visible_json

    result = sync(toplevel("."), remote, fetch=mode in (None, "fetch"), push=mode in (None, "push"))
    # a ref name may come from a committed config
    if fmt == "json":
        click.echo(visible_json(json.dumps(codec.encode(result), sort_keys=True)))
    else:
        click.echo(visible_block(render_text(result)))
    return 0
