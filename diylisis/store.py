"""Certificates as git notes keyed by content (DESIGN.md, Certificate store).

A certificate is attached to the blob whose content is the snapshot bytes, so the key IS
the content: same bytes, same certificates after amend, rebase or cherry-pick; any edit,
none. One note holds JSON Lines, one certificate per line, one line per role. Notes do
not keep their object alive, so every snapshot blob is also kept reachable from a tree
under `refs/distill/snapshots`. Both refs move together in one `git update-ref --stdin`
transaction that compares and swaps, retried when another writer won the race.

The write path uses a few git plumbing calls and never imports pygit2: the commit-msg
hook certifies through it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from diylisis.digests import sha1, sha256
from diylisis.errors import BadInput, GitError, StoreConflict
from diylisis.gitio import CatObjects, GitProcess, cat_objects, config_values, first_line, run_git, try_git
from diylisis.note_text import CorruptNote, decode_note, encode_line

TYPE_CHECKING = False  # true for type checkers only: the hook never imports typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

DEFAULT_NOTES_REF = "refs/notes/distill"
SNAPSHOTS_REF = "refs/distill/snapshots"
TEMP_NOTES_PREFIX = "refs/notes/distill-tmp/"  # git notes writes only under refs/notes/
MAX_ATTEMPTS = 60
FALLBACK_IDENTITY = {"name": "git distill", "email": "distill@localhost.invalid"}


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """What the store reads from git config in one call."""

    notes_ref: str
    object_format: str  # "sha1" | "sha256"
    identity_env: tuple[tuple[str, str], ...]  # GIT_*_NAME/EMAIL only when git has none
    # the author and committer lines of a new notes commit as `git commit-tree` would write
    # them, the date left as None for "now"; None when only git can write the commit
    idents: tuple[Ident, Ident] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Ident:
    """Who an author or committer line names, and its date as git writes it (None: the time of writing)."""

    name: str
    email: str
    date: str | None


# the user.* and author.*/committer.* keys give git's identity; the last two make git write a
# commit we do not (a signature, an encoding header)
SETTINGS_KEYS = ("distill.notesref", "extensions.objectformat", "user.name", "user.email",
                 "author.name", "author.email", "committer.name", "committer.email",
                 "commit.gpgsign", "i18n.commitencoding")


def settings(repo_root: str | Path) -> Settings:
    """The notes ref, object format and commit identity, from one `git config` call."""
    return settings_from(config_values(repo_root, SETTINGS_KEYS))


def settings_from(values: Mapping[str, str]) -> Settings:
    """Settings from git config values already read (lower-case keys; SETTINGS_KEYS are used)."""
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
        idents=_idents(values, {**os.environ, **dict(identity)}),
    )


def _idents(values: Mapping[str, str], environ: Mapping[str, str]) -> tuple[Ident, Ident] | None:
    """The author and committer git would write (git: ident.c fmt_ident), or None where git
    must write the commit itself: signing, a commit encoding other than UTF-8, a date in the
    environment in another form than git's own `@<seconds> <zone>`, or an identity git refuses."""
    if values.get("commit.gpgsign", "false").lower() not in ("false", "no", "off", "0"):
        return None
    if values.get("i18n.commitencoding", "utf-8").lower() not in ("utf-8", "utf8"):
        return None
    made = []
    for role in ("author", "committer"):
        variable = f"GIT_{role.upper()}"
        parts = []
        for part in ("name", "email"):
            # the environment, even empty, else a non-empty author.*/committer.*, else user.*
            given = environ.get(f"{variable}_{part.upper()}")
            if given is None:
                given = values.get(f"{role}.{part}") or values.get(f"user.{part}")
            cleaned = _without_crud(given or "")
            if not cleaned or cleaned[0] == "." or cleaned[-1] == ".":
                return None  # git refuses it, or trims a dot as only some git versions do
            parts.append(cleaned)
        date = environ.get(f"{variable}_DATE")
        if date is not None:
            date = _raw_date(date)
            if date is None:
                return None
        made.append(Ident(name=parts[0], email=parts[1], date=date))
    return made[0], made[1]


_CRUD = frozenset(chr(c) for c in range(33)) | frozenset(",:;<>\"\\'")


def _without_crud(text: str) -> str:
    """text as git puts it in an identity line: crud off both ends, no newline or angle bracket inside."""
    start, end = 0, len(text)
    while start < end and text[start] in _CRUD:
        start += 1
    while end > start and text[end - 1] in _CRUD:
        end -= 1
    return text[start:end].replace("\n", "").replace("<", "").replace(">", "")


def _raw_date(text: str) -> str | None:
    """`@<seconds> <+/-hhmm>` (what git commit exports to its hooks) as git writes it, else None."""
    seconds, space, zone = text[1:].partition(" ")
    if not (text.startswith("@") and space and seconds.isdigit() and seconds.isascii()
            and len(zone) == 5 and zone[0] in "+-" and zone[1:].isdigit() and zone[1:].isascii()):
        return None
    minutes = int(zone[1:3]) * 60 + int(zone[3:])
    return _date(int(seconds), -minutes if zone[0] == "-" else minutes)


def _date(seconds: int, offset_minutes: int) -> str:
    sign = "-" if offset_minutes < 0 else "+"
    offset_minutes = abs(offset_minutes)
    return f"{seconds} {sign}{offset_minutes // 60:02d}{offset_minutes % 60:02d}"


def _now() -> str:
    """The current time in the local zone, as git dates a commit."""
    seconds = int(time.time())
    return _date(seconds, time.localtime(seconds).tm_gmtoff // 60)


def commit_object(tree: str, parent: str | None, message: str, idents: tuple[Ident, Ident]) -> bytes:
    """The bytes of the commit `git commit-tree TREE [-p PARENT]` writes for message."""
    lines = [f"tree {tree}"] + ([f"parent {parent}"] if parent else [])
    now = _now()  # one reading for both lines, as git takes the time once per process
    for role, ident in zip(("author", "committer"), idents, strict=True):
        lines.append(f"{role} {ident.name} <{ident.email}> {ident.date or now}")
    return ("\n".join(lines) + "\n\n" + message).encode("utf-8")


def _expand_notes_ref(name: str) -> str:
    """Expand a notes ref the way git notes --ref does, and insist it stays under refs/notes/."""
    name = name.strip()
    if name.startswith("notes/"):
        name = "refs/" + name
    elif not name.startswith("refs/"):
        name = "refs/notes/" + name
    if not name.startswith("refs/notes/") or name == "refs/notes/":
        raise BadInput(f"distill.notesRef {name!r} must name a ref under refs/notes/")
    return name


def notes_ref(repo_root: str | Path) -> str:
    """The notes ref certificates live under: refs/notes/distill or git config distill.notesRef."""
    return settings(repo_root).notes_ref


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
    note_of = {blob: note for blob, note in note_index(repo_root, config.notes_ref).items() if blob in wanted}
    found = read_notes(repo_root, config.notes_ref, note_of) if note_of else {}
    return {blob: found.get(blob, []) for blob in ids}


def note_index(repo_root: str | Path, ref: str) -> dict[str, str]:
    """Annotated blob -> note blob for every note under ref (empty when the ref does not exist)."""
    code, out, err = try_git(["notes", "--ref", ref, "list"], repo_root)
    if code != 0:
        _refuse_unusable_refs(repo_root, [ref])
        raise GitError(f"git notes failed: {first_line(err) or 'no reason given'}")
    note_of: dict[str, str] = {}
    for line in out.decode().splitlines():
        note, _, annotated = line.partition(" ")
        note_of[annotated] = note
    return note_of


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
        from diylisis.gitio.context import read_objects

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


class PendingPut:
    """The three git processes of put_many's first attempt, started before the certificate exists
    (start_put): the read of the refs (for given keys) runs at once, and unpack-objects and update-ref
    wait, started, for their input. Hand it to put_many, and close() it in any case."""

    def __init__(self, repo_root: str | Path, config: Settings, keys: Iterable[bytes]) -> None:
        self.config = config
        self.reading = CatObjects(repo_root, _put_queries(config, [blob_id(key, config.object_format)
                                                                     for key in keys]))
        started: list[GitProcess] = []
        try:
            started.append(GitProcess(["unpack-objects", "-q"], repo_root))
            started.append(GitProcess(["update-ref", "--stdin"], repo_root))
        except BaseException:
            self.reading.close()  # reap the ones that did start
            for process in started:
                process.finish()
            raise
        self.unpack, self.update = started

    def close(self) -> None:
        """End the processes put_many did not use (with no input they write nothing)."""
        self.reading.close()
        self.unpack.finish()
        self.update.finish()


def start_put(repo_root: str | Path, keys: Iterable[bytes], config: Settings) -> PendingPut:
    """put_many's git processes for certificates keyed by keys, started now, so that they start up
    and read while the certificate is being made."""
    return PendingPut(repo_root, config, keys)


def put_many(repo_root: str | Path, entries: Sequence[tuple[bytes, Mapping[str, Any]]],
             *, config: Settings | None = None, pending: PendingPut | None = None) -> None:
    """Attach each certificate to its key's blob in one compare-and-swap (one role line per blob).

    config: the store settings when the caller already read them (settings_from), else read here.
    pending: a start_put begun earlier, for the first attempt. Its reading is used when it covers
    these keys; it may be older than the refs by then, and the compare-and-swap then fails and the
    next attempt reads again.
    """
    if not entries:
        raise BadInput("a certificate needs at least one snapshot to be keyed under")
    config = config if config is not None else settings(repo_root)
    env = dict(config.identity_env)
    serialized = [(key, certificate["role"] if "role" in certificate else "", serialize(certificate))
                  for key, certificate in entries]  # serialize refuses a bad certificate before any write
    lines = {blob_id(key, config.object_format): (role, line, key) for key, role, line in serialized}
    for attempt in range(MAX_ATTEMPTS):
        if _try_put(repo_root, config, env, lines, pending if attempt == 0 else None):
            return
        import random  # only when another writer won: the first attempt needs no backoff

        time.sleep(random.uniform(0.005, 0.02) * min(attempt + 1, 10))
    raise StoreConflict(
        f"{config.notes_ref} kept moving under {MAX_ATTEMPTS} attempts; "
        "the certificate was not written, run the command again"
    )


NOTES_MESSAGE = "Notes added by 'git notes add'\n"  # what git notes writes, so logs read the same
SNAPSHOTS_MESSAGE = "distill: keep certified snapshot blobs reachable\n"
_OBJECT_TYPES = {"commit": 1, "tree": 2, "blob": 3}


def _try_put(
    repo_root: str | Path,
    config: Settings,
    env: dict[str, str],
    lines: Mapping[str, tuple[str, str, bytes]],
    pending: PendingPut | None = None,
) -> bool:
    """One compare-and-swap attempt; False when another writer moved a ref first.

    The new notes and snapshots trees are built here from one `git cat-file --batch` read of
    the old ones, and their commits as `git commit-tree` would write them (`commit_object`, or
    `git commit-tree` itself when only git can write them, as for a signed commit); all are
    written with the snapshot and note blobs as one pack (`git unpack-objects`), and the refs
    move in one `git update-ref --stdin`: three git processes instead of one per step.
    A note replaces an existing one where it lies; a new note goes where the tree's fanout
    puts it (flat in a flat tree, `ab/cdef...` below an existing two-hex-digit level), which
    is how `git notes` reads and later rewrites it.

    The refs are read by name in the same batch as their trees: a ref that moves between two
    of those reads has moved after its tip was read, so the compare-and-swap fails and the
    attempt is retried on a consistent reading.
    """
    queries = _put_queries(config, list(lines))
    if pending is not None and set(queries) <= set(pending.reading.queries):
        answers = pending.reading.objects()
    else:
        answers = cat_objects(repo_root, queries)
    _refuse_unusable_refs(repo_root, (config.notes_ref, SNAPSHOTS_REF), answers)
    found = {q: hit for q, hit in answers.items() if hit[0] in _OBJECT_TYPES}
    tips = {ref: found[ref][2] if ref in found and found[ref][0] == "commit" else None
            for ref in (config.notes_ref, SNAPSHOTS_REF)}
    old_notes, old_snapshots = tips[config.notes_ref], tips[SNAPSHOTS_REF]
    found = _keyed_by_tip(_keyed_by_tip(found, config.notes_ref, old_notes), SNAPSHOTS_REF, old_snapshots)
    writer = _ObjectWriter(config.object_format)
    id_size = 32 if config.object_format == "sha256" else 20
    notes_tree = _Tree.load(found, f"{old_notes}^{{tree}}" if old_notes else None, id_size)
    snapshots_tree = _Tree.load(found, f"{old_snapshots}^{{tree}}" if old_snapshots else None, id_size)
    for blob, (role, line, key) in lines.items():
        if writer.add("blob", key) != blob:
            raise GitError(f"the snapshot's blob id {blob} does not match its {config.object_format} content")
        path = _note_location(found, old_notes, blob, notes_tree)
        existing = found.get(f"{old_notes}:{'/'.join(path)}") if old_notes else None
        content = existing[1] if existing and existing[0] == "blob" else b""
        kept = [kept_line for kept_line, parsed in decode_note(content, blob, config.notes_ref)
                if parsed["role"] != role]
        note = "\n".join(sorted({*kept, line})) + "\n"  # sorted as cat_sort_uniq leaves it
        notes_tree.put(path, writer.add("blob", note.encode("utf-8")), found,
                       f"{old_notes}:" if old_notes else None)
        snapshots_tree.put([blob[:2], blob[2:]], blob, found,
                           f"{old_snapshots}:" if old_snapshots else None)
    new_notes_tree = notes_tree.write(writer)
    new_snapshots_tree = snapshots_tree.write(writer)
    wanted = [(new_notes_tree, old_notes, NOTES_MESSAGE)]
    if not old_snapshots or new_snapshots_tree != _tree_of(found, f"{old_snapshots}^{{tree}}"):
        wanted.append((new_snapshots_tree, old_snapshots, SNAPSHOTS_MESSAGE))
    if config.idents is not None:
        made = [writer.add("commit", commit_object(tree, parent, message, config.idents))
                for tree, parent, message in wanted]
        writer.flush(repo_root, pending.unpack if pending else None)
    else:
        writer.flush(repo_root, pending.unpack if pending else None)
        made = [_commit_tree(repo_root, tree, parent, message, env) for tree, parent, message in wanted]
    new_notes = made[0]
    new_snapshots = made[1] if len(made) > 1 else old_snapshots
    return compare_and_swap(
        repo_root,
        {
            config.notes_ref: (new_notes, old_notes),
            SNAPSHOTS_REF: (new_snapshots, old_snapshots),
        },
        config.object_format,
        pending.update if pending else None,
    )


def _refuse_unusable_refs(repo_root: str | Path, refs: Sequence[str],
                          answers: Mapping[str, tuple[str, bytes, str]] | None = None) -> None:
    """BadInput when one of refs exists but is no commit (a blob, a tree, a tag, an object this
    repository lacks): certificates cannot be read from or added to it, and retrying would not
    change that. answers: a cat-file reading that holds the refs, else one is made here."""
    if answers is None:
        answers = cat_objects(repo_root, refs)
    kinds = {ref: answers[ref][0] for ref in refs if ref in answers}
    unread = [ref for ref in refs if ref not in kinds]
    # absent, or pointing at an object this repository lacks: only for-each-ref tells which (and
    # a ref another writer made since the reading is read again)
    tips = {ref: tip for ref, tip in (ref_tips(repo_root, unread) if unread else {}).items() if tip}
    objects = cat_objects(repo_root, list(tips.values())) if tips else {}
    kinds.update({ref: objects[tip][0] if tip in objects else "missing" for ref, tip in tips.items()})
    for ref in refs:
        kind = kinds.get(ref, "commit")
        if kind == "missing":
            what = f"the object {tips[ref]}, which this repository does not have"
        elif kind != "commit":
            what = f"a {kind}, not a commit"
        else:
            continue
        raise BadInput(f"{ref} points at {what}, so git distill can neither read nor add certificates there "
                       f"and wrote nothing: restore it (its earlier values: git reflog show {ref}) or delete it "
                       f"(git update-ref -d {ref})")


def check_writable(repo_root: str | Path, datas: Iterable[bytes]) -> None:
    """Refuse now what storing a certificate for these contents would refuse at the end: a notes or
    snapshots ref that is not a commit (BadInput), a corrupt note on one of them (CorruptNote)."""
    config = settings(repo_root)
    _refuse_unusable_refs(repo_root, (config.notes_ref, SNAPSHOTS_REF))
    get_many(repo_root, datas)


def _put_queries(config: Settings, blobs: Sequence[str]) -> list[str]:
    """What one attempt reads: both refs' tips and trees, and where each blob's note and snapshot lie."""
    queries = [config.notes_ref, SNAPSHOTS_REF, f"{config.notes_ref}^{{tree}}", f"{SNAPSHOTS_REF}^{{tree}}"]
    for blob in blobs:
        queries += [f"{config.notes_ref}:{path}"
                    for path in (*_note_paths(blob), blob[:2], f"{blob[:2]}/{blob[2:4]}")]
        queries.append(f"{SNAPSHOTS_REF}:{blob[:2]}")
    return queries


def _keyed_by_tip(found: Mapping[str, tuple], ref: str, tip: str | None) -> dict[str, tuple]:
    """found with the answers about ref (`ref:path`, `ref^{tree}`) keyed by its tip id instead."""
    if tip is None:
        return dict(found)
    moved = {}
    for key, value in found.items():
        if key.startswith((f"{ref}:", f"{ref}^{{")):
            key = tip + key[len(ref):]
        moved[key] = value
    return moved


def _note_paths(blob: str) -> tuple[str, ...]:
    """Where a note on blob may lie: flat, or below one or two fanout levels."""
    return (blob, f"{blob[:2]}/{blob[2:]}", f"{blob[:2]}/{blob[2:4]}/{blob[4:]}")


def _note_location(found: Mapping[str, tuple], old_notes: str | None, blob: str,
                   tree: _Tree) -> list[str]:
    """The path of blob's note: where one lies now, else where the tree's fanout puts a new one."""
    if old_notes:
        for path in _note_paths(blob):
            hit = found.get(f"{old_notes}:{path}")
            if hit and hit[0] == "blob":
                return path.split("/")
        level_one = found.get(f"{old_notes}:{blob[:2]}")
        if level_one and level_one[0] == "tree":
            level_two = found.get(f"{old_notes}:{blob[:2]}/{blob[2:4]}")
            if level_two and level_two[0] == "tree":
                return [blob[:2], blob[2:4], blob[4:]]
            return [blob[:2], blob[2:]]
    if tree.has_fanout():
        return [blob[:2], blob[2:]]
    return [blob]


def _tree_of(found: Mapping[str, tuple], query: str) -> str | None:
    hit = found.get(query)
    return hit[2] if hit else None


class _Tree:
    """A tree being edited: its entries (name -> (mode, raw id)) and the subtrees changed below it."""

    __slots__ = ("entries", "children", "id_size")

    def __init__(self, content: bytes, id_size: int) -> None:
        self.entries: dict[bytes, tuple[bytes, bytes]] = {}
        self.children: dict[bytes, _Tree] = {}
        self.id_size = id_size  # 20 bytes (sha1) or 32 (sha256)
        at = 0
        while at < len(content):
            space = content.index(b" ", at)
            nul = content.index(b"\0", space)
            self.entries[content[space + 1 : nul]] = (content[at:space], content[nul + 1 : nul + 1 + id_size])
            at = nul + 1 + id_size

    @classmethod
    def load(cls, found: Mapping[str, tuple], query: str | None, id_size: int) -> _Tree:
        """The tree found under query, or an empty one."""
        hit = found.get(query) if query else None
        return cls(hit[1] if hit and hit[0] == "tree" else b"", id_size)

    def has_fanout(self) -> bool:
        """Some entry is a two-hex-digit subtree (the notes tree has a fanout level)."""
        return any(mode == b"40000" and len(name) == 2 for name, (mode, _) in self.entries.items())

    def put(self, path: Sequence[str], blob: str, found: Mapping[str, tuple], prefix: str | None) -> None:
        """Set path (below this tree) to the blob, loading the old subtrees on the way from found."""
        node, walked = self, []
        for part in path[:-1]:
            name = part.encode()
            walked.append(part)
            if name not in node.children:
                old = node.entries.get(name)
                query = f"{prefix}{'/'.join(walked)}" if prefix and old and old[0] == b"40000" else None
                node.children[name] = _Tree.load(found, query, self.id_size)
            node = node.children[name]
        node.entries[path[-1].encode()] = (b"100644", bytes.fromhex(blob))

    def write(self, writer: _ObjectWriter) -> str:
        """This tree's id, its changed subtrees first added to writer."""
        for name, child in self.children.items():
            self.entries[name] = (b"40000", bytes.fromhex(child.write(writer)))
        # git's order: a tree's name compares as if it ended in '/'
        order = sorted(self.entries, key=lambda n: n + b"/" if self.entries[n][0] == b"40000" else n)
        content = b"".join(self.entries[n][0] + b" " + n + b"\0" + self.entries[n][1] for n in order)
        return writer.add("tree", content)


class _ObjectWriter:
    """Objects to write in one pack through `git unpack-objects` (ids computed here)."""

    def __init__(self, object_format: str) -> None:
        self.algorithm = sha256 if object_format == "sha256" else sha1
        self.objects: dict[str, tuple[str, bytes]] = {}

    def add(self, kind: str, data: bytes) -> str:
        """The object's id; it is written at flush."""
        object_id = self.algorithm(f"{kind} {len(data)}\0".encode() + data).hexdigest()
        self.objects.setdefault(object_id, (kind, data))
        return object_id

    def flush(self, repo_root: str | Path, process: GitProcess | None = None) -> None:
        """Write every added object (one `git unpack-objects`, or the one started as process)."""
        import zlib

        # pack header: version 2 and the object count, both 4-byte big-endian
        chunks = [b"PACK", (2).to_bytes(4, "big"), len(self.objects).to_bytes(4, "big")]
        for kind, data in self.objects.values():
            size = len(data)
            byte = (_OBJECT_TYPES[kind] << 4) | (size & 0x0F)
            size >>= 4
            header = bytearray()
            while size:
                header.append(byte | 0x80)
                byte = size & 0x7F
                size >>= 7
            header.append(byte)
            chunks += [bytes(header), zlib.compress(data, 1)]
        pack = b"".join(chunks)
        pack += self.algorithm(pack).digest()
        code, _, err = process.finish(pack) if process else try_git(["unpack-objects", "-q"], repo_root, input=pack)
        if code != 0:
            raise GitError(f"git unpack-objects failed: {first_line(err) or 'no reason given'}")
        self.objects.clear()


def _commit_tree(repo_root: str | Path, tree: str, parent: str | None, message: str,
                 env: Mapping[str, str]) -> str:
    """`git commit-tree`, for the commits only git can write (signed ones, another encoding)."""
    args = ["commit-tree", tree, *(["-p", parent] if parent else []), "-F", "-"]
    return run_git(args, repo_root, input=message.encode(), env=env).decode().strip()


def ref_tips(repo_root: str | Path, refs: Sequence[str]) -> dict[str, str | None]:
    """Current object id of each ref, None for refs that do not exist (one for-each-ref)."""
    out = run_git(["for-each-ref", "--format=%(objectname) %(refname)", *refs], repo_root)
    found = dict(reversed(line.split(" ", 1)) for line in out.decode().splitlines())
    return {ref: found.get(ref) for ref in refs}


def snapshots_commit(
    repo_root: str | Path,
    parent: str | None,
    blobs: Iterable[str],
    env: Mapping[str, str],
    *,
    extra_parents: Sequence[str] = (),
    extra_trees: Sequence[str] = (),
) -> str:
    """A commit whose tree holds parent's snapshot blobs plus these (and extra trees' entries)."""
    import tempfile  # sync's merges only: certificates are written by _try_put without an index

    handle, index = tempfile.mkstemp(prefix="distill-index-")
    os.close(handle)
    os.unlink(index)  # git wants to create the index itself
    index_env = {**env, "GIT_INDEX_FILE": index}
    try:
        if parent:
            run_git(["read-tree", f"{parent}^{{tree}}"], repo_root, env=index_env)
        entries = [f"100644 blob {blob}\t{blob[:2]}/{blob[2:]}\n" for blob in blobs]
        for tree in extra_trees:
            listing = run_git(["ls-tree", "-r", "-z", tree], repo_root).split(b"\0")
            entries += [item.decode() + "\n" for item in listing if item]
        if entries:
            run_git(
                ["update-index", "--add", "--index-info"],
                repo_root,
                input="".join(entries).encode(),
                env=index_env,
            )
        tree_id = run_git(["write-tree"], repo_root, env=index_env).decode().strip()
    finally:
        if os.path.exists(index):
            os.unlink(index)
    if parent and not extra_parents:
        parent_tree = run_git(["rev-parse", f"{parent}^{{tree}}"], repo_root).decode().strip()
        if parent_tree == tree_id:
            return parent  # nothing new to keep alive
    args = ["commit-tree", tree_id]
    for each in (parent, *extra_parents):
        if each:
            args += ["-p", each]
    message = b"distill: keep certified snapshot blobs reachable\n"
    return run_git([*args, "-F", "-"], repo_root, input=message, env=env).decode().strip()


def compare_and_swap(
    repo_root: str | Path,
    updates: Mapping[str, tuple[str | None, str | None]],
    object_format: str,
    process: GitProcess | None = None,
) -> bool:
    """Move every ref from its old to its new id in one transaction; False if one moved first.
    process: a `git update-ref --stdin` started earlier, to take the transaction."""
    zero = "0" * (64 if object_format == "sha256" else 40)
    lines = ["start"]
    for ref, (new, old) in updates.items():
        if new is None or new == old:
            lines.append(f"verify {ref} {old or zero}")
        else:
            lines.append(f"update {ref} {new} {old or zero}")
    lines += ["prepare", "commit", ""]
    transaction = "\n".join(lines).encode()
    code, _, err = (process.finish(transaction) if process
                    else try_git(["update-ref", "--stdin"], repo_root, input=transaction))
    if code == 0:
        return True
    message = err.decode("utf-8", errors="replace")
    if (
        "cannot lock ref" in message
        or "but expected" in message
        or "reference already exists" in message
    ):
        return False
    raise GitError(f"git update-ref failed: {first_line(err) or 'no reason given'}")
