"""Patterns shipped compiled (diylisis/precompiled.py): current, equal to freshly compiled ones, and optional."""

from __future__ import annotations

import ast
import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from diylisis import precompiled
from diylisis.detectors import RULES

SHIPPED = Path(precompiled.data_path())
needs_file = pytest.mark.skipif(not SHIPPED.exists(), reason=f"no compiled patterns shipped for {SHIPPED.name}")


def _entries(data: bytes) -> list[tuple]:
    header, entries = marshal.loads(data)
    assert header == precompiled._header()
    return entries


@needs_file
def test_the_shipped_file_holds_what_the_commit_msg_path_compiles_now() -> None:
    env = dict(os.environ, DIYLISIS_PRECOMPILED="0")
    script = "import sys; from diylisis import precompiled; sys.stdout.write(repr(precompiled.collect()))"
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    fresh = precompiled.build(ast.literal_eval(done.stdout))
    assert _entries(SHIPPED.read_bytes()) == _entries(fresh), (
        f"{SHIPPED.name} is stale: python -m diylisis.precompiled --write"
    )


@needs_file
def test_a_shipped_pattern_matches_exactly_what_re_compiles() -> None:
    texts = [rule.doc for rule in RULES] + ["Fix #12 in src/a.py; see /tmp/x.log. Task #4, round 2, ABC-123."]
    import _sre
    from array import array

    for pattern, flags, final_flags, code, groups, groupindex, indexgroup in _entries(SHIPPED.read_bytes()):
        shipped = _sre.compile(pattern, final_flags, array("I", code).tolist(), groups, groupindex, indexgroup)
        fresh = re._compiler.compile(pattern, flags)  # type: ignore[attr-defined]
        assert (shipped.flags, shipped.groups, shipped.groupindex) == (fresh.flags, fresh.groups, fresh.groupindex)
        for text in texts:
            subject: str | bytes = text.encode() if isinstance(pattern, bytes) else text
            assert [m.span() for m in shipped.finditer(subject)] == [m.span() for m in fresh.finditer(subject)]


@needs_file
def test_the_commit_msg_path_finds_its_patterns_compiled() -> None:
    # in a fresh interpreter: importing diylisis installs the file, and the detectors' module
    # patterns are the very objects it put in re's cache (a long test process may evict them)
    script = (
        "import re; from diylisis import precompiled; from diylisis.detectors.text import CODE_SPAN; "
        "print(precompiled.installed, re._cache[str, CODE_SPAN.pattern, 0] is CODE_SPAN)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    count, same = done.stdout.split()
    assert int(count) > 50 and same == "True"


def test_it_can_be_turned_off_and_ignores_a_file_of_another_interpreter(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("DIYLISIS_PRECOMPILED", "0")
    assert precompiled.install() == 0
    monkeypatch.delenv("DIYLISIS_PRECOMPILED")
    foreign = tmp_path / "patterns.bin"
    header = (precompiled.FORMAT, "other-99", (9, 9), 0, 4)
    foreign.write_bytes(marshal.dumps((header, [("x", 32, 32, b"", 0, {}, ())])))
    monkeypatch.setattr(precompiled, "data_path", lambda: str(foreign))
    before = dict(re._cache)  # type: ignore[attr-defined]
    assert precompiled.install() == 0
    assert re._cache == before  # type: ignore[attr-defined]
    foreign.write_bytes(b"not marshal data")
    assert precompiled.install() == 0
