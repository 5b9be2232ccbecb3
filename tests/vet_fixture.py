"""The vet fixture of design/vet.md, built as a real repository with fixed dates by the same
scenario `git distill vet --demo` shows (diylisis/app/vet_demo.py):

2024-01-02: docs/design.md says the cache timeout is 30 s (line 3), claims LRU eviction (line 4)
and generalizes one benchmark run (line 5); src/cache.py and config/cache.toml hold 30.
2024-03-05: a commit raises TIMEOUT and timeout to 60.
2024-03-06: tasks/cache-{1,2,3}.md and tasks/handoff.md cite the doc.
feature/retry (2024-03-07): src/retry.py:3 sizes a budget "per docs/design.md".
So at feature/retry the doc says 30 s while code and config say 60, it is cited by 5 files,
and it is older than the commit that raised the timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from msgspec import Struct

from diylisis.app import vet, vet_demo

DESIGN = vet_demo.DESIGN
TIMEOUT_CLAIM = DESIGN.splitlines()[2]
BOTTLENECK_CLAIM = DESIGN.splitlines()[4]


class Fixture(Struct, frozen=True, kw_only=True):
    """The fixture repository and the commits a test names."""

    root: Path
    written: str  # the commit that wrote docs/design.md
    raised: str | None  # the commit that raised the timeout to 60 (None when built without it)
    tip: str  # feature/retry


def git_at(root: Path, date: str, *args: str, input: bytes | None = None) -> str:
    """Run git in ROOT with author and committer dates fixed to DATE."""
    env = {**os.environ, "GIT_AUTHOR_DATE": f"{date}T12:00:00+00:00", "GIT_COMMITTER_DATE": f"{date}T12:00:00+00:00"}
    done = subprocess.run(["git", *args], cwd=root, env=env, input=input, capture_output=True, check=False)
    if done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr.decode(errors='replace')}")
    return done.stdout.decode()


def commit_at(root: Path, date: str, message: str, files: dict[str, str]) -> str:
    """Write FILES, stage them and commit MESSAGE dated DATE; the commit id."""
    for name, content in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        git_at(root, date, "add", "--", name)
    git_at(root, date, "commit", "-q", "-m", message)
    return git_at(root, date, "rev-parse", "HEAD").strip()


def build(root: Path, *, raise_timeout: bool = True, extra_citing: int = 0) -> Fixture:
    """Build the fixture in the repository ROOT (on main, empty); HEAD ends on feature/retry."""
    built = vet_demo.build(root, raise_timeout=raise_timeout, extra_citing=extra_citing)
    return Fixture(root=root, written=built.written, raised=built.raised, tip=built.tip)


MERGE = vet.VetRequest(action="merge feature/retry", range="main..feature/retry")
# the verdicts a test gives, with the instruction of each (None: the source stands)
VERDICTS = {TIMEOUT_CLAIM: ("The doc is behind the code: 60 s is right.", "withdraw"),
            BOTTLENECK_CLAIM: ("One run proves nothing; withdraw this later.", None)}


def audit_ids(repo: Path) -> dict[str, tuple[str, int]]:
    """The audit id and antithesis index of each claim the fixture's merge forms, by claim text."""
    formed = vet.form(repo, MERGE)
    return {a.thesis: (a.audit, a.index) for a in formed.antitheses}


def answers_toml(ids: dict[str, tuple[str, int]]) -> str:
    """An answers file giving VERDICTS for those claims."""
    rows = []
    for claim, (verdict, instruction) in VERDICTS.items():
        audit, index = ids[claim]
        rows.append(f"[{audit}]\n{index} = {{ verdict = {json.dumps(verdict)}"
                    + (", withdraw = true" if instruction == "withdraw" else "") + " }\n")
    return "\n".join(rows)
