"""Run files: the session-side state Λ under `.git/distill/runs/<run-id>.json` (never pushed)."""

from __future__ import annotations

import json
import os
import time

from diylisis import codec
from diylisis.errors import BadInput
from diylisis.state import RunState

TYPE_CHECKING = False  # true for type checkers only: the hook never imports typing
if TYPE_CHECKING:
    from pathlib import Path


def runs_dir(git_dir: str | Path) -> str:
    """The folder of the run files: <git dir>/distill/runs."""
    return os.path.join(git_dir, "distill", "runs")


def run_file(git_dir: str | Path, run_id: str) -> str:
    """The file a run's state is saved in."""
    return os.path.join(runs_dir(git_dir), f"{run_id}.json")


def new_run_id() -> str:
    """A short, sortable run id (time plus randomness)."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + os.urandom(3).hex()


def save(git_dir: str | Path, state: RunState) -> str:
    """Write the run state atomically (after every pass and at every pause); the file's path."""
    os.makedirs(runs_dir(git_dir), exist_ok=True)
    path = run_file(git_dir, state.run_id)
    temporary = path.removesuffix(".json") + ".tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(codec.encode(state), ensure_ascii=False, indent=1))
    os.replace(temporary, path)
    return path


def load(git_dir: str | Path, run_id: str) -> RunState:
    """Read a saved run; an unknown or damaged run file is exit 2."""
    if not run_id or "/" in run_id or run_id.startswith("."):
        raise BadInput(f"{run_id!r} is not a run id")
    path = run_file(git_dir, run_id)
    if not os.path.isfile(path):
        folder = runs_dir(git_dir)
        known = sorted(name.removesuffix(".json") for name in os.listdir(folder)
                       if name.endswith(".json")) if os.path.isdir(folder) else []
        hint = f"; known runs: {', '.join(known[-5:])}" if known else ""
        raise BadInput(f"no run {run_id} in {folder}{hint}")
    try:
        with open(path, encoding="utf-8") as handle:
            return codec.decode(RunState, json.loads(handle.read()))
    except (ValueError, codec.DecodeError) as error:
        raise BadInput(f"run file {os.path.basename(path)} is damaged: {error}") from None
