"""A conversation with a command on a real pseudo-terminal: the interactive gates' tests drive it."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import time
from pathlib import Path


def converse(cwd: Path, args: list[str], replies: list[tuple[str, str]], timeout: float = 60) -> tuple[int, str]:
    """Run args on a pseudo-terminal, each reply sent once its prompt text has appeared since the
    last reply; (exit status, the whole screen). A run past timeout is killed."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(args, cwd=cwd, stdin=follower, stdout=follower, stderr=follower,
                               env={**os.environ, "NO_COLOR": "1", "COLUMNS": "400"})
    os.close(follower)
    screen, since, pending = "", "", list(replies)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if not select.select([leader], [], [], 0.2)[0]:
            continue
        try:
            chunk = os.read(leader, 4096).decode("utf-8", "replace")
        except OSError:
            break
        screen, since = screen + chunk, since + chunk
        if pending and pending[0][0] in since:
            os.write(leader, (pending.pop(0)[1] + "\n").encode())
            since = ""
    if process.poll() is None:
        process.kill()
    process.wait(timeout=10)
    os.close(leader)
    return process.returncode, screen
