"""The git measurements behind vet's tags: who cites a record, when a claim's line was written,
which later commits touched what it names, and what code and config hold for a key.

Each function runs a few git commands at a pinned revision and returns plain values or the
frozen facts of `diylisis.core.tagging`; the command that shows each fact travels with it as
its basis. Nothing here writes to the repository.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from diylisis.core import tagging
from diylisis.core.errors import GitError
from diylisis.edges.gitio import first_line, try_git

RECORD_SUFFIXES = (".md", ".markdown", ".txt", ".rst", ".adoc")
ENFORCEMENT_PATHS = ("tests/", "test/", ".github/")
MIN_BASENAME = 8  # a basename shorter than this names too many things to count as a citation


def _git(root: str | Path, args: Sequence[str], *, ok: tuple[int, ...] = (0,)) -> bytes:
    code, out, err = try_git(args, root)
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


def blob_id(root: str | Path, commit: str, path: str) -> str | None:
    """The blob PATH has at COMMIT, or None when it is not tracked there."""
    code, out, _ = try_git(["rev-parse", "--verify", "--quiet", f"{commit}:{path}"], root)
    return out.decode().strip() if code == 0 else None


def blob_text(root: str | Path, blob: str) -> str:
    """A blob's content as text (undecodable bytes replaced)."""
    return _git(root, ["cat-file", "blob", blob]).decode("utf-8", errors="replace")


def tracked_paths(root: str | Path, commit: str) -> tuple[str, ...]:
    """Every path tracked at COMMIT."""
    out = _git(root, ["ls-tree", "-r", "-z", "--name-only", commit])
    return tuple(name.decode("utf-8", errors="replace") for name in out.split(b"\0") if name)


def citation_patterns(source: str, tracked: Sequence[str]) -> tuple[str, ...]:
    """The strings that name SOURCE: its full path, and its basename when that has at least
    MIN_BASENAME characters and no other tracked file shares it."""
    base = source.rsplit("/", 1)[-1]
    patterns = [source]
    if base != source and len(base) >= MIN_BASENAME and sum(p.rsplit("/", 1)[-1] == base for p in tracked) == 1:
        patterns.append(base)
    return tuple(patterns)


def citations(root: str | Path, commit: str, source: str, tracked: Sequence[str]) -> tagging.LeverageTag:
    """The distinct files at COMMIT that name SOURCE (one `git grep -I -n -F`), SOURCE itself left out."""
    patterns = citation_patterns(source, tracked)
    args = ["grep", "-I", "-n", "-F", *(part for p in patterns for part in ("-e", p)), commit, "--"]
    out = _git(root, args, ok=(0, 1)).decode("utf-8", errors="replace")
    boundary = [re.compile(rf"(?<![\w/.-]){re.escape(p)}(?![\w-])") for p in patterns]
    found: list[tagging.Citation] = []
    for row in out.splitlines():
        _, path, line, text = row.split(":", 3)
        if path != source and any(b.search(text) for b in boundary):
            found.append(tagging.Citation(path=path, line=int(line), text=text))
    basis = "git grep -I -n -F " + " ".join(f"-e {p}" for p in patterns) + f" {commit[:12]}"
    return tagging.leverage(tuple(found), basis)


def blame_line(root: str | Path, commit: str, path: str, line: int) -> tuple[str, int]:
    """(the commit that wrote PATH's line LINE as of COMMIT, that commit's committer time)."""
    out = _git(root, ["blame", "--porcelain", "-L", f"{line},{line}", commit, "--", path])
    lines = out.decode("utf-8", errors="replace").splitlines()
    author = lines[0].split(" ", 1)[0]
    times = [row.split(" ", 1)[1] for row in lines if row.startswith("committer-time ")]
    return author, int(times[0])


def _token_lines(root: str | Path, commit: str, path: str, token: str) -> tuple[str, ...] | None:
    blob = blob_id(root, commit, path)
    if blob is None:
        return None
    return tuple(line for line in blob_text(root, blob).split("\n") if token in line)


def lag(root: str | Path, since: str, commit: str, paths: Sequence[str], tokens: Sequence[str],
        exempt: frozenset[str] = frozenset()) -> tuple[tuple[tagging.LagCommit, ...], tuple[str, ...]]:
    """The commits in SINCE..COMMIT that touched a path the claim names on a line holding a token
    it names, counted only where those lines differ between SINCE and COMMIT (a change that was
    reverted is no lag); with the commands that show them."""
    found: list[tagging.LagCommit] = []
    basis: list[str] = []
    for path in paths:
        if path in exempt:
            continue
        for token in tokens:
            before, after = _token_lines(root, since, path, token), _token_lines(root, commit, path, token)
            if before == after or not (before or after):
                continue
            args = ["log", "--format=%H%x00%s", f"-G{re.escape(token)}", f"{since}..{commit}", "--", path]
            basis.append(f"git log -G{token} {since[:12]}..{commit[:12]} -- {path}")
            for row in _git(root, args).decode("utf-8", errors="replace").splitlines():
                sha, subject = row.split("\0", 1)
                found.append(tagging.LagCommit(commit=sha, path=path, token=token, subject=subject))
    return tuple(found), tuple(basis)


def code_facts(root: str | Path, commit: str, keys: frozenset[str]) -> tuple[tagging.CodeFact, ...]:
    """The values code and config files at COMMIT assign to KEYS: one fixed-string `git grep` for the
    lines naming a key as a word, parsed here; a TOML/INI file with a hit is read whole for its
    sections. Records (docs) are not code."""
    if not keys:
        return ()
    args = ["grep", "-I", "-n", "-i", "-w", "-F", *(part for key in sorted(keys) for part in ("-e", key)), commit, "--"]
    out = _git(root, args, ok=(0, 1)).decode("utf-8", errors="replace")
    facts: list[tagging.CodeFact] = []
    sectioned: set[str] = set()
    for row in out.splitlines():
        _, path, line, text = row.split(":", 3)
        if path.endswith(RECORD_SUFFIXES):
            continue
        if path.endswith(tagging.SECTIONED_SUFFIXES):
            sectioned.add(path)
            continue
        facts.extend(replace(fact, line=int(line)) for fact in tagging.code_facts(path, text, keys))
    for path in sorted(sectioned):
        blob = blob_id(root, commit, path)
        if blob is not None:
            facts.extend(tagging.code_facts(path, blob_text(root, blob), keys))
    return tuple(facts)


def enforcement(root: str | Path, commit: str, key: str) -> tuple[tuple[tagging.Enforcement, ...], str]:
    """The test and CI lines at COMMIT that name KEY as a word, with the command that shows them."""
    out = _git(root, ["grep", "-I", "-n", "-w", "-F", "-e", key, commit, "--", *ENFORCEMENT_PATHS], ok=(0, 1))
    found = []
    for row in out.decode("utf-8", errors="replace").splitlines():
        _, path, line, text = row.split(":", 3)
        found.append(tagging.Enforcement(path=path, line=int(line), text=text))
    return tuple(found), f"git grep -n -w {key} {commit[:12]} -- {' '.join(ENFORCEMENT_PATHS)}"


def blame_lines(root: str | Path, commit: str, path: str) -> dict[int, tuple[str, int]]:
    """(author commit, its committer time) of every line of PATH as of COMMIT, from one `git blame`."""
    out = _git(root, ["blame", "--porcelain", commit, "--", path]).decode("utf-8", errors="replace")
    times: dict[str, int] = {}
    found: dict[int, tuple[str, int]] = {}
    current = ""
    for row in out.split("\n"):
        head = row.split(" ")
        if len(head) >= 3 and len(head[0]) in (40, 64) and all(c in "0123456789abcdef" for c in head[0]):
            current = head[0]
            found[int(head[2])] = (current, 0)
        elif row.startswith("committer-time "):
            times[current] = int(row.split(" ", 1)[1])
    return {line: (sha, times[sha]) for line, (sha, _) in found.items()}


def dirty(root: str | Path, path: str) -> bool:
    """PATH has uncommitted changes in the work tree or the index."""
    return bool(_git(root, ["--no-optional-locks", "status", "--porcelain", "--", path]).strip())


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
    """The committer time of the last commit up to COMMIT that touched PATH."""
    out = _git(root, ["log", "-1", "--format=%ct", commit, "--", path]).decode().strip()
    return int(out) if out else None


def worktree_blob(root: str | Path, path: str) -> str | None:
    """The blob id the work tree's PATH would have (None when it is missing); writes nothing."""
    code, out, _ = try_git(["hash-object", "--", path], root)
    return out.decode().strip() if code == 0 else None
