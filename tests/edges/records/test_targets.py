"""parse_target and the commit, file and prbody adapters on real repositories."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import commit, distill, git

from diylisis.core.errors import BadInput, DistillError, GitError
from diylisis.core.model import RecordKind, Target
from diylisis.edges import gitio
from diylisis.edges.records import ADAPTERS, apply, parse_target, prbody, read_snapshot, write_channel


def _t(kind: RecordKind, locator: str, revision: str | None = None) -> Target:
    return Target(kind=kind, locator=locator, revision=revision)


# --- parse_target ---------------------------------------------------------------------------


def test_every_record_kind_has_an_adapter() -> None:
    assert set(ADAPTERS) == set(RecordKind)
    for module in ADAPTERS.values():
        for name in ("read", "write_channel", "apply", "describe"):
            assert callable(getattr(module, name))


def test_explicit_schemes(repo: Path) -> None:
    commit(repo, "Start\n", {"docs/a@b.md": "x\n"})
    assert parse_target("commit:HEAD~0", repo) == _t(RecordKind.COMMIT, "HEAD~0")
    assert parse_target("file:docs/../README.md", repo) == _t(RecordKind.FILE, "README.md")
    assert parse_target("file:README.md@HEAD", repo) == _t(RecordKind.FILE, "README.md", "HEAD")
    assert parse_target("file:README.md@HEAD@{0}", repo) == _t(
        RecordKind.FILE, "README.md", "HEAD@{0}"
    )
    assert parse_target("file:docs/a@b.md", repo) == _t(RecordKind.FILE, "docs/a@b.md")
    assert parse_target("file:docs/a@b.md@main", repo) == _t(RecordKind.FILE, "docs/a@b.md", "main")
    assert parse_target("msgfile:.git/COMMIT_EDITMSG", repo) == _t(
        RecordKind.MSGFILE, ".git/COMMIT_EDITMSG"
    )
    assert parse_target("prbody:-", repo) == _t(RecordKind.PRBODY, "-")


def test_paths_are_relative_to_the_working_directory(repo: Path) -> None:
    commit(repo, "Start\n", {"docs/a.md": "x\n"})
    assert parse_target("a.md", repo, cwd=repo / "docs") == _t(RecordKind.FILE, "docs/a.md")
    assert parse_target(str(repo / "docs" / "a.md"), repo) == _t(RecordKind.FILE, "docs/a.md")


def test_shorthands_and_ambiguity(repo: Path) -> None:
    commit(repo, "Start\n", {"notes.md": "x\n"})
    assert parse_target("notes.md", repo) == _t(RecordKind.FILE, "notes.md")
    assert parse_target("HEAD", repo) == _t(RecordKind.COMMIT, "HEAD")
    git(repo, "branch", "notes.md")
    with pytest.raises(BadInput, match=r"file:notes\.md or commit:notes\.md"):
        parse_target("notes.md", repo)
    with pytest.raises(BadInput, match="neither"):
        parse_target("no-such-thing", repo)


def test_paths_leaving_the_repository_are_refused(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Start\n")
    outside = tmp_path / "outside.md"
    outside.write_text("secret\n", encoding="utf-8")
    os.symlink(outside, repo / "link.md")
    for text in ("file:../outside.md", f"file:{outside}", "file:link.md", "file:.git/config"):
        with pytest.raises(BadInput) as caught:
            parse_target(text, repo)
        assert caught.value.exit_code == 2
    with pytest.raises(BadInput, match="symbolic link"):
        read_snapshot(_t(RecordKind.FILE, "link.md"), repo)


# --- commit: --------------------------------------------------------------------------------


def test_commit_snapshot(repo: Path) -> None:
    commit_id = commit(repo, "Subject\n\nBody  \n")
    snapshot = read_snapshot(_t(RecordKind.COMMIT, "HEAD"), repo)
    assert snapshot.data == b"Subject\n\nBody  \n"
    assert snapshot.revision == snapshot.tree_revision == commit_id
    assert commit_id in snapshot.boundary and snapshot.alternates == ()


def test_commit_bad_inputs(repo: Path) -> None:
    with pytest.raises(GitError, match="no commits yet"):
        read_snapshot(_t(RecordKind.COMMIT, "HEAD"), repo)
    commit(repo, "Start\n")
    with pytest.raises(GitError, match="unknown revision"):
        read_snapshot(_t(RecordKind.COMMIT, "v9"), repo)
    commit(repo, "x" * 2000 + "\n")
    with pytest.raises(BadInput, match="over the 1000-byte record limit"):
        read_snapshot(_t(RecordKind.COMMIT, "HEAD"), repo, max_bytes=1000)


def test_amend_write_channel(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Older\n")
    head = commit(repo, "See /tmp/run3.log\n", {"b.txt": "b\n"})
    git(repo, "branch", "other")
    assert write_channel(_t(RecordKind.COMMIT, "HEAD~1"), repo) is None
    assert write_channel(_t(RecordKind.COMMIT, "other"), repo) is None  # not HEAD itself
    channel = write_channel(_t(RecordKind.COMMIT, "HEAD"), repo)
    assert channel is not None and channel.kind == "amend"
    (repo / "staged.txt").write_text("staged\n", encoding="utf-8")
    git(repo, "add", "staged.txt")
    apply(_t(RecordKind.COMMIT, "HEAD"), repo, b"See the run log in CI\n")
    handle = gitio.open_repo(repo)
    new = gitio.resolve_commit(handle, "HEAD")
    assert new != head
    assert gitio.commit_message_bytes(handle, new) == b"See the run log in CI\n"
    assert handle[new].tree_id == handle[head].tree_id  # the staged file stayed out
    assert handle[new].parent_ids == handle[head].parent_ids
    assert handle[new].author.time == handle[head].author.time
    assert git(repo, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(repo, "remote", "add", "origin", str(bare))
    git(repo, "push", "-q", "origin", "main")
    assert write_channel(_t(RecordKind.COMMIT, "HEAD"), repo) is None
    with pytest.raises(DistillError, match="no write channel"):
        apply(_t(RecordKind.COMMIT, "HEAD"), repo, b"x\n")


# --- file: ----------------------------------------------------------------------------------


def test_file_snapshots(repo: Path) -> None:
    first = commit(repo, "Add\n", {"docs/t.md": "one\n"})
    (repo / "docs" / "t.md").write_text("two\n", encoding="utf-8")
    work = read_snapshot(_t(RecordKind.FILE, "docs/t.md"), repo)
    assert (work.data, work.revision, work.tree_revision, work.path) == (
        b"two\n",
        None,
        first,
        "docs/t.md",
    )
    at = read_snapshot(_t(RecordKind.FILE, "docs/t.md", "HEAD"), repo)
    assert (at.data, at.revision, at.tree_revision) == (b"one\n", first, first)
    assert write_channel(_t(RecordKind.FILE, "docs/t.md", "HEAD"), repo) is None
    channel = write_channel(_t(RecordKind.FILE, "docs/t.md"), repo)
    assert channel is not None and channel.kind == "worktree-commit"
    apply(_t(RecordKind.FILE, "docs/t.md"), repo, b"three\n")
    assert (repo / "docs" / "t.md").read_bytes() == b"three\n"
    with pytest.raises(DistillError, match="no write channel"):
        apply(_t(RecordKind.FILE, "docs/t.md", "HEAD"), repo, b"x\n")


def test_file_in_an_empty_repository_has_no_tree_revision(repo: Path) -> None:
    (repo / "draft.md").write_text("draft\n", encoding="utf-8")
    snapshot = read_snapshot(_t(RecordKind.FILE, "draft.md"), repo)
    assert snapshot.tree_revision is None
    with pytest.raises(GitError, match="no commits yet"):
        read_snapshot(_t(RecordKind.FILE, "draft.md", "HEAD"), repo)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"text\0binary", "binary"),
        (b"ok then caf\xe9 here", "offset 11"),
        (b"y" * 300, "300 bytes, over the 200-byte"),
    ],
)
def test_file_bad_content(repo: Path, content: bytes, message: str) -> None:
    commit(repo, "Add\n", {"bad.txt": content})
    for target in (_t(RecordKind.FILE, "bad.txt"), _t(RecordKind.FILE, "bad.txt", "HEAD")):
        with pytest.raises(BadInput, match=message) as caught:
            read_snapshot(target, repo, max_bytes=200)
        assert caught.value.exit_code == 2


def test_file_missing(repo: Path) -> None:
    commit(repo, "Start\n")
    with pytest.raises(BadInput, match="missing"):
        read_snapshot(_t(RecordKind.FILE, "gone.md"), repo)
    with pytest.raises(GitError, match="not tracked"):
        read_snapshot(_t(RecordKind.FILE, "gone.md", "HEAD"), repo)


# --- prbody: --------------------------------------------------------------------------------


def test_prbody_crlf_and_write_channel(repo: Path) -> None:
    (repo / "body.md").write_bytes(b"Summary\r\n\r\nDetails\r\n")
    snapshot = read_snapshot(_t(RecordKind.PRBODY, str(repo / "body.md")), repo)
    assert snapshot.data == b"Summary\n\nDetails\n"
    assert write_channel(_t(RecordKind.PRBODY, "-"), repo) is None
    apply(_t(RecordKind.PRBODY, str(repo / "body.md")), repo, b"Summary\n")
    assert (repo / "body.md").read_bytes() == b"Summary\n"
    with pytest.raises(DistillError, match="no write channel"):
        apply(_t(RecordKind.PRBODY, "-"), repo, b"x\n")


def test_prbody_stdin_is_read_once(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prbody, "_stdin_bytes", [])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"From stdin\r\n")))
    first = read_snapshot(_t(RecordKind.PRBODY, "-"), repo)
    second = read_snapshot(_t(RecordKind.PRBODY, "-"), repo)
    assert first.data == second.data == b"From stdin\n"


def test_prbody_binary_on_stdin_is_refused(repo: Path) -> None:
    code = (
        "from diylisis.core.model import Target, RecordKind\n"
        "from diylisis.edges.records import read_snapshot\n"
        "read_snapshot(Target(kind=RecordKind.PRBODY, locator='-'), '.')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=repo, input=b"a\0b", capture_output=True
    )
    assert done.returncode != 0 and b"binary" in done.stderr


def test_an_opened_repository_is_accepted_for_the_root(repo: Path) -> None:
    commit(repo, "Start\n", {"docs/a.md": "x\n"})
    handle = gitio.open_repo(repo)
    target = parse_target("docs/a.md", handle)
    assert read_snapshot(target, handle).data == b"x\n"


def test_history_missing_from_a_shallow_clone(repo: Path, tmp_path: Path) -> None:
    commit(repo, "One\n", {"a.md": "one\n"})
    commit(repo, "Two\n", {"a.md": "two\n"})
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth=1", "-b", "main", f"file://{repo}", str(shallow))
    assert read_snapshot(_t(RecordKind.COMMIT, "HEAD"), shallow).data == b"Two\n"
    for target in (_t(RecordKind.COMMIT, "HEAD~1"), _t(RecordKind.FILE, "a.md", "HEAD~1")):
        with pytest.raises(GitError, match="shallow"):
            read_snapshot(target, shallow)


def test_a_committed_link_into_the_git_directory_is_no_record(repo: Path) -> None:
    # certifying it would copy .git/config (remote URLs with their tokens) into a snapshot blob
    commit(repo, "Start\n")
    os.symlink(".git/config", repo / "TASK.md")
    git(repo, "add", "TASK.md")
    git(repo, "commit", "-q", "-m", "Add the task file")
    with pytest.raises(BadInput, match="into the .git directory") as caught:
        parse_target("TASK.md", repo)
    assert caught.value.exit_code == 2
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input")
    assert done.returncode == 2 and "into the .git directory" in done.stderr
    assert git(repo, "for-each-ref", "refs/distill/snapshots", "refs/notes/distill") == ""
