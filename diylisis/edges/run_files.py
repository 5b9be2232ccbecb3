"""Run files for every kind of run: `.git/distill/runs/<run-id>.json` (never pushed).

API:
- One format: a JSON object whose `kind` names the run's kind (`certify`, `vet`, `preview`;
  a file without one is a certify run, as written before kinds existed); the rest is the
  kind's own data, written and read by that kind.
- `new_run_id()`, `save(git_dir, kind, run_id, data)` (atomic: a temporary file, fsynced,
  renamed over), `load(git_dir, run_id) -> StoredRun`, `run_ids(git_dir)` (oldest first),
  `remove(git_dir, run_id)` (and the run's scratch files), `check_id` / `is_run_id`.
- A run id that is not one, an unknown run and a damaged file are BadInput (exit 2).
The kinds themselves, and what `answer`, `resume` and `runs` do with each, are in
`diylisis.app.run_kinds`.
"""

from __future__ import annotations

import os
import time

from msgspec import Struct

from diylisis.core.errors import BadInput

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

KIND_KEY = "kind"
DEFAULT_KIND = "certify"  # run files written before runs had a kind


class StoredRun(Struct, frozen=True, kw_only=True):
    """One run file as read: the run id, its kind and the kind's own data."""

    run_id: str
    kind: str
    data: dict[str, Any]  # the kind's own fields, without "kind"


def runs_dir(git_dir: str | Path) -> str:
    """The folder of the run files: <git dir>/distill/runs."""
    return os.path.join(git_dir, "distill", "runs")


def run_file(git_dir: str | Path, run_id: str) -> str:
    """The file a run's state is saved in."""
    return os.path.join(runs_dir(git_dir), f"{run_id}.json")


def scratch_dir(git_dir: str | Path) -> str:
    """The folder of temporary files (a repair's new content, a private index): never the work tree."""
    return os.path.join(git_dir, "distill", "tmp")


def new_run_id() -> str:
    """A short, sortable run id (time plus randomness)."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + os.urandom(3).hex()


def save(git_dir: str | Path, kind: str, run_id: str, data: dict[str, Any]) -> str:
    """Write a run's data with its kind, atomically; the file's path."""
    if not is_run_id(run_id):
        raise BadInput(f"{run_id!r} is not a run id")
    import json  # not at the top: the commit-msg hook keeps no run file

    os.makedirs(runs_dir(git_dir), exist_ok=True)
    path = run_file(git_dir, run_id)
    temporary = path.removesuffix(".json") + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(json.dumps({KIND_KEY: kind, **data}, ensure_ascii=False, indent=1))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    return path


def load(git_dir: str | Path, run_id: str) -> StoredRun:
    """A saved run; a bad id, an unknown run or a damaged file is exit 2."""
    check_id(git_dir, run_id)
    return read(run_file(git_dir, run_id), run_id)


def read(path: str, run_id: str) -> StoredRun:
    """The run in the file at path; a damaged file is exit 2."""
    import json

    try:
        with open(path, encoding="utf-8") as handle:
            data = json.loads(handle.read())
    except (ValueError, UnicodeDecodeError) as error:
        raise BadInput(f"run file {os.path.basename(path)} is damaged: {error}") from None
    except RecursionError:  # json recurses once per level of nesting
        raise BadInput(f"run file {os.path.basename(path)} is damaged: it is nested too deeply") from None
    except FileNotFoundError:
        raise BadInput(f"no run {run_id}") from None
    if not isinstance(data, dict):
        raise BadInput(f"run file {os.path.basename(path)} is damaged: expected an object")
    kind = data.pop(KIND_KEY, DEFAULT_KIND)
    if not isinstance(kind, str):
        raise BadInput(f"run file {os.path.basename(path)} is damaged: its kind is not a name")
    return StoredRun(run_id=run_id, kind=kind, data=data)


def age_seconds(git_dir: str | Path, run_id: str) -> int:
    """Seconds since the run's file was last saved; 0 when it is gone."""
    try:
        return max(0, int(time.time() - os.stat(run_file(git_dir, run_id)).st_mtime))
    except OSError:
        return 0


def damaged_row(git_dir: str | Path, run_id: str, why: str) -> dict[str, Any]:
    """The row `git distill runs` shows for a run whose file cannot be read: it can still be aborted."""
    return {"run": run_id, "record": "?", "role": None, "status": "damaged",
            "age_seconds": age_seconds(git_dir, run_id), "pass": None, "what": why, "open_items": [],
            "repair_commits": [], "repair_in_flight": None, "next": [f"git distill runs abort {run_id}"]}


def remove(git_dir: str | Path, run_id: str) -> bool:
    """Delete a run's file (and its temporary files); False when it had none."""
    folder = scratch_dir(git_dir)
    if os.path.isdir(folder):
        for name in os.listdir(folder):
            if name.startswith(run_id + "."):
                _unlink(os.path.join(folder, name))
    return _unlink(run_file(git_dir, run_id))


def _unlink(path: str) -> bool:
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    return True


def run_ids(git_dir: str | Path) -> tuple[str, ...]:
    """The ids of the saved runs, oldest first."""
    folder = runs_dir(git_dir)
    if not os.path.isdir(folder):
        return ()
    return tuple(sorted(name.removesuffix(".json") for name in os.listdir(folder)
                        if name.endswith(".json") and not name.startswith(".")))


def is_run_id(run_id: str) -> bool:
    """Whether run_id can name a run file: no path separator, no leading dot."""
    return bool(run_id) and "/" not in run_id and os.sep not in run_id and not run_id.startswith(".")


def check_id(git_dir: str | Path, run_id: str) -> None:
    """BadInput unless run_id names a saved run, with the known ones as a hint."""
    if not is_run_id(run_id):
        raise BadInput(f"{run_id!r} is not a run id")
    if not os.path.isfile(run_file(git_dir, run_id)):
        known = run_ids(git_dir)
        hint = f"; known runs: {', '.join(known[-5:])}" if known else "; there are none (git distill runs)"
        raise BadInput(f"no run {run_id}{hint}")
