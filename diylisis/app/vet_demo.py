"""The vet scenario of design/vet.md as a throw-away repository: the demo builds it, and the tests
build the same one.

2024-01-02: docs/design.md says the cache timeout is 30 s (line 3), claims LRU eviction (line 4)
and generalizes one benchmark run (line 5); src/cache.py and config/cache.toml hold 30.
2024-03-05: a commit raises TIMEOUT and timeout to 60.
2024-03-06: tasks/cache-{1,2,3}.md and tasks/handoff.md cite the doc.
feature/retry (2024-03-07): src/retry.py:3 sizes a budget "per docs/design.md".
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from msgspec import Struct

from diylisis.edges.gitio import run_git

DESIGN = (
    "# Cache design\n"
    "\n"
    "The cache timeout is 30 s: `TIMEOUT` in `src/cache.py` bounds every lookup.\n"
    "Eviction is LRU: the least recently used entry goes first.\n"
    "Lookups took 4 ms in one benchmark run, so the cache will never be the bottleneck.\n"
)
CACHE_CODE = "TIMEOUT = {0}\n\n\ndef lookup(key):\n    return key\n"
CACHE_CONFIG = "[cache]\ntimeout = {0}\n"
RETRY = ('"""Retries around cache lookups."""\n\n'
         "BUDGET = 3 * 30  # seconds: three lookups at the cache timeout, per docs/design.md\n")
HANDOFF = "# Handoff\n\nAll tests pass.\nThe hit rate under load is not measured yet, see docs/design.md.\n"
ACTION = "merge feature/retry"
RANGE = "main..feature/retry"


class Scenario(Struct, frozen=True, kw_only=True):
    """The commits of the built scenario."""

    written: str  # wrote docs/design.md
    raised: str | None  # raised the timeout to 60 (None when built without it)
    tip: str  # feature/retry


def _commit(root: Path, env: Mapping[str, str], date: str, message: str, files: Mapping[str, str]) -> str:
    dated = {**env, "GIT_AUTHOR_DATE": f"{date}T12:00:00+00:00", "GIT_COMMITTER_DATE": f"{date}T12:00:00+00:00"}
    for name, content in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
    run_git(["add", "--", *files], root, env=dated)
    run_git(["commit", "-q", "-m", message], root, env=dated)
    return run_git(["rev-parse", "HEAD"], root, env=dated).decode().strip()


def build(root: Path, env: Mapping[str, str] | None = None, *, raise_timeout: bool = True,
          extra_citing: int = 0) -> Scenario:
    """Build the scenario in ROOT (an empty repository on main); HEAD ends on feature/retry."""
    env = dict(os.environ if env is None else env)
    written = _commit(root, env, "2024-01-02", "Describe the cache design", {
        "docs/design.md": DESIGN, "src/cache.py": CACHE_CODE.format(30), "config/cache.toml": CACHE_CONFIG.format(30)})
    raised = None
    if raise_timeout:
        raised = _commit(root, env, "2024-03-05", "Raise the cache timeout to 60 seconds", {
            "src/cache.py": CACHE_CODE.format(60), "config/cache.toml": CACHE_CONFIG.format(60)})
    tasks = {f"tasks/cache-{n}.md": f"# Cache task {n}\n\nFollow docs/design.md for step {n}.\n" for n in (1, 2, 3)}
    tasks["tasks/handoff.md"] = HANDOFF
    for n in range(extra_citing):
        tasks[f"notes/extra-{n}.md"] = "See docs/design.md before touching the cache.\n"
    _commit(root, env, "2024-03-06", "Split the cache work into tasks", tasks)
    run_git(["checkout", "-q", "-b", "feature/retry"], root, env=env)
    tip = _commit(root, env, "2024-03-07", "Retry cache lookups within a budget", {"src/retry.py": RETRY})
    return Scenario(written=written, raised=raised, tip=tip)
