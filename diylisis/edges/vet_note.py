"""Vet results as git notes: one JSON line per action under `refs/notes/distill-vet`, attached to
the action's commit, written through the shared notes writer (edges/notes: compare-and-swap, so
two vets of one commit keep both lines). A note is untrusted input when read back: its size is
bounded and a line that does not parse as a JSON object is a corrupt-note error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from diylisis.core.errors import BadInput
from diylisis.edges import notes, store

VET_NOTES_REF = "refs/notes/distill-vet"
MAX_NOTE_BYTES = 4 * 1024 * 1024


def read(root: str | Path, commit: str, ref: str = VET_NOTES_REF) -> list[dict[str, object]]:
    """The JSON lines of COMMIT's note on REF ([] when it has none)."""
    return _parsed(notes.read_note(root, ref, commit) or b"", commit)


def _parsed(data: bytes, commit: str) -> list[dict[str, object]]:
    if len(data) > MAX_NOTE_BYTES:
        raise BadInput(f"the vet note of {commit[:12]} is larger than {MAX_NOTE_BYTES} bytes: corrupt note")
    lines = []
    for number, row in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
        if not row.strip():
            continue
        try:
            value = json.loads(row)
        except ValueError:
            value = None
        if not isinstance(value, dict):
            raise BadInput(f"the vet note of {commit[:12]} is corrupt at line {number}: not a JSON object")
        lines.append(value)
    return lines


def put(root: str | Path, commit: str, line: Mapping[str, object], key: str = "action_digest",
        ref: str = VET_NOTES_REF) -> None:
    """Put LINE in COMMIT's note on REF, replacing the line with the same KEY value (one line per action)."""

    def replaced(old: bytes) -> bytes:
        kept = [entry for entry in _parsed(old, commit) if entry.get(key) != line.get(key)]
        return "".join(json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n"
                       for entry in [*kept, line]).encode("utf-8")

    settings = store.settings(root)
    notes.update_notes(root, ref, {commit: replaced}, env=dict(settings.identity_env),
                       object_format=settings.object_format)
