"""RepoContext implementations: what resolves_at may ask of a repository (DESIGN.md, resolves_at).

- `PygitContext(repo, revision)`: pygit2, for scans and the benchmark; indexes of the tree
  (paths, and lower-cased text for mentions) are cached per revision.
- `GitCommandContext(workdir, revision=None)`: a handful of `git` subprocess calls for the
  commit-msg hook's fast path; never imports pygit2; every lookup is lazy and cached.
- `HostContext(host, owner, name)`: a record without a repository (a pull-request body):
  only the origin host is known, so tracked()/mentions() cannot be asked (`has_tree` False).
"""

from __future__ import annotations

import fnmatch
import functools
import re
import subprocess
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diylisis.errors import GitError

if TYPE_CHECKING:
    import pygit2

_SCP = re.compile(r"^(?:[\w.-]+@)?(?P<host>[\w.-]+):(?P<path>[^/].*)$")
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^@/]+@)?(?P<host>[^/:]+)(?::\d+)?/(?P<path>.+)$", re.I)
_ANCHOR = re.compile(r"(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?)$")
_TEXT_LIMIT = 8 * 1024 * 1024  # larger blobs are data dumps, not prose that defines terms


def parse_remote_url(url: str) -> tuple[str, str, str] | None:
    """(host, owner, name) from an https, ssh or scp-like remote URL; None for local paths."""
    url = url.strip()
    match = _URL.match(url) or (None if "://" in url or url.startswith(("/", ".")) else _SCP.match(url))
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
    path = _ANCHOR.sub("", path.strip().strip("`'\""))
    while path.startswith("./"):
        path = path[2:]
    return path.strip("/")


def word_pattern(term: str) -> re.Pattern[str]:
    """Case-insensitive occurrence of term not glued to other letters or digits."""
    return _word_pattern(term.lower())


@functools.lru_cache(maxsize=4096)
def _word_pattern(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![a-z0-9_]){re.escape(term)}(?![a-z0-9_])")


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
        exclude_path: str | None = None,
    ) -> None:
        import pygit2

        self._pygit2 = pygit2
        self.repo = repo
        # the record being certified is tracked too, but it cannot define its own terms
        self._exclude = exclude_path
        try:
            self.commit = repo.revparse_single(revision).peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError):
            raise GitError(f"unknown revision {revision!r} in {repo.path}") from None
        self._origin = origin
        self._mentions: dict[str, bool] = {}

    def _trees(self) -> list[Any]:
        trees = [self.commit.tree]
        if self.commit.parents:
            trees.append(self.commit.parents[0].tree)
        return trees

    @functools.cached_property
    def _paths(self) -> PathIndex:
        return _path_index(self.repo, tuple(str(t.id) for t in self._trees()))

    def tracked(self, path: str) -> bool:
        """The path is tracked in the tree of the revision or its first parent (line anchors accepted)."""
        return self._paths.has(path)

    def commit_id(self, prefix: str) -> str | None:
        """Full id of a commit whose id starts with prefix, present and reachable from a ref."""
        pygit2 = self._pygit2
        if not re.fullmatch(r"[0-9a-fA-F]{4,40}", prefix):
            return None
        try:
            obj = self.repo.revparse_single(prefix.lower())
            commit = obj.peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError, TypeError):
            return None
        full = str(commit.id)
        return full if full in _reachable(self.repo) else None

    def origin(self) -> tuple[str, str, str] | None:
        """(host, owner, name) given at construction, else parsed from remote.origin.url."""
        if self._origin is not None:
            return self._origin
        try:
            url = self.repo.config["remote.origin.url"]
        except (KeyError, self._pygit2.GitError):
            return None
        return parse_remote_url(str(url))

    def mentions(self, term: str) -> bool:
        """The term occurs case-insensitively (as a whole word) in the tracked text of the revision or its parent."""
        key = term.lower().strip()
        if not key:
            return False
        if key not in self._mentions:
            text = _text_index(self.repo, tuple(str(t.id) for t in self._trees()), self._exclude)
            self._mentions[key] = word_pattern(key).search(text) is not None
        return self._mentions[key]


_PATHS: OrderedDict[tuple[str, tuple[str, ...]], PathIndex] = OrderedDict()
_TEXTS: OrderedDict[tuple[str, tuple[str, ...], str | None], str] = OrderedDict()
_REACHABLE: dict[str, frozenset[str]] = {}


def _path_index(repo: pygit2.Repository, tree_ids: tuple[str, ...]) -> PathIndex:
    key = (repo.path, tree_ids)
    if key not in _PATHS:
        paths: list[str] = []
        for tree_id in tree_ids:
            _walk_tree(repo, repo[tree_id], "", lambda path, _entry: paths.append(path))
        _PATHS[key] = PathIndex(paths)
        while len(_PATHS) > 8:
            _PATHS.popitem(last=False)
    return _PATHS[key]


def _text_index(repo: pygit2.Repository, tree_ids: tuple[str, ...], exclude: str | None = None) -> str:
    """Lower-cased text of every tracked text blob but `exclude` (deduplicated by blob id), joined by NULs."""
    key = (repo.path, tree_ids, exclude)
    if key not in _TEXTS:
        blobs: dict[str, None] = {}

        def visit(path: str, entry: Any) -> None:
            if path != exclude:
                _add_blob(blobs, entry)

        for tree_id in tree_ids:
            _walk_tree(repo, repo[tree_id], "", visit)
        chunks = []
        for blob_id in blobs:
            try:
                blob = repo[blob_id]
            except KeyError:
                continue  # a partial copy may list a large blob it does not hold
            if blob.size > _TEXT_LIMIT or blob.is_binary:
                continue
            chunks.append(blob.data.decode("utf-8", errors="replace").lower())
        _TEXTS[key] = "\0".join(chunks)
        while len(_TEXTS) > 2:
            _TEXTS.popitem(last=False)
    return _TEXTS[key]


def _add_blob(blobs: dict[str, None], entry: Any) -> None:
    if entry.type_str == "blob":
        blobs.setdefault(str(entry.id), None)


def _walk_tree(repo: pygit2.Repository, tree: Any, prefix: str, visit: Any) -> None:
    import pygit2

    for entry in tree:
        path = f"{prefix}{entry.name}"
        if entry.type_str == "tree":
            _walk_tree(repo, repo[entry.id], path + "/", visit)
        elif entry.type_str == "blob":
            visit(path, entry)
        elif isinstance(entry, pygit2.Object) and entry.type_str == "commit":
            visit(path, entry)  # a submodule path is tracked


def _reachable(repo: pygit2.Repository) -> frozenset[str]:
    """Ids of every commit reachable from a ref (one walk per repository, cached)."""
    import pygit2

    if repo.path not in _REACHABLE:
        walker = None
        for name in repo.references:
            try:
                target = repo.references[name].resolve().peel(pygit2.Commit).id
            except (KeyError, ValueError, pygit2.GitError, TypeError):
                continue
            if walker is None:
                walker = repo.walk(target, pygit2.enums.SortMode.NONE)
            else:
                walker.push(target)
        _REACHABLE[repo.path] = frozenset(str(c.id) for c in walker) if walker else frozenset()
    return _REACHABLE[repo.path]


class GitCommandContext:
    """RepoContext through the git binary (commit-msg hook fast path): no pygit2, lazy, cached.

    revision None means the index: the tree the commit being written will have.
    """

    has_tree = True

    def __init__(self, workdir: str | Path, revision: str | None = None, *, exclude_path: str | None = None) -> None:
        self.workdir = Path(workdir)
        self.revision = revision
        self._exclude = normalize_path(exclude_path) if exclude_path else None  # the record's own file
        self._commit: dict[str, str | None] = {}
        self._mentions: dict[str, bool] = {}

    def _git(self, *args: str, input: bytes | None = None, ok: tuple[int, ...] = (0,)) -> tuple[int, bytes]:
        try:
            done = subprocess.run(["git", *args], cwd=self.workdir, input=input, capture_output=True, check=False)
        except FileNotFoundError:
            raise GitError("the git binary is not on PATH; install git") from None
        if done.returncode not in ok:
            reason = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
            raise GitError(f"git {args[0]} failed: {reason[0] if reason else done.returncode}")
        return done.returncode, done.stdout

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
        code, out = self._git("config", "--get", "remote.origin.url", ok=(0, 1))
        return parse_remote_url(out.decode().strip()) if code == 0 else None

    def mentions(self, term: str) -> bool:
        """git grep -i -w -F finds the term in the tracked tree (or the index)."""
        key = term.lower().strip()
        if key not in self._mentions:
            args = ["grep", "-q", "-I", "-i", "-w", "-F", "-e", key]
            args += ["--cached"] if self.revision is None else [self.revision]
            if self._exclude:
                args += ["--", ".", f":(top,exclude){self._exclude}"]
            code, _ = self._git(*args, ok=(0, 1))
            self._mentions[key] = code == 0
        return self._mentions[key]


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
