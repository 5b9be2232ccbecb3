"""Put one line on a note under any notes ref, keeping the lines already there (sorted, unique).

A small writer of its own, not the certificate store's: preview records are keyed by commit,
on refs/notes/distill-preview, and read by nothing that reads certificates.
"""

from __future__ import annotations

from pathlib import Path

from diylisis.edges import gitio

REF = "refs/notes/distill-preview"


def read_lines(root: Path, ref: str, oid: str) -> list[str]:
    """The note's lines on oid under ref; none when there is no note."""
    code, out, _ = gitio.try_git(["notes", f"--ref={ref}", "show", oid], root)
    return [line for line in out.decode("utf-8", "replace").splitlines() if line.strip()] if code == 0 else []


def put_line(root: Path, ref: str, oid: str, line: str) -> None:
    """Add line to the note on oid under ref (one notes commit; existing lines kept, sorted, unique)."""
    if "\n" in line:
        raise ValueError("a note line cannot hold a newline")
    lines = sorted(set(read_lines(root, ref, oid)) | {line})
    gitio.run_git(["notes", f"--ref={ref}", "add", "-f", "-F", "-", oid], root,
                  input=("\n".join(lines) + "\n").encode("utf-8"))
