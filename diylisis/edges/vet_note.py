"""Vet results as git notes: one JSON line per action under `refs/notes/distill-vet`, attached to
the action's commit. A note is untrusted input when read back: its size is bounded and a line
that does not parse as a JSON object is a corrupt-note error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from diylisis.core.errors import BadInput, GitError
from diylisis.edges.gitio import first_line, try_git

VET_NOTES_REF = "refs/notes/distill-vet"
MAX_NOTE_BYTES = 4 * 1024 * 1024
_FALLBACK_IDENTITY = {"GIT_COMMITTER_NAME": "git distill", "GIT_COMMITTER_EMAIL": "distill@localhost.invalid",
                      "GIT_AUTHOR_NAME": "git distill", "GIT_AUTHOR_EMAIL": "distill@localhost.invalid"}


def read(root: str | Path, commit: str, ref: str = VET_NOTES_REF) -> list[dict[str, object]]:
    """The JSON lines of COMMIT's note on REF ([] when it has none)."""
    code, out, err = try_git(["notes", "--ref", ref, "show", commit], root)
    if code != 0:
        if b"no note found" in err.lower():
            return []
        raise GitError(f"cannot read the vet note of {commit[:12]}: {first_line(err) or f'exit status {code}'}")
    if len(out) > MAX_NOTE_BYTES:
        raise BadInput(f"the vet note of {commit[:12]} is larger than {MAX_NOTE_BYTES} bytes: corrupt note")
    lines = []
    for number, row in enumerate(out.decode("utf-8", errors="replace").splitlines(), start=1):
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


def _identity_env(root: str | Path) -> dict[str, str]:
    code, _, _ = try_git(["var", "GIT_COMMITTER_IDENT"], root)
    return {} if code == 0 else _FALLBACK_IDENTITY


def put(root: str | Path, commit: str, line: Mapping[str, object], key: str = "action_digest",
        ref: str = VET_NOTES_REF) -> None:
    """Put LINE in COMMIT's note on REF, replacing the line with the same KEY value (one line per action)."""
    kept = [entry for entry in read(root, commit, ref) if entry.get(key) != line.get(key)]
    text = "".join(json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n" for entry in [*kept, line])
    code, _, err = try_git(["notes", "--ref", ref, "add", "-f", "-F", "-", commit], root, input=text.encode(),
                           env={**_identity_env(root)})
    if code != 0:
        raise GitError(f"cannot write the vet note of {commit[:12]}: {first_line(err) or f'exit status {code}'}")
