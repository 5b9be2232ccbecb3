"""bench/vet.py on the vet fixture, laid out as a local mirror."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import git
from tests.vet_fixture import build

ROOT = Path(__file__).resolve().parents[1]


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "bench" / "vet.py"), *args],
                          capture_output=True, text=True, check=False, cwd=ROOT)


def test_the_figures_of_one_run_against_the_floor(tmp_path: Path, repo: Path) -> None:
    build(repo)
    root = tmp_path / "repos"
    (root / "acme+cache").mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(root / "acme+cache" / "repo"))
    done = bench("--repos-root", str(root), "--repo", "acme/cache", "--range", "HEAD~1..HEAD", "--action",
                 "merge feature/retry", "--runs", "1")
    assert done.returncode == 0, done.stderr
    last = dict(field.split("=", 1) for field in done.stdout.splitlines()[-1].removeprefix("vet: ").split())
    # the fixture's merge pauses on the design doc's claims (the timeout, the bottleneck)
    assert int(last["asked"]) == 2 and int(last["formed"]) >= 2 and int(last["sources"]) == 2
    assert int(last["git_processes"]) > 0 and float(last["wall_s"]) > 0 and float(last["floor_s"]) > 0
    assert float(last["grep_s"]) > 0 and float(last["vs_grep"]) > 0
    assert "paused" in done.stdout and "goals: under 10 s:" in done.stdout
    # nothing was written to the mirror: the run's note went to the temporary clone
    refs = git(root / "acme+cache" / "repo", "for-each-ref", "--format=%(refname)")
    assert "refs/notes/distill-vet" not in refs


def test_a_missing_mirror_is_a_note(tmp_path: Path) -> None:
    done = bench("--repos-root", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "steveyegge/beads: skipped, no local copy" in done.stdout


def test_bad_input_is_exit_2(tmp_path: Path) -> None:
    assert bench("--repos-root", str(tmp_path), "--repo", "beads").returncode == 2
    assert bench("--repos-root", str(tmp_path / "absent")).returncode == 2
