"""Notes on any notes ref (diylisis.edges.notes), written and read back by git on real repositories."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import commit, git

from diylisis.core.errors import BadInput
from diylisis.edges import notes

VET_REF = "refs/notes/distill-vet"


def append_line(repo: Path | str, ref: str, target: str, line: str) -> None:
    """Add a line to target's note through the one notes writer, keeping the lines there."""
    notes.update_notes(repo, ref, {target: lambda old: old + line.encode() + b"\n"})


def test_appended_lines_are_the_note_git_notes_shows(repo: Path) -> None:
    target = commit(repo, "Start\n")
    append_line(repo, VET_REF, target, json.dumps({"run": 1}))
    append_line(repo, "distill-vet", target, json.dumps({"run": 2}))  # expanded as git notes does
    shown = git(repo, "notes", "--ref", VET_REF, "show", target)
    assert [json.loads(line) for line in shown.splitlines()] == [{"run": 1}, {"run": 2}]
    assert notes.read_note(repo, VET_REF, target) == shown.encode()
    assert git(repo, "rev-list", "--count", VET_REF).strip() == "2"  # one commit per write
    assert git(repo, "log", "-1", "--format=%s", VET_REF).strip() == "Notes added by 'git notes add'"


def test_a_note_is_read_from_what_git_notes_wrote(repo: Path) -> None:
    target = commit(repo, "Start\n")
    assert notes.read_note(repo, VET_REF, target) is None
    git(repo, "notes", "--ref", VET_REF, "add", "-m", "written by git", target)
    assert notes.read_note(repo, VET_REF, target) == b"written by git\n"
    append_line(repo, VET_REF, target, "second")
    assert git(repo, "notes", "--ref", VET_REF, "show", target) == "written by git\nsecond\n"


def test_a_new_note_follows_the_fanout_of_the_tree(repo: Path) -> None:
    first, second = commit(repo, "First\n"), commit(repo, "Second\n")
    note = git(repo, "hash-object", "-w", "--stdin", input=b"old\n").strip()
    inner = git(repo, "mktree", input=f"100644 blob {note}\t{first[2:]}\n".encode()).strip()
    root = git(repo, "mktree", input=f"040000 tree {inner}\t{first[:2]}\n".encode()).strip()
    tip = git(repo, "commit-tree", root, "-m", "fanned out").strip()
    git(repo, "update-ref", VET_REF, tip)
    append_line(repo, VET_REF, second, "new")
    paths = git(repo, "ls-tree", "-r", "--name-only", VET_REF).split()
    assert sorted(paths) == sorted([f"{first[:2]}/{first[2:]}", f"{second[:2]}/{second[2:]}"])
    assert git(repo, "notes", "--ref", VET_REF, "show", second) == "new\n"
    assert git(repo, "notes", "--ref", VET_REF, "show", first) == "old\n"


def test_concurrent_writers_lose_no_line(repo: Path) -> None:
    target = commit(repo, "Start\n")
    code = (
        "import sys\nfrom diylisis.edges import notes\n"
        "line = b'writer ' + sys.argv[1].encode() + b'\\n'\n"
        f"notes.update_notes('.', {VET_REF!r}, {{{target!r}: lambda old: old + line}})\n"
        "assert 'pygit2' not in sys.modules\n"
    )
    writers = [subprocess.Popen([sys.executable, "-c", code, str(n)], cwd=repo, stderr=subprocess.PIPE)
               for n in range(6)]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err.decode()
    lines = git(repo, "notes", "--ref", VET_REF, "show", target).splitlines()
    assert sorted(lines) == [f"writer {n}" for n in range(6)]
    assert git(repo, "for-each-ref", notes.TEMP_REF_PREFIX) == ""  # no temporary ref left behind


def test_an_attempt_on_a_stale_reading_moves_nothing_and_close_ends_its_processes(repo: Path) -> None:
    target = commit(repo, "Start\n")
    pending = notes.AttemptProcesses(repo, notes.write_queries(VET_REF, [target]))
    try:
        pending.answers()  # read before the other writer below
        append_line(repo, VET_REF, target, "other writer")
        tip = git(repo, "rev-parse", VET_REF).strip()
        edits = {target: lambda old: old + b"mine\n"}
        assert not notes._attempt(repo, VET_REF, edits, None, {}, "sha1", pending)
    finally:
        pending.close()
    assert git(repo, "rev-parse", VET_REF).strip() == tip
    assert git(repo, "notes", "--ref", VET_REF, "show", target) == "other writer\n"
    assert git(repo, "for-each-ref", notes.TEMP_REF_PREFIX) == ""
    for process in (pending.reading._process, pending.identity, pending.importer, pending.update):
        with pytest.raises(ChildProcessError):
            os.waitpid(process._started[0], os.WNOHANG)  # already reaped: nothing left to wait for
    # the next write reads the new tip and keeps the other writer's line
    notes.update_notes(repo, VET_REF, {target: lambda old: old + b"mine\n"})
    assert git(repo, "notes", "--ref", VET_REF, "show", target) == "other writer\nmine\n"


@pytest.mark.parametrize("ref, target, line, message", [
    ("refs/heads/main", None, "x", "under refs/notes/"),
    ("refs/notes/../heads/main", None, "x", "under refs/notes/"),
    (notes.TEMP_REF_PREFIX + "x", None, "x", "under refs/notes/"),
    (VET_REF, "HEAD", "x", "full object id"),
])
def test_bad_refs_and_targets_are_refused_and_nothing_is_written(
        repo: Path, ref: str, target: str | None, line: str, message: str) -> None:
    head = commit(repo, "Start\n")
    before = git(repo, "for-each-ref")
    with pytest.raises(BadInput, match=message):
        append_line(repo, ref, target or head, line)
    assert git(repo, "for-each-ref") == before


def test_a_notes_ref_that_is_no_commit_is_refused(repo: Path) -> None:
    target = commit(repo, "Start\n")
    git(repo, "update-ref", VET_REF, git(repo, "rev-parse", "HEAD^{tree}").strip())
    with pytest.raises(BadInput, match="a tree, not a commit"):
        append_line(repo, VET_REF, target, "x")
    with pytest.raises(BadInput, match="a tree, not a commit"):
        notes.read_note(repo, VET_REF, target)
