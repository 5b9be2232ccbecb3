"""The git measurements behind vet's tags: who cites a record, when a claim's line was written,
which later commits touched what it names, what code and config hold for a key, and who owns
a path by CODEOWNERS.

Each function runs a few git commands at a pinned revision and returns plain values or the
frozen facts of `diylisis.core.tagging`; the command that shows each fact travels with it as
its basis. Nothing here writes to the repository.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from msgspec import Struct
from msgspec.structs import replace

from diylisis.core import tagging
from diylisis.core.errors import GitError
from diylisis.core.vet import owners
from diylisis.edges.gitio import GitProcess, first_line, try_git

COMMIT_PREFIX = "commit:"  # a commit message as a source: `commit:SHA`
RECORD_SUFFIXES = (".md", ".markdown", ".txt", ".rst", ".adoc")
ENFORCEMENT_PATHS = ("tests/", "test/", ".github/")
MIN_BASENAME = 8  # a basename shorter than this names too many things to count as a citation


def _git(root: str | Path, args: Sequence[str], *, ok: tuple[int, ...] = (0,), input: bytes | None = None) -> bytes:
    code, out, err = try_git(args, root, input=input)
    if code not in ok:
        raise GitError(f"git {args[0]} failed: {first_line(err) or f'exit status {code}'}")
    return out


def resolve(root: str | Path, revision: str) -> str:
    """The commit id REVISION names."""
    code, out, _ = try_git(["rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"], root)
    if code != 0:
        raise GitError(f"no such revision: {revision}")
    return out.decode().strip()


def commit_time(root: str | Path, commit: str) -> int:
    """The committer time of COMMIT, seconds since the epoch."""
    return int(_git(root, ["log", "-1", "--format=%ct", commit, "--"]).decode().strip())


def commit_times(root: str | Path, commits: Sequence[str]) -> dict[str, int]:
    """The committer time of each of COMMITS (full ids), from one `git log --no-walk`."""
    if not commits:
        return {}
    out = _git(root, ["log", "--no-walk=unsorted", "--format=%H %ct", *dict.fromkeys(commits), "--"])
    return {sha: int(time) for sha, time in (row.split(" ") for row in out.decode().splitlines())}


def range_commits(root: str | Path, base: str, tip: str) -> tuple[str, ...]:
    """The commits of BASE..TIP, newest first, merges included."""
    return tuple(_git(root, ["rev-list", f"{base}..{tip}", "--"]).decode().split())


def blob_id(root: str | Path, commit: str, path: str) -> str | None:
    """The blob PATH has at COMMIT, or None when it is not tracked there."""
    code, out, _ = try_git(["rev-parse", "--verify", "--quiet", f"{commit}:{path}"], root)
    return out.decode().strip() if code == 0 else None


class StoredObject(Struct, frozen=True, kw_only=True):
    """An object as `git cat-file --batch` gives it: its id, type and content."""

    id: str
    type: str
    data: bytes


def _outside(name: str) -> bool:
    """NAME is a `REV:./PATH` or `REV:../PATH` that leaves the repository: git resolves such paths
    against the working directory (the top here), finds nothing, and ends a whole `cat-file
    --batch` on one."""
    _, colon, path = name.partition(":")
    relative = path in (".", "..") or path.startswith(("./", "../"))
    return bool(colon) and relative and posixpath.normpath(path).split("/")[0] == ".."


def _read_one(root: str | Path, name: str) -> StoredObject | None:
    code, out, _ = try_git(["rev-parse", "--verify", "--quiet", name], root)
    if code != 0:
        return None
    object_id = out.decode().strip()
    kind = _git(root, ["cat-file", "-t", object_id]).decode().strip()
    return StoredObject(id=object_id, type=kind, data=_git(root, ["cat-file", kind, object_id]))


def read_objects(root: str | Path, names: Sequence[str]) -> dict[str, StoredObject | None]:
    """Each object NAMES gives (a blob or commit id, or `REV:PATH`), None where it names nothing,
    all read by one `git cat-file --batch`; a name holding a newline, which cannot go on its
    line, is resolved on its own, as `git rev-parse` resolves it."""
    unique = tuple(dict.fromkeys(names))
    wanted = [name for name in unique if "\n" not in name and not _outside(name)]
    found: dict[str, StoredObject | None] = {name: _read_one(root, name) if "\n" in name else None
                                             for name in unique if name not in wanted}
    if not wanted:
        return found
    out = _git(root, ["cat-file", "--batch"], input="".join(f"{name}\n" for name in wanted).encode())
    at = 0
    for name in wanted:
        end = out.index(b"\n", at)
        header = out[at:end].decode("utf-8", errors="replace").split(" ")
        at = end + 1
        if len(header) != 3 or not header[2].isdigit():  # "<name> missing" or "<name> ambiguous"
            found[name] = None
            continue
        size = int(header[2])
        found[name] = StoredObject(id=header[0], type=header[1], data=out[at:at + size])
        at += size + 1
    return found


def object_text(stored: StoredObject) -> str:
    """A blob's content, or a commit's message (what follows its header), as text with
    undecodable bytes replaced."""
    data = stored.data
    if stored.type == "commit":
        data = data.partition(b"\n\n")[2]
    return data.decode("utf-8", errors="replace")


def blob_text(root: str | Path, blob: str) -> str:
    """A blob's content, or a commit's message when BLOB is a commit id, as text."""
    stored = read_objects(root, (blob,))[blob]
    if stored is None:
        raise GitError(f"git cat-file failed: no object {blob}")
    return object_text(stored)


def tracked_paths(root: str | Path, commit: str) -> tuple[str, ...]:
    """Every path tracked at COMMIT."""
    out = _git(root, ["ls-tree", "-r", "-z", "--name-only", commit])
    return tuple(name.decode("utf-8", errors="replace") for name in out.split(b"\0") if name)


def basename_counts(tracked: Sequence[str]) -> dict[str, int]:
    """How many of the TRACKED paths have each basename."""
    counts: dict[str, int] = {}
    for path in tracked:
        base = path.rsplit("/", 1)[-1]
        counts[base] = counts.get(base, 0) + 1
    return counts


def citation_patterns(source: str, basenames: Mapping[str, int]) -> tuple[str, ...]:
    """The strings that name SOURCE: its full path, and its basename when that has at least
    MIN_BASENAME characters and no other tracked file shares it (BASENAMES: basename_counts of
    the tracked paths); for a commit message
    (`commit:SHA`), the commit's id in full and in its 12- and 7-character abbreviations."""
    if source.startswith(COMMIT_PREFIX):
        sha = source.removeprefix(COMMIT_PREFIX)
        return (sha, sha[:12], sha[:7])
    base = source.rsplit("/", 1)[-1]
    patterns = [source]
    if base != source and len(base) >= MIN_BASENAME and basenames.get(base) == 1:
        patterns.append(base)
    return tuple(patterns)


def citations_of(root: str | Path, commit: str, sources: Sequence[str],
                 tracked: Sequence[str]) -> dict[str, tagging.LeverageTag]:
    """The distinct files at COMMIT that name each of SOURCES, the source itself left out: one
    `git grep -I -n -F` over the tree for the names of all of them, each hit then given to every
    source whose name it holds at a path boundary. Each tag's basis is the grep for its own source."""
    basenames = basename_counts(tracked)
    names = {source: citation_patterns(source, basenames) for source in dict.fromkeys(sources)}
    every = sorted({p for patterns in names.values() for p in patterns})
    rows: list[tuple[str, int, str]] = []
    if every:
        args = ["grep", "-I", "-n", "-F", *(part for p in every for part in ("-e", p)), commit, "--"]
        for row in _git(root, args, ok=(0, 1)).decode("utf-8", errors="replace").splitlines():
            _, path, line, text = row.split(":", 3)
            rows.append((path, int(line), text))
    tags: dict[str, tagging.LeverageTag] = {}
    for source, patterns in names.items():
        boundary = [re.compile(rf"(?<![\w/.-]){re.escape(p)}(?![\w-])") for p in patterns]
        named = list(zip(patterns, boundary, strict=True))
        found = [tagging.Citation(path=path, line=line, text=text) for path, line, text in rows
                 if path != source and any(p in text and b.search(text) for p, b in named)]
        basis = "git grep -I -n -F " + " ".join(f"-e {p}" for p in patterns) + f" {commit[:12]}"
        tags[source] = tagging.leverage(tuple(found), basis)
    return tags


class LagQuery(Struct, frozen=True, kw_only=True):
    """What one claim's lag is measured from: its line's blame commit, and the paths and
    code-shaped tokens it names."""

    since: str
    paths: tuple[str, ...]
    tokens: tuple[str, ...]


def _token_lines(stored: StoredObject | None, token: str) -> tuple[str, ...] | None:
    if stored is None or stored.type != "blob":
        return None
    return tuple(line for line in object_text(stored).split("\n") if token in line)


def lags(root: str | Path, commit: str, queries: Sequence[LagQuery]
         ) -> tuple[tuple[tuple[tagging.LagCommit, ...], tuple[str, ...]], ...]:
    """For each query, the commits in SINCE..COMMIT that touched a path the claim names on a line
    holding a token it names, counted only where those lines differ between SINCE and COMMIT (a
    change that was reverted is no lag); with the commands that show them. The files on both
    sides are read by one `git cat-file --batch`, and each (since, path, token) that needs a
    `git log -G` runs once however many claims ask it."""
    sides = [f"{rev}:{path}" for query in queries for path in query.paths for rev in (query.since, commit)]
    stored = read_objects(root, sides)
    logged: dict[tuple[str, str, str], tuple[tagging.LagCommit, ...]] = {}
    measured = []
    for query in queries:
        found: list[tagging.LagCommit] = []
        basis: list[str] = []
        for path in query.paths:
            for token in query.tokens:
                before = _token_lines(stored[f"{query.since}:{path}"], token)
                after = _token_lines(stored[f"{commit}:{path}"], token)
                if before == after or not (before or after):
                    continue
                basis.append(f"git log -G{token} {query.since[:12]}..{commit[:12]} -- {path}")
                key = (query.since, path, token)
                if key not in logged:
                    args = ["log", "--format=%H%x00%s", f"-G{re.escape(token)}", f"{query.since}..{commit}", "--", path]
                    logged[key] = tuple(tagging.LagCommit(commit=sha, path=path, token=token, subject=subject)
                                        for sha, subject in (row.split("\0", 1) for row in _git(root, args)
                                                             .decode("utf-8", errors="replace").splitlines()))
                found.extend(logged[key])
        measured.append((tuple(found), tuple(basis)))
    return tuple(measured)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")  # the shape of a key tagging.code_facts reads
_ASSIGNED_NUMBER = "[=:][[:space:]]*[\"']?([0-9]|[^[:print:][:space:]])"


def code_facts(root: str | Path, commit: str, keys: frozenset[str]) -> tuple[tagging.CodeFact, ...]:
    """The values code and config files at COMMIT assign to KEYS. One `git grep -E` finds every
    line where `=` or `:` is followed by a number (a superset of the assignments
    `tagging.code_facts` reads, whatever the key, since a grep for hundreds of keys as
    case-insensitive words takes minutes on a large tree); each line is then parsed for KEYS
    here, and a TOML/INI file with an assignment to one is read whole for its sections. Records
    (docs) are not code."""
    if not keys:
        return ()
    args = ["grep", "-I", "-n", "-E", "-e", _ASSIGNED_NUMBER, commit, "--"]
    out = _git(root, args, ok=(0, 1)).decode("utf-8", errors="replace")
    facts: list[tagging.CodeFact] = []
    sectioned: set[str] = set()
    by_lowered: dict[str, set[str]] = {}
    for key in keys:
        by_lowered.setdefault(key.lower(), set()).add(key)
    for row in out.splitlines():
        _, path, line, text = row.split(":", 3)
        if path.endswith(RECORD_SUFFIXES) or path in sectioned:
            continue
        # only the keys the line holds as a name can be the one it assigns
        named = frozenset(key for word in _NAME.findall(text) for key in by_lowered.get(word.lower(), ()))
        if not named:
            continue
        found = tagging.code_facts(path, text, named)
        if not found:
            continue
        if path.endswith(tagging.SECTIONED_SUFFIXES):
            sectioned.add(path)
            continue
        facts.extend(replace(fact, line=int(line)) for fact in found)
    files = read_objects(root, [f"{commit}:{path}" for path in sorted(sectioned)])
    for path in sorted(sectioned):
        stored = files[f"{commit}:{path}"]
        if stored is not None:
            facts.extend(tagging.code_facts(path, object_text(stored), keys))
    return tuple(facts)


def enforcement_of(root: str | Path, commit: str, keys: Sequence[str]
                   ) -> dict[str, tuple[tuple[tagging.Enforcement, ...], str]]:
    """For each of KEYS, the test and CI lines at COMMIT that name it as a word, with the command
    that shows them: one `git grep -w` for all keys, each hit then given to the keys it names as
    a word (git's word characters: letters, digits and the underscore)."""
    wanted = tuple(dict.fromkeys(keys))
    rows: list[tuple[str, int, str]] = []
    if wanted:
        args = ["grep", "-I", "-n", "-w", "-F", *(part for key in wanted for part in ("-e", key)), commit, "--",
                *ENFORCEMENT_PATHS]
        for row in _git(root, args, ok=(0, 1)).decode("utf-8", errors="replace").splitlines():
            _, path, line, text = row.split(":", 3)
            rows.append((path, int(line), text))
    found: dict[str, tuple[tuple[tagging.Enforcement, ...], str]] = {}
    for key in wanted:
        word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(key)}(?![A-Za-z0-9_])")
        found[key] = (tuple(tagging.Enforcement(path=path, line=line, text=text) for path, line, text in rows
                            if key in text and word.search(text)),
                      f"git grep -n -w {key} {commit[:12]} -- {' '.join(ENFORCEMENT_PATHS)}")
    return found


def _line_ranges(lines: Sequence[int]) -> list[str]:
    """`-L a,b` arguments covering LINES, consecutive lines joined into one range."""
    ranges: list[list[int]] = []
    for line in sorted(set(lines)):
        if ranges and line == ranges[-1][1] + 1:
            ranges[-1][1] = line
        else:
            ranges.append([line, line])
    return [part for start, end in ranges for part in ("-L", f"{start},{end}")]


def _blame_args(commit: str, path: str, lines: Sequence[int] | None) -> list[str]:
    return ["blame", "--porcelain", *(_line_ranges(lines) if lines is not None else ()), commit, "--", path]


def _parse_blame(out: bytes) -> dict[int, tuple[str, int]]:
    times: dict[str, int] = {}
    found: dict[int, str] = {}
    current = ""
    for row in out.decode("utf-8", errors="replace").split("\n"):
        head = row.split(" ")
        if len(head) >= 3 and len(head[0]) in (40, 64) and all(c in "0123456789abcdef" for c in head[0]):
            current = head[0]
            found[int(head[2])] = current
        elif row.startswith("committer-time "):
            times[current] = int(row.split(" ", 1)[1])
    return {line: (sha, times[sha]) for line, sha in found.items()}


def blame_lines(root: str | Path, commit: str, path: str, lines: Sequence[int] | None = None
                ) -> dict[int, tuple[str, int]]:
    """(author commit, its committer time) of every line of PATH as of COMMIT, or of LINES only
    (which spares blame the history of the others), from one `git blame`."""
    return _parse_blame(_git(root, _blame_args(commit, path, lines)))


BLAME_WINDOW = 4  # blames running at once: each is one process, mostly walking history


def blames(root: str | Path, commit: str, wanted: Mapping[str, Sequence[int]]) -> dict[str, dict[int, tuple[str, int]]]:
    """blame_lines for each path of WANTED and its lines, one `git blame` per path, up to
    BLAME_WINDOW of them running at once; a path whose lines are not all there at COMMIT is
    blamed whole."""
    found: dict[str, dict[int, tuple[str, int]]] = {}
    queue = [(path, lines) for path, lines in wanted.items() if lines]
    running: list[tuple[str, GitProcess]] = []
    while queue or running:
        while queue and len(running) < BLAME_WINDOW:
            path, lines = queue.pop(0)
            running.append((path, GitProcess(_blame_args(commit, path, lines), root)))
        path, process = running.pop(0)
        code, out, _ = process.finish()
        # a line past the file's end at COMMIT (a source pinned at another revision) fails -L:
        # the whole file's blame then gives the lines it has
        found[path] = _parse_blame(out) if code == 0 else blame_lines(root, commit, path)
    return found


def dirty_paths(root: str | Path, paths: Sequence[str]) -> frozenset[str]:
    """Those of PATHS with uncommitted changes in the work tree or the index (one `git status`)."""
    if not paths:
        return frozenset()
    out = _git(root, ["--no-optional-locks", "--literal-pathspecs", "status", "--porcelain", "-z", "--no-renames",
                      "--", *dict.fromkeys(paths)])
    changed = {entry[3:].decode("utf-8", errors="replace") for entry in out.split(b"\0") if len(entry) > 3}
    return frozenset(path for path in paths if path in changed)


def changed_paths(root: str | Path, base: str, tip: str) -> tuple[str, ...]:
    """The paths changed between the merge base of BASE and TIP, and TIP."""
    out = _git(root, ["diff", "--name-only", "-z", "--no-renames", f"{base}...{tip}", "--"])
    return tuple(name.decode("utf-8", errors="replace") for name in out.split(b"\0") if name)


def added_lines(root: str | Path, base: str, tip: str) -> tuple[tuple[str, int, str], ...]:
    """(path, line at TIP, text) of every line the range BASE...TIP adds."""
    out = _git(root, ["diff", "-U0", "--no-renames", "--no-color", f"{base}...{tip}", "--"])
    found: list[tuple[str, int, str]] = []
    path, line = "", 0
    for row in out.decode("utf-8", errors="replace").split("\n"):
        if row.startswith("+++ "):
            path = row[6:] if row.startswith("+++ b/") else ""
        elif row.startswith("@@"):
            match = re.search(r"\+(\d+)", row)
            line = int(match.group(1)) if match else 0
        elif row.startswith("+") and path:
            found.append((path, line, row[1:]))
            line += 1
    return tuple(found)


def records_naming(root: str | Path, commit: str, paths: Sequence[str]) -> tuple[str, ...]:
    """The record files (docs, task files) at COMMIT whose text names one of PATHS in full."""
    if not paths:
        return ()
    args = ["grep", "-I", "-l", "-F", *(part for p in paths for part in ("-e", p)), commit, "--",
            *(f"*{suffix}" for suffix in RECORD_SUFFIXES)]
    out = _git(root, args, ok=(0, 1)).decode("utf-8", errors="replace")
    return tuple(row.split(":", 1)[1] for row in out.splitlines())


def last_commit_time(root: str | Path, commit: str, path: str) -> int | None:
    """The committer time of the last commit up to COMMIT that touched PATH; for a commit
    message (`commit:SHA`), that commit's own time."""
    if path.startswith(COMMIT_PREFIX):
        return commit_time(root, path.removeprefix(COMMIT_PREFIX))
    out = _git(root, ["log", "-1", "--format=%ct", commit, "--", path]).decode().strip()
    return int(out) if out else None


def worktree_blob(root: str | Path, path: str) -> str | None:
    """The blob id the work tree's PATH would have (None when it is missing); writes nothing."""
    code, out, _ = try_git(["hash-object", "--", path], root)
    return out.decode().strip() if code == 0 else None


def ownership(root: str | Path, commit: str, action_commit: str, tracked: Sequence[str]) -> owners.Ownership | None:
    """The first CODEOWNERS file GitHub would read at COMMIT (TRACKED: the paths there), with the
    author email of ACTION_COMMIT; None when there is no such file."""
    path = next((p for p in owners.CODEOWNERS_PATHS if p in tracked), None)
    if path is None:
        return None
    code, out, _ = try_git(["log", "-1", "--format=%ae", action_commit, "--"], root)
    author = out.decode("utf-8", errors="replace").strip() if code == 0 else ""
    return owners.Ownership(path=path, rules=owners.parse(path, blob_text(root, f"{commit}:{path}")), author=author)
