"""The interactive gate on a real terminal (a pseudo-terminal drives the prompts)."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from conftest import commit, git


def _converse(cwd: Path, args: list[str], replies: list[tuple[str, str]], timeout: float = 60) -> tuple[int, str]:
    """Run args on a pseudo-terminal, sending each reply once its prompt text has appeared."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(args, cwd=cwd, stdin=follower, stdout=follower, stderr=follower,
                               env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"})
    os.close(follower)
    screen, since, pending = "", "", list(replies)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        ready, _, _ = select.select([leader], [], [], 0.2)
        if not ready:
            continue
        try:
            chunk = os.read(leader, 4096).decode("utf-8", "replace")
        except OSError:
            break
        screen += chunk
        since += chunk
        if pending and pending[0][0] in since:
            os.write(leader, (pending.pop(0)[1] + "\n").encode())
            since = ""
    if process.poll() is None:
        process.kill()
    process.wait(timeout=10)
    os.close(leader)
    return process.returncode, screen


def test_prompts_show_evidence_then_one_question_per_item(repo: Path) -> None:
    commit(repo, "Add task\n", {"docs/a.md": "# A\n", "TASK.md": "Implement it as above.\n"})
    code, screen = _converse(repo, [sys.executable, "-m", "diylisis", "certify", "TASK.md", "--role", "implementer"],
                             [("[resolve/route/drop/defer]", "resolve"), ("resolve with", "as described in docs/a.md"),
                              ("answer", "an agent with the repository"), ("answer", "derived"),
                              ("[y/n]", "y")])
    assert "Substitution table" in screen and "as above" in screen
    assert code == 0, screen
    assert "as described in docs/a.md" in (repo / "TASK.md").read_text()
    assert "Distill-Run:" in git(repo, "log", "-1", "--format=%B")
