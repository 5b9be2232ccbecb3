"""The package passes `mypy --strict` with the configuration in pyproject.toml ([tool.mypy])."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_package_passes_mypy_strict() -> None:
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-error-summary"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"mypy --strict reports:\n{done.stdout[-6000:]}{done.stderr[-2000:]}"


def test_the_check_sees_a_type_error(tmp_path: Path) -> None:
    """The same command fails on an Optional used as a value, so a clean run above means something."""
    bad = tmp_path / "bad.py"
    bad.write_text("def first(words: list[str]) -> str:\n    found = words[0] if words else None\n"
                   "    return found.upper()\n")
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", str(bad)], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1 and "union-attr" in done.stdout, done.stdout + done.stderr
