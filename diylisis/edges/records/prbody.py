"""prbody:PATH and prbody:- : a pull-request body as text (DESIGN.md, Records become git).

Snapshot boundary: the text with CRLF turned to LF (web forms submit CRLF). Standard
input can be read once only, so its bytes are kept for the rest of the process: the F7
identity re-check reads the same snapshot again.
"""

from __future__ import annotations

import sys

from diylisis.core.model import Snapshot, Target
from diylisis.edges.records.base import (
    DEFAULT_MAX_BYTES,
    WriteChannel,
    check_record,
    head_commit,
    no_channel,
    read_named_file,
    replace_file,
)

STDIN = "-"
_stdin_bytes: list[bytes] = []  # one entry once standard input has been read


def normalize(raw: bytes) -> bytes:
    """CRLF to LF: the form a PR body is digested in."""
    return raw.replace(b"\r\n", b"\n")


def read(target: Target, repo_root: str, *, max_bytes: int = DEFAULT_MAX_BYTES) -> Snapshot:
    """The body text with CRLF turned to LF."""
    stdin = target.locator == STDIN
    raw = _read_stdin(max_bytes) if stdin else read_named_file(target.locator, "PR body file", max_bytes)
    what = "the PR body on standard input" if stdin else target.locator
    data = check_record(normalize(raw), what, max_bytes)
    return Snapshot(
        target=target,
        data=data,
        boundary="the PR body text with CRLF turned to LF",
        tree_revision=head_commit(repo_root),
    )


def _read_stdin(max_bytes: int) -> bytes:
    if not _stdin_bytes:
        _stdin_bytes.append(sys.stdin.buffer.read(max_bytes + 1))
    return _stdin_bytes[0]


def write_channel(target: Target, repo_root: str) -> WriteChannel | None:
    """A body file is edited in place; a body on standard input cannot be written back."""
    if target.locator == STDIN:
        return None
    return WriteChannel(kind="edit-in-place", detail=f"rewrite the PR body file {target.locator}")


def apply(target: Target, repo_root: str, new_bytes: bytes) -> None:
    """Rewrite the PR body file with the repaired text."""
    if target.locator == STDIN:
        raise no_channel(target, "a PR body read from standard input cannot be written back")
    replace_file(target.locator, new_bytes, f"PR body file {target.locator}")


def describe(target: Target) -> str:
    """The pull-request body, from a file or standard input."""
    source = "standard input" if target.locator == STDIN else target.locator
    return f"the pull-request body from {source}"
