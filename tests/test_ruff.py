"""The tree passes `ruff check` with the configuration in pyproject.toml ([tool.ruff])."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_tree_passes_ruff_check() -> None:
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "diylisis", "tests", "bench", "tools"],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"ruff check reports:\n{done.stdout[-6000:]}{done.stderr[-2000:]}"


def test_the_check_sees_an_unused_import(tmp_path: Path) -> None:
    """The same command fails on an unused import, so a clean run above means something."""
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "--isolated", str(bad)],
                          cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "F401" in done.stdout, done.stdout + done.stderr
