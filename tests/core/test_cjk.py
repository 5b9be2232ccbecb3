"""CjkPattern: on text without CJK characters its cheap twin matches what the full pattern matches,
and text with one is matched by the full pattern; has_cjk sees every CJK character."""

from __future__ import annotations

import random
import re

import pytest

from diylisis.core.cjk import CJK_LETTERS, CJK_TEXT, CjkPattern, has_cjk
from diylisis.core.detectors.places import MACHINE_PATH, REL_PATH, TEMP_PATH
from diylisis.core.detectors.session import LOWER_KEY, UPPER_KEY

PATTERNS = {"UPPER_KEY": UPPER_KEY, "LOWER_KEY": LOWER_KEY, "TEMP_PATH": TEMP_PATH,
            "MACHINE_PATH": MACHINE_PATH, "REL_PATH": REL_PATH}

# Pieces of the shapes these patterns look for (keys, paths, home folders), with the characters
# at their edges, and non-CJK letters beyond ASCII that the classes treat as word characters.
PIECES = ["a", "ab", "bd", "ABC", "X1", "12", "7", "-", "-", "/", "/", "~/", "./", "../", ".", ":", "\\", "_",
          "@", "#", "$", "%", " ", " ", "\n", "`", "'", '"', ")", ";", "]", "é", "ß", "ж", "—", "’", "١",
          "tmp", "/tmp", "/home/", "/Users/", "C:\\Users\\", "%TEMP%", "src", "app.py", ".txt", ":12", "#L3"]


def random_texts(count: int, seed: int) -> list[str]:
    generator = random.Random(seed)
    return ["".join(generator.choice(PIECES) for _ in range(generator.randint(1, 30))) for _ in range(count)]


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_the_twin_matches_what_the_full_pattern_matches_on_text_without_cjk(name: str) -> None:
    pattern = PATTERNS[name]
    full = re.compile(pattern.pattern, pattern.flags)
    assert pattern.plain().pattern != full.pattern  # a twin with the ranges replaced, not a copy
    for text in random_texts(3000, seed=len(name)):
        assert not has_cjk(text)
        assert [m.span() for m in pattern.plain().finditer(text)] == [m.span() for m in full.finditer(text)], text
        assert [m.groups() for m in pattern.finditer(text)] == [m.groups() for m in full.finditer(text)], text
        for at in range(len(text)):
            assert bool(pattern.match(text, at)) == bool(full.match(text, at)), (text, at)


@pytest.mark.parametrize(("name", "text", "token"), [
    ("UPPER_KEY", "修复ABC-12的问题", "ABC-12"),
    ("LOWER_KEY", "关闭bd-a1b2。", "bd-a1b2"),
    ("REL_PATH", "更新src/app.py的逻辑", "src/app.py"),
    ("REL_PATH", "見てdocs/設計/a.mdを", "docs/設計/a.md"),
    ("TEMP_PATH", "写入/tmp/run.log。继续", "/tmp/run.log"),
    ("MACHINE_PATH", "파일 /home/kim/notes.txt，다음", "/home/kim/notes.txt"),
])
def test_text_with_cjk_characters_is_matched_by_the_full_pattern(name: str, text: str, token: str) -> None:
    pattern = PATTERNS[name]
    full = re.compile(pattern.pattern, pattern.flags)
    assert has_cjk(text)
    assert [m.group() for m in pattern.finditer(text)] == [m.group() for m in full.finditer(text)]
    assert token in [m.group() for m in pattern.finditer(text)]
    # the twin reads a CJK letter as a word character, and so would not find these
    assert [m.group() for m in pattern.plain().finditer(text)] != [m.group() for m in full.finditer(text)]


def test_the_text_is_judged_afresh_when_it_changes() -> None:
    assert [m.group() for m in UPPER_KEY.finditer("see ABC-12 here")] == ["ABC-12"]
    assert [m.group() for m in UPPER_KEY.finditer("修复ABC-12的问题")] == ["ABC-12"]
    assert [m.group() for m in UPPER_KEY.finditer("seeABC-12 here")] == []


def test_has_cjk_sees_every_character_of_the_ranges_and_nothing_else() -> None:
    ranges = [(ord(CJK_TEXT[at]), ord(CJK_TEXT[at + 2])) for at in range(0, len(CJK_TEXT), 3)]
    inside = re.compile(f"[{CJK_TEXT}]")
    for first, last in ranges:
        for code in (first, (first + last) // 2, last):
            assert has_cjk(f"plain text {chr(code)}")
    for code in (0x7F, 0xE9, 0x2014, 0x2019, 0x10FF, 0x2E7F, 0x3400 - 1, 0xFFF0, 0x1F600):
        assert has_cjk(chr(code)) == bool(inside.match(chr(code)))
    assert not has_cjk("ascii only") and not has_cjk("naïve — “quoted”")


def test_a_pattern_without_the_ranges_is_refused() -> None:
    with pytest.raises(ValueError, match="CJK"):
        CjkPattern(r"[a-z]+-\d+")
    assert CjkPattern(rf"[{CJK_LETTERS}]+").search("中文") is not None
