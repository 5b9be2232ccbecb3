"""One rule for messages a tool wrote: repair commits, reverts, autosquash and merges.

The hooks, `verify --range` and `scan --range` skip the same messages, and `[hooks]
check_generated` (true, false or a list of kinds) changes all of them at once.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import RETRY_ANSWERS, RETRY_DOCS, RETRY_TASK
from hookutil import CLEAN, bare, distill, new_repo, ok, run, write

from diylisis.core.generated import GeneratedRule, generated, rule_from_setting


def _certified_repo(path: Path) -> Path:
    repo = new_repo(path)
    assert distill(repo, "install-hooks", "-q").returncode == 0
    write(repo, "README.md", "widget\n")
    ok(repo, "git", "commit", "-q", "-m", CLEAN)
    return repo


def _root(repo: Path) -> str:
    return ok(repo, "git", "rev-list", "--max-parents=0", "HEAD").strip()


def _repaired_task(repo: Path, tmp_path: Path) -> tuple[str, ...]:
    """Certify a task file with residue from answers: the run leaves repair commits; their ids."""
    for name, text in {**RETRY_DOCS, "TASK.md": RETRY_TASK.read_text(encoding="utf-8"),
                       ".distill.toml": '[detect]\nseverity = { CT801 = "error" }\n'}.items():
        write(repo, name, text)
    ok(repo, "git", "commit", "-q", "-m", "Add the retry task, its documentation and the upload module\n\n"
       "The task file describes how failed uploads are retried.\n")
    answers = tmp_path / "answers.toml"
    answers.write_text(RETRY_ANSWERS, encoding="utf-8")
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--yes", "--answers", str(answers),
                   "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    made = tuple(json.loads(done.stdout)["evidence"]["repair_commits"])
    assert made
    return made


def test_repair_commits_of_certify_do_not_block_push_or_ci(tmp_path: Path) -> None:
    work = _certified_repo(tmp_path / "work")
    made = _repaired_task(work, tmp_path)
    for commit_id in made:
        message = ok(work, "git", "cat-file", "commit", commit_id).split("\n\n", 1)[1]
        found = generated(message)
        assert found is not None and found.kind == "repair"
    assert distill(work, "verify", made[-1]).returncode == 0
    ok(work, "git", "remote", "add", "origin", str(bare(tmp_path / "remote.git")))
    pushed = run(work, "git", "push", "-q", "origin", "main")
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    ci = distill(work, "verify", "--range", f"{_root(work)}..HEAD", "-v")
    assert ci.returncode == 0, ci.stdout + ci.stderr
    assert f"{len(made)} generated message(s) skipped" in ci.stdout
    scanned = distill(work, "scan", "--range", f"{_root(work)}..HEAD", "--format", "json")
    assert json.loads(scanned.stdout)["summary"]["skipped"] == len(made)


def test_a_revert_is_judged_alike_by_hooks_verify_and_scan(tmp_path: Path) -> None:
    work = _certified_repo(tmp_path / "work")
    write(work, "src/upload.py", "MAX_ATTEMPTS = 5\n")
    ok(work, "git", "commit", "-q", "-m", "Cap upload attempts at five\n\nThe upload loop stops after five tries.\n")
    ok(work, "git", "revert", "--no-edit", "HEAD")
    assert generated(ok(work, "git", "log", "-1", "--format=%B")) is not None
    range_spec = f"{_root(work)}..HEAD"
    verified = distill(work, "verify", "--range", range_spec)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    text = distill(work, "scan", "--range", range_spec)
    assert "1 generated message(s) skipped" in text.stdout

    (work / ".distill.toml").write_text('[hooks]\ncheck_generated = ["revert"]\n', encoding="utf-8")
    judged = distill(work, "verify", "--range", range_spec)
    assert judged.returncode == 1 and "missing" in judged.stdout
    assert "skipped" not in distill(work, "scan", "--range", range_spec).stdout


def test_check_generated_names_unknown_kinds(tmp_path: Path) -> None:
    work = _certified_repo(tmp_path / "work")
    (work / ".distill.toml").write_text('[hooks]\ncheck_generated = ["reverts"]\n', encoding="utf-8")
    done = distill(work, "verify", "--range", f"{_root(work)}..HEAD")
    assert done.returncode == 2
    assert "check_generated" in done.stderr and "'reverts'" in done.stderr


@pytest.mark.parametrize("message", [
    # a sentence of its own below a repair subject
    "distill: repair TASK.md (pass 1)\n\nRepairs made by git distill certify for role reviewer.\n\n"
    "As discussed above, this also fixes the bug.\n\nDistill-Run: 20261201-101010-abcdef\nDistill-Pass: 1\n",
    # the pass in the subject and the trailer differ
    "distill: repair TASK.md (pass 2)\n\nRepairs made by git distill certify for role reviewer.\n\n"
    "Distill-Run: 20261201-101010-abcdef\nDistill-Pass: 1\n",
    # no trailers
    "distill: repair TASK.md (pass 1)\n\nRepairs made by git distill certify for role reviewer.\n",
])
def test_a_message_shaped_almost_like_a_repair_is_authored(message: str) -> None:
    assert generated(message) is None


def test_the_rule_checks_the_kinds_it_is_given() -> None:
    revert = 'Revert "Add cache"\n\nThis reverts commit 0123456.\n'
    assert GeneratedRule().skips(revert) is not None
    assert rule_from_setting(True).skips(revert) is None
    assert rule_from_setting(["merge"]).skips(revert) is not None
    assert rule_from_setting(["revert"]).skips(revert) is None
    with pytest.raises(ValueError):
        rule_from_setting("yes")
