"""`git distill hook pre-push` on real repositories: which commits a push sends, and refusals."""

from __future__ import annotations

from pathlib import Path

import pytest
from hookutil import CLEAN, bare, distill, new_repo, ok, run, write

from diylisis.app.hooks.pre_push import framework_refs, parse_push_lines, pushed_commits

ZERO = "0" * 40


@pytest.fixture
def work(tmp_path: Path) -> Path:
    repo = new_repo(tmp_path / "work")
    assert distill(repo, "install-hooks", "-q").returncode == 0
    write(repo, "README.md", "widget\n")
    ok(repo, "git", "commit", "-q", "-m", "Start the widget repository with a README")
    ok(repo, "git", "remote", "add", "origin", str(bare(tmp_path / "remote.git")))
    return repo


def test_a_new_branch_sends_what_no_remote_tracking_ref_holds(work: Path) -> None:
    ok(work, "git", "push", "-q", "origin", "main")
    write(work, "src/upload.py", "MAX_ATTEMPTS = 5\n")
    ok(work, "git", "commit", "-q", "-m", CLEAN)
    head = ok(work, "git", "rev-parse", "HEAD").strip()
    refs = parse_push_lines(f"refs/heads/topic {head} refs/heads/topic {ZERO}\n")
    assert pushed_commits(work, "origin", refs) == (head,)
    deletion = parse_push_lines(f"(delete) {ZERO} refs/heads/old {head}\n")
    assert pushed_commits(work, "origin", deletion) == ()
    notes = parse_push_lines(f"refs/notes/distill {head} refs/notes/distill {ZERO}\n")
    assert pushed_commits(work, "origin", notes) == ()


def test_framework_variables_give_the_range(work: Path) -> None:
    base = ok(work, "git", "rev-parse", "HEAD").strip()
    write(work, "src/upload.py", "MAX_ATTEMPTS = 5\n")
    ok(work, "git", "commit", "-q", "-m", CLEAN)
    head = ok(work, "git", "rev-parse", "HEAD").strip()
    remote, refs = framework_refs(work, {"PRE_COMMIT_REMOTE_NAME": "origin",
                                         "PRE_COMMIT_FROM_REF": base, "PRE_COMMIT_TO_REF": head})
    assert remote == "origin"
    assert pushed_commits(work, remote, refs) == (head,)


def test_an_uncertified_commit_stops_the_push_and_nothing_moves(work: Path) -> None:
    write(work, "src/upload.py", "MAX_ATTEMPTS = 5\n")
    ok(work, "git", "commit", "-q", "--no-verify", "-m", "Raise the limit as discussed above")
    done = run(work, "git", "push", "origin", "main")
    assert done.returncode != 0
    assert "1 of 2 pushed commit(s) fail verification" in done.stderr
    assert "missing" in done.stderr
    assert ok(work, "git", "ls-remote", "origin") == ""
    manual = distill(work, "hook", "pre-push")  # by hand: the commits no remote holds
    assert manual.returncode == 1


def test_malformed_ref_lines_are_bad_input(work: Path) -> None:
    done = distill(work, "hook", "pre-push", "origin", "url", input="refs/heads/main abc\n")
    assert done.returncode == 2 and "pre-push input line 1" in done.stderr


def test_certificates_from_two_clones_are_merged_on_push(work: Path, tmp_path: Path) -> None:
    ok(work, "git", "push", "-q", "origin", "main")
    other = tmp_path / "other"
    ok(tmp_path, "git", "clone", "-q", str(tmp_path / "remote.git"), str(other))
    assert distill(other, "install-hooks", "-q").returncode == 0
    write(other, "docs/usage.md", "Run the uploader with --retries 5.\n")
    ok(other, "git", "commit", "-q", "-m", "Document the retries option of the uploader")
    ok(other, "git", "push", "-q", "origin", "main")

    write(work, "src/upload.py", "MAX_ATTEMPTS = 5\n")
    ok(work, "git", "commit", "-q", "-m", CLEAN)
    ok(work, "git", "pull", "-q", "--rebase", "origin", "main")
    pushed = run(work, "git", "push", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr

    fresh = tmp_path / "fresh"
    ok(tmp_path, "git", "clone", "-q", str(tmp_path / "remote.git"), str(fresh))
    ok(fresh, "git", "fetch", "-q", "origin", "refs/notes/distill:refs/notes/distill")
    root = ok(fresh, "git", "rev-list", "--max-parents=0", "HEAD").strip()
    verified = distill(fresh, "verify", "--range", f"{root}..HEAD")
    assert verified.returncode == 0, verified.stdout  # both clones' certificates arrived
