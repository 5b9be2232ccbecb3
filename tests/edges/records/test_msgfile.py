"""msgfile: the hook's reduction equals what git stores, proven through real `git commit` runs."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import commit, git

from diylisis.core.errors import BadInput
from diylisis.core.model import RecordKind, Target, sha256_digest
from diylisis.edges import gitio
from diylisis.edges.records import msgfile, read_snapshot

HOOK = """#!/bin/sh
cp "$1" "$(git rev-parse --git-dir)/captured-message"
"""

EDITOR = """#!/bin/sh
# an editor session: a subject and body above git's template, a stray comment below it
{ printf 'Subject from the editor\\n\\n  Body line with trailing blanks   \\n'
  printf '\\n\\n\\nSecond paragraph\\t\\n'
  cat "$1"
  printf '%s note the editor left in a comment\\n\\n\\n' "${COMMENT:-#}"
} > "$1.new" && mv "$1.new" "$1"
"""


def _script(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def hooked(repo: Path) -> Path:
    """A repository with one commit, a commit-msg hook that captures the message file."""
    git(repo, "config", "--unset", "commit.cleanup")
    commit(repo, "Start the history\n", {"a.txt": "one\n"})
    _script(repo / ".git" / "hooks" / "commit-msg", HOOK)
    return repo


def _commit(repo: Path, *args: str, input: bytes | None = None, comment: str = "#") -> str:
    """Change a file, commit with these git commit options, return the commit id."""
    (repo / "a.txt").write_text(f"{os.urandom(4).hex()}\n", encoding="utf-8")
    git(repo, "add", "a.txt")
    env = {
        **os.environ,
        "GIT_EDITOR": str(_script(repo.parent / "editor.sh", EDITOR)),
        "COMMENT": comment,
    }
    done = subprocess.run(
        ["git", "commit", "-q", *args], cwd=repo, input=input, env=env, capture_output=True
    )
    assert done.returncode == 0, done.stderr.decode()
    return git(repo, "rev-parse", "HEAD").strip()


def _check(repo: Path, commit_id: str, *, exact: bool) -> None:
    """The committed message's digest is data's (exact) or one of the alternates'."""
    captured = repo / ".git" / "captured-message"
    snapshot = read_snapshot(Target(kind=RecordKind.MSGFILE, locator=str(captured)), repo)
    stored = gitio.commit_message_bytes(gitio.open_repo(repo), commit_id)
    digests = [sha256_digest(snapshot.data), *(sha256_digest(a) for a in snapshot.alternates)]
    if exact:
        assert snapshot.data == stored, (snapshot.data, stored)
    assert sha256_digest(stored) in digests, (stored, snapshot.data, snapshot.alternates)


MESSAGE = b"Fix the parser\n\n#12 is not a comment here   \nBody line\t \n\n\n\nLast line\n\n"


def test_default_cleanup_with_m_is_data(hooked: Path) -> None:
    _check(hooked, _commit(hooked, "-m", MESSAGE.decode()), exact=True)


def test_default_cleanup_with_file_is_data(hooked: Path) -> None:
    _check(hooked, _commit(hooked, "-F", "-", input=MESSAGE), exact=True)


def test_default_cleanup_with_editor_is_data(hooked: Path) -> None:
    _check(hooked, _commit(hooked), exact=True)


def test_default_cleanup_with_editor_and_verbose_diff_is_data(hooked: Path) -> None:
    commit_id = _commit(hooked, "-v")
    captured = (hooked / ".git" / "captured-message").read_bytes()
    assert b">8" in captured and b"diff --git" in captured  # the hook saw the diff
    _check(hooked, commit_id, exact=True)


def test_edited_message_from_m_is_data(hooked: Path) -> None:
    _check(hooked, _commit(hooked, "-e", "-m", "Seed subject\n\nseed body"), exact=True)


def test_message_ending_in_hash_line_with_m_is_an_alternate(hooked: Path) -> None:
    # -m keeps '#' lines (whitespace cleanup); the hook cannot tell it from an editor's comment
    _check(hooked, _commit(hooked, "-m", "Subject\n\n#7 closes it"), exact=False)


def test_custom_comment_char(hooked: Path) -> None:
    git(hooked, "config", "core.commentChar", ";")
    _check(hooked, _commit(hooked, comment=";"), exact=True)
    _check(hooked, _commit(hooked, "-v", comment=";"), exact=True)
    _check(hooked, _commit(hooked, "-m", MESSAGE.decode()), exact=True)


def test_auto_comment_char(hooked: Path) -> None:
    git(hooked, "config", "core.commentChar", "auto")
    # the seed message starts lines with '#', so git picks ';' for its template
    _check(hooked, _commit(hooked, "-e", "-m", "#1 subject\n\n;x body", comment="@"), exact=False)
    _check(hooked, _commit(hooked, "-v", "-e", "-m", "#1 subject", comment=";"), exact=True)
    _check(hooked, _commit(hooked, comment="#"), exact=True)


@pytest.mark.parametrize("mode", ["strip", "whitespace", "verbatim", "scissors", "default"])
@pytest.mark.parametrize(
    "args", [(), ("-v",), ("-m", MESSAGE.decode()), ("-F", "-")], ids=["editor", "v", "m", "F"]
)
def test_every_cleanup_mode_is_covered(hooked: Path, mode: str, args: tuple[str, ...]) -> None:
    git(hooked, "config", "commit.cleanup", mode)
    commit_id = _commit(hooked, *args, input=MESSAGE if "-F" in args else None)
    _check(hooked, commit_id, exact=False)


@pytest.mark.parametrize(
    "text",
    [
        b"",
        b"\n\n\n",
        b"  leading\n\n\n\nmiddle  \t\r\n\n\ntrailing\n\n",
        b"no newline at end",
        b"# comment\nkept\n#another\n\n\n # indented is kept\n",
        b"form\x0cfeed\x0b\nvertical tab kept\x0b\n",
        b"cr\ronly\rline\r\n",
    ],
)
def test_stripspace_matches_git(repo: Path, text: bytes) -> None:
    for flag, comment in ((), None), (("-s",), b"#"):
        expected = subprocess.run(
            ["git", "stripspace", *flag], cwd=repo, input=text, capture_output=True, check=True
        ).stdout
        assert msgfile.stripspace(text, comment) == expected


def test_missing_message_file_is_bad_input(repo: Path) -> None:
    with pytest.raises(BadInput, match="does not exist"):
        read_snapshot(Target(kind=RecordKind.MSGFILE, locator=str(repo / "nope")), repo)


def test_non_utf8_message_reports_offset(repo: Path) -> None:
    (repo / "msg").write_bytes(b"Subject\n\ncaf\xe9\n")
    with pytest.raises(BadInput, match="offset 12"):
        read_snapshot(Target(kind=RecordKind.MSGFILE, locator=str(repo / "msg")), repo)


def test_hook_path_does_not_import_pygit2(repo: Path) -> None:
    (repo / "msg").write_bytes(b"Subject\n")
    code = (
        "import sys\nfrom diylisis.core.model import Target, RecordKind\n"
        "from diylisis.edges.records import read_snapshot\n"
        "s = read_snapshot(Target(kind=RecordKind.MSGFILE, locator='msg'), '.')\n"
        "assert s.data == b'Subject\\n'\n"
        "assert 'pygit2' not in sys.modules, 'pygit2 imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=repo, check=True)
