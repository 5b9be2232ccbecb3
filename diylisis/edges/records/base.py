"""The record adapter interface and target parsing (STYLE.md, Substrate adapters).

An adapter is a module of four functions: `read`, `write_channel`, `apply`, `describe`.
This module holds what they share: the `WriteChannel` value, the bad-input checks every
snapshot passes, and `parse_target`, which turns `commit:REV`, `file:PATH[@REV]`,
`msgfile:PATH`, `prbody:PATH|-` or a bare path or revision into a `Target`.
Nothing here imports pygit2 at module load: the commit-msg hook parses `msgfile:` targets.
"""

from __future__ import annotations

import os

from msgspec import Struct

from diylisis.core.errors import BadInput, DistillError
from diylisis.core.model import RecordKind, Snapshot, Target
from diylisis.edges.gitio import try_git

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Protocol
else:
    Protocol = object  # a protocol only types: nothing checks isinstance against it

DEFAULT_MAX_BYTES = 1024 * 1024

CHANNELS = ("worktree-commit", "amend", "edit-in-place")


class WriteChannel(Struct, frozen=True, kw_only=True):
    """How a repair of a record would be written (DESIGN.md, write channel)."""

    kind: str  # one of CHANNELS
    detail: str  # one line a reader understands: what apply() will touch

    def __post_init__(self) -> None:
        if self.kind not in CHANNELS:
            raise ValueError(f"unknown write channel {self.kind!r}")


class RecordAdapter(Protocol):
    """One substrate's read and write channels (STYLE.md: read, write_channel, apply, describe)."""

    def read(self, target: Target, repo_root: str, *, max_bytes: int = ...) -> Snapshot:
        """The exact bytes of the record, their boundary and identity."""

    def write_channel(self, target: Target, repo_root: str) -> WriteChannel | None:
        """How a repair would be written, or None when the substrate has no write channel."""

    def apply(self, target: Target, repo_root: str, new_bytes: bytes) -> None:
        """Write the repaired bytes through the write channel; raise when there is none."""

    def describe(self, target: Target) -> str:
        """A short human description of the record."""


def head_commit(repo_root: str) -> str | None:
    """The commit HEAD names, or None on an unborn branch: the tree a record's paths resolve against."""
    code, out, _ = try_git(["rev-parse", "--verify", "-q", "HEAD^{commit}"], repo_root)
    return out.decode().strip() if code == 0 and out.strip() else None


def check_record(data: bytes, what: str, max_bytes: int) -> bytes:
    """Reject bytes that are not a readable text record: too large, binary or not UTF-8."""
    if len(data) > max_bytes:
        raise BadInput(f"{what} is {len(data)} bytes, over the {max_bytes}-byte record limit")
    nul = data.find(b"\0")
    if nul >= 0:
        raise BadInput(f"{what} is binary (a NUL byte at offset {nul}), not a text record")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        bad = data[error.start]
        raise BadInput(
            f"{what} is not UTF-8 text: byte 0x{bad:02x} at offset {error.start} does not decode"
        ) from None
    return data


def read_named_file(path: str, what: str, max_bytes: int | None) -> bytes:
    """The bytes of the file at PATH, which errors call WHAT PATH ("message file x"): BadInput when it
    does not exist, cannot be read, or is over MAX_BYTES (None: unbounded, the caller bounds what it keeps)."""
    try:
        if max_bytes is not None and (size := os.stat(path).st_size) > max_bytes:
            raise BadInput(f"{what} {path} is {size} bytes, over the {max_bytes}-byte record limit")
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise BadInput(f"{what} {path} does not exist") from None
    except OSError as error:
        raise BadInput(f"cannot read {what} {path}: {error.strerror}") from None


def no_channel(target: Target, why: str) -> DistillError:
    """The error apply() raises for a record it cannot write."""
    return BadInput(f"{target} has no write channel: {why}")


# --- target parsing -------------------------------------------------------------------------

_SCHEMES = {kind.value: kind for kind in RecordKind}


def root_of(repo: str | Path | object) -> str:
    """The work-tree root of a path or of an opened pygit2 repository."""
    workdir = getattr(repo, "workdir", None)
    path = workdir if workdir is not None else repo
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"not a path or a repository: {repo!r}")
    return os.path.normpath(os.fspath(path))


def parse_target(text: str, repo: object, cwd: str | Path | None = None) -> Target:
    """Parse a target argument; a bare existing path means file:, a bare revision commit:.

    repo is the work-tree root or an opened pygit2 repository.
    """
    root = root_of(repo)
    here = os.fspath(cwd) if cwd is not None else os.getcwd()
    if not text or not text.strip():
        raise BadInput(
            "empty target: name a record as commit:REV, file:PATH, msgfile:PATH or prbody:PATH"
        )
    scheme, sep, rest = text.partition(":")
    kind = _SCHEMES.get(scheme) if sep else None
    if kind is None:
        return _shorthand(text, root, here)
    if not rest:
        raise BadInput(f"target {text!r} names no {scheme} after the colon")
    match kind:
        case RecordKind.COMMIT:
            return Target(kind=kind, locator=rest)
        case RecordKind.FILE:
            return _file_target(rest, root, here)
        case RecordKind.MSGFILE:
            return Target(kind=kind, locator=rest)
        case RecordKind.PRBODY:
            return Target(kind=kind, locator=rest)
    raise AssertionError(kind)  # pragma: no cover - every RecordKind is matched


def _shorthand(text: str, root: str, here: str) -> Target:
    is_path = os.path.lexists(os.path.join(here, text))
    is_rev = _is_commit(text, root)
    if is_path and is_rev:
        raise BadInput(
            f"{text!r} is both a path and a revision: write file:{text} or commit:{text}"
        )
    if is_path:
        return _file_target(text, root, here)
    if is_rev:
        return Target(kind=RecordKind.COMMIT, locator=text)
    raise BadInput(
        f"{text!r} is neither an existing path nor a revision of this repository "
        "(write commit:REV, file:PATH, msgfile:PATH or prbody:PATH)"
    )


def _is_commit(text: str, root: str) -> bool:
    from diylisis.edges.gitio import open_repo, resolve_commit

    try:
        resolve_commit(open_repo(root), text)
    except DistillError:
        return False
    return True


def _file_target(spec: str, root: str, here: str) -> Target:
    """file:PATH or file:PATH@REV, with PATH made repository-relative and kept inside it."""
    if os.path.lexists(os.path.join(here, spec)) or "@" not in spec:
        return Target(kind=RecordKind.FILE, locator=repo_relative(spec, root, here))
    path, revision = _split_at_revision(spec, root)
    if not path or not revision:
        raise BadInput(f"file:{spec} needs both a path and a revision around the @")
    return Target(
        kind=RecordKind.FILE,
        locator=repo_relative(path, root, here, worktree=False),
        revision=revision,
    )


def _split_at_revision(spec: str, root: str) -> tuple[str, str]:
    """Split PATH@REV; a path may hold '@' and a revision may too (HEAD@{1}), so ask git."""
    splits = [i for i, char in enumerate(spec) if char == "@"]
    if len(splits) == 1:
        return spec[: splits[0]], spec[splits[0] + 1 :]
    for i in splits:
        if spec[i + 1 :] and _is_commit(spec[i + 1 :], root):
            return spec[:i], spec[i + 1 :]
    return spec[: splits[0]], spec[splits[0] + 1 :]


def repo_relative(path: str, root: str | Path, here: str | Path, *, worktree: bool = True) -> str:
    """The POSIX path of path relative to the repository root; BadInput when it leaves it."""
    root_real = os.path.realpath(root)
    candidate = os.path.normpath(os.path.join(os.path.realpath(here), path))
    relative = _below(candidate, root_real)
    if relative is None:
        raise BadInput(f"{path} is outside the repository at {os.path.normpath(root)}")
    if not relative:
        raise BadInput(f"{path} is the repository root, not a file")
    if relative.split(os.sep, 1)[0] == ".git":
        raise BadInput(f"{path} is inside the .git directory, not a record of the repository")
    if worktree and os.path.lexists(candidate):
        resolved = _below(os.path.realpath(candidate), root_real)
        if resolved is None:
            raise BadInput(f"{path} is a symbolic link leading outside the repository")
        if resolved.split(os.sep, 1)[0] == ".git":
            # a link into the git directory would hand its config (remote URLs, tokens) to a certificate
            raise BadInput(f"{path} is a symbolic link into the .git directory, not a record of the repository")
    return relative.replace(os.sep, "/")


def _below(path: str, root: str) -> str | None:
    """path relative to root (both absolute and normalized), '' for root itself, None outside it."""
    if path == root:
        return ""
    prefix = root if root.endswith(os.sep) else root + os.sep
    return path[len(prefix):] if path.startswith(prefix) else None


def replace_file(path: str | Path, data: bytes, what: str) -> None:
    """Write data to path through a temporary file and a rename, keeping the file's mode."""
    path = os.fspath(path)
    try:
        mode = os.stat(path).st_mode if os.path.exists(path) else None
        temporary = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.distill-{os.getpid()}")
        with open(temporary, "wb") as handle:
            handle.write(data)
        if mode is not None:
            os.chmod(temporary, mode & 0o7777)
        os.replace(temporary, path)
    except OSError as error:
        raise BadInput(f"cannot write {what}: {error.strerror}") from None

