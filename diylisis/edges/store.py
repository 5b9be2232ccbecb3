"""Certificates as git notes keyed by content (DESIGN.md, Certificate store).

A certificate is attached to the blob whose content is the snapshot bytes, so the key IS
the content: same bytes, same certificates after amend, rebase or cherry-pick; any edit,
none. One note holds JSON Lines, one certificate per line, one line per role. Notes do
not keep their object alive, so every snapshot blob is also kept reachable from a tree
under `refs/distill/snapshots`. Both refs move together in one `git update-ref --stdin`
transaction that compares and swaps, retried when another writer won the race.

The notes themselves are read and written by `diylisis.edges.notes` (any notes ref, git's own
plumbing, the compare-and-swap); this module adds what is particular to certificates: the key,
the role lines, the snapshots ref. The write path never imports pygit2: the commit-msg hook
certifies through it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from msgspec import Struct

from diylisis.core.digests import sha1, sha256
from diylisis.core.errors import BadInput
from diylisis.edges import notes
from diylisis.edges.gitio import cat_objects, config_values, run_git, try_git
from diylisis.edges.note_text import CorruptNote, decode_note, encode_line

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

DEFAULT_NOTES_REF = "refs/notes/distill"
SNAPSHOTS_REF = "refs/distill/snapshots"
TEMP_NOTES_PREFIX = notes.TEMP_REF_PREFIX  # git notes writes only under refs/notes/
FALLBACK_IDENTITY = {"name": "git distill", "email": "distill@localhost.invalid"}


class Settings(Struct, frozen=True, kw_only=True):
    """What the store reads from git config in one call."""

    notes_ref: str
    object_format: str  # "sha1" | "sha256"
    identity_env: tuple[tuple[str, str], ...]  # GIT_*_NAME/EMAIL only when git has none


def settings(repo_root: str | Path) -> Settings:
    """The notes ref, object format and commit identity, from one `git config` call."""
    from diylisis.edges.git_keys import STORE_KEYS

    return settings_from(config_values(repo_root, STORE_KEYS))


def settings_from(values: Mapping[str, str]) -> Settings:
    """Settings from git config values already read (lower-case keys; git_keys.STORE_KEYS are used)."""
    identity: list[tuple[str, str]] = []
    for part in ("name", "email"):
        if f"user.{part}" in values:
            continue
        for role in ("AUTHOR", "COMMITTER"):
            variable = f"GIT_{role}_{part.upper()}"
            if variable not in os.environ:
                identity.append((variable, FALLBACK_IDENTITY[part]))
    return Settings(
        notes_ref=_expand_notes_ref(values.get("distill.notesref", DEFAULT_NOTES_REF)),
        object_format=values.get("extensions.objectformat", "sha1").lower(),
        identity_env=tuple(identity),
    )


def _expand_notes_ref(name: str) -> str:
    """Expand a notes ref the way git notes --ref does, and insist it stays under refs/notes/."""
    try:
        return notes.expand_ref(name)
    except BadInput:
        raise BadInput(f"distill.notesRef {name.strip()!r} must name a ref under refs/notes/") from None


def blob_id(data: bytes, object_format: str = "sha1") -> str:
    """The id git gives a blob with this content, computed without writing it."""
    header = b"blob %d\0" % len(data)
    algorithm = sha256 if object_format == "sha256" else sha1
    return algorithm(header + data).hexdigest()


def serialize(certificate: Mapping[str, Any]) -> str:
    """One compact JSON line, keys sorted, text left readable for `git log --notes=distill`
    except what a line splitter would break on (note_text.encode_line)."""
    role = certificate.get("role")
    if not isinstance(role, str) or not role.strip():
        raise BadInput("a certificate needs a non-empty string 'role' to be stored")
    return encode_line(certificate)


# --- reading --------------------------------------------------------------------------------


def get(repo_root: str | Path, data: bytes) -> list[dict[str, Any]]:
    """The certificates stored for exactly these snapshot bytes (empty when none)."""
    found = get_many(repo_root, [data])
    return next(iter(found.values()))


def get_many(repo_root: str | Path, datas: Iterable[bytes]) -> dict[str, list[dict[str, Any]]]:
    """Certificates for many snapshots at once, keyed by blob id: one notes list, one cat-file."""
    config = settings(repo_root)
    ids = [blob_id(data, config.object_format) for data in datas]
    wanted = set(ids)
    note_of = {blob: note for blob, note in notes.note_index(repo_root, config.notes_ref).items() if blob in wanted}
    found = read_notes(repo_root, config.notes_ref, note_of) if note_of else {}
    return {blob: found.get(blob, []) for blob in ids}


def read_notes(repo_root: str | Path, ref: str, note_of: Mapping[str, str], *,
               long_lived: bool = False, keep_going: bool = False) -> dict[str, Any]:
    """Annotated blob -> its certificates, for the notes note_of names (note_index's entries), in one cat-file.

    long_lived: through this process's cat-file in repo_root, which stays running (a range verify
    reads a chunk of notes at a time, and one git process per chunk cost more than reading them).
    Each value is a list of certificate objects; with keep_going, a corrupt note's value is its
    CorruptNote instead of an error for them all.
    """
    if not note_of:
        return {}
    ids = list(dict.fromkeys(note_of.values()))
    objects = None
    if long_lived:
        from diylisis.edges.gitio.context import read_objects

        objects = read_objects(os.fspath(repo_root), ids)
    if objects is None:
        objects = {oid: (kind, content) for oid, (kind, content, _) in cat_objects(repo_root, ids).items()}
    found: dict[str, Any] = {}
    for annotated, note in note_of.items():
        kind, content = objects.get(note, ("missing", b""))
        try:
            if kind != "blob":
                raise CorruptNote(annotated, ref, f"its note {note} is not a readable blob")
            found[annotated] = [value for _, value in decode_note(content, annotated, ref)]
        except CorruptNote as error:
            if not keep_going:
                raise
            found[annotated] = error
    return found


# --- writing --------------------------------------------------------------------------------


def put(repo_root: str | Path, keys: Sequence[bytes], certificate: Mapping[str, Any]) -> None:
    """Attach the certificate to every key's blob, replacing that role's earlier line there."""
    if not keys:
        raise BadInput("a certificate needs at least one snapshot to be keyed under")
    put_many(repo_root, [(key, certificate) for key in keys])


def put_many(repo_root: str | Path, entries: Sequence[tuple[bytes, Mapping[str, Any]]],
             *, config: Settings | None = None) -> None:
    """Attach each certificate to its key's blob in one compare-and-swap (one role line per blob),
    and keep each key's blob reachable from the snapshots ref in the same transaction.

    config: the store settings when the caller already read them (settings_from), else read here.
    """
    if not entries:
        raise BadInput("a certificate needs at least one snapshot to be keyed under")
    config = config if config is not None else settings(repo_root)
    lines: dict[str, tuple[str, str]] = {}
    keep: dict[str, bytes] = {}
    for key, certificate in entries:
        line = serialize(certificate)  # refuses a bad certificate before any write
        blob = blob_id(key, config.object_format)
        lines[blob] = (certificate["role"], line)
        keep[blob] = key

    def replacing_role(blob: str) -> notes.Edit:
        role, line = lines[blob]

        def edit(old: bytes) -> bytes:
            kept = [kept_line for kept_line, parsed in decode_note(old, blob, config.notes_ref)
                    if parsed["role"] != role]
            return ("\n".join(sorted({*kept, line})) + "\n").encode("utf-8")  # sorted as cat_sort_uniq leaves it

        return edit

    notes.update_notes(repo_root, config.notes_ref, {blob: replacing_role(blob) for blob in lines},
                       keep_ref=SNAPSHOTS_REF, keep=keep, env=dict(config.identity_env),
                       object_format=config.object_format)


def check_writable(repo_root: str | Path, datas: Iterable[bytes]) -> None:
    """Refuse now what storing a certificate for these contents would refuse at the end: a notes or
    snapshots ref that is not a commit (BadInput), a corrupt note on one of them (CorruptNote)."""
    config = settings(repo_root)
    notes.refuse_unusable_refs(repo_root, (config.notes_ref, SNAPSHOTS_REF))
    get_many(repo_root, datas)


@contextmanager
def temporary_index(env: Mapping[str, str]) -> Iterator[dict[str, str]]:
    """env with GIT_INDEX_FILE naming a fresh index file, removed on leaving (merges and forget:
    certificates are written through fast-import, without an index)."""
    import tempfile

    handle, index = tempfile.mkstemp(prefix="distill-index-")
    os.close(handle)
    os.unlink(index)  # git wants to create the index itself
    try:
        yield {**env, "GIT_INDEX_FILE": index}
    finally:
        if os.path.exists(index):
            os.unlink(index)


def merged_snapshots(repo_root: str | Path, ours: str, theirs: str, env: Mapping[str, str]) -> str:
    """A merge commit of two snapshots tips whose tree holds the blobs of both (sync)."""
    with temporary_index(env) as index_env:
        run_git(["read-tree", f"{ours}^{{tree}}"], repo_root, env=index_env)
        listing = run_git(["ls-tree", "-r", "-z", theirs], repo_root).split(b"\0")
        entries = "".join(item.decode() + "\n" for item in listing if item)
        if entries:
            run_git(["update-index", "--add", "--index-info"], repo_root, input=entries.encode(), env=index_env)
        tree_id = run_git(["write-tree"], repo_root, env=index_env).decode().strip()
    return run_git(["commit-tree", tree_id, "-p", ours, "-p", theirs, "-F", "-"], repo_root,
                   input=notes.KEEP_MESSAGE.encode(), env=env).decode().strip()


def compare_and_swap(repo_root: str | Path, updates: Mapping[str, tuple[str | None, str | None]],
                     object_format: str) -> bool:
    """Move every ref from its old to its new id in one transaction; False if one moved first."""
    zero = "0" * (64 if object_format == "sha256" else 40)
    lines = ["start"]
    for ref, (new, old) in updates.items():
        if new is None or new == old:
            lines.append(f"verify {ref} {old or zero}")
        else:
            lines.append(f"update {ref} {new} {old or zero}")
    lines += ["prepare", "commit", ""]
    return notes.transaction_result(try_git(["update-ref", "--stdin"], repo_root, input="\n".join(lines).encode()))
