"""Nothing leaves that git would not store: the hooks on real repositories, real commits and pushes."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path

import pytest
from hookutil import CLEAN, RESIDUE, bare, committed_repo, distill, ok, run, write

# obviously fake, and built here so no token-shaped string sits in the repository
FAKE_AWS_KEY = "AKIA" + "EXAMPLE" + "7Q2Z4XKD9"
FAKE_GITHUB_TOKEN = "ghp_" + "EXAMPLE" + "0" * 8 + "fakeTokenForTests" + "0" * 4


@pytest.fixture
def work(tmp_path: Path) -> Path:
    repo = committed_repo(tmp_path / "work")
    assert distill(repo, "install-hooks", "-q").returncode == 0
    assert distill(repo, "certify", "HEAD", "--role", "reviewer").returncode == 0
    return repo


def _editor(tmp_path: Path, lines: str) -> str:
    """An editor that writes a message above git's template and a comment line below it."""
    script = tmp_path / "editor.sh"
    script.write_text("#!/bin/sh\n{ printf '%s\\n' \"$SUBJECT\"; cat \"$1\"; printf '%s\\n' \"$COMMENT\"; } "
                      "> \"$1.new\" && mv \"$1.new\" \"$1\"\n", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def _objects(repo: Path) -> str:
    """Every object of the repository, contents included (binary bytes shown as escapes)."""
    done = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo,
                          capture_output=True, check=True)
    return done.stdout.decode("utf-8", errors="backslashreplace")


def _certificate_refs(repo: Path) -> str:
    return ok(repo, "git", "for-each-ref", "refs/notes", "refs/distill")


def _notes(repo: Path) -> list[str]:
    listing = run(repo, "git", "notes", "--ref", "distill", "list").stdout.split()
    return [ok(repo, "git", "cat-file", "blob", note) for note in listing[0::2]]


def test_a_comment_line_secret_never_reaches_the_remote(work: Path, tmp_path: Path) -> None:
    remote = bare(tmp_path / "remote.git")
    ok(work, "git", "remote", "add", "origin", str(remote))
    ok(work, "git", "checkout", "-q", "-b", "topic/secret-branch-name")
    write(work, "src/staged_file_name.py", "MAX = 5\n")
    editor = _editor(tmp_path, "")
    done = run(work, "git", "commit", "-q", extra={
        "GIT_EDITOR": editor, "SUBJECT": CLEAN, "COMMENT": f"# scratch: AWS key {FAKE_AWS_KEY}"})
    assert done.returncode == 0, done.stderr
    assert FAKE_AWS_KEY not in ok(work, "git", "log", "-1", "--format=%B")  # git stripped the comment
    assert distill(work, "verify", "HEAD").returncode == 0  # certified under what git stored
    pushed = run(work, "git", "push", "-q", "origin", "topic/secret-branch-name")
    assert pushed.returncode == 0, pushed.stderr
    assert "refs/distill/snapshots" in ok(work, "git", "ls-remote", "origin")
    on_remote = _objects(remote)
    assert FAKE_AWS_KEY not in on_remote
    assert "secret-branch-name" not in on_remote.replace("refs/heads/topic/secret-branch-name", "")
    assert "Changes to be committed" not in on_remote and "Please enter the commit message" not in on_remote
    assert FAKE_AWS_KEY not in _objects(work)  # nor locally: no blob was made of the template


def test_a_secret_git_would_store_blocks_the_commit_and_is_not_repeated(work: Path, tmp_path: Path) -> None:
    message = tmp_path / "MSG"
    message.write_text(f"{CLEAN}\n# scratch: token {FAKE_GITHUB_TOKEN}\n", encoding="utf-8")
    before = ok(work, "git", "rev-parse", "HEAD")
    done = run(work, "git", "commit", "-q", "--allow-empty", "-F", str(message))  # -F keeps '#' lines
    assert done.returncode != 0
    assert "a GitHub token" in done.stderr and "line 6" in done.stderr
    assert FAKE_GITHUB_TOKEN not in done.stderr + done.stdout  # masked, never echoed
    assert ok(work, "git", "rev-parse", "HEAD") == before
    assert FAKE_GITHUB_TOKEN not in _objects(work)


def test_an_amended_away_token_is_not_published_by_sync(work: Path, tmp_path: Path) -> None:
    remote = bare(tmp_path / "remote.git")
    ok(work, "git", "remote", "add", "origin", str(remote))
    write(work, "src/upload.py", "MAX = 5\n")
    leaked = f"{CLEAN}\nDeploy with token={FAKE_GITHUB_TOKEN} for now.\n"
    run(work, "git", "commit", "-q", "-m", leaked)  # refused now; certified and kept before
    ok(work, "git", "commit", "-q", "--amend", "--no-verify", "-m", CLEAN)
    certified = distill(work, "certify", "HEAD", "--role", "reviewer")
    assert certified.returncode == 0, certified.stderr
    (work / ".git" / "hooks" / "pre-push").unlink()  # sync alone (with the hook: the next test)
    synced = distill(work, "sync", "origin", "--push")
    assert synced.returncode == 0, synced.stderr
    assert "refs/notes/distill" in ok(work, "git", "ls-remote", "origin")
    assert FAKE_GITHUB_TOKEN not in _objects(remote)


def test_sync_push_works_with_the_pre_push_hook_installed(work: Path, tmp_path: Path) -> None:
    ok(work, "git", "remote", "add", "origin", str(bare(tmp_path / "remote.git")))
    synced = distill(work, "sync", "origin", "--push")
    assert synced.returncode == 0, synced.stderr  # the hook pushed the same refs inside the push
    assert "refs/notes/distill" in ok(work, "git", "ls-remote", "origin")


def test_certify_refuses_a_record_holding_a_secret(work: Path) -> None:
    refs = _certificate_refs(work)
    ok(work, "git", "commit", "-q", "--allow-empty", "--no-verify", "-m",
       f"Rotate the deploy key\n\npassword = \"{'Zq8xP2mN7' + 'vL4kR9tY1w'}\"\n")
    done = distill(work, "certify", "HEAD", "--role", "reviewer")
    assert done.returncode == 1
    assert "high-entropy" in done.stderr and "line 3" in done.stderr
    assert "vL4kR9tY1w" not in done.stderr
    assert _certificate_refs(work) == refs


def test_no_certificate_stores_a_path_of_the_certifiers_machine(work: Path, tmp_path: Path) -> None:
    ok(work, "git", "commit", "-q", "--allow-empty", "-m", CLEAN)
    linked = tmp_path / "linked"
    ok(work, "git", "worktree", "add", "-q", "-b", "side", str(linked))
    ok(linked, "git", "commit", "-q", "--allow-empty", "-m", CLEAN.replace("five", "six"))
    notes = _notes(work)
    assert len(notes) == 3  # the first commit (certified by hand) and the two hook commits
    for note in notes:
        for line in note.splitlines():
            assert json.loads(line)["target"]["kind"] == "commit"
        assert str(tmp_path) not in note and "msgfile:" not in note and "COMMIT_EDITMSG" not in note
    remote = bare(tmp_path / "remote.git")
    ok(work, "git", "push", "-q", str(remote), "main")
    clone = tmp_path / "clone"
    ok(tmp_path, "git", "clone", "-q", str(remote), str(clone))
    ok(clone, "git", "fetch", "-q", "origin", "+refs/notes/distill:refs/notes/distill",
       "+refs/distill/snapshots:refs/distill/snapshots")
    brief = distill(clone, "brief", "HEAD", "--role", "reviewer")
    assert brief.returncode == 0, brief.stderr
    assert str(tmp_path) not in brief.stdout and "msgfile:" not in brief.stdout


def test_certify_of_a_message_file_outside_the_repository_is_refused(work: Path, tmp_path: Path) -> None:
    refs = _certificate_refs(work)
    outside = tmp_path / "MSG"
    outside.write_text(CLEAN, encoding="utf-8")
    done = distill(work, "certify", f"msgfile:{outside}", "--role", "reviewer")
    assert done.returncode == 2 and "outside the repository" in done.stderr
    assert _certificate_refs(work) == refs


def test_a_scissors_line_does_not_hide_the_message_git_stores(work: Path, tmp_path: Path) -> None:
    message = tmp_path / "MSG"
    message.write_text(f"# ------------------------ >8 ------------------------\n{RESIDUE}\n",
                       encoding="utf-8")
    before = ok(work, "git", "rev-parse", "HEAD")
    done = run(work, "git", "commit", "-q", "--allow-empty", "-F", str(message))
    assert done.returncode != 0, "git stores the whole text under -F; the hook must judge it"
    assert "discussed above" in done.stderr
    assert ok(work, "git", "rev-parse", "HEAD") == before


def test_a_verbose_editor_commit_is_judged_above_the_scissors_only(work: Path, tmp_path: Path) -> None:
    write(work, "notes.txt", f"{RESIDUE}\n")  # the diff below git's scissors line holds residue
    editor = _editor(tmp_path, "")
    done = run(work, "git", "commit", "-q", "-v", extra={"GIT_EDITOR": editor, "SUBJECT": CLEAN, "COMMENT": ""})
    assert done.returncode == 0, done.stderr
    assert distill(work, "verify", "HEAD").returncode == 0


def test_a_commit_with_no_verify_gets_no_certificate_from_a_stale_judgment(work: Path) -> None:
    refs = _certificate_refs(work)
    refused = run(work, "git", "commit", "-q", "--allow-empty", "-m", RESIDUE)
    assert refused.returncode != 0
    ok(work, "git", "commit", "-q", "--allow-empty", "--no-verify", "-m", RESIDUE)
    assert distill(work, "verify", "HEAD").returncode == 1
    assert _certificate_refs(work) == refs  # the refused judgment left nothing for post-commit


def test_a_secret_kept_by_an_older_version_is_never_pushed(work: Path, tmp_path: Path) -> None:
    from diylisis.edges import store

    remote = bare(tmp_path / "remote.git")
    ok(work, "git", "remote", "add", "origin", str(remote))
    leaked = f"{CLEAN}\nDeploy with token={FAKE_GITHUB_TOKEN} for now.\n"
    # what a version without the scanner wrote: a snapshot and a certificate quoting the token
    store.put_many(work, [(leaked.encode(), {"role": "reviewer", "judgments": [leaked]})])
    blob = ok(work, "git", "hash-object", "--stdin", input=leaked).strip()
    for attempt in (distill(work, "sync", "origin", "--push"),
                    run(work, "git", "push", "-q", "origin", "main")):
        assert attempt.returncode == 1, attempt.stdout + attempt.stderr
        said = attempt.stdout + attempt.stderr
        assert "a GitHub token" in said and f"git distill forget blob:{blob}" in said
        assert FAKE_GITHUB_TOKEN not in said
    assert FAKE_GITHUB_TOKEN not in _objects(remote)
    assert ok(work, "git", "ls-remote", "origin") == ""  # the pre-push hook stopped the whole push
    assert distill(work, "forget", f"blob:{blob}").returncode == 0
    pushed = run(work, "git", "push", "-q", "origin", "main")
    assert pushed.returncode == 0, pushed.stderr
    assert "refs/notes/distill" in ok(work, "git", "ls-remote", "origin")
    assert FAKE_GITHUB_TOKEN not in _objects(remote)


@pytest.mark.skipif(not Path("/usr/share/locale/de/LC_MESSAGES/git.mo").exists(),
                    reason="git's German message catalog is not installed")
def test_a_translated_template_still_names_the_cleanup_mode(work: Path, tmp_path: Path) -> None:
    ok(work, "git", "config", "status.showUntrackedFiles", "all")
    (work / "logs").mkdir()
    (work / "logs" / "run3.log").write_text("untracked\n", encoding="utf-8")  # listed in the template
    editor = _editor(tmp_path, "")
    done = run(work, "git", "commit", "-q", "--allow-empty", extra={
        "GIT_EDITOR": editor, "SUBJECT": CLEAN, "COMMENT": "", "LANGUAGE": "de", "LANG": "C.UTF-8",
        "LC_ALL": ""})
    assert done.returncode == 0, done.stderr  # the untracked path below '#' is no reading git stores
    template = (work / ".git" / "COMMIT_EDITMSG").read_text(encoding="utf-8")
    assert "Bitte" in template and "logs/run3.log" in template
    assert distill(work, "verify", "HEAD").returncode == 0
