"""Put one line on a note under any notes ref, keeping the lines already there (sorted, unique).

Preview records are keyed by commit, on refs/notes/distill-preview, and read by nothing that reads
certificates; they are written through the one notes writer (`edges.notes`), whose compare-and-swap
keeps a line another writer added meanwhile.
"""

from __future__ import annotations

from pathlib import Path

from diylisis.edges import gitio, notes, store

REF = "refs/notes/distill-preview"


def read_lines(root: Path, ref: str, oid: str) -> list[str]:
    """The note's lines on oid under ref; none when there is no note."""
    code, out, _ = gitio.try_git(["notes", f"--ref={ref}", "show", oid], root)
    return [line for line in out.decode("utf-8", "replace").splitlines() if line.strip()] if code == 0 else []


def put_line(root: Path, ref: str, oid: str, line: str) -> None:
    """Add line to the note on oid under ref (one notes commit; existing lines kept, sorted, unique)."""
    if "\n" in line:
        raise ValueError("a note line cannot hold a newline")

    def added(old: bytes) -> bytes:
        lines = {row for row in old.decode("utf-8", "replace").splitlines() if row.strip()} | {line}
        return ("\n".join(sorted(lines)) + "\n").encode("utf-8")

    settings = store.settings(root)
    notes.update_notes(root, ref, {oid: added}, env=dict(settings.identity_env), object_format=settings.object_format)
