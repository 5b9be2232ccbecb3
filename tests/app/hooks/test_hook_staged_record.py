"""The commit-msg hook and a record file the message names: judged as the commit will hold it."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import RETRY_ANSWERS, RETRY_DOCS, RETRY_TASK
from hookutil import distill, new_repo, ok, run, write

CLEAN_TASK = "# Upload retries\n\nRetry failed uploads up to five times, doubling the wait each time.\n"
MESSAGE = "Add TASK.md with the upload retry work\n\nTASK.md describes how failed uploads are retried.\n"


def _work(path: Path) -> Path:
    repo = new_repo(path)
    assert distill(repo, "install-hooks", "-q").returncode == 0
    write(repo, "README.md", "widget\n")
    ok(repo, "git", "commit", "-q", "-m", "Start the widget repository")
    return repo


def test_a_commit_naming_a_new_staged_portable_task_file_is_made(tmp_path: Path) -> None:
    repo = _work(tmp_path / "work")
    write(repo, "TASK.md", CLEAN_TASK)
    done = run(repo, "git", "commit", "-q", "-m", MESSAGE)
    assert done.returncode == 0, done.stderr
    assert distill(repo, "verify", "HEAD").returncode == 0
    assert distill(repo, "verify", "TASK.md", "--role", "reviewer").returncode == 0  # certified as staged


def test_a_staged_task_file_with_residue_is_reported_and_repaired_after_the_commit(tmp_path: Path) -> None:
    repo = _work(tmp_path / "work")
    for name, text in {**RETRY_DOCS, ".distill.toml": '[detect]\nseverity = { CT801 = "error" }\n'}.items():
        write(repo, name, text)
    ok(repo, "git", "commit", "-q", "-m", "Add the retry documentation and the upload module")
    write(repo, "TASK.md", RETRY_TASK.read_text(encoding="utf-8"))
    done = run(repo, "git", "commit", "-q", "-m", MESSAGE)
    assert done.returncode == 0, done.stderr
    assert "Task #4" in done.stderr and "git distill certify TASK.md" in done.stderr
    assert ok(repo, "git", "status", "--porcelain") == ""  # the hook edited nothing
    answers = tmp_path / "answers.toml"
    answers.write_text(RETRY_ANSWERS, encoding="utf-8")
    certified = distill(repo, "certify", "TASK.md", "--role", "reviewer", "--yes", "--answers", str(answers),
                        "--format", "json")
    assert certified.returncode == 0, certified.stdout + certified.stderr
    assert json.loads(certified.stdout)["evidence"]["repair_commits"]
    assert distill(repo, "verify", "TASK.md", "--role", "reviewer").returncode == 0


def test_a_file_outside_the_hooks_files_is_not_asked_for_a_certificate(tmp_path: Path) -> None:
    repo = _work(tmp_path / "work")
    write(repo, ".distill.toml", '[hooks]\nfiles = ["docs/*.md"]\n')
    ok(repo, "git", "commit", "-q", "-m", "Check only the documentation as record files")
    write(repo, "TASK.md", CLEAN_TASK)
    done = run(repo, "git", "commit", "-q", "-m", MESSAGE)
    assert done.returncode == 0, done.stderr
    assert distill(repo, "verify", "TASK.md", "--role", "reviewer").returncode == 1  # ignored, not certified


def test_a_committed_uncertified_task_file_is_still_asked_for(tmp_path: Path) -> None:
    repo = _work(tmp_path / "work")
    write(repo, "TASK.md", CLEAN_TASK)
    ok(repo, "git", "commit", "-q", "--no-verify", "-m", "Add the upload retry task")
    refused = run(repo, "git", "commit", "-q", "--allow-empty", "-m",
                  "Describe the upload retry work\n\nTASK.md describes how failed uploads are retried.\n")
    assert refused.returncode != 0
    assert "TASK.md" in refused.stderr and "certify that record too" in refused.stderr
