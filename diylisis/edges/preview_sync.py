"""Move the preview records (refs/notes/distill-preview) to and from a remote, for `git distill sync`.

Fetching lands the remote's ref on a temporary ref and merges it with `git notes merge -s
cat_sort_uniq` (every record line of both sides survives), then moves the local ref with a
compare-and-swap; pushing sends the ref.
"""

from __future__ import annotations

import os
from pathlib import Path

from diylisis.edges.preview_note import REF
from diylisis.errors import GitError
from diylisis.gitio import first_line, run_git, try_git

_TEMP = "refs/notes/distill-tmp/preview-"


def _tip(root: Path, ref: str) -> str | None:
    code, out, _ = try_git(["rev-parse", "-q", "--verify", f"{ref}^{{commit}}"], root)
    return out.decode().strip() if code == 0 else None


def fetch_and_merge(root: Path, remote: str, env: dict[str, str]) -> bool:
    """Merge the remote's preview records into ours; False when the remote has none."""
    code, out, err = try_git(["ls-remote", remote, REF], root)
    if code != 0:
        raise GitError(f"cannot reach remote {remote!r}: {first_line(err) or 'no reason given'}")
    if not any(line.endswith("\t" + REF) for line in out.decode().splitlines()):
        return False
    token = f"{os.getpid()}-{os.urandom(6).hex()}"
    incoming, work = f"{_TEMP}incoming-{token}", f"{_TEMP}work-{token}"
    try:
        run_git(["fetch", "-q", "--no-tags", "--no-write-fetch-head", remote, f"+{REF}:{incoming}"], root)
        theirs = _tip(root, incoming)
        ours = _tip(root, REF)
        if theirs is None or theirs == ours:
            return True
        if ours is None:
            merged = theirs
        elif try_git(["merge-base", "--is-ancestor", theirs, ours], root)[0] == 0:
            return True
        elif try_git(["merge-base", "--is-ancestor", ours, theirs], root)[0] == 0:
            merged = theirs
        else:
            run_git(["update-ref", work, ours], root)
            run_git(["notes", "--ref", work, "merge", "-q", "-s", "cat_sort_uniq", incoming], root, env=env)
            merged = _tip(root, work) or ours
        run_git(["update-ref", "-m", "distill sync: preview records", REF, merged, ours or "0" * len(merged)], root)
        return True
    finally:
        for name in (incoming, work):
            try_git(["update-ref", "-d", name], root)


def push(root: Path, remote: str) -> bool:
    """Send our preview records; False when there are none. A rejection says to fetch first."""
    if _tip(root, REF) is None:
        return False
    code, _, err = try_git(["push", "-q", "--porcelain", "--no-verify", remote, f"{REF}:{REF}"], root)
    if code != 0:
        raise GitError(f"cannot push preview records to {remote!r}: {first_line(err) or 'no reason given'}; "
                       f"run git distill sync {remote} to fetch and merge them first")
    return True
