"""The pre-push hook: verify the pushed commits' certificates, then push the certificate refs.

git hands the hook `<local ref> <local id> <remote ref> <remote id>` lines on stdin; the
pre-commit framework hands the same in PRE_COMMIT_* variables (framework_refs).
"""

from __future__ import annotations

import re

from msgspec import Struct

from diylisis.app.hooks.shared import Output, said_skipped
from diylisis.core.errors import EXIT_FAILED, EXIT_OK, BadInput, GitError
from diylisis.edges.gitio import cat_objects, remote_names, run_git, try_git

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from pathlib import Path

    from diylisis.core.generated import GeneratedRule
    from diylisis.core.model import Snapshot

ZERO = re.compile(r"^0+$")


class PushedRef(Struct, frozen=True, kw_only=True):
    """One line git gives a pre-push hook on stdin."""

    local_ref: str
    local_id: str
    remote_ref: str
    remote_id: str


def parse_push_lines(text: str) -> tuple[PushedRef, ...]:
    """`<local ref> <local id> <remote ref> <remote id>` lines; a malformed line is exit 2."""
    refs = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 4:
            raise BadInput(f"pre-push input line {number} is not '<local ref> <id> <remote ref> <id>'")
        refs.append(PushedRef(local_ref=parts[0], local_id=parts[1], remote_ref=parts[2],
                              remote_id=parts[3]))
    return tuple(refs)


def framework_refs(root: str | Path, environ: Mapping[str, str]) -> tuple[str | None, tuple[PushedRef, ...]]:
    """(remote, refs) when the pre-commit framework runs us at pre-push or by hand (manual).

    The framework reads git's ref lines itself and hands hooks PRE_COMMIT_FROM_REF /
    PRE_COMMIT_TO_REF, or only PRE_COMMIT_LOCAL_BRANCH when the remote lacks the branch's
    history; by hand (no variables) the commits on no remote-tracking ref are checked.
    """
    remote = environ.get("PRE_COMMIT_REMOTE_NAME") or None
    zero = "0" * 40
    to_ref = environ.get("PRE_COMMIT_TO_REF")
    local = environ.get("PRE_COMMIT_LOCAL_BRANCH") or "HEAD"
    if to_ref:
        from_ref = environ.get("PRE_COMMIT_FROM_REF") or zero
        return remote, (PushedRef(local_ref=local, local_id=_rev(root, to_ref),
                                  remote_ref=environ.get("PRE_COMMIT_REMOTE_BRANCH", local),
                                  remote_id=_rev(root, from_ref) if from_ref != zero else zero),)
    code, _, _ = try_git(["rev-parse", "--verify", "-q", f"{local}^{{commit}}"], root)
    if code != 0:
        return remote, ()  # an unborn branch: nothing to check
    return remote, (PushedRef(local_ref=local, local_id=_rev(root, local),
                              remote_ref=environ.get("PRE_COMMIT_REMOTE_BRANCH", local),
                              remote_id=zero),)


def _rev(root: str | Path, rev: str) -> str:
    return run_git(["rev-parse", "--verify", f"{rev}^{{commit}}"], root).decode().strip()


def pushed_commits(root: str | Path, remote: str | None, refs: Iterable[PushedRef]) -> tuple[str, ...]:
    """Commits the push sends that the remote lacks, oldest first, merges left out."""
    wanted: list[str] = []
    for ref in refs:
        if ZERO.match(ref.local_id):
            continue  # a deletion sends no commits
        if ref.local_ref.startswith(("refs/notes/", "refs/distill/")):
            continue  # certificate refs travel with the commits; they are not records
        if not ZERO.match(ref.remote_id) and _has_object(root, ref.remote_id):
            exclude = [f"^{ref.remote_id}"]
        elif remote is not None and remote in remote_names(root):
            exclude = ["--not", f"--remotes={remote}"]
        else:  # a URL or no remote: what no remote-tracking ref holds is new
            exclude = ["--not", "--remotes"]
        listing = run_git(["rev-list", "--reverse", "--no-merges", f"{ref.local_id}^{{commit}}",
                           *exclude], root).decode()
        wanted += listing.split()
    return tuple(dict.fromkeys(wanted))


def _has_object(root: str | Path, object_id: str) -> bool:
    code, _, _ = try_git(["cat-file", "-e", f"{object_id}^{{commit}}"], root)
    return code == 0


def commit_messages(root: str | Path, commit_ids: Sequence[str]) -> dict[str, bytes]:
    """The message bytes (after the header) of each commit, from one `git cat-file --batch`."""
    found = cat_objects(root, commit_ids)
    messages: dict[str, bytes] = {}
    for commit_id in commit_ids:
        kind, body, _ = found.get(commit_id, ("missing", b"", ""))
        if kind != "commit":
            raise GitError(f"{commit_id} is not a commit in this repository")
        _, sep, message = body.partition(b"\n\n")
        messages[commit_id] = message if sep else b""
    return messages


def commit_snapshots(root: str | Path, commit_ids: Sequence[str], max_bytes: int,
                     *, rule: GeneratedRule) -> tuple[tuple[Snapshot, ...], tuple[str, ...]]:
    """Snapshots of the commits' messages, and the ids skipped as generated messages."""
    from diylisis.edges.records.commit import message_snapshot

    snapshots, skipped = [], []
    for commit_id, data in commit_messages(root, commit_ids).items():
        snapshot = message_snapshot(commit_id, data, max_bytes)
        if rule.skips(snapshot.text) is not None:
            skipped.append(commit_id)
            continue
        snapshots.append(snapshot)
    return tuple(snapshots), tuple(skipped)


def pre_push(remote: str | None, refs: tuple[PushedRef, ...], *, out: Output,
             cwd: str | Path = ".", push_notes: bool = True) -> int:
    """The pre-push hook: verify the pushed commits' certificates, then push the certificate refs."""
    from functools import partial

    from diylisis.app import certification, verification
    from diylisis.edges import store
    from diylisis.edges.trust import trust_for

    if said_skipped(out, "pre-push"):
        return EXIT_OK
    workspace = certification.Workspace.open(cwd)
    commits = pushed_commits(workspace.root, remote, refs)
    snapshots, skipped = commit_snapshots(
        workspace.root, commits, workspace.config.max_record_bytes,
        rule=workspace.config.hooks.generated)
    read_config = partial(store.settings_from, certification.git_values(workspace))  # read with the workspace
    # the repository's [verify] policy and rules, as CI will apply them to these commits
    checks = list(verification.check_many(workspace.root, snapshots, None, certification.context_for(workspace),
                                          read_config=read_config, trust=trust_for(workspace) if snapshots else None))
    failed = [c for c in checks if not c.ok]
    if failed:
        subjects = snapshots_by_id(snapshots)
        out.line(out.paint(f"git distill: {len(failed)} of {len(checks)} pushed commit(s) "
                           "fail verification; nothing was pushed", "1;31"))
        for check in failed:
            out.line(f"  {(check.revision or '')[:12]} {subjects.get(check.revision or '', '')}")
            for failure in check.failures:
                out.line(f"    {failure}")
        out.line("  certify each with: git distill certify commit:ID "
                 "(or push with --no-verify to skip this check)")
        return EXIT_FAILED
    out.note(f"git distill: {len(checks)} pushed commit(s) verify"
             + (f"; {len(skipped)} generated message(s) skipped" if skipped else ""))
    if push_notes and remote is not None and any(not ZERO.match(r.local_id) for r in refs):
        pushed = push_certificates(workspace.root, remote)
        if pushed:
            out.note(f"git distill: pushed {', '.join(pushed)} to {remote}")
    return EXIT_OK


def snapshots_by_id(snapshots: Iterable[Snapshot]) -> dict[str, str]:
    """Commit id -> subject line, for failure lines."""
    return {s.revision or "": s.text.split("\n", 1)[0][:60] for s in snapshots}


def push_certificates(root: str | Path, remote: str) -> tuple[str, ...]:
    """Push every certificate ref beside the commits, by the routine `git distill sync` uses
    (diylisis.app.sync): the remote's are fetched and merged first when it moved."""
    from pathlib import Path

    from diylisis.app.sync import push_certificates as push
    from diylisis.edges import store

    pushed, _ = push(Path(root), remote, store.settings(root), merge=True)
    return pushed
