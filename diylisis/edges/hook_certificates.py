"""The commit-msg hook's certificate, kept locally until git has stored the message (DESIGN.md, Trust).

The commit-msg hook cannot know which of the message's readings git will store (the cleanup
mode and `-v` live on git's command line), so it judges every one and keeps nothing that
travels: the certificate of each reading waits in the worktree's git directory
(`distill/hook-certificate.json`, never pushed, never a ref). The post-commit hook reads the
message git really stored, and only the certificate of exactly those bytes becomes a note
and a snapshot blob, under the commit's own locator. Text git did not store (comment lines,
the status template, a diff under the scissors line, a reading of another cleanup mode) is
never written to an object, so no push can publish it.

Used on the commit-msg path: no pygit2, no click, no rich.
"""

from __future__ import annotations

import os

from msgspec import json as msgspec_json

from diylisis.core import secrets
from diylisis.core.errors import EXIT_OK, BadInput, DistillError
from diylisis.core.model import sha256_digest
from diylisis.edges.gitio import run_git, try_git

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

    from diylisis.app.hooks.shared import Output

PENDING = os.path.join("distill", "hook-certificate.json")


def pending_path(git_dir: str) -> str:
    """Where the commit-msg hook leaves its certificates for the post-commit hook."""
    return os.path.join(git_dir, PENDING)


def keep(git_dir: str, head: str | None, entries: Sequence[tuple[bytes, Mapping[str, Any]]]) -> None:
    """Leave the certificate of each reading (bytes, certificate) for the post-commit hook.

    head: the commit HEAD named while the message was judged; the post-commit hook takes the
    certificate only for a commit made on it (or amending it).
    """
    path = pending_path(git_dir)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    body = {"head": head, "entries": [{"digest": sha256_digest(data), "certificate": certificate}
                                      for data, certificate in entries]}
    temporary = f"{path}.{os.getpid()}"
    # msgspec's encoder, loaded with the models already: the json module costs the hook an import
    with open(temporary, "wb") as handle:
        handle.write(msgspec_json.encode(body))
    os.replace(temporary, path)


def discard(git_dir: str) -> None:
    """Drop what an earlier commit-msg run left (a refused message certifies nothing)."""
    try:
        os.unlink(pending_path(git_dir))
    except FileNotFoundError:
        pass


def for_commit(certificate: Mapping[str, Any], commit_id: str) -> dict[str, Any]:
    """The certificate with the commit as its locator instead of the message file's path.

    The message file's path is the certifier's (`/home/.../.git/COMMIT_EDITMSG`); a reader of
    the note holds the commit, so the target, the activation edge and the identity re-check
    name `commit:<id>`.
    """
    made = relocated(certificate, {"kind": "commit", "locator": commit_id, "revision": None})
    if isinstance(made.get("identity"), dict):
        made["identity"] = {**made["identity"], "revision": commit_id}
    return made


def relocated(certificate: Mapping[str, Any], target: Mapping[str, Any]) -> dict[str, Any]:
    """The certificate naming target (kind, locator, revision) wherever it named its old target
    (the target itself, the activation edge, the identity re-check, the sweep's words)."""
    import json  # post-commit only

    old_target = certificate.get("target") or {}
    at = f"@{old_target['revision']}" if old_target.get("revision") else ""
    old = f"{old_target.get('kind')}:{old_target.get('locator')}{at}"
    new = f"{target['kind']}:{target['locator']}" + (f"@{target['revision']}" if target.get("revision") else "")
    quoted = json.dumps(old, ensure_ascii=False)[1:-1]
    text = json.dumps(certificate, ensure_ascii=False).replace(quoted, json.dumps(new, ensure_ascii=False)[1:-1])
    made: dict[str, Any] = json.loads(text)
    made["target"] = dict(target)
    if isinstance(made.get("activation_edge"), dict):
        made["activation_edge"] = {**made["activation_edge"], "locator": new}
    return made


def portable(certificate: Mapping[str, Any], root: str) -> dict[str, Any]:
    """The certificate with a repository-relative locator; BadInput for a path outside the repository.

    A certificate travels to clones: an absolute path names the certifier's machine, never a
    place a reader can open.
    """
    target = certificate.get("target") or {}
    locator = target.get("locator")
    if not isinstance(locator, str) or not os.path.isabs(locator):
        return dict(certificate)
    relative = os.path.relpath(os.path.realpath(locator), os.path.realpath(root))
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        raise BadInput(f"{target.get('kind')}:{locator} lies outside the repository, and a certificate "
                       "names repository-relative paths only; commit the message and certify the "
                       "commit instead")
    return relocated(certificate, {**target, "locator": relative.replace(os.sep, "/")})


def stored_message(root: str, rev: str = "HEAD") -> tuple[str, tuple[str, ...], bytes]:
    """(commit id, parent ids, message bytes after the header) of the commit rev names."""
    commit_id = run_git(["rev-parse", "--verify", f"{rev}^{{commit}}"], root).decode().strip()
    body = run_git(["cat-file", "commit", commit_id], root)
    header, _, message = body.partition(b"\n\n")
    parents = tuple(line.split()[1].decode() for line in header.split(b"\n") if line.startswith(b"parent "))
    return commit_id, parents, message


def _made_on(root: str, head: str | None, parents: tuple[str, ...]) -> bool:
    """The new commit was made on head, or amends it (same parents as head)."""
    if head is None:
        return not parents
    if head in parents:
        return True
    code, out, _ = try_git(["rev-parse", f"{head}^@"], root)
    return code == 0 and tuple(out.decode().split()) == parents


def _signed(root: str, certificate: dict[str, Any], message: bytes, values: Mapping[str, str]) -> dict[str, Any]:
    """The certificate signed as git config asks (distill.sign): signed here, at store time,
    because only now is its target the commit and so its bytes final."""
    from diylisis.edges import signing

    if not signing.wanted(values, None):
        return certificate
    return signing.sign(certificate, sha256_digest(message), signing.signer_from(values), root)


def post_commit(root: str, git_dir: str, out: Output) -> int:
    """The post-commit hook: key the waiting certificate under the message git stored.

    Always exit 0 (the commit is made; git ignores a post-commit failure anyway), saying on
    stderr when nothing could be stored.
    """
    import json

    path = pending_path(git_dir)
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return EXIT_OK  # the commit-msg hook did not certify this commit (or did not run)
    discard(git_dir)
    try:
        body = json.loads(text)
        entries = {entry["digest"]: entry["certificate"] for entry in body["entries"]}
        head = body.get("head")
    except (ValueError, KeyError, TypeError):
        out.line("git distill: the certificate the commit-msg hook left is unreadable; "
                 "certify this commit with: git distill certify HEAD")
        return EXIT_OK
    commit_id, parents, message = stored_message(root)
    certificate = entries.get(sha256_digest(message))
    if certificate is None or not _made_on(root, head, parents):
        out.note("git distill: the commit holds a message the commit-msg hook did not certify; "
                 "no certificate stored")
        return EXIT_OK
    from diylisis.edges import store
    from diylisis.edges.git_keys import SIGNING_KEYS, STORE_KEYS
    from diylisis.edges.gitio import config_values

    certificate = for_commit(certificate, commit_id)
    try:
        secrets.refuse(message, "the commit message")
        secrets.refuse(json.dumps(certificate, ensure_ascii=False), "the certificate")
        values = config_values(root, (*SIGNING_KEYS, *STORE_KEYS))  # one git config read
        certificate = _signed(root, certificate, message, values)
        store.put_many(root, [(message, certificate)], config=store.settings_from(values))
    except DistillError as error:
        out.line(f"git distill: no certificate stored for {commit_id[:12]}: {error.message}")
        return EXIT_OK
    out.note(f"git distill: certificate stored for {commit_id[:12]}")
    return EXIT_OK
