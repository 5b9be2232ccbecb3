"""bench/clean.py on a small history written for this test."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import commit, git

ROOT = Path(__file__).resolve().parents[1]


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / "clean.py"), *args],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )


def test_blocks_per_thousand_and_the_blocks_listed(tmp_path: Path, repo: Path) -> None:
    commit(repo, "Skip blank lines\n\nBlank lines ended the block early.")
    blocked = commit(repo, "Fix parser\n\nAs discussed, the parser now stops at a blank line.")
    commit(repo, "Merge-free history\n\nNothing here points anywhere.")
    root = tmp_path / "repos"
    (root / "acme+widgets").mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(root / "acme+widgets" / "repo"))
    done = bench("--repos-root", str(root), "--repo", "acme/widgets", "--repo", "acme/absent")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("acme/widgets: 1 blocked of 3 commits = 333.33 per 1,000")
    assert lines[1].split()[:2] == [blocked[:12], "DX102"]
    assert any(line.startswith("acme/absent: skipped, no local copy") for line in lines)
    assert lines[-1] == "clean: blocked_per_1000=333.33 blocked=1 commits=3 repos=1"


def test_no_local_copies_is_a_note_not_a_failure(tmp_path: Path) -> None:
    done = bench("--repos-root", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "clean: no repository had a local copy; nothing measured" in done.stdout
    assert done.stdout.splitlines()[-1] == "clean: blocked_per_1000=0.00 blocked=0 commits=0 repos=0"


def test_bad_repo_name_is_exit_2(tmp_path: Path) -> None:
    done = bench("--repos-root", str(tmp_path), "--repo", "widgets")
    assert done.returncode == 2 and "not OWNER/NAME" in done.stderr
