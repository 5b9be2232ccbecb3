"""Warnings and info are advice: they never refuse a commit or become gate items unless raised."""

from __future__ import annotations

from pathlib import Path

import pytest
from hookutil import committed_repo, distill, ok, run, write

# "fold-and-flush" is in no file of the repository: a coined-term finding, a warning by default
WARNED = "Fix the fold-and-flush step in the page counter\n\nThe last page was skipped on a multiple of ten.\n"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    repo = committed_repo(tmp_path / "work")
    assert distill(repo, "install-hooks", "-q").returncode == 0
    return repo


def test_a_warning_alone_does_not_refuse_the_commit(work: Path) -> None:
    scanned = distill(work, "scan", "--format", "json", "msgfile:/dev/stdin", input=WARNED)
    assert '"severity": "warning"' in scanned.stdout  # the finding is there, as advice
    done = run(work, "git", "commit", "-q", "--allow-empty", "-m", WARNED)
    assert done.returncode == 0, done.stderr
    assert ok(work, "git", "log", "-1", "--format=%s").strip() == "Fix the fold-and-flush step in the page counter"
    assert distill(work, "verify", "HEAD").returncode == 0


def test_a_rule_the_user_raises_to_error_refuses_again(work: Path) -> None:
    write(work, ".distill.toml", '[detect]\nseverity = { CT801 = "error" }\n')
    ok(work, "git", "commit", "-q", "--no-verify", "-m", "Raise the coined-term rule to an error")
    done = run(work, "git", "commit", "-q", "--allow-empty", "-m", WARNED)
    assert done.returncode != 0
    assert "fold-and-flush" in done.stderr and "CT801" in done.stderr
