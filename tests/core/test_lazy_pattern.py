"""LazyPattern answers as re.compile(pattern, flags) does, and compiles only when first asked."""

from __future__ import annotations

import re

import pytest

from diylisis.core.lazy_pattern import LazyPattern

TEXT = "Phase 2 ships v12; phase 3b waits.\nSee <!-- distill: off --> and www.example.org."


@pytest.mark.parametrize(("pattern", "flags"), [
    (r"(?im)^\W*phase (\d[a-z]?)", 0),
    (r"v\d+", 0),
    (r"\s+", 0),
    (r"<!--.*?-->", re.S),
    (r"(p)(h)ase", re.I),
])
def test_every_method_answers_as_the_compiled_pattern(pattern: str, flags: int) -> None:
    lazy, compiled = LazyPattern(pattern, flags), re.compile(pattern, flags)
    assert (lazy.pattern, lazy.flags) == (pattern, flags)
    assert [m.span() for m in lazy.finditer(TEXT)] == [m.span() for m in compiled.finditer(TEXT)]
    assert lazy.findall(TEXT) == compiled.findall(TEXT)
    assert lazy.split(TEXT) == compiled.split(TEXT)
    assert lazy.sub("#", TEXT) == compiled.sub("#", TEXT)
    for probe in (TEXT, "v12", "Phase 2"):
        assert bool(lazy.search(probe)) == bool(compiled.search(probe))
        assert bool(lazy.match(probe)) == bool(compiled.match(probe))
        assert bool(lazy.fullmatch(probe)) == bool(compiled.fullmatch(probe))
    assert bool(lazy.match(TEXT, 6)) == bool(compiled.match(TEXT, 6))
    assert lazy.compiled() is lazy.compiled()


def test_a_pattern_is_compiled_on_first_use_not_when_defined() -> None:
    broken = LazyPattern("(unclosed")  # defining it costs nothing and raises nothing
    with pytest.raises(re.error):
        broken.search("unclosed")
