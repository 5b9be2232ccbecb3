"""A long `scan --range` prints its findings while it runs, not all at the end."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from hookutil import env, new_repo, ok


def test_scan_text_output_arrives_before_the_range_is_done(tmp_path: Path) -> None:
    work = new_repo(tmp_path / "work")
    messages = [f"Change number {n} as discussed above" for n in range(8000)]
    stream = "".join(
        f"commit refs/heads/main\ncommitter Test <t@example.com> {1700000000 + n} +0000\n"
        f"data {len(message)}\n{message}\n\n" for n, message in enumerate(messages))
    ok(work, "git", "fast-import", "--quiet", input=stream)
    base = ok(work, "git", "rev-list", "--max-parents=0", "main").strip()
    started = time.monotonic()
    running = subprocess.Popen([sys.executable, "-m", "diylisis", "scan", "--range", f"{base}..main", "--jobs", "1"],
                               cwd=work, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert running.stdout is not None
        first = running.stdout.readline()
        first_at = time.monotonic() - started
        rest, _ = running.communicate(timeout=300)
        done_at = time.monotonic() - started
    finally:
        if running.poll() is None:
            running.kill()
    assert "discussed above" in first
    print(f"first line after {first_at:.2f} s of {done_at:.2f} s")
    # the interpreter start and the imports come first either way; the findings then trickle out
    assert first_at < done_at * 0.75, "the first finding was printed only once the whole range was scanned"
    assert rest.splitlines()[-1].startswith("scan: 7999 finding(s), 7999 blocking, 0 not blocking")
