"""Run files: the session-side state Λ under `.git/distill/runs/<run-id>.json` (never pushed).

A run file may also hold a repair in flight (`PendingRepair`): it is written before a repair
touches the work tree and dropped by the next save, so a run killed in between says what it
was doing, and `git distill resume` or `git distill runs abort` can finish or undo it.
A run's file is removed when the run is certified, stopped or fails, unless it holds a
repair in flight; a paused run keeps it for `answer` and `resume`. `describe` says what a
kept run is doing and what can be done next (`git distill runs` prints it).
"""

from __future__ import annotations

import os

from msgspec import Struct

from diylisis.core import codec
from diylisis.core.errors import BadInput
from diylisis.core.state import RunState, RunStatus
from diylisis.edges import run_files

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any


KIND = "certify"  # the kind of run this module saves (diylisis.edges.run_files)


class PendingRepair(Struct, frozen=True, kw_only=True):
    """A repair commit of a work-tree file, journaled before the file is touched."""

    path: str  # repository-relative, "/"-separated
    mode: str  # the file's git mode, e.g. 100644
    original_blob: str  # the file's bytes before the repair (written with --no-filters)
    repaired_blob: str  # the file's bytes after it
    head_before: str | None  # HEAD when the repair began; None on an unborn branch
    pass_n: int
    message: str  # the repair commit's message, with its Distill-Run and Distill-Pass trailers


_PENDING_KEY = "pending_repair"


def save(git_dir: str | Path, state: RunState, pending: PendingRepair | None = None) -> str:
    """Write the run state atomically (after every pass and at every pause), with the repair in
    flight when there is one; the file's path."""
    data = codec.encode(state)
    if pending is not None:
        data[_PENDING_KEY] = codec.encode(pending)
    return run_files.save(git_dir, KIND, state.run_id, data)


def pending_repair(git_dir: str | Path, run_id: str) -> PendingRepair | None:
    """The repair in flight saved in a run's file, or None (also when the file is gone)."""
    try:
        return _read(run_files.run_file(git_dir, run_id))[1]
    except (OSError, BadInput):
        return None


def load_with_pending(git_dir: str | Path, run_id: str) -> tuple[RunState, PendingRepair | None]:
    """A saved run and the repair it has in flight (None when none); bad ids and files are exit 2."""
    run_files.check_id(git_dir, run_id)
    return _read(run_files.run_file(git_dir, run_id))


def _read(path: str) -> tuple[RunState, PendingRepair | None]:
    return _decoded(path, _stored(path))


def _stored(path: str) -> run_files.StoredRun:
    stored = run_files.read(path, os.path.basename(path).removesuffix(".json"))
    if stored.kind != KIND:
        raise BadInput(f"run {stored.run_id} is a {stored.kind} run, not a certification")
    return stored


def _decoded(path: str, stored: run_files.StoredRun) -> tuple[RunState, PendingRepair | None]:
    data = stored.data
    try:
        pending = data.get(_PENDING_KEY)
        return codec.decode(RunState, data), None if pending is None else codec.decode(PendingRepair, pending)
    except (ValueError, TypeError, codec.DecodeError) as error:
        raise BadInput(f"run file {os.path.basename(path)} is damaged: {error}") from None
    except RecursionError:  # the codec recurses once per level of nesting
        raise BadInput(f"run file {os.path.basename(path)} is damaged: it is nested too deeply") from None


def load(git_dir: str | Path, run_id: str) -> RunState:
    """Read a saved run; an unknown or damaged run file is exit 2."""
    return load_with_pending(git_dir, run_id)[0]


def describe(root: str, git_dir: str, run_id: str) -> dict[str, Any]:
    """One run as plain values: id, record, status (paused, in-repair or failed), age and what is next."""
    from diylisis.edges import repair_commit

    run_files.check_id(git_dir, run_id)
    path = run_files.run_file(git_dir, run_id)
    stored = _stored(path)
    state, pending = _decoded(path, stored)
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
        if state.status == RunStatus.PAUSED and state.proposed_change is not None:
            status = "paused"
            what = "waiting for you to confirm the repaired text (git distill runs show prints it)"
            then = [f"git distill resume {run_id} --yes", f"git distill runs abort {run_id}"]
        elif state.status == RunStatus.PAUSED:
            status = "paused"
            what = f"waiting for answers to {len(state.open_questions)} question(s)"
            then = [f"git distill answer {run_id} ITEM OPTION [VALUE]", f"git distill resume {run_id}",
                    f"git distill runs abort {run_id}"]
        else:
            status = "failed"
            what = (_stop_reason(state) if state.status == RunStatus.STOPPED
                    else f"stopped during pass {state.pass_n + 1} without finishing")
            then = [f"git distill runs abort {run_id}"]
            if state.status == RunStatus.RUNNING:
                then.insert(0, f"git distill resume {run_id}")
    return {"run": run_id, "record": str(state.target), "role": state.contract.role, "status": status,
            "age_seconds": run_files.age_seconds(git_dir, run_id), "pass": state.pass_n, "what": what,
            "open_items": [q.id for q in state.open_questions],
            "repair_commits": list(state.repair_commits), "repair_in_flight": repair, "next": then}


def _stop_reason(state: RunState) -> str:
    """Why a stopped run stopped, as its file says; a file written before the reason was kept again
    (between the versions that dropped and restored RunState.stop_reason) says so instead."""
    if state.stop_reason and state.stop_reason.strip():
        return state.stop_reason
    return (f"stopped in pass {state.pass_n}; the run file does not keep the reason (it was printed when "
            "the run stopped); start a fresh certification")
