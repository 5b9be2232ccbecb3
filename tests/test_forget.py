"""`git distill forget` and the certificate refs' retention, on real repositories and a bare remote."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import commit, distill, git

from diylisis.edges import store

MESSAGE = "Retry failed uploads with exponential backoff\n\nUploads that fail are retried five times.\n"
SECRETISH = "Keep the upload limits in one place\n\nEvery limit is read from one table now.\n"


@pytest.fixture
def remote(repo: Path, tmp_path: Path) -> Path:
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    git(repo, "remote", "add", "origin", str(bare))
    return bare


def _objects(repo: Path) -> bytes:
    return subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo,
                          capture_output=True, check=True).stdout


def _certify(repo: Path, rev: str = "HEAD") -> None:
    done = distill(repo, "certify", rev, "--role", "reviewer")
    assert done.returncode == 0, done.stderr


def _blob(repo: Path, text: str) -> str:
    return git(repo, "hash-object", "--stdin", input=text.encode()).strip()


def test_forget_removes_the_note_and_snapshot_here_and_on_the_remote(repo: Path, remote: Path) -> None:
    commit(repo, MESSAGE, {"a.txt": "one\n"})
    _certify(repo)
    git(repo, "push", "-q", "--no-verify", "origin", "main")
    commit(repo, SECRETISH, {"a.txt": "two\n"})
    _certify(repo)
    # the certificates travel; the commit itself is amended before it is ever pushed
    git(repo, "push", "-q", "--no-verify", "origin", "refs/notes/distill", "refs/distill/snapshots")
    assert b"read from one table now" in _objects(remote)
    blob = _blob(repo, SECRETISH)
    git(repo, "commit", "-q", "--amend", "--no-verify", "-m", "Keep the upload limits together\n")
    done = distill(repo, "forget", f"blob:{blob}", "--push", "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["blob"] == blob and result["certificates"] == 1 and result["snapshot"] is True
    assert set(result["pushed"]) == {"refs/notes/distill", "refs/distill/snapshots"}
    assert any("clones" in line for line in result["still_held"])
    for where in (repo, remote):
        notes = git(where, "notes", "--ref", "distill", "list")
        assert blob not in notes and _blob(repo, MESSAGE) in notes  # only the forgotten one went
        assert blob not in git(where, "ls-tree", "-r", "refs/distill/snapshots")
    # the blob no longer reachable from any ref of the remote: gc there drops it
    git(remote, "gc", "-q", "--prune=now")
    assert b"read from one table now" not in _objects(remote)
    assert distill(repo, "verify", "HEAD~1").returncode == 0  # the other certificate still verifies


def test_forget_by_record_and_what_it_says(repo: Path) -> None:
    commit(repo, MESSAGE)
    _certify(repo)
    done = distill(repo, "forget", "HEAD")
    assert done.returncode == 0, done.stderr
    assert "removed 1 certificate(s) and its snapshot" in done.stdout
    assert "not pushed" in done.stdout and "git gc --prune=now" in done.stdout
    assert git(repo, "notes", "--ref", "distill", "list") == ""
    assert distill(repo, "verify", "HEAD").returncode == 1
    again = distill(repo, "forget", "HEAD")
    assert again.returncode == 0 and "nothing to forget" in again.stdout


@pytest.mark.parametrize("args", [("blob:123",), ("blob:" + "z" * 40,), ("no-such-rev",),
                                  ("HEAD", "--push", "--remote", "nowhere")])
def test_bad_input_is_exit_2_and_writes_nothing(repo: Path, args: tuple[str, ...]) -> None:
    commit(repo, MESSAGE)
    _certify(repo)
    before = git(repo, "for-each-ref")
    done = distill(repo, "forget", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and done.stdout == ""
    assert git(repo, "for-each-ref") == before


def test_forget_has_help() -> None:
    done = distill(Path("."), "forget", "--help")
    assert done.returncode == 0 and "blob:ID" in done.stdout


def test_a_clone_that_fetches_as_documented_keeps_every_certificate_through_gc(
        repo: Path, remote: Path, tmp_path: Path) -> None:
    for number in range(4):
        commit(repo, MESSAGE.replace("five", f"{number + 2}"))
        _certify(repo)
    git(repo, "push", "-q", "--no-verify", "origin", "main")
    assert distill(repo, "sync", "origin", "--push").returncode == 0
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    # docs/ci.md: both certificate refs, with the notes
    git(clone, "fetch", "-q", "--no-tags", "origin", "+refs/notes/distill:refs/notes/distill",
        "+refs/distill/snapshots:refs/distill/snapshots")
    git(clone, "gc", "-q", "--prune=now")
    git(clone, "notes", "--ref", "refs/notes/distill", "prune")
    assert len(git(clone, "notes", "--ref", "distill", "list").splitlines()) == 4
    root = git(clone, "rev-list", "--max-parents=0", "HEAD").strip()
    assert distill(clone, "verify", "--range", f"{root}..HEAD").returncode == 0
    # without refs/distill/snapshots the notes' blobs are unreachable: prune drops the notes,
    # as docs/certificate.md says
    bare_notes = tmp_path / "notes-only"
    git(tmp_path, "clone", "-q", str(remote), str(bare_notes))
    git(bare_notes, "fetch", "-q", "--no-tags", "origin", "+refs/notes/distill:refs/notes/distill")
    git(bare_notes, "gc", "-q", "--prune=now")
    git(bare_notes, "notes", "--ref", "refs/notes/distill", "prune")
    assert len(git(bare_notes, "notes", "--ref", "distill", "list").splitlines()) < 4
    assert store.SNAPSHOTS_REF == "refs/distill/snapshots"
