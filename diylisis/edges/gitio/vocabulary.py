"""A commit's own vocabulary, answered in this process with pygit2 for range scans.

What `PygitContext.uses_identifier` and `PygitContext.in_change` ask: does the commit's tree
use a name as a code identifier, and does its change add or remove a line or path holding a
text. The commit-msg hook asks the same of the git binary (`git grep`, `git diff-tree`, in
context.py); here the answers are the ones those commands give, without a process per
question:

- `uses_identifier(repo, tree_id, name)`: what `git grep -q -I -E` finds in the tree. Answers
  are memoized per subtree and blob id, bounded, so a walk over history reads only the blobs
  a commit changed.
- `change_of(repo, commit)`: what `git diff-tree -p --root --no-renames -U0` adds and removes,
  file headers included, read from the blobs of the files the commit changes. Where the
  answer depends on how git aligns the lines, or git's output could pass the size it is cut
  at, git itself is asked, once for the commit.

git grep at a revision reads no attributes; git diff-tree run in the git directory reads
those of the index, and so does this module (`diff`, for binary files).
"""

from __future__ import annotations

import functools
import re
from collections import Counter

from diylisis.edges.gitio.context import CHANGE_LIMIT, IDENTIFIER, changed_lines, git_change, remember

TYPE_CHECKING = False
if TYPE_CHECKING:
    import pygit2

_FIRST_FEW_BYTES = 8000  # git's buffer_is_binary: a NUL among them makes a blob binary
_BIG_FILE = 512 * 1024 * 1024  # core.bigFileThreshold's default: git calls a larger blob binary unread
_REGULAR_FILE = 0o100000
_FILE_TYPE = 0o170000
_GITLINK = 0o160000
_ANSWERS_KEPT = 50_000  # entries of each memo of _Known (about 7 MB), oldest dropped first


# --- identifiers ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _identifier_use(name: str) -> re.Pattern[bytes]:
    """context._identifier_use's POSIX ERE as a bytes pattern over a whole blob, line by line as
    git grep matches it (no class crosses a line end)."""
    word = re.escape(name.encode("ascii"))
    return re.compile(
        rb"(?:class|struct|def|fn|func|type|interface|enum|import) +" + word + rb"(?:[^A-Za-z0-9_\n]|$)"
        rb"|(?:^|[^A-Za-z0-9_\n])" + word + rb" *(?:=[^=\n]|\.[a-z_]|\()"
        rb"|\." + word + rb"(?:[^A-Za-z0-9_\n]|$)",
        re.MULTILINE,
    )


class _Known:
    """What one repository has answered: (name, tree or blob id) -> the object uses name as an
    identifier, what the attributes of each path asked say of it being binary, and core.quotePath."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self._answers: dict[tuple[str, pygit2.Oid], bool] = {}
        self._attributes: dict[bytes, bool | None] = {}
        self._quote_fully: bool | None = None

    def opened_again(self, repo: pygit2.Repository) -> None:
        """Read through another handle (a forked scan worker opens its own): answers keyed by object
        id stay true; the configuration and the index are read again."""
        self.repo = repo
        self._attributes.clear()
        self._quote_fully = None

    def in_tree(self, tree_id: pygit2.Oid, name: str) -> bool:
        """Some regular, non-binary file under the tree uses name (git grep skips symlinks and submodules)."""
        import pygit2

        key = (name, tree_id)
        found = self._answers.get(key)
        if found is None:
            tree = self.repo.get(tree_id)
            found = isinstance(tree, pygit2.Tree) and any(
                self.in_tree(entry.id, name) if entry.type_str == "tree"
                else entry.filemode & _FILE_TYPE == _REGULAR_FILE and self._in_blob(entry.id, name)
                for entry in tree
            )
            remember(self._answers, key, found, _ANSWERS_KEPT)
        return found

    def _in_blob(self, blob_id: pygit2.Oid, name: str) -> bool:
        key = (name, blob_id)
        found = self._answers.get(key)
        if found is None:
            data = _text_of(self.repo, blob_id)
            found = data is not None and name.encode("ascii") in data and _identifier_use(name).search(data) is not None
            remember(self._answers, key, found, _ANSWERS_KEPT)
        return found

    def binary_by_attributes(self, path: bytes) -> bool | None:
        """What the path's diff attribute says of it being binary, as git run in the git directory
        reads it (from the index's .gitattributes files, not a work tree's); None: it does not say."""
        if path not in self._attributes:
            remember(self._attributes, path, self._binary_by_attributes(path), _ANSWERS_KEPT)
        return self._attributes[path]

    def _binary_by_attributes(self, path: bytes) -> bool | None:
        import pygit2

        try:
            diff = self.repo.get_attr(path, "diff", flags=pygit2.enums.AttrCheck.INDEX_ONLY)
        except pygit2.GitError:
            return None
        if isinstance(diff, bool):
            return not diff  # -diff (and the binary macro) is binary; diff is text whatever it holds
        if isinstance(diff, str):  # a driver: binary as its configuration says
            try:
                return bool(self.repo.config.get_bool(f"diff.{diff}.binary"))
            except (KeyError, pygit2.GitError):
                pass
        return None

    @property
    def quote_fully(self) -> bool:
        """core.quotePath (true unless the configuration says false)."""
        if self._quote_fully is None:
            import pygit2

            try:
                self._quote_fully = bool(self.repo.config.get_bool("core.quotePath"))
            except (KeyError, pygit2.GitError):
                self._quote_fully = True
        return self._quote_fully


_KNOWN: dict[str, _Known] = {}


def _known(repo: pygit2.Repository) -> _Known:
    known = _KNOWN.get(repo.path)
    if known is None:
        known = _KNOWN[repo.path] = _Known(repo)
    elif known.repo is not repo:
        known.opened_again(repo)
    return known


def uses_identifier(repo: pygit2.Repository, tree_id: pygit2.Oid, name: str) -> bool:
    """The tree uses name (an ASCII identifier) in code, as `git grep -q -I -E` with
    context._identifier_use(name) finds it."""
    return bool(IDENTIFIER.fullmatch(name)) and _known(repo).in_tree(tree_id, name)


def _text_of(repo: pygit2.Repository, blob_id: pygit2.Oid) -> bytes | None:
    """A blob's bytes, or None where git calls it binary (a NUL among its first bytes, or too big to read)."""
    import pygit2

    blob = repo.get(blob_id)
    if not isinstance(blob, pygit2.Blob) or blob.size > _BIG_FILE:
        return None
    data = bytes(memoryview(blob))
    return None if b"\0" in data[:_FIRST_FEW_BYTES] else data


# --- the change ----------------------------------------------------------------------------


class Change:
    """A commit's change as `git diff-tree -p --root --no-renames -U0 COMMIT` prints it and
    context.changed_lines reads it, asked of git only where the answer depends on how git
    aligns the lines.

    A line of a changed file whose text occurs a different number of times before and after
    is marked in any diff of the file; one occurring as often on both sides may be marked or
    matched, as git's diff algorithm decides (libgit2's differs in places). `certain` holds
    the former and the files' `---`/`+++` headers, as changed_lines gives them; a text found
    in no certain line but in a changed file is asked of git. A merge shows no change
    (diff-tree without -m shows none); a root commit's change is against the empty tree.
    """

    __slots__ = ("_where", "_commit_id", "_certain", "_sides", "_git")

    def __init__(self, where: str, commit_id: str, certain: str | None, sides: tuple[bytes, ...] = ()) -> None:
        self._where = where  # the git directory git runs in
        self._commit_id = commit_id
        self._certain = certain  # None: only git can tell (its output may be cut, or a blob is missing)
        self._sides = sides  # the old and the new text of each changed text file
        self._git: str | None = None

    def holds(self, text: str) -> bool:
        """Some line the change adds or removes (or a header naming a changed file) holds text."""
        certain = self._certain
        if certain == "" and not self._sides and text:
            return False  # a merge, or only binary files and modes changed: git prints no such line
        if certain is not None and text.splitlines() == [text] and "\ufffd" not in text:
            if text in certain:
                return True
            needle = text.encode("utf-8", "surrogatepass")
            if not any(needle in side for side in self._sides):
                return False
        if self._git is None:
            self._git = git_change(self._where, self._commit_id)
        return text in self._git


def change_of(repo: pygit2.Repository, commit: pygit2.Commit) -> Change:
    """The commit's Change (the lines of its changed text files read here, once)."""
    import pygit2

    where, commit_id = repo.path, str(commit.id)
    parents = commit.parent_ids
    if len(parents) > 1:
        return Change(where, commit_id, "")
    if parents:
        parent = repo.get(parents[0])
        if not isinstance(parent, pygit2.Commit):
            return Change(where, commit_id, None)  # a shallow or partial copy
        diff = parent.tree.diff_to_tree(commit.tree)
    else:
        diff = commit.tree.diff_to_tree(swap=True)
    known = _known(repo)
    certain: list[bytes] = []
    sides: list[bytes] = []
    # An upper bound of the size of git's output: each file's header lines, each line once with
    # its sign and a hunk header (a hunk holds a line at least).
    size = 100
    for delta in diff.deltas:
        old, new = delta.old_file, delta.new_file
        size += 400 + 16 * (len(old.raw_path) + len(new.raw_path))
        before, after = _side(repo, old), _side(repo, new)
        if before is None or after is None:
            return Change(where, commit_id, None)
        if _binary(known, old, before) or _binary(known, new, after) or before == after:
            continue  # "Binary files ... differ", or a mode change: no line starts with + or -
        minus = b"/dev/null" if old.mode == 0 else _quoted(b"a/", old.raw_path, known.quote_fully)
        plus = b"/dev/null" if new.mode == 0 else _quoted(b"b/", new.raw_path, known.quote_fully)
        certain.append(b"--- " + minus + (b"\t" if b" " in minus else b"") + b"\n")
        certain.append(b"+++ " + plus + (b"\t" if b" " in plus else b"") + b"\n")
        size += len(before) + len(after) + 260 * (_line_count(before) + _line_count(after))
        if size > CHANGE_LIMIT:
            return Change(where, commit_id, None)  # before counting the lines of a vendored drop
        old_lines, new_lines = Counter(_lines(before)), Counter(_lines(after))
        certain += (b"+" + line + (b"" if line.endswith(b"\n") else b"\n")
                    for line in (old_lines | new_lines) if old_lines[line] != new_lines[line])
        sides += (before, after)
    return Change(where, commit_id, changed_lines(b"".join(certain)), tuple(sides))


def _line_count(data: bytes) -> int:
    """len(_lines(data)), without splitting the text."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _lines(data: bytes) -> list[bytes]:
    """The lines of a text as xdiff reads them: each with its line feed, the last one perhaps without."""
    lines = data.split(b"\n")
    last = lines.pop()
    return [line + b"\n" for line in lines] + ([last] if last else [])


def _side(repo: pygit2.Repository, side: pygit2.DiffFile) -> bytes | None:
    """The text git diffs for one side of a file: a submodule's is a line naming its commit; None
    for a blob missing here."""
    import pygit2

    if side.mode == 0:
        return b""
    if side.mode == _GITLINK:
        return b"Subproject commit " + str(side.id).encode("ascii") + b"\n"
    blob = repo.get(side.id)
    return bytes(memoryview(blob)) if isinstance(blob, pygit2.Blob) else None


def _binary(known: _Known, side: pygit2.DiffFile, data: bytes) -> bool:
    """git's diff shows this side as binary: its attributes say so, or else a NUL among its first bytes."""
    if side.mode == 0 or side.mode == _GITLINK:
        return False
    by_attributes = known.binary_by_attributes(side.raw_path)
    if by_attributes is not None:
        return by_attributes
    return len(data) > _BIG_FILE or b"\0" in data[:_FIRST_FEW_BYTES]


def _quoted(prefix: bytes, path: bytes, fully: bool) -> bytes:
    """prefix + path as git's quote_two writes a name in a diff header: C-style within double
    quotes when some byte needs it (bytes above 0x7f too, unless core.quotePath is false)."""
    if not any(_must_quote(byte, fully) for byte in path):
        return prefix + path
    quoted = bytearray(b'"' + prefix)
    for byte in path:
        if not _must_quote(byte, fully):
            quoted.append(byte)
        elif byte in _C_ESCAPES:
            quoted += b"\\" + _C_ESCAPES[byte]
        else:
            quoted += b"\\%03o" % byte
    return bytes(quoted + b'"')


_C_ESCAPES = {7: b"a", 8: b"b", 9: b"t", 10: b"n", 11: b"v", 12: b"f", 13: b"r", 34: b'"', 92: b"\\"}


def _must_quote(byte: int, fully: bool) -> bool:
    return byte < 0x20 or byte in (0x22, 0x5C, 0x7F) or (fully and byte >= 0x80)
