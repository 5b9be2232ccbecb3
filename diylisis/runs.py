"""Run files: the session-side state Λ under `.git/distill/runs/<run-id>.json` (never pushed)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from diylisis import codec
from diylisis.errors import BadInput
from diylisis.state import RunState


def runs_dir(git_dir: Path) -> Path:
    return git_dir / "distill" / "runs"


def new_run_id() -> str:
    """A short, sortable run id (time plus randomness)."""
    return time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + os.urandom(3).hex()


def save(git_dir: Path, state: RunState) -> Path:
    """Write the run state atomically (after every pass and at every pause)."""
    folder = runs_dir(git_dir)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{state.run_id}.json"
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(codec.encode(state), ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(temporary, path)
    return path


def load(git_dir: Path, run_id: str) -> RunState:
    """Read a saved run; an unknown or damaged run file is exit 2."""
    if not run_id or "/" in run_id or run_id.startswith("."):
        raise BadInput(f"{run_id!r} is not a run id")
    path = runs_dir(git_dir) / f"{run_id}.json"
    if not path.is_file():
        known = sorted(p.stem for p in runs_dir(git_dir).glob("*.json")) if runs_dir(git_dir).is_dir() else []
        hint = f"; known runs: {', '.join(known[-5:])}" if known else ""
        raise BadInput(f"no run {run_id} in {runs_dir(git_dir)}{hint}")
    try:
        return codec.decode(RunState, json.loads(path.read_text(encoding="utf-8")))
    except (ValueError, codec.DecodeError) as error:
        raise BadInput(f"run file {path.name} is damaged: {error}") from None
