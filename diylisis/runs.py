"""Run files: the session-side state Λ under `.git/distill/runs/<run-id>.json` (never pushed).

A run file may also hold a repair in flight (`PendingRepair`): it is written before a repair
touches the work tree and dropped by the next save, so a run killed in between says what it
was doing, and `git distill resume` or `git distill runs abort` can finish or undo it.
A run's file is removed when the run is certified, stopped or fails, unless it holds a
repair in flight; a paused run keeps it for `answer` and `resume`. `describe` says what a
kept run is doing and what can be done next (`git distill runs` prints it).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass

from diylisis import codec
from diylisis.errors import BadInput
from diylisis.state import RunState, RunStatus

TYPE_CHECKING = False  # true for type checkers only: the hook never imports typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any


def runs_dir(git_dir: str | Path) -> str:
    """The folder of the run files: <git dir>/distill/runs."""
    return os.path.join(git_dir, "distill", "runs")


def run_file(git_dir: str | Path, run_id: str) -> str:
    """The file a run's state is saved in."""
    return os.path.join(runs_dir(git_dir), f"{run_id}.json")


def scratch_dir(git_dir: str | Path) -> str:
    """The folder of temporary files (a repair's new content, a private index): never the work tree."""
    return os.path.join(git_dir, "distill", "tmp")


@dataclass(frozen=True, slots=True, kw_only=True)
class PendingRepair:
    """A repair commit of a work-tree file, journaled before the file is touched."""

    path: str  # repository-relative, "/"-separated
    mode: str  # the file's git mode, e.g. 100644
    original_blob: str  # the file's bytes before the repair (written with --no-filters)
    repaired_blob: str  # the file's bytes after it
    head_before: str | None  # HEAD when the repair began; None on an unborn branch
    pass_n: int
    message: str  # the repair commit's message, with its Distill-Run and Distill-Pass trailers


_PENDING_KEY = "pending_repair"


def new_run_id() -> str:
    """A short, sortable run id (time plus randomness)."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + os.urandom(3).hex()


def save(git_dir: str | Path, state: RunState, pending: PendingRepair | None = None) -> str:
    """Write the run state atomically (after every pass and at every pause), with the repair in
    flight when there is one; the file's path."""
    os.makedirs(runs_dir(git_dir), exist_ok=True)
    path = run_file(git_dir, state.run_id)
    data = codec.encode(state)
    if pending is not None:
        data[_PENDING_KEY] = {name: getattr(pending, name) for name in _PENDING_FIELDS}
    temporary = path.removesuffix(".json") + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(data, ensure_ascii=False, indent=1))
    os.replace(temporary, path)
    return path


_PENDING_FIELDS = ("path", "mode", "original_blob", "repaired_blob", "head_before", "pass_n", "message")


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


def pending_repair(git_dir: str | Path, run_id: str) -> PendingRepair | None:
    """The repair in flight saved in a run's file, or None (also when the file is gone)."""
    try:
        return _read(run_file(git_dir, run_id))[1]
    except (OSError, BadInput):
        return None


def run_ids(git_dir: str | Path) -> tuple[str, ...]:
    """The ids of the saved runs, oldest first."""
    folder = runs_dir(git_dir)
    if not os.path.isdir(folder):
        return ()
    return tuple(sorted(name.removesuffix(".json") for name in os.listdir(folder)
                        if name.endswith(".json") and not name.startswith(".")))


def load_with_pending(git_dir: str | Path, run_id: str) -> tuple[RunState, PendingRepair | None]:
    """A saved run and the repair it has in flight (None when none); bad ids and files are exit 2."""
    _check_id(git_dir, run_id)
    return _read(run_file(git_dir, run_id))


def _read(path: str) -> tuple[RunState, PendingRepair | None]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.loads(handle.read())
        if not isinstance(data, dict):
            raise codec.DecodeError("expected an object")
        pending = data.get(_PENDING_KEY)
        return codec.decode(RunState, data), None if pending is None else _pending_from(pending)
    except (ValueError, TypeError, codec.DecodeError) as error:
        raise BadInput(f"run file {os.path.basename(path)} is damaged: {error}") from None
    except RecursionError:  # json and the codec recurse once per level of nesting
        raise BadInput(f"run file {os.path.basename(path)} is damaged: it is nested too deeply") from None


def _pending_from(data: object) -> PendingRepair:
    if not isinstance(data, dict) or any(name not in data for name in _PENDING_FIELDS):
        raise codec.DecodeError("its repair in flight is incomplete")
    values = {name: data[name] for name in _PENDING_FIELDS}
    if not all(isinstance(values[n], str) for n in _PENDING_FIELDS if n not in ("head_before", "pass_n")) \
            or not isinstance(values["pass_n"], int) or not isinstance(values["head_before"], str | None):
        raise codec.DecodeError("its repair in flight has a field of the wrong type")
    return PendingRepair(**values)


def load(git_dir: str | Path, run_id: str) -> RunState:
    """Read a saved run; an unknown or damaged run file is exit 2."""
    return load_with_pending(git_dir, run_id)[0]


def is_run_id(run_id: str) -> bool:
    """Whether run_id can name a run file: no path separator, no leading dot."""
    return bool(run_id) and "/" not in run_id and os.sep not in run_id and not run_id.startswith(".")


def _check_id(git_dir: str | Path, run_id: str) -> None:
    if not is_run_id(run_id):
        raise BadInput(f"{run_id!r} is not a run id")
    if not os.path.isfile(run_file(git_dir, run_id)):
        known = run_ids(git_dir)
        hint = f"; known runs: {', '.join(known[-5:])}" if known else "; there are none (git distill runs)"
        raise BadInput(f"no run {run_id}{hint}")


def describe(root: str, git_dir: str, run_id: str) -> dict[str, Any]:
    """One run as plain values: id, record, status (paused, in-repair or failed), age and what is next."""
    from diylisis import repair_commit

    state, pending = load_with_pending(git_dir, run_id)
    age = max(0, int(time.time() - os.stat(run_file(git_dir, run_id)).st_mtime))
    if pending is not None:
        status = "in-repair"
        made = repair_commit.commit_made(root, run_id, pending)
        repair = {"path": pending.path, "pass": pending.pass_n, "committed": made,
                  "head_before": pending.head_before}
        what = (f"the repair of {pending.path} (pass {pending.pass_n}) was "
                + (f"committed as {made[:12]}, but the run stopped before it finished" if made else
                   "under way when the run stopped; its commit was not made"))
        then = [f"git distill resume {run_id}", f"git distill runs abort {run_id}"]
    else:
        repair = None
        if state.status == RunStatus.PAUSED:
            status = "paused"
            what = f"waiting for answers to {len(state.open_questions)} question(s)"
            then = [f"git distill answer {run_id} ITEM OPTION [VALUE]", f"git distill resume {run_id}",
                    f"git distill runs abort {run_id}"]
        else:
            status = "failed"
            what = state.stop_reason or f"stopped during pass {state.pass_n + 1} without finishing"
            then = [f"git distill runs abort {run_id}"]
            if state.status == RunStatus.RUNNING:
                then.insert(0, f"git distill resume {run_id}")
    return {"run": run_id, "record": str(state.target), "role": state.contract.role, "status": status,
            "age_seconds": age, "pass": state.pass_n, "what": what,
            "open_items": [q.id for q in state.open_questions],
            "repair_commits": list(state.repair_commits), "repair_in_flight": repair, "next": then}


def describe_or_damaged(root: str, git_dir: str, run_id: str) -> dict[str, Any]:
    """describe(), or a row saying the run file cannot be read (it can still be aborted)."""
    try:
        return describe(root, git_dir, run_id)
    except BadInput as error:
        try:
            age = max(0, int(time.time() - os.stat(run_file(git_dir, run_id)).st_mtime))
        except OSError:
            age = 0
        return {"run": run_id, "record": "?", "role": None, "status": "damaged", "age_seconds": age,
                "pass": None, "what": error.message, "open_items": [], "repair_commits": [],
                "repair_in_flight": None, "next": [f"git distill runs abort {run_id}"]}
