"""The certify trace in the user's words; spec terms only with --verbose or in JSON; no silent rewrite."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import RETRY_ANSWERS, RETRY_DOCS, RETRY_TASK, commit, distill, git

SPEC_WORDS = re.compile(r"\bF[0-7]\b|category 11|realization|exposure|resolves_at")


def _certified(repo: Path, tmp_path: Path, *extra: str) -> str:
    commit(repo, "Add the retry tasks\n", {**RETRY_DOCS, "TASK.md": RETRY_TASK.read_text()})
    answers = tmp_path / "answers.toml"
    answers.write_text(RETRY_ANSWERS.replace('task-4 = "drop"', 'task-4 = { defer = "the task list is public" }'))
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--yes", "--answers", str(answers), *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_trace_says_what_happened_in_plain_words(repo: Path, tmp_path: Path) -> None:
    trace = _certified(repo, tmp_path).split("Reception procedure")[0]
    assert "What happened to each item:" in trace
    assert "task-4 ('Task #4'): accepted as a premise the reader is told about, until: the task list is public" in trace
    assert "you pointed it to docs/retries.md" in trace
    assert not SPEC_WORDS.search(trace), trace
    assert "Surfaced ledger" not in trace and "DROP" not in trace and "Gate Defer" not in trace


def test_verbose_keeps_the_record_without_echoes(repo: Path, tmp_path: Path) -> None:
    trace = _certified(repo, tmp_path, "--verbose").split("Reception procedure")[0]
    assert "Disposition trace:" in trace and "task-4: DEFER" in trace
    assert not re.search(r"^\s+(\S+) -> \1$", trace, re.MULTILINE), trace  # no "x -> x" rows
    assert not re.search(r"^\s+(as-above|tmp-run3-log|decision-1): unresolved", trace, re.MULTILINE), trace


def test_a_reviewer_is_not_told_to_execute_the_record(repo: Path) -> None:
    commit(repo, "Raise the retry cap to four\n\nThe upload retry now stops after four attempts.\n",
           {"retry.py": "MAX = 4\n"})
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input", "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    brief = json.loads(done.stdout)["brief"]
    assert "Activation: Read commit:HEAD and review it" in brief and "execute" not in brief


def test_fixes_n_in_a_commit_message_on_github_is_kept_as_written(repo: Path) -> None:
    git(repo, "remote", "add", "origin", "https://github.com/owner/repo.git")
    commit(repo, "Raise the retry cap to four\n\nThe upload retry now stops after four attempts.\nFixes #12.\n",
           {"retry.py": "MAX = 4\n"})
    head = git(repo, "rev-parse", "HEAD")
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input")
    assert done.returncode == 0, done.stdout + done.stderr
    assert git(repo, "rev-parse", "HEAD") == head
    assert "Fixes #12." in git(repo, "log", "-1", "--format=%B")
    assert "kept as written" in done.stdout


def test_a_repair_is_shown_and_waits_for_yes(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Add the retry tasks\n", {**RETRY_DOCS, "TASK.md": RETRY_TASK.read_text()})
    head = git(repo, "rev-parse", "HEAD")
    answers = tmp_path / "answers.toml"
    answers.write_text(RETRY_ANSWERS)
    shown = distill(repo, "certify", "TASK.md", "--role", "implementer", "--answers", str(answers))
    assert shown.returncode == 3, shown.stdout + shown.stderr
    assert "-The failing run is in /tmp/run3.log." in shown.stdout
    assert "+The failing run is in docs/retries.md." in shown.stdout
    run = re.search(r"git distill resume (\S+) --yes", shown.stdout)
    assert run is not None
    assert git(repo, "rev-parse", "HEAD") == head and (repo / "TASK.md").read_text() == RETRY_TASK.read_text()
    applied = distill(repo, "resume", run.group(1), "--yes", "--answers", str(answers))
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "/tmp/run3.log" not in (repo / "TASK.md").read_text()
