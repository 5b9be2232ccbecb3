"""Run the note and answers-file properties (tests/test_notes_fuzz.py) with many more examples.

CI runs each property 2,000 times from a fixed seed. This runs them EXAMPLES times each
(default 50,000) from fresh seeds, so each run explores new inputs; hypothesis prints a
failing example and the seed that reproduces it.

    .venv/bin/python bench/fuzz.py                 # 50,000 examples per property
    .venv/bin/python bench/fuzz.py 200000 -k note  # more, for the note properties only

Arguments after the count go to pytest. Exit status is pytest's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    examples = argv[0] if argv and argv[0].isdigit() else "50000"
    rest = argv[1:] if argv and argv[0].isdigit() else argv
    environment = {**os.environ, "DISTILL_FUZZ_EXAMPLES": examples}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--durations=0",
               str(ROOT / "tests" / "test_notes_fuzz.py"), *rest]
    print(f"fuzz: {examples} examples per property", flush=True)
    return subprocess.run(command, cwd=ROOT, env=environment, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
