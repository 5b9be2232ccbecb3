"""`git distill vet` on a real repository, against a floor measured in the same run.

Usage: python bench/vet.py --repos-root DIR [--repo OWNER/NAME] [--range A..B] [--action TEXT] [--runs N]

Clones DIR/<owner>+<name>/repo (steveyegge/beads by default) into a temporary directory and runs

    git distill vet --action "merge" --range HEAD~5..HEAD --no-input --format json

there --runs times (3 by default). It reports the median wall time, the git processes the run
started (counted from git's own trace2 "start" events: a process whose session id has no parent
is one vet started), the claims asked (every claim of the paused run given an antithesis, from
its run file, since the paused JSON lists the first batch only; 0 when it finishes with nothing
to ask), the claims formed and the sources vetted. The floor is one
`git log -z -p A..B`, the range's messages and patches read once, timed the same number of
times in the same run; `vs_floor` is vet's median over the floor's. A second peer is one `git grep`
pass over the tree (lines where `=` or `:` is followed by a digit, the pass vet's code-value
search makes); `vs_grep` is vet's median over its. A missing mirror is skipped with a note.
The last line is

    vet: wall_s=S git_processes=N asked=N formed=N sources=N floor_s=S vs_floor=R grep_s=S vs_grep=R

and a line before it says which goals of the issue hold (under 10 s, at most 12 claims asked).
Nothing read from the repository is written anywhere but the temporary clone.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from msgspec import Struct

ROOT = Path(__file__).resolve().parent.parent
WALL_GOAL_S = 10.0
ASKED_GOAL = 12


class VetRun(Struct, frozen=True, kw_only=True):
    """One timed run of vet: its wall time, the git processes it started and what it formed."""

    seconds: float
    git_processes: int
    asked: int
    formed: int
    sources: int
    status: str


def distill_argv() -> list[str]:
    """How to start this checkout's `git distill` (the module, with this interpreter)."""
    return [sys.executable, "-m", "diylisis"]


def top_level_starts(trace: Path) -> int:
    """The git processes a trace2 event file shows started from outside git: their session id
    names no parent session (a child git's id is its parent's, a slash, and its own)."""
    count = 0
    if not trace.exists():
        return 0
    for row in trace.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            event = json.loads(row)
        except ValueError:
            continue
        if event.get("event") == "start" and "/" not in str(event.get("sid", "/")):
            count += 1
    return count


def run_vet(clone: Path, action: str, range_: str, trace: Path) -> VetRun:
    """Run vet once in CLONE with git's trace2 events written to TRACE."""
    trace.unlink(missing_ok=True)
    env = {**os.environ, "GIT_TRACE2_EVENT": str(trace), "PYTHONPATH": str(ROOT)}
    argv = [*distill_argv(), "vet", "--action", action, "--range", range_, "--no-input", "--format", "json"]
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=clone, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 3):
        raise SystemExit(f"vet: git distill vet failed (exit {done.returncode}): {done.stderr.strip()}")
    shown = json.loads(done.stdout)
    if shown["status"] == "paused":
        # the paused JSON lists the first batch only: the run file has every claim asked (one
        # antithesis each), every claim formed and every source
        run = json.loads((clone / ".git" / "distill" / "runs" / f"{shown['run']}.json").read_text(encoding="utf-8"))
        asked = len({antithesis["audit"] for antithesis in run["antitheses"]})
        formed, sources = len(run["formed"]), len(run["sources"])
    else:
        result = shown["result"]
        asked, formed, sources = 0, len(result["formed"]), len(result["sources"])
    return VetRun(seconds=seconds, git_processes=top_level_starts(trace), asked=asked, formed=formed,
                  sources=sources, status=shown["status"])


def time_floor(clone: Path, range_: str) -> float:
    """One `git log -z -p` over the range, its output read to the end."""
    started = time.perf_counter()
    subprocess.run(["git", "log", "-z", "-p", "--no-color", range_], cwd=clone, capture_output=True, check=True)
    return time.perf_counter() - started


def time_tree_grep(clone: Path) -> float:
    """One `git grep` over the tree at HEAD for lines where `=` or `:` is followed by a digit: the
    one pass over every file that vet's code-value search makes."""
    started = time.perf_counter()
    subprocess.run(["git", "grep", "-I", "-n", "-E", "-e", "[=:][[:space:]]*[0-9]", "HEAD", "--"], cwd=clone,
                   capture_output=True, check=False)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    """Clone, run vet and the floor, print the figures; exit 0 (2 on bad input)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos-root", type=Path, required=True,
                        help="folder with <owner>+<name>/repo git directories")
    parser.add_argument("--repo", default="steveyegge/beads", help="OWNER/NAME to vet (steveyegge/beads)")
    parser.add_argument("--range", dest="range_", default="HEAD~5..HEAD", help="the range vet reads (HEAD~5..HEAD)")
    parser.add_argument("--action", default="merge", help='the action vet is asked about ("merge")')
    parser.add_argument("--runs", type=int, default=3, help="timed runs of each command (3)")
    args = parser.parse_args(argv)
    if not args.repos_root.is_dir():
        print(f"vet: --repos-root {args.repos_root} is not a directory", file=sys.stderr)
        return 2
    owner, slash, name = args.repo.partition("/")
    if not slash or not owner or not name or "/" in name:
        print(f"vet: --repo {args.repo} is not OWNER/NAME", file=sys.stderr)
        return 2
    if args.runs < 1:
        print("vet: --runs must be at least 1", file=sys.stderr)
        return 2
    mirror = args.repos_root / f"{owner}+{name}" / "repo"
    if not mirror.is_dir():
        print(f"vet: {args.repo}: skipped, no local copy at {mirror}; nothing measured")
        return 0
    folder = Path(tempfile.mkdtemp(prefix="distill-vet-bench-"))
    try:
        clone = folder / name
        subprocess.run(["git", "clone", "-q", str(mirror), str(clone)], check=True, capture_output=True)
        runs = [run_vet(clone, args.action, args.range_, folder / "trace.json") for _ in range(args.runs)]
        floors = [time_floor(clone, args.range_) for _ in range(args.runs)]
        greps = [time_tree_grep(clone) for _ in range(args.runs)]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    wall = statistics.median(r.seconds for r in runs)
    floor = statistics.median(floors)
    grep = statistics.median(greps)
    last = runs[-1]
    print(f"{args.repo}: git distill vet --action {args.action!r} --range {args.range_} --no-input --format json")
    print(f"  vet: {wall:.2f} s (median of {len(runs)}: {', '.join(f'{r.seconds:.2f}' for r in runs)}),"
          f" {last.git_processes} git processes, {last.status}, {last.asked} claims asked,"
          f" {last.formed} formed, {last.sources} sources")
    print(f"  floor: git log -z -p {args.range_}: {floor:.3f} s (median of {len(floors)})")
    print(f"  tree grep: git grep -I -n -E '[=:][[:space:]]*[0-9]' HEAD: {grep:.3f} s (median of {len(greps)})")
    print(f"  goals: under {WALL_GOAL_S:.0f} s: {'met' if wall < WALL_GOAL_S else 'missed'};"
          f" at most {ASKED_GOAL} claims asked: {'met' if last.asked <= ASKED_GOAL else 'missed'}")
    print(f"vet: wall_s={wall:.2f} git_processes={last.git_processes} asked={last.asked} formed={last.formed}"
          f" sources={last.sources} floor_s={floor:.3f}"
          f" vs_floor={wall / floor if floor > 0 else float('inf'):.1f} grep_s={grep:.3f}"
          f" vs_grep={wall / grep if grep > 0 else float('inf'):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
