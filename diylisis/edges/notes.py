"""Git notes on any notes ref, read and written through git's own plumbing.

A note is a blob attached to an object (a commit, a blob, any object id) under a notes ref, as
`git notes` keeps them: a commit whose tree names the note by the annotated object's id, flat
(`<id>`) or below fanout directories (`ab/<rest>`, `ab/cd/<rest>`). `git log --notes=<ref>`,
`git notes --ref=<ref> show <id>` and `git notes prune` read what this module writes.

Reading:

    read_note(root, "refs/notes/distill-vet", commit_id)       -> bytes | None
    read_notes(root, ref, [id, ...])                            -> {id: bytes} for those with one

Writing, safe against concurrent writers (two hooks, a hook and a `git distill vet`):

    update_notes(root, ref, {id: edit, ...})     # edit(old bytes, b"" when none) -> new bytes

Each write is one compare-and-swap: the ref's tip and the old notes are read, the new note blobs,
tree and commit are written by `git fast-import` (git builds the trees and keeps its fanout), and
the ref moves from the tip that was read to the new commit in one `git update-ref --stdin`
transaction. When another writer moved the ref first, the transaction fails, nothing is lost,
and the whole edit is made again on the new tip (edit must therefore be a pure function of the
old content). The commit's author and committer are the ones `git var` reports, so a notes
commit reads as one `git notes add` would have made.

keep_ref and keep (update_notes): blobs to keep reachable from a second ref in the same
transaction (a note does not keep the object it annotates alive; the certificate store keeps
its snapshot blobs under refs/distill/snapshots this way). Both refs move together or not at all.

The `vet` command writes its one JSON line per action this way, under `refs/notes/distill-vet`,
and `preview` its record under `refs/notes/distill-preview` (edges/preview_note.py).

No pygit2 here: the commit-msg hook certifies through this module.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence

from diylisis.core.errors import BadInput, GitError, StoreConflict
from diylisis.edges.gitio import CatObjects, GitProcess, cat_objects, first_line, try_git

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from pathlib import Path

MAX_ATTEMPTS = 60
NOTES_MESSAGE = "Notes added by 'git notes add'\n"  # what git notes writes, so logs read the same
KEEP_MESSAGE = "distill: keep certified snapshot blobs reachable\n"
TEMP_REF_PREFIX = "refs/notes/distill-tmp/"  # fast-import's branch names; it never writes them
_KINDS = frozenset({"commit", "tree", "blob"})

Answers = Mapping[str, tuple[str, bytes, str]]  # cat-file query -> (type, content, id)
Edit = Callable[[bytes], bytes]


def expand_ref(name: str) -> str:
    """A notes ref as `git notes --ref` expands it; BadInput unless it lies under refs/notes/."""
    name = name.strip()
    if name.startswith("notes/"):
        name = "refs/" + name
    elif not name.startswith("refs/"):
        name = "refs/notes/" + name
    if (not name.startswith("refs/notes/") or name == "refs/notes/" or name.startswith(TEMP_REF_PREFIX)
            or any(part in ("", ".", "..") for part in name.split("/"))):
        raise BadInput(f"the notes ref {name!r} must name a ref under refs/notes/")
    return name


def _object_id(target: str) -> str:
    if len(target) not in (40, 64) or not all(c in "0123456789abcdef" for c in target):
        raise BadInput(f"a note is attached to a full object id, not {target!r}")
    return target


# --- reading --------------------------------------------------------------------------------


def note_index(repo_root: str | Path, ref: str) -> dict[str, str]:
    """Annotated object -> note blob for every note under ref (empty when the ref does not exist)."""
    code, out, err = try_git(["notes", "--ref", ref, "list"], repo_root)
    if code != 0:
        refuse_unusable_refs(repo_root, [ref])
        raise GitError(f"git notes failed: {first_line(err) or 'no reason given'}")
    note_of: dict[str, str] = {}
    for line in out.decode().splitlines():
        note, _, annotated = line.partition(" ")
        note_of[annotated] = note
    return note_of


def read_notes(repo_root: str | Path, ref: str, targets: Sequence[str]) -> dict[str, bytes]:
    """The note on each target that has one under ref (one notes list, one cat-file)."""
    ref = expand_ref(ref)
    refuse_unusable_refs(repo_root, [ref])  # git notes would read a tree's entries as notes
    index = note_index(repo_root, ref)
    note_of = {target: index[target] for target in targets if target in index}
    objects = cat_objects(repo_root, list(dict.fromkeys(note_of.values())))
    found: dict[str, bytes] = {}
    for target, note in note_of.items():
        kind, content, _ = objects.get(note, ("missing", b"", note))
        if kind != "blob":
            raise GitError(f"the note on {target} under {ref} ({note}) is not a readable blob")
        found[target] = content
    return found


def read_note(repo_root: str | Path, ref: str, target: str) -> bytes | None:
    """The note on target under ref, None when it has none."""
    return read_notes(repo_root, ref, [_object_id(target)]).get(target)


def refuse_unusable_refs(repo_root: str | Path, refs: Sequence[str], answers: Answers | None = None) -> None:
    """BadInput when one of refs exists but is no commit (a blob, a tree, a tag, an object this
    repository lacks): notes cannot be read from or added to it, and retrying would not change
    that. answers: a cat-file reading that holds the refs, else one is made here."""
    if answers is None:
        answers = cat_objects(repo_root, refs)
    kinds = {ref: answers[ref][0] for ref in refs if ref in answers}
    unread = [ref for ref in refs if ref not in kinds]
    # absent, or pointing at an object this repository lacks: only for-each-ref tells which
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
        raise BadInput(f"{ref} points at {what}, so git distill can neither read nor add notes there "
                       f"and wrote nothing: restore it (its earlier values: git reflog show {ref}) or delete it "
                       f"(git update-ref -d {ref})")


def ref_tips(repo_root: str | Path, refs: Sequence[str]) -> dict[str, str | None]:
    """Current object id of each ref, None for refs that do not exist (one for-each-ref)."""
    code, out, err = try_git(["for-each-ref", "--format=%(objectname) %(refname)", *refs], repo_root)
    if code != 0:
        raise GitError(f"git for-each-ref failed: {first_line(err) or f'exit status {code}'}")
    found = {}
    for line in out.decode().splitlines():
        tip, _, name = line.partition(" ")
        found[name] = tip
    return {ref: found.get(ref) for ref in refs}


# --- writing --------------------------------------------------------------------------------


def write_queries(ref: str, targets: Sequence[str], keep_ref: str | None = None,
                  keep: Sequence[str] = ()) -> list[str]:
    """What one write attempt reads: the refs' tips, and where each target's note and kept blob lie."""
    queries = [ref, *([keep_ref] if keep_ref else [])]
    for target in targets:
        queries += [f"{ref}:{path}" for path in (*_note_paths(target), target[:2], f"{target[:2]}/{target[2:4]}")]
    if keep_ref:
        queries += [f"{keep_ref}:{blob[:2]}/{blob[2:]}" for blob in keep]
    if targets:
        queries.append(f"{ref}^{{tree}}")
    return queries


class AttemptProcesses:
    """The git processes of one update_notes attempt, all started at once: the read of the refs
    runs at once, `git var` reports the identity, and fast-import and update-ref wait, started,
    for their input. close() it in any case."""

    def __init__(self, repo_root: str | Path, queries: Sequence[str], env: Mapping[str, str] = {}) -> None:
        self.queries = tuple(queries)
        self.reading = CatObjects(repo_root, self.queries)
        started: list[GitProcess] = []
        try:
            for args, process_env in ((["var", "-l"], env), (["fast-import", "--quiet", "--done"], {}),
                                      (["update-ref", "--stdin"], {})):
                started.append(GitProcess(args, repo_root, env=process_env))
        except BaseException:
            self.reading.close()  # reap the ones that did start
            for process in started:
                process.finish()
            raise
        self.identity, self.importer, self.update = started

    def answers(self) -> dict[str, tuple[str, bytes, str]]:
        """(type, content, id) per query that names an object."""
        return self.reading.objects()

    def close(self) -> None:
        """End the processes update_notes did not use (with no input they write nothing)."""
        self.reading.close()
        for process in (self.identity, self.importer, self.update):
            process.finish()


def update_notes(repo_root: str | Path, ref: str, edits: Mapping[str, Edit], *,
                 keep_ref: str | None = None, keep: Mapping[str, bytes] | None = None,
                 env: Mapping[str, str] | None = None, object_format: str = "sha1") -> None:
    """Set the note on each target to edit(its old note, b"" when none), in one compare-and-swap.

    keep: blob id -> content, written and kept reachable from keep_ref as `ab/<rest>` in the same
    transaction (the caller computed the ids; a mismatch is a GitError before any ref moves).
    env: identity variables for `git var` (GIT_AUTHOR_NAME...).
    StoreConflict after MAX_ATTEMPTS lost races; BadInput when a ref exists but is no commit.
    """
    ref = expand_ref(ref)
    edits = {_object_id(target): edit for target, edit in edits.items()}
    keep = dict(keep or {})
    if keep and not keep_ref:
        raise BadInput("blobs to keep need a ref to keep them under")
    queries = write_queries(ref, list(edits), keep_ref, list(keep))
    for attempt in range(MAX_ATTEMPTS):
        processes = AttemptProcesses(repo_root, queries, env or {})
        try:
            if _attempt(repo_root, ref, edits, keep_ref, keep, object_format, processes):
                return
        finally:
            processes.close()
        import random  # only when another writer won: the first attempt needs no backoff

        time.sleep(random.uniform(0.005, 0.02) * min(attempt + 1, 10))
    raise StoreConflict(f"{ref} kept moving under {MAX_ATTEMPTS} attempts; nothing was written, "
                        "run the command again")


def _attempt(repo_root: str | Path, ref: str, edits: Mapping[str, Edit], keep_ref: str | None,
             keep: Mapping[str, bytes], object_format: str, processes: AttemptProcesses) -> bool:
    """One compare-and-swap; False when another writer moved a ref after it was read.

    The refs are read by name in the same batch as their trees: a ref that moves between two of
    those reads has moved after its tip was read, so the compare-and-swap fails and the attempt
    is retried on a consistent reading."""
    answers = processes.answers()
    refs = [ref, *([keep_ref] if keep_ref else [])]
    refuse_unusable_refs(repo_root, refs, answers)
    found = {query: hit for query, hit in answers.items() if hit[0] in _KINDS}
    tips = {name: found[name][2] if name in found else None for name in refs}
    author, committer, encoding = _identity(processes.identity.finish())
    script: list[bytes] = [b"feature done\n"]
    mark = 0

    def data(content: bytes) -> bytes:
        return b"data %d\n" % len(content) + content + b"\n"

    def commit(branch: str, parent: str | None, message: str, changes: list[bytes]) -> None:
        nonlocal mark
        mark += 1
        script.append(f"commit {branch}\nmark :{mark}\nauthor {author}\ncommitter {committer}\n".encode())
        if encoding:
            script.append(f"encoding {encoding}\n".encode())
        script.append(data(message.encode("utf-8")))
        if parent:
            script.append(f"from {parent}\n".encode())
        script.extend(changes)
        script.append(f"get-mark :{mark}\n".encode())

    temp = f"{TEMP_REF_PREFIX}write-{os.getpid()}-{os.urandom(6).hex()}"
    changes = []
    for target, edit in edits.items():
        path = _note_location(found, tips[ref], ref, target)
        old = found.get(f"{ref}:{path}") if tips[ref] else None
        content = edit(old[1] if old and old[0] == "blob" else b"")
        changes.append(f"M 100644 inline {path}\n".encode() + data(content))
    expected_blobs: list[str] = []
    keep_changes = []
    for blob, content in keep.items():
        if found.get(f"{keep_ref}:{blob[:2]}/{blob[2:]}", ("", b"", ""))[2] == blob:
            continue  # kept already
        mark += 1
        script.append(f"blob\nmark :{mark}\n".encode() + data(content) + f"get-mark :{mark}\n".encode())
        expected_blobs.append(blob)
        keep_changes.append(f"M 100644 :{mark} {blob[:2]}/{blob[2:]}\n".encode())
    moved: list[str] = []  # the refs that get a new commit, in the order fast-import reports them
    if edits:
        commit(temp, tips[ref], NOTES_MESSAGE, changes)
        moved.append(ref)
    if keep_ref and keep_changes:
        commit(temp + "-keep", tips[keep_ref], KEEP_MESSAGE, keep_changes)
        moved.append(keep_ref)
    script += [f"reset {temp}\n".encode(), f"reset {temp}-keep\n".encode(), b"done\n"]
    code, out, err = processes.importer.finish(b"".join(script))
    if code != 0:
        raise GitError(f"git fast-import failed: {first_line(err) or f'exit status {code}'}")
    made = out.decode().split()
    if made[: len(expected_blobs)] != expected_blobs or len(made) != len(expected_blobs) + len(moved):
        raise GitError("git fast-import wrote other objects than the ones asked for "
                       f"(the repository's object format is not {object_format}?)")
    new = dict(zip(moved, made[len(expected_blobs):], strict=True))
    zero = "0" * (64 if object_format == "sha256" else 40)
    lines = ["start"]
    for name in refs:
        if name in new:
            lines.append(f"update {name} {new[name]} {tips[name] or zero}")
        else:
            lines.append(f"verify {name} {tips[name] or zero}")
    lines += ["prepare", "commit", ""]
    return transaction_result(processes.update.finish("\n".join(lines).encode()))


def transaction_result(answer: tuple[int, bytes, bytes]) -> bool:
    """True when `git update-ref --stdin` moved the refs, False when another writer moved one first."""
    code, _, err = answer
    if code == 0:
        return True
    message = err.decode("utf-8", errors="replace")
    if "cannot lock ref" in message or "but expected" in message or "reference already exists" in message:
        return False
    raise GitError(f"git update-ref failed: {first_line(err) or 'no reason given'}")


def _identity(answer: tuple[int, bytes, bytes]) -> tuple[str, str, str | None]:
    """(author, committer, commit encoding other than UTF-8) from `git var -l`: the lines
    `git commit-tree` would write, from the same environment and configuration."""
    code, out, err = answer
    if code != 0:
        raise GitError(f"git var failed: {first_line(err) or f'exit status {code}'}")
    values: dict[str, str] = {}
    for line in out.decode("utf-8", errors="surrogateescape").splitlines():
        key, _, value = line.partition("=")
        values[key.lower()] = value  # git lists its configuration first, then its variables: the last wins
    author, committer = values.get("git_author_ident"), values.get("git_committer_ident")
    if not author or not committer:
        raise GitError("git var reported no author or committer identity; set git config user.name and user.email")
    encoding = values.get("i18n.commitencoding")
    return author, committer, encoding if encoding and encoding.lower() not in ("utf-8", "utf8") else None


def _note_paths(target: str) -> tuple[str, ...]:
    """Where a note on target may lie: flat, or below one or two fanout levels."""
    return (target, f"{target[:2]}/{target[2:]}", f"{target[:2]}/{target[2:4]}/{target[4:]}")


def _note_location(found: Answers, tip: str | None, ref: str, target: str) -> str:
    """The path of target's note: where one lies now, else where the tree's fanout puts a new one
    (flat in a flat tree, `ab/<rest>` below an existing two-hex-digit level), as git notes reads it."""
    if not tip:
        return target
    for path in _note_paths(target):
        hit = found.get(f"{ref}:{path}")
        if hit and hit[0] == "blob":
            return path
    level_one = found.get(f"{ref}:{target[:2]}")
    if level_one and level_one[0] == "tree":
        level_two = found.get(f"{ref}:{target[:2]}/{target[2:4]}")
        if level_two and level_two[0] == "tree":
            return f"{target[:2]}/{target[2:4]}/{target[4:]}"
        return f"{target[:2]}/{target[2:]}"
    root = found.get(f"{ref}^{{tree}}")
    if root and _has_fanout(root[1], len(tip) // 2):
        return f"{target[:2]}/{target[2:]}"
    return target


def _has_fanout(tree: bytes, id_size: int) -> bool:
    """Some entry of the raw tree is a two-hex-digit subtree (the notes tree has a fanout level)."""
    at = 0
    while at < len(tree):
        space = tree.index(b" ", at)
        nul = tree.index(b"\0", space)
        if tree[at:space] == b"40000" and nul - space == 3:
            return True
        at = nul + 1 + id_size
    return False
