"""The Gap-routed unknowns of the previews a commit message names with `Distill-Preview: <run>`.

A preview hands each pre-commit check (route Gap) to the commit that realizes the direction:
the commit-msg hook prints them, so the author sees them while the commit is being made. The
record is found by its run file, or else among the notes under refs/notes/distill-preview.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from diylisis.edges.gitio import try_git
from diylisis.edges.preview_note import REF, read_lines

TRAILER = re.compile(r"^Distill-Preview:[ \t]*([0-9A-Za-z-]{1,64})[ \t]*$", re.MULTILINE)


def runs_named(message: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(TRAILER.findall(message)))


def _records(root: Path, git_dir: Path, run: str) -> list[dict[str, Any]]:
    oids: list[str] = []
    try:
        base = json.loads((git_dir / "distill" / "runs" / f"{run}.json").read_text(encoding="utf-8"))["base"]
        oids.append(str(base))
    except (OSError, ValueError, KeyError, TypeError):
        code, out, _ = try_git(["notes", f"--ref={REF}", "list"], root)
        oids += [line.split()[1] for line in out.decode().splitlines() if len(line.split()) == 2] if code == 0 else []
    found = []
    for oid in oids:
        for line in read_lines(root, REF, oid):
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("run") == run:
                found.append(record)
    return found


def gap_lines(root: Path, git_dir: Path, message: str) -> list[str]:
    """One line per Gap unknown of each named preview, or one saying a named preview is not found."""
    lines = []
    for run in runs_named(message):
        records = _records(root, git_dir, run)
        if not records:
            lines.append(f"git distill: preview {run} named by Distill-Preview has no record here "
                         "(git distill sync to fetch it)")
            continue
        gaps = [u.get("text", "") for r in records for u in r.get("exposed_unknowns", []) if u.get("route") == "Gap"]
        for text in dict.fromkeys(gaps):
            lines.append(f"git distill: check before this commit (preview {run}): {text}")
    return lines
