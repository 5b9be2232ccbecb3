"""app.scan.scan_range on a real history whose findings the repository's own vocabulary decides.

Each commit's message names a scratch path and "another session"; whether they are residue
depends on that commit alone: the path is the subject of a commit whose change adds it, and
"session" is the code's own word in a tree whose code has a `session` identifier. The same
range is judged in this process and shared among forked workers, with the same results.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from diylisis.app import scan
from diylisis.core.detectors import DetectSettings
from diylisis.edges.gitio import open_repo
from diylisis.edges.gitio.history import start_walk
from tests.conftest import git

COMMITS = 160  # more than the quarter of a chunk the calling process judges before it forks


def _history(repo: Path) -> None:
    """Commit n adds the scratch path it names when n is even; its tree has code using `session`
    when n % 3 == 0 (the file is rewritten by every commit)."""
    stream = []
    for n in range(COMMITS):
        message = (f"Tune the cookie store {n}\n\nAdd another session cookie test; its database is "
                   f"/tmp/widgets/scratch-{n}.db.\n").encode()
        stream.append(b"commit refs/heads/main\n")
        stream.append(f"committer Test <test@example.com> {1_600_000_000 + n} +0000\n".encode())
        stream.append(f"data {len(message)}\n".encode() + message)
        code = ("from store import session\nsession.get('k')\n" if n % 3 == 0 else "from store import cache\n")
        code += f"SCRATCH = '/tmp/widgets/scratch-{n}.db'\n" if n % 2 == 0 else f"ROUND = {n}\n"
        stream.append(f"M 100644 inline app.py\ndata {len(code.encode())}\n".encode() + code.encode() + b"\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True)
    git(repo, "reset", "-q", "--hard", "main")


def _findings(repo: Path, jobs: int) -> dict[int, set[str]]:
    handle = open_repo(repo)
    out = {}
    for result in scan.scan_range(handle, start_walk(handle, "HEAD"), DetectSettings(), jobs=jobs):
        number = int(handle[result.revision].message.split("\n")[0].rsplit(" ", 1)[1])
        out[number] = {f.token for f in result.findings}
    return out


@pytest.mark.usefixtures("deadline")
def test_each_commit_is_judged_against_its_own_tree_and_change_here_and_in_workers(repo: Path) -> None:
    _history(repo)
    here = _findings(repo, jobs=1)
    assert len(here) == COMMITS
    for number, tokens in here.items():
        assert ("another session" in tokens) == (number % 3 != 0), number
        assert (f"/tmp/widgets/scratch-{number}.db" in tokens) == (number % 2 != 0), number
    assert _findings(repo, jobs=2) == here
