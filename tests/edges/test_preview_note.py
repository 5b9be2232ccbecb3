"""The preview record's note: lines kept sorted and unique, and no line lost to a concurrent writer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import commit, git

from diylisis.edges import preview_note


def test_lines_stay_sorted_and_unique(repo: Path) -> None:
    base = commit(repo, "Start\n")
    for line in ('{"run": "b"}', '{"run": "a"}', '{"run": "b"}'):
        preview_note.put_line(repo, preview_note.REF, base, line)
    assert preview_note.read_lines(repo, preview_note.REF, base) == ['{"run": "a"}', '{"run": "b"}']


def test_concurrent_previews_lose_no_line(repo: Path) -> None:
    base = commit(repo, "Start\n")
    code = ("import sys\nfrom pathlib import Path\nfrom diylisis.edges import preview_note\n"
            f"preview_note.put_line(Path('.'), preview_note.REF, {base!r}, 'run ' + sys.argv[1])\n")
    writers = [subprocess.Popen([sys.executable, "-c", code, str(n)], cwd=repo, stderr=subprocess.PIPE)
               for n in range(5)]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err.decode()
    assert git(repo, "notes", "--ref", preview_note.REF, "show", base).splitlines() == [f"run {n}" for n in range(5)]
