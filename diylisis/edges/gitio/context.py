"""RepoContext implementations: what resolves_at may ask of a repository (DESIGN.md, resolves_at).

- `PygitContext(repo, revision)`: pygit2, for scans and the benchmark. Answers are memoized
  per tree and subtree id in a bounded per-repository index (_TreeIndex), so a walk over
  history pays only for what changed; a record's terms are searched for in one walk over the
  tree (prefetch_mentions). Blob texts are read through this process's long-lived
  `git cat-file` (gitio.CatFile), and a range scan lists reachable commits with a
  `git rev-list` started in the background (gitio.BackgroundGit).
- `GitCommandContext(workdir, revision=None)`: a handful of `git` subprocess calls for the
  commit-msg hook's fast path; never imports pygit2; every lookup is lazy and cached.
- `HostContext(host, owner, name)`: a record without a repository (a pull-request body):
  only the origin host is known, so tracked()/mentions() cannot be asked (`has_tree` False).
"""

from __future__ import annotations

import functools
import os
import re

from diylisis.core.errors import GitError
from diylisis.edges.gitio import REPOSITORY, STORE, BackgroundGit, first_line, git_process, read_with_cat_file

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from typing import Any, TypeVar

    import pygit2

    from diylisis.edges.gitio.vocabulary import Change

    K = TypeVar("K")
    V = TypeVar("V")

_TEXT_LIMIT = 8 * 1024 * 1024  # larger blobs are data dumps, not prose that defines terms


# Compiled on first use, once: a commit-msg hook on a record that names no path and no issue
# needs none of them, and compiling them costs it about 1 ms.
@functools.cache
def _remote_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(URL, scp-like) remote address patterns."""
    return (re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^@/]+@)?(?P<host>[^/:]+)(?::\d+)?/(?P<path>.+)$", re.I),
            re.compile(r"^(?:[\w.-]+@)?(?P<host>[\w.-]+):(?P<path>[^/].*)$"))


@functools.cache
def _anchor() -> re.Pattern[str]:
    """A line anchor after a path (:12, :3-9, #L4, #L4-L8)."""
    return re.compile(r"(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?)$")


def parse_remote_url(url: str) -> tuple[str, str, str] | None:
    """(host, owner, name) from an https, ssh or scp-like remote URL; None for local paths."""
    url = url.strip()
    url_pattern, scp_pattern = _remote_patterns()
    match = url_pattern.match(url) or (None if "://" in url or url.startswith(("/", ".")) else scp_pattern.match(url))
    if match is None:
        return None
    path = match.group("path").strip("/")
    if path.endswith(".git"):
        path = path[:-4]
    parts = [p for p in path.split("/") if p]
    if len(parts) < 2:
        return None
    return match.group("host").lower(), "/".join(parts[:-1]), parts[-1]


def normalize_path(path: str) -> str:
    """A path as the tree spells it: no line anchor, no ./ prefix, no trailing slash."""
    path = _anchor().sub("", path.strip().strip("`'\""))
    while path.startswith("./"):
        path = path[2:]
    return path.strip("/")


def word_pattern(term: str) -> re.Pattern[str]:
    """Case-insensitive occurrence of term not glued to other letters or digits."""
    return _word_pattern(term.lower())


@functools.lru_cache(maxsize=4096)
def _word_pattern(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z0-9_]){re.escape(term)}(?![a-z0-9_])")


_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_")


def _holds_word(data: bytes, needle: bytes) -> bool:
    """word_pattern over the bytes of a text whose ASCII letters are lower-cased: needle occurs not
    glued to an ASCII letter, digit or underscore (find() runs at memchr speed; a regex starting
    with a look-behind tries every position)."""
    size, end = len(needle), len(data)
    at = data.find(needle)
    while at >= 0:
        after = at + size
        if (at == 0 or data[at - 1] not in _WORD_BYTES) and (after == end or data[after] not in _WORD_BYTES):
            return True
        at = data.find(needle, at + 1)
    return False


# The only characters whose str.lower() holds an ASCII character: U+0130 (i and a combining
# dot) and U+212A KELVIN SIGN (k), in UTF-8. A text without them has its ASCII letters
# lower-cased the same way by bytes.lower() as by str.lower(), so an ASCII term can be
# looked for in the bytes without decoding (tests/edges/gitio/test_context_search.py checks
# the list against the running Python's Unicode tables).
_ASCII_FROM_LOWER = (b"\xc4\xb0", b"\xe2\x84\xaa")


class PathIndex:
    """Tracked paths and directories, with suffixes, so 'graph.json' under any folder resolves."""

    def __init__(self, paths: list[str]) -> None:
        self.paths = frozenset(paths)
        entries: set[str] = set()
        for path in paths:
            parts = path.split("/")
            for i in range(len(parts)):
                for j in range(i + 1, len(parts) + 1):
                    entries.add("/".join(parts[i:j]))
        self.entries = frozenset(entries)

    def has(self, path: str) -> bool:
        """Path (file or directory, possibly relative to some folder, possibly a glob) is tracked."""
        path = normalize_path(path)
        if not path:
            return False
        if any(ch in path for ch in "*?["):
            import fnmatch  # a glob in a record is rare; the commit-msg hook does not load fnmatch otherwise

            return any(fnmatch.fnmatch(p, path) or fnmatch.fnmatch(p, "*/" + path) for p in self.entries)
        return path in self.entries


class PygitContext:
    """RepoContext over a pygit2 repository at one revision (its tree, plus its first parent's)."""

    has_tree = True

    def __init__(
        self,
        repo: pygit2.Repository,
        revision: str,
        *,
        origin: tuple[str, str, str] | None = None,
        origin_known: bool = False,
        exclude_path: str | None = None,
        walked: bool = False,
        first_parent: bool = True,
    ) -> None:
        """origin_known: the origin given (None too) is final, so origin() never reads the config (a range scan).
        walked: revision is the full id of a commit a walk of this repository gave, taken without a check.
        first_parent: also answer from the first parent's tree, as a commit message may name what its
        commit removed; a file's references resolve in the revision's own tree only (Rule 21)."""
        import pygit2

        self._pygit2 = pygit2
        self.repo = repo
        # the record being certified is tracked too, but it cannot define its own terms
        self._exclude = normalize_path(exclude_path) if exclude_path else None
        self._revision = revision
        # odb.exists checks the pack index; `revision in repo` would read and parse the object
        known = walked or (_is_object_id(revision) and repo.odb.exists(revision))
        self._commit: pygit2.Commit | None = None if known else self._resolve(revision)
        self._tree_id: pygit2.Oid | None = None
        self._parent_tree_id: pygit2.Oid | None | bool = None if first_parent else False  # False: not asked
        self._origin = origin
        self._origin_known = origin_known or origin is not None
        self._mentions: dict[str, bool] = {}
        self._change: Change | None = None  # in_change(): what the revision's change adds or removes
        if origin_known and repo.path not in _REACHABLE:
            _list_reachable_commits(repo)  # a range scan: commit_id() will likely be asked

    def _resolve(self, revision: str) -> pygit2.Commit:
        import pygit2

        try:
            return self.repo.revparse_single(revision).peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError):
            raise GitError(f"unknown revision {revision!r} in {self.repo.path}") from None

    @property
    def commit(self) -> pygit2.Commit:
        """The revision's commit, read on first use (most records of a scan never ask for the tree)."""
        commit = self._commit
        if commit is None:
            commit = self._commit = self._resolve(self._revision)
        return commit

    def _tree_ids(self) -> Iterator[pygit2.Oid]:
        """Ids of the revision's tree, then of its first parent's (read only if the caller goes on)."""
        if self._tree_id is None:
            self._tree_id = self.commit.tree_id
        yield self._tree_id
        if self._parent_tree_id is None:
            parents = self.commit.parent_ids
            self._parent_tree_id = self.repo[parents[0]].peel(self._pygit2.Commit).tree_id if parents else False
        if not isinstance(self._parent_tree_id, bool):
            yield self._parent_tree_id

    def tracked(self, path: str) -> bool:
        """The path is tracked in the tree of the revision or its first parent (line anchors accepted)."""
        path = normalize_path(path)
        if not path:
            return False
        index = _index(self.repo)
        if any(ch in path for ch in "*?["):
            import fnmatch

            return any(
                fnmatch.fnmatch(p, path) or fnmatch.fnmatch(p, "*/" + path)
                for tree_id in self._tree_ids()
                for p in index.paths(tree_id)
            )
        parts = tuple(path.split("/"))
        return any(index.has_suffix(tree_id, parts) for tree_id in self._tree_ids())

    def commit_id(self, prefix: str) -> str | None:
        """Full id of a commit whose id starts with prefix, present and reachable from a ref."""
        key = (self.repo.path, prefix)
        if key not in _COMMIT_IDS:  # the answer does not depend on the revision: a scan asks it once
            if len(_COMMIT_IDS) >= _COMMIT_ID_MEMO:
                _COMMIT_IDS.clear()
            _COMMIT_IDS[key] = self._find_commit(prefix)
        return _COMMIT_IDS[key]

    def _find_commit(self, prefix: str) -> str | None:
        pygit2 = self._pygit2
        if not re.fullmatch(r"[0-9a-fA-F]{4,40}", prefix):
            return None
        try:
            obj = self.repo.revparse_single(prefix.lower())
            commit = obj.peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError, TypeError):
            return None
        full = str(commit.id)
        return full if _reachable(self.repo, full) else None

    def origin(self) -> tuple[str, str, str] | None:
        """(host, owner, name) given at construction, else parsed from remote.origin.url (read once)."""
        if self._origin_known:
            return self._origin
        try:
            url = self.repo.config["remote.origin.url"]
        except (KeyError, self._pygit2.GitError):
            self._origin = None
        else:
            self._origin = parse_remote_url(str(url))
        self._origin_known = True
        return self._origin

    def mentions(self, term: str) -> bool:
        """The term occurs case-insensitively (as a whole word) in the tracked text of the revision or its parent."""
        key = term.lower().strip()
        if not key:
            return False
        found = self._mentions.get(key)
        if found is None:
            self.prefetch_mentions([key])
            found = self._mentions[key]
        return found

    def uses_identifier(self, name: str) -> bool:
        """The revision's tree uses name as a code identifier (as `git grep` finds it; gitio.vocabulary)."""
        from diylisis.edges.gitio import vocabulary

        return vocabulary.uses_identifier(self.repo, self.commit.tree_id, name)

    def in_change(self, text: str) -> bool:
        """The revision's change against its first parent adds or removes a line or path holding text."""
        if self._exclude or not text.strip():
            return False  # a file record: the change of the revision it is read at is not its subject
        if self._change is None:
            from diylisis.edges.gitio import vocabulary

            self._change = vocabulary.change_of(self.repo, self.commit)
        return self._change.holds(text)

    def prefetch_mentions(self, terms: list[str]) -> None:
        """Answer mentions() for many terms with one walk over the revision's tree (then its parent's,
        for the terms it leaves unfound), each blob read once and searched for all of them."""
        keys = (term.lower().strip() for term in terms)
        todo = tuple(dict.fromkeys(key for key in keys if key and key not in self._mentions))
        if not todo:
            return
        index = _index(self.repo)
        exclude = tuple(self._exclude.split("/")) if self._exclude else ()
        found: set[str] = set()
        for tree_id in self._tree_ids():
            found |= index.mentioned(tree_id, tuple(term for term in todo if term not in found), exclude)
            if len(found) == len(todo):
                break
        for term in todo:
            self._mentions[term] = term in found


class _Folder:
    """A tree's entries, and its blobs and subtrees apart: the search walks the subtrees and reads the blobs."""

    __slots__ = ("entries", "blobs", "trees")

    def __init__(self, entries: tuple[tuple[str, pygit2.Oid, str], ...]) -> None:
        self.entries = entries  # (name, id, kind); kind is tree, blob or commit (a submodule)
        self.blobs = tuple((name, oid) for name, oid, kind in entries if kind == "blob")
        self.trees = tuple((name, oid) for name, oid, kind in entries if kind == "tree")


class _TreeIndex:
    """Per-repository answers memoized by object id, so a walk over history reuses unchanged subtrees.

    Consecutive commits share almost every subtree and blob. A term is looked for in the
    lower-cased texts of a tree's blobs, kept in a cache bounded in bytes that drops the text
    searched least recently first (a tree's texts, searched for term after term, stay while
    older versions go; dropped in the order read, a tree larger than the cache was read anew
    for each term); "this subtree holds that term" is remembered per subtree id, so the first
    parent's tree, and the next commits', are searched only where they differ. Every memo is
    bounded (oldest dropped first): a scan of a long history holds about what two neighboring
    trees need.
    """

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self._folders: dict[pygit2.Oid, _Folder] = {}
        self._folder_entries = 0
        self._suffix: dict[tuple[pygit2.Oid, tuple[str, ...]], bool] = {}
        self._terms: dict[str, dict[pygit2.Oid, bool]] = {}  # term -> subtree id -> the subtree holds it
        self._texts: dict[pygit2.Oid, bytes] = {}  # blob id -> its bytes, ASCII letters lower-cased
        self._unicode_texts: dict[pygit2.Oid, str] = {}  # blob id -> str.lower() of its decoded text
        self._odd: set[pygit2.Oid] = set()  # blobs holding a character that lowers to ASCII
        self._text_bytes = 0

    def folder(self, tree_id: pygit2.Oid) -> _Folder:
        """The tree's entries (none for a tree missing from the store)."""
        found = self._folders.get(tree_id)
        if found is None:
            import pygit2

            try:
                tree = self.repo[tree_id]
            except KeyError:
                tree = None
            entries = tuple((e.name or "", e.id, e.type_str) for e in tree) if isinstance(tree, pygit2.Tree) else ()
            found = self._folders[tree_id] = _Folder(entries)
            # bounded by entries, not trees: git.git's top tree alone lists about 500
            self._folder_entries += len(entries)
            while self._folder_entries > _FOLDER_ENTRIES_KEPT and len(self._folders) > 1:
                self._folder_entries -= len(self._folders.pop(next(iter(self._folders))).entries)
        return found

    def paths(self, tree_id: pygit2.Oid, prefix: str = "") -> list[str]:
        """Every path (files and directories) under a tree."""
        out = []
        for name, oid, kind in self.folder(tree_id).entries:
            out.append(prefix + name)
            if kind == "tree":
                out.extend(self.paths(oid, f"{prefix}{name}/"))
        return out

    def _has_path(self, tree_id: pygit2.Oid, parts: tuple[str, ...]) -> bool:
        for name, oid, kind in self.folder(tree_id).entries:
            if name == parts[0]:
                return len(parts) == 1 or (kind == "tree" and self._has_path(oid, parts[1:]))
        return False

    def has_suffix(self, tree_id: pygit2.Oid, parts: tuple[str, ...]) -> bool:
        """parts names a path under this tree or under any of its subdirectories."""
        key = (tree_id, parts)
        found = self._suffix.get(key)
        if found is None:
            found = self._has_path(tree_id, parts) or any(
                self.has_suffix(oid, parts) for _, oid in self.folder(tree_id).trees
            )
            remember(self._suffix, key, found, _SUFFIXES_KEPT)
        return found

    def mentioned(self, tree_id: pygit2.Oid, terms: tuple[str, ...], exclude: tuple[str, ...] = ()) -> set[str]:
        """The terms (lower-cased) some text blob under the tree (but the excluded path) holds as whole words.

        One walk over the tree answers all of them: each blob is read once (the unread ones
        together, in one request to git, only when the blobs already read leave a term unfound)
        and searched for the terms still unfound.
        """
        memos = {term: self._memo(term) for term in dict.fromkeys(terms)}
        found = set() if exclude else {term for term, memo in memos.items() if memo.get(tree_id)}
        pending = tuple(term for term, memo in memos.items()
                        if term not in found and (exclude or memo.get(tree_id) is None))
        if pending:
            unread: list[pygit2.Oid] = []
            judged: set[pygit2.Oid] = set()
            found |= self._search(tree_id, pending, exclude, memos, unread, judged)
            pending = tuple(term for term in pending if term not in found)
            if pending and unread:
                self._read_many(unread)
                found |= self._search(tree_id, pending, exclude, memos, None, judged)
        return found

    def _memo(self, term: str) -> dict[pygit2.Oid, bool]:
        memo = self._terms.pop(term, None)  # taken out and put back: the most recently asked term last
        if memo is None:
            memo = {}
        return remember(self._terms, term, memo, _TERMS_KEPT)

    def _search(self, tree_id: pygit2.Oid, terms: tuple[str, ...], exclude: tuple[str, ...],
                memos: dict[str, dict[pygit2.Oid, bool]], unread: list[pygit2.Oid] | None,
                judged: set[pygit2.Oid]) -> set[str]:
        # The hot loop of a history scan: one pass per tree not seen with these terms; subtrees
        # already judged for a term are answered from its memo. With unread given, a blob not read
        # yet is listed there instead of judged, and the trees above it are not memoized for the
        # terms it leaves unfound (their answer is not known). The blobs judged then are listed in
        # judged, and skipped by the pass after the unread ones are read: they hold none of the
        # terms left, and reading their texts again would cost more than the pass itself (reading
        # a whole tree can push them out of the text cache).
        deferred = len(unread) if unread is not None else 0
        folder = self.folder(tree_id)
        skip = exclude[0] if len(exclude) == 1 else None  # the record's own file
        found = self._blobs_hold(folder.blobs, terms, skip, unread, judged)
        for name, oid in folder.trees:
            pending = tuple(term for term in terms if term not in found)
            if not pending:
                break
            if exclude and exclude[0] == name:
                if len(exclude) > 1:
                    found |= self._search(oid, pending, exclude[1:], memos, unread, judged)
                continue
            known = {term for term in pending if memos[term].get(oid) is not None}
            found |= {term for term in known if memos[term][oid]}
            asked = tuple(term for term in pending if term not in known)
            if asked:
                found |= self._search(oid, asked, (), memos, unread, judged)
        if not exclude:
            complete = unread is None or len(unread) == deferred
            for term in terms:
                if term in found or complete:
                    memos[term][tree_id] = term in found
        return found

    def _blobs_hold(self, blobs: tuple[tuple[str, pygit2.Oid], ...], terms: tuple[str, ...], skip: str | None,
                    unread: list[pygit2.Oid] | None, judged: set[pygit2.Oid]) -> set[str]:
        """The terms some of the blobs (but the one named skip) hold; unread blobs are listed in unread, if
        given, and the others in judged; without unread, the blobs in judged are skipped."""
        texts, odd = self._texts, self._odd
        found: set[str] = set()
        ascii_terms = [(term, term.encode("ascii")) for term in terms if term.isascii()]
        other_terms = [term for term in terms if not term.isascii()]
        for name, oid in blobs:
            if name == skip or unread is None and oid in judged:
                continue
            data = texts.pop(oid, None)
            if data is None:
                if unread is not None:
                    unread.append(oid)
                    continue
                data = self._read_one(oid)
            else:
                texts[oid] = data  # put back as the newest: the texts of the trees being asked stay
                if unread is not None:
                    judged.add(oid)
            if oid in odd:  # a character of the text lowers to ASCII: only str.lower() tells
                text = self._unicode_text(oid)
                found.update(term for term, _ in ascii_terms if term in text and word_pattern(term).search(text))
            else:
                found.update(term for term, needle in ascii_terms if needle in data and _holds_word(data, needle))
            if other_terms and not data.isascii():  # a non-ASCII term is in no ASCII text
                text = self._unicode_text(oid)
                found.update(term for term in other_terms if term in text and word_pattern(term).search(text))
            if found:
                ascii_terms = [(term, needle) for term, needle in ascii_terms if term not in found]
                other_terms = [term for term in other_terms if term not in found]
                if not ascii_terms and not other_terms:
                    break
        return found

    def _read_many(self, blob_ids: list[pygit2.Oid]) -> None:
        """Read and cache the texts of blobs: many in one request to this process's `git cat-file`."""
        wanted = [oid for oid in dict.fromkeys(blob_ids) if oid not in self._texts]
        # Only objects present go to git: in a partial clone it would fetch a missing one from its
        # remote. A few blobs (a commit's changed files) come sooner from pygit2 than over git's pipe.
        odb = self.repo.odb
        present = [oid for oid in wanted if odb.exists(oid)] if len(wanted) >= _CAT_FILE_FROM else []
        if len(present) >= _CAT_FILE_FROM:
            for oid, found in zip(present, read_with_cat_file(STORE, self.repo.path, [str(oid) for oid in present]),
                                  strict=False):
                raw = b"" if found is None else found[1]
                self._store(oid, b"" if len(raw) > _TEXT_LIMIT or _is_binary(raw) else raw.lower())
        for oid in wanted:
            if oid not in self._texts:
                self._read_one(oid)  # a missing blob reads as no text there

    def _read_one(self, blob_id: pygit2.Oid) -> bytes:
        """The blob's bytes with ASCII letters lower-cased (empty for binary or huge blobs), read
        through pygit2 and cached."""
        import pygit2

        try:
            blob = self.repo[blob_id]
        except KeyError:
            blob = None  # a partial copy may list a large blob it does not hold
        if not isinstance(blob, pygit2.Blob) or blob.size > _TEXT_LIMIT or blob.is_binary:
            data = b""
        else:
            # the buffer of the blob already read: Blob.data would read it from the odb again
            data = bytes(memoryview(blob)).lower()
        return self._store(blob_id, data)

    def _store(self, blob_id: pygit2.Oid, data: bytes) -> bytes:
        """Cache a blob's text (ASCII letters lower-cased), noting whether a character lowers to ASCII."""
        # the lead byte first: memchr finds it or its absence far faster than the pair is searched
        if not data.isascii() and any(odd[:1] in data and odd in data for odd in _ASCII_FROM_LOWER):
            self._odd.add(blob_id)
        self._texts[blob_id] = data
        self._keep(len(data))
        return data

    def _unicode_text(self, blob_id: pygit2.Oid) -> str:
        """The blob's text decoded and lower-cased as str.lower() does it (for non-ASCII terms or texts)."""
        text = self._unicode_texts.get(blob_id)
        if text is None:
            data = self._texts.get(blob_id)
            if data is None:
                data = self._read_one(blob_id)
            # lower-casing ASCII first changes nothing str.lower() would not (it maps per character)
            text = self._unicode_texts[blob_id] = data.decode("utf-8", "replace").lower()
            self._keep(len(text))
        return text

    def _keep(self, size: int) -> None:
        """Count size into the text caches; drop the least recently searched texts while they hold
        more than _TEXT_CACHE."""
        self._text_bytes += size
        for cache in (self._unicode_texts, self._texts):
            while self._text_bytes > _TEXT_CACHE and len(cache) > 1:
                # a search puts the texts it reads back last (_blobs_hold): the first is the least recent
                blob_id = next(iter(cache))
                dropped = cache.pop(blob_id)
                self._text_bytes -= len(dropped)
                if cache is self._texts:
                    self._odd.discard(blob_id)


def remember(memo: dict[K, V], key: K, value: V, limit: int) -> V:
    """memo[key] = value, the oldest entry dropped first when memo holds limit entries; value."""
    if len(memo) >= limit:
        del memo[next(iter(memo))]
    memo[key] = value
    return value


_FOLDER_ENTRIES_KEPT = 50_000  # entries of the trees listed (about 12 MB); git.git's whole tree has 5,000
_SUFFIXES_KEPT = 100_000  # (tree, path) answers of tracked()
_TERMS_KEPT = 256  # terms whose per-subtree answers are kept


_INDEXES: dict[str, _TreeIndex] = {}
_REACHABLE: dict[str, _Reachability] = {}
_COMMIT_IDS: dict[tuple[str, str], str | None] = {}  # (repository path, prefix) -> commit_id()
_COMMIT_ID_MEMO = 100_000


def _is_object_id(revision: str) -> bool:
    """A full SHA-1 or SHA-256 object id in lower-case hex."""
    return len(revision) in (40, 64) and not revision.strip("0123456789abcdef")
_TEXT_CACHE = 48 * 1024 * 1024  # git.git's tree holds 45 MB of text; its commits mostly change a few files


def _index(repo: pygit2.Repository) -> _TreeIndex:
    index = _INDEXES.get(repo.path)
    if index is None:
        index = _INDEXES[repo.path] = _TreeIndex(repo)
    elif index.repo is not repo:
        # Another handle on the same repository (a forked scan worker opens its own): the
        # answers are keyed by object id, so they stay true; reads go through the new handle.
        index.repo = repo
    return index


class _Reachability:
    """Commits known reachable from the refs of one repository, and the ref tips not walked yet.

    Branches, tags and remote-tracking branches are walked first: the commits a message names
    are nearly always theirs, and the other refs can hold far more history (git.git's notes
    and pull-request refs reach 203k commits, its branches and tags 85k). The other refs are
    walked only when a present commit is not among the first. known is None while listing,
    a `git rev-list` of the first, runs in the background (see _list_reachable_commits).
    """

    __slots__ = ("known", "primary", "pending", "listing")

    def __init__(self, known: set[str] | None, primary: list[Any], pending: list[Any] | None,
                 listing: BackgroundGit | None = None) -> None:
        self.known = known
        self.primary = primary
        self.pending = pending  # None: the other refs are not resolved yet
        self.listing = listing


_PRIMARY_REFS = ("refs/heads/", "refs/tags/", "refs/remotes/")


def _ref_tips(repo: pygit2.Repository, primary: bool) -> list[Any]:
    """Commit ids the branches, tags and remote-tracking branches (primary) or the other refs point at."""
    import pygit2

    tips = []
    for name in repo.references:
        if name.startswith(_PRIMARY_REFS) is primary:
            try:
                tips.append(repo.references[name].resolve().peel(pygit2.Commit).id)
            except (KeyError, ValueError, pygit2.GitError, TypeError):
                continue
    return tips


def _list_reachable_commits(repo: pygit2.Repository) -> None:
    """Start listing the commits reachable from the repository's branches and tags in the background.

    A range scan (PygitContext with origin_known) starts it with its first context: without a
    commit-graph the listing takes 0.7 s on git.git (85k commits), which git then spends beside
    this process before commit_id() first needs it (about 0.4 s later there).
    """
    primary = _ref_tips(repo, primary=True)
    listing = _listing(repo.path, primary, []) if primary else None
    _REACHABLE[repo.path] = _Reachability(None if listing else set(), primary, None, listing)


def _reachable(repo: pygit2.Repository, commit_id: str) -> bool:
    """The commit (a full id) is reachable from some ref of the repository (walks cached per repository)."""
    state = _REACHABLE.get(repo.path)
    if state is None:
        primary = _ref_tips(repo, primary=True)
        state = _REACHABLE[repo.path] = _Reachability(_commits_from(repo, primary, []), primary, None)
    if state.known is None:
        # the listing started in this process (a forked worker cannot wait for its parent's)
        listed = _listed(state.listing) if state.listing is not None else None
        state.known = listed if listed is not None else _commits_from(repo, state.primary, [])
        state.listing = None
    if commit_id in state.known:
        return True
    if state.pending is None:
        state.known |= _commits_from(repo, _ref_tips(repo, primary=False), state.primary)
        state.pending = []
        return commit_id in state.known
    return False


def _commits_from(repo: pygit2.Repository, tips: list[Any], hidden: list[Any]) -> set[str]:
    """Ids of the commits reachable from tips but not from hidden."""
    import pygit2

    if not tips:
        return set()
    listed = _listed(_listing(repo.path, tips, hidden)) if _has_commit_graph(repo.path) else None
    if listed is not None:
        return listed
    walker = repo.walk(tips[0], pygit2.enums.SortMode.NONE)
    for tip in tips[1:]:
        walker.push(tip)
    for tip in hidden:
        walker.hide(tip)
    return {str(c.id) for c in walker}


def _has_commit_graph(git_dir: str) -> bool:
    """The repository's object store has a commit-graph file (a single one or a chain)."""
    common = git_dir
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as file:  # a linked worktree
            common = os.path.join(git_dir, file.read().strip())
    except OSError:
        pass
    info = os.path.join(common, "objects", "info")
    return os.path.isfile(os.path.join(info, "commit-graph")) or os.path.isfile(
        os.path.join(info, "commit-graphs", "commit-graph-chain"))


def _listing(git_dir: str, tips: list[pygit2.Oid], hidden: list[pygit2.Oid]) -> BackgroundGit:
    """`git rev-list` of the commits reachable from tips but not from hidden, started in the background.

    With a commit-graph git reads parents from the graph (about 3 us a commit on git.git)
    where a pygit2 walk inflates and parses every commit (about 9 us); without one git is
    hardly faster (8 us), so a listing is waited for at once only with a commit-graph
    (_commits_from), and is otherwise started early, to run beside this process
    (_list_reachable_commits).
    """
    revisions = "".join(f"{tip}\n" for tip in tips) + "".join(f"^{tip}\n" for tip in hidden)
    return BackgroundGit(STORE, git_dir, ["rev-list", "--stdin"], revisions.encode("ascii"))


def _listed(listing: BackgroundGit) -> set[str] | None:
    """The ids a listing gave, once git is done; None if git failed or the listing is another process's."""
    listed = listing.result()
    return set(listed.decode("ascii").split()) if listed is not None else None


# git_blob_is_binary (libgit2, what pygit2's Blob.is_binary answers) over the first 8000 bytes:
# binary when they open with a UTF-16 or UTF-32 byte-order mark, hold a NUL, or hold more than
# one control character (but tab, line feed, vertical tab, carriage return, backspace, form
# feed and escape) per 128 others, counted after a UTF-8 byte-order mark.
_BINARY_HEAD = 8000
_CONTROLS = bytes([*range(1, 8), *range(14, 27), *range(28, 32), 127])
_SPACES = b"\t\n\v\r"


def _is_binary(data: bytes) -> bool:
    """Blob.is_binary of a blob with these bytes, computed without reading it through pygit2."""
    head = data[:_BINARY_HEAD]
    if b"\0" in head or head.startswith((b"\xfe\xff", b"\xff\xfe")):
        return True  # (a UTF-32 byte-order mark holds a NUL)
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    controls = len(head) - len(head.translate(None, _CONTROLS))
    if not controls:
        return False
    printable = len(head.translate(None, _CONTROLS + _SPACES))
    return (printable >> 7) < controls


_CAT_FILE_FROM = 64  # blobs read in one request from which git cat-file is used


def read_objects(root: str, ids: list[str]) -> dict[str, tuple[str, bytes]] | None:
    """(type, content) of each object present, as `git -C root cat-file --batch` reads them, through
    this process's cat-file there, which stays running for the next call (None: git cannot serve
    them here; read them another way)."""
    answers = list(read_with_cat_file(REPOSITORY, root, ids))
    if len(answers) != len(ids):
        return None
    return {oid: found for oid, found in zip(ids, answers, strict=True) if found is not None}


class GitCommandContext:
    """RepoContext through the git binary (commit-msg hook fast path): no pygit2, lazy, cached.

    revision None means the index: the tree the commit being written will have. config, when
    given, holds git config values the caller already read (lower-case names); remote.origin.url
    is then taken from it instead of another `git config` call.
    """

    has_tree = True

    def __init__(self, workdir: str | Path, revision: str | None = None, *, exclude_path: str | None = None,
                 config: dict[str, str] | None = None) -> None:
        self.workdir = os.fspath(workdir)
        self._config = config
        self.revision = revision
        self._exclude = normalize_path(exclude_path) if exclude_path else None  # the record's own file
        self._commit: dict[str, str | None] = {}
        self._mentions: dict[str, bool] = {}
        self._vocabulary: dict[str, object] = {}

    def _git(self, *args: str, input: bytes | None = None, ok: tuple[int, ...] = (0,)) -> tuple[int, bytes]:
        code, out, err = git_process(args, self.workdir, input=input)
        if code not in ok:
            raise GitError(f"git {args[0]} failed: {first_line(err) or code}")
        return code, out

    @functools.cached_property
    def _paths(self) -> PathIndex:
        if self.revision is None:
            _, out = self._git("ls-files", "-z")
        else:
            _, out = self._git("ls-tree", "-r", "-z", "--name-only", self.revision)
        return PathIndex([p for p in out.decode("utf-8", errors="replace").split("\0") if p])

    def tracked(self, path: str) -> bool:
        """The path is tracked at the revision (or in the index)."""
        return self._paths.has(path)

    def commit_ids(self, prefixes: list[str]) -> dict[str, str | None]:
        """Batch lookup: prefix -> full id of a reachable commit (one cat-file --batch-check call)."""
        todo = [p for p in prefixes if p not in self._commit and re.fullmatch(r"[0-9a-fA-F]{4,40}", p)]
        if todo:
            query = "".join(f"{p}^{{commit}}\n" for p in todo).encode()
            _, out = self._git("cat-file", "--batch-check=%(objectname) %(objecttype)", input=query)
            for prefix, line in zip(todo, out.decode().splitlines(), strict=False):
                parts = line.split()
                full = parts[0] if len(parts) == 2 and parts[1] == "commit" else None
                if full is not None:
                    code, refs = self._git("for-each-ref", "--count=1", f"--contains={full}", ok=(0, 1, 128, 129))
                    full = full if code == 0 and refs.strip() else None
                self._commit[prefix] = full
        return {p: self._commit.get(p) for p in prefixes}

    def commit_id(self, prefix: str) -> str | None:
        """Full id of a commit present and reachable from a ref, or None."""
        return self.commit_ids([prefix])[prefix]

    @functools.cache  # noqa: B019 - one context per hook run
    def origin(self) -> tuple[str, str, str] | None:
        """(host, owner, name) parsed from remote.origin.url."""
        if self._config is not None:
            url = self._config.get("remote.origin.url")
            return parse_remote_url(url.strip()) if url is not None else None
        code, out = self._git("config", "--get", "remote.origin.url", ok=(0, 1))
        return parse_remote_url(out.decode().strip()) if code == 0 else None

    def mentions(self, term: str) -> bool:
        """git grep -i -w -F finds the term in the tracked tree (or the index)."""
        key = term.lower().strip()
        if key not in self._mentions:
            self.prefetch_mentions([key])
        return self._mentions[key]

    def prefetch_mentions(self, terms: list[str]) -> None:
        """Answer mentions() for many terms with one git grep (the hook runs one process, not one per term)."""
        todo = sorted({t.lower().strip() for t in terms if t.strip()} - set(self._mentions))
        if not todo:
            return
        args = ["grep", "-I", "-i", "-w", "-F", "-o", "-h", "--no-color"]
        for term in todo:
            args += ["-e", term]
        args += ["--cached"] if self.revision is None else [self.revision]
        if self._exclude:
            args += ["--", ".", f":(top,exclude){self._exclude}"]
        code, out = self._git(*args, ok=(0, 1))
        found = set()
        if code == 0:
            for line in out.decode("utf-8", errors="replace").splitlines():
                found.add(line.lower())
        for term in todo:
            self._mentions[term] = term in found

    def uses_identifier(self, name: str) -> bool:
        """The revision's tree (or the index) uses name as a code identifier: one `git grep`."""
        return _uses_identifier(self.workdir, self.revision, name, self._vocabulary)

    def in_change(self, text: str) -> bool:
        """The revision's change (the staged change when the revision is the index) adds or removes text."""
        return _in_change(self.workdir, self.revision, text, self._vocabulary, self._exclude)


class HostContext:
    """Only the origin host is known (a pull-request body): no tree to ask."""

    has_tree = False

    def __init__(self, host: str, owner: str, name: str) -> None:
        self._origin = (host.lower(), owner, name)

    def tracked(self, path: str) -> bool:
        """Unknown without a tree: never claims a path resolves."""
        return False

    def commit_id(self, prefix: str) -> str | None:
        """Unknown without a repository."""
        return None

    def origin(self) -> tuple[str, str, str] | None:
        """The host, owner and name given."""
        return self._origin

    def mentions(self, term: str) -> bool:
        """Unknown without a tree."""
        return False

    def uses_identifier(self, name: str) -> bool:
        """Unknown without a tree."""
        return False

    def in_change(self, text: str) -> bool:
        """Unknown without a commit."""
        return False


# --- The repository's own vocabulary: identifiers its code uses, what its change touches.
# The commit-msg hook asks git, once per question, and only of a finding that would otherwise be
# reported; a range scan asks the same of pygit2 in this process (gitio.vocabulary).

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
CHANGE_LIMIT = 4 * 1024 * 1024  # a larger change is a vendored drop or a mass rename; read its start only


def _identifier_use(name: str) -> str:
    """A POSIX ERE for name used in code: declared, assigned, called, or an attribute or module."""
    word = re.escape(name)
    return (
        rf"(class|struct|def|fn|func|type|interface|enum|import) +{word}([^A-Za-z0-9_]|$)"
        rf"|(^|[^A-Za-z0-9_]){word} *(=[^=]|\.[a-z_]|\()|\.{word}([^A-Za-z0-9_]|$)"
    )


def _uses_identifier(cwd: str, revision: str | None, name: str, memo: dict[str, object]) -> bool:
    if not IDENTIFIER.fullmatch(name):
        return False
    key = "identifier:" + name
    if key not in memo:
        where = ["--cached"] if revision is None else [revision]
        code, _, _ = git_process(["grep", "-q", "-I", "-E", "-e", _identifier_use(name), *where], cwd)
        memo[key] = code == 0
    return bool(memo[key])


def _in_change(cwd: str, revision: str | None, text: str, memo: dict[str, object], exclude: str | None) -> bool:
    """exclude: the record's own file. A file record is not a commit message: the change of the
    revision it is read at is not its subject, so nothing is in it."""
    if exclude or not text.strip():
        return False
    if "change" not in memo:
        memo["change"] = git_change(cwd, revision)
    return text in str(memo["change"])


def git_change(cwd: str, revision: str | None) -> str:
    """changed_lines of the revision's patch against its first parent (the staged change for None), as git prints it."""
    if revision is None:
        args = ["diff", "--cached", "--no-color", "--no-ext-diff", "--no-renames", "-U0"]
    else:
        args = ["diff-tree", "-p", "--root", "--no-color", "--no-ext-diff", "--no-renames", "-U0", revision]
    code, out, _ = git_process(args, cwd)
    return changed_lines(out) if code == 0 else ""


def changed_lines(patch: bytes) -> str:
    """The lines of a patch (its first CHANGE_LIMIT bytes) that start with + or -, without that sign, one per line."""
    change = patch[:CHANGE_LIMIT].decode("utf-8", errors="replace")
    return "\n".join(line[1:] for line in change.splitlines() if line.startswith(("+", "-")))
