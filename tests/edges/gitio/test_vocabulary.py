"""gitio.vocabulary on real temporary repositories: the answers `git grep` and `git diff-tree` give.

Each case is asked twice: of PygitContext (in this process) and of GitCommandContext at the
same revision (the git binary, as the commit-msg hook asks), and both must agree with what
the case expects.
"""

from __future__ import annotations

import os
from pathlib import Path

import pygit2

from diylisis.edges.gitio.context import CHANGE_LIMIT, GitCommandContext, PygitContext
from tests.conftest import commit, git


def identifier_used(repo: Path, revision: str, name: str) -> bool:
    ours = PygitContext(pygit2.Repository(str(repo)), revision).uses_identifier(name)
    assert ours == GitCommandContext(repo, revision).uses_identifier(name), (revision, name)
    return ours


def in_change(repo: Path, revision: str, text: str) -> bool:
    ours = PygitContext(pygit2.Repository(str(repo)), revision).in_change(text)
    assert ours == GitCommandContext(repo, revision).in_change(text), (revision, text)
    return ours


def test_a_name_declared_assigned_called_or_used_as_an_attribute_is_an_identifier(repo: Path) -> None:
    head = commit(repo, "Add code", {
        "app.py": "class Session:\n    pass\n",
        "lib/store.py": "cache = {}\ncache.get('k')\nopen_file (path)\nreturn self.timeout\n",
        "notes.txt": "The session ends when the timeout passes.\ncount == 3\n",
    })
    for name in ("Session", "cache", "open_file", "timeout"):
        assert identifier_used(repo, head, name), name
    for name in ("session", "count", "passes", "Widget", "not-a-name"):
        assert not identifier_used(repo, head, name), name


def test_symlinks_binary_files_and_submodules_are_not_searched(repo: Path) -> None:
    commit(repo, "Add data", {"data.bin": b"\x00\x01def handler(x)\n", "README.md": "Widgets.\n"})
    os.symlink("def linked(", repo / "link")
    git(repo, "add", "link")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{git(repo, 'rev-parse', 'HEAD').strip()},vendor")
    head = commit(repo, "Add the link and the submodule", {})
    assert not identifier_used(repo, head, "handler")
    assert not identifier_used(repo, head, "linked")


def test_the_answer_follows_each_commit_of_a_history(repo: Path) -> None:
    with_it = commit(repo, "Add sessions", {"src/web/app.py": "session = make()\n", "src/db.py": "x = 1\n"})
    without = commit(repo, "Remove sessions", {"src/web/app.py": "store = make()\n"})
    again = commit(repo, "Touch another file", {"src/db.py": "x = 2\n"})
    back = commit(repo, "Restore sessions", {"src/web/app.py": "session = make()\n"})
    answers = [identifier_used(repo, revision, "session") for revision in (with_it, without, again, back, with_it)]
    assert answers == [True, False, False, True, True]


def test_the_change_holds_what_its_lines_and_headers_name(repo: Path) -> None:
    commit(repo, "Start", {"load.py": "ROOT = '/home/dana/data'\nSTEP = 2\n", "keep.py": "KEEP = '/srv/keep/x'\n"})
    head = commit(repo, "Drop the root", {"load.py": "ROOT = None\nSTEP = 2\n", "docs/new guide.md": "{{ title }}\n"})
    assert in_change(repo, head, "/home/dana/data")  # a removed line
    assert in_change(repo, head, "{{ title }}")  # an added line
    assert in_change(repo, head, "docs/new guide.md")  # a header (git ends it with a tab: it holds a space)
    assert in_change(repo, head, "a/load.py")
    assert not in_change(repo, head, "STEP = 2")  # unchanged, in a changed file
    assert not in_change(repo, head, "/srv/keep/x")  # a file the commit does not touch
    assert not in_change(repo, head, "nowhere at all")


def test_moved_and_repeated_lines_answer_as_git_aligns_them(repo: Path) -> None:
    block = "    .. code-block:: python\n\n"
    commit(repo, "Start", {"guide.rst": "Intro\n\n" + block + "    one()\n\n" + block + "    two()\n\n"})
    head = commit(repo, "Move", {"guide.rst": "Intro\n\n" + block + block + "    one()\n\n    two()\n\n"})
    for text in ("code-block", "one()", "two()", "Intro"):
        in_change(repo, head, text)  # whatever git says, both agree
    assert in_change(repo, head, "guide.rst")


def test_a_root_commit_a_merge_and_a_mode_change(repo: Path) -> None:
    root = commit(repo, "Start", {"tool.sh": "echo start\n"})
    assert in_change(repo, root, "echo start") and in_change(repo, root, "/dev/null")
    git(repo, "update-index", "--chmod=+x", "tool.sh")
    mode = commit(repo, "Make it executable", {})
    assert not in_change(repo, mode, "tool.sh")  # no line of text changes
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, "Side", {"side.txt": "from the side\n"})
    git(repo, "checkout", "-q", "main")
    commit(repo, "Main", {"main.txt": "on main\n"})
    git(repo, "merge", "-q", "--no-edit", "side")
    merge = git(repo, "rev-parse", "HEAD").strip()
    assert not in_change(repo, merge, "from the side")  # diff-tree shows a merge no change


def test_binary_files_by_their_bytes_or_their_diff_attribute(repo: Path) -> None:
    commit(repo, "Attributes", {".gitattributes": "*.dat -diff\n*.txt diff\n"})
    head = commit(repo, "Data", {
        "blob.bin": b"\x00\x01/tmp/scratch/one\n",
        "table.dat": "/tmp/scratch/two\n",
        "raw.txt": b"\x00/tmp/scratch/three\n",
    })
    assert not in_change(repo, head, "/tmp/scratch/one")
    assert not in_change(repo, head, "/tmp/scratch/two")
    assert in_change(repo, head, "/tmp/scratch/three")  # the diff attribute says text
    assert not in_change(repo, head, "blob.bin")  # a binary file has no ---/+++ lines


def test_quoted_paths_symlinks_and_submodules_as_git_prints_them(repo: Path) -> None:
    head = commit(repo, "Names", {"café/menu.txt": "soup\n", "tab\there.txt": "x\n"})
    assert in_change(repo, head, "café/menu.txt")  # core.quotePath false (the fixture's)
    assert in_change(repo, head, '"b/tab\\there.txt"')
    git(repo, "config", "core.quotePath", "true")
    assert not in_change(repo, head, "café/menu.txt")
    assert in_change(repo, head, '"b/caf\\303\\251/menu.txt"')
    os.symlink("/opt/widgets/current", repo / "current")
    git(repo, "add", "current")
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{head},vendor")
    linked = commit(repo, "Link", {})
    assert in_change(repo, linked, "/opt/widgets/current")
    assert in_change(repo, linked, f"Subproject commit {head}")


def test_a_change_larger_than_gits_output_is_read_is_cut_where_git_cuts_it(repo: Path) -> None:
    line = "x" * 99 + "\n"
    head = commit(repo, "Vendor", {"vendor.txt": line * (CHANGE_LIMIT // len(line) + 10) + "/tmp/the/end\n",
                                   "a-first.txt": "/tmp/the/start\n"})
    assert in_change(repo, head, "/tmp/the/start")
    assert not in_change(repo, head, "/tmp/the/end")


def test_texts_that_span_lines_or_hold_a_replacement_character(repo: Path) -> None:
    head = commit(repo, "Two lines", {"notes.txt": "first line\nsecond line\n", "bad.txt": b"caf\xe9 menu\n"})
    assert in_change(repo, head, "first line\nsecond")  # the changed lines are joined with line feeds
    assert in_change(repo, head, "caf\ufffd menu")  # git's output is read with replacement characters
    assert not in_change(repo, head, "line\r")


def test_a_file_record_has_no_change(repo: Path) -> None:
    head = commit(repo, "Add", {"docs/plan.md": "/tmp/plan/notes\n"})
    context = PygitContext(pygit2.Repository(str(repo)), head, exclude_path="docs/plan.md")
    assert not context.in_change("/tmp/plan/notes")
