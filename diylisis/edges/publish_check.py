"""Before the certificate refs are pushed: no blob the remote lacks may hold a secret (DESIGN.md, Trust).

Certificates written today are scanned before they are stored (diylisis/core/secrets.py), but a
repository may hold snapshot blobs and notes written before that, or by another tool. The
pre-push hook and `git distill sync --push` therefore scan every blob they are about to
send: the blobs added to either ref since the remote's tip (all of them when the remote
has none, or a tip this repository does not hold). A hit pushes nothing and says which
blob to forget.
"""

from __future__ import annotations

from diylisis.core import secrets
from diylisis.edges.gitio import cat_objects, run_git, try_git

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path


def remote_tips(root: str | Path, remote: str, refs: Sequence[str]) -> dict[str, str]:
    """ref -> the remote's tip, for the refs the remote has (one `git ls-remote`); empty when unreachable."""
    code, out, _ = try_git(["ls-remote", remote, *refs], root)
    if code != 0:
        return {}  # the push that follows reports the remote's failure in its own words
    tips = {}
    for line in out.decode().splitlines():
        object_id, _, ref = line.partition("\t")
        if ref in refs:
            tips[ref] = object_id
    return tips


def outgoing_blobs(root: str | Path, local: str, theirs: str | None) -> dict[str, str]:
    """blob id -> its path, for the blobs local's tree has that theirs lacks (all of local's without theirs)."""
    if theirs is not None and try_git(["cat-file", "-e", f"{theirs}^{{tree}}"], root)[0] == 0:
        listing = run_git(["diff-tree", "-r", "-z", "--no-renames", "--diff-filter=AM", theirs, local], root)
        parts = listing.split(b"\0")
        found = {}
        for meta, path in zip(parts[0::2], parts[1::2], strict=False):  # a trailing NUL leaves one more
            fields = meta.split()
            if len(fields) >= 4:
                found[fields[3].decode()] = path.decode("utf-8", errors="surrogateescape")
        return found
    found = {}
    for item in run_git(["ls-tree", "-r", "-z", local], root).split(b"\0"):
        meta, _, path = item.partition(b"\t")
        fields = meta.split()
        if len(fields) == 3 and fields[1] == b"blob":
            found[fields[2].decode()] = path.decode("utf-8", errors="surrogateescape")
    return found


def refuse_secrets(root: str | Path, remote: str, local_tips: Mapping[str, str | None],
                   notes_ref: str) -> None:
    """SecretFound naming each outgoing blob that holds a secret, and how to forget it."""
    present = {ref: tip for ref, tip in local_tips.items() if tip}
    if not present:
        return
    theirs = remote_tips(root, remote, tuple(present))
    wanted: dict[str, tuple[str, str]] = {}  # blob -> (ref, record blob to forget)
    for ref, tip in present.items():
        for blob, path in outgoing_blobs(root, tip, theirs.get(ref)).items():
            record = path.replace("/", "") if ref == notes_ref else blob
            wanted.setdefault(blob, (ref, record))
    objects = cat_objects(root, list(wanted))
    problems = []
    for blob, (ref, record) in wanted.items():
        kind, content, _ = objects.get(blob, ("missing", b"", ""))
        if kind != "blob":
            continue
        for finding in secrets.scan(content.decode("utf-8", errors="replace")):
            what = "a certificate" if ref == notes_ref else "a snapshot"
            problems.append(f"{what} ({ref}) of blob {record[:12]}, {finding.describe()}")
    if problems:
        forget = sorted({f"git distill forget blob:{wanted[b][1]}" for b in wanted
                         if any(wanted[b][1][:12] in p for p in problems)})
        raise secrets.SecretFound(
            "the certificate refs hold what looks like a secret, so nothing was pushed: "
            + "; ".join(problems) + ". Remove it with " + " and ".join(forget) + ", then push again")
