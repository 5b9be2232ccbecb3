"""Text from records, notes and configs cannot drive the terminal (DESIGN.md, Trust).

The escaping function is checked over arbitrary text: what it prints holds no control
character, reads back to the input, and leaves printable text exactly as it was.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

from conftest import commit
from hypothesis import given, settings
from hypothesis import strategies as st

from diylisis.safe_text import visible, visible_block, visible_json

TITLE = "\x1b]0;pwned\x07"  # OSC 0: set the window title
CLEAR = "\x1b[2J"  # CSI 2 J: clear the screen
LINK = "\x1b]8;;https://evil.example/\x1b\\"  # OSC 8: start a hyperlink
RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE
LRI = "\u2066"  # LEFT-TO-RIGHT ISOLATE
CSI8 = "\x9b"  # the one-character (C1) CSI
MARKUP = "[red]x[/]"
LINK_MARKUP = "[link=https://evil.example/]y[/link]"

# one URL token (no spaces) carrying every kind: the detectors report it, so it is printed
HOSTILE_URL = f"http://localhost:8080/a{TITLE}b{CLEAR}c{LINK}d{RLO}e{LRI}f{CSI8}g{MARKUP}h{LINK_MARKUP}"
VISIBLE = ("\\x1b]0;pwned\\x07", "\\x1b[2J", "\\x1b]8;;https://evil.example/\\x1b\\", "\\u202e", "\\u2066",
           "\\x9b")
BIDI_CONTROLS = frozenset({"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"})


def raw_controls(text: str, allowed: str = "\n") -> list[str]:
    """The characters in text that a terminal acts on instead of showing (an independent list:
    Unicode's control, surrogate and separator categories and its bidirectional controls)."""
    return sorted({f"U+{ord(char):04X}" for char in text if char not in allowed and (
        unicodedata.category(char) in ("Cc", "Cs", "Zl", "Zp")
        or unicodedata.bidirectional(char) in BIDI_CONTROLS or char in "\u200e\u200f\u061c")})


def assert_shown_not_obeyed(output: str, allowed: str = "\n") -> None:
    assert raw_controls(output, allowed) == [], output
    for escape in VISIBLE:
        assert escape in output, (escape, output)


HOSTILE_TASK = f"# Task\n\nImplement the retry. The failing run is at {HOSTILE_URL} here.\n"


def hostile_record(repo: Path) -> str:
    """A committed record whose residue token holds every kind of hostile text."""
    return commit(repo, f"Fix the uploader retry\n\nThe failing run is at {HOSTILE_URL} for details.\n")


# --- the function -----------------------------------------------------------------------------


def unescape(text: str) -> str:
    """Read visible()'s escapes back (for text without backslashes of its own)."""
    short = {"n": "\n", "t": "\t", "r": "\r"}
    return re.sub(r"\\(?:x([0-9a-f]{2})|u([0-9a-f]{4})|U([0-9a-f]{8})|([ntr]))",
                  lambda m: short[m[4]] if m[4] else chr(int(m[1] or m[2] or m[3], 16)), text)


# what str.isprintable() accepts: every category but the controls, formats, surrogates,
# private use, unassigned and separators, and the space
PRINTABLE = st.characters(codec=None, categories=("L", "M", "N", "P", "S"), include_characters=" ")


@settings(max_examples=2000, derandomize=True, deadline=None)
@given(st.text(alphabet=st.characters(codec=None)))
def test_escaped_text_holds_no_control_character_and_reads_back(text: str) -> None:
    line, block = visible(text), visible_block(text)
    assert raw_controls(line, allowed="") == []
    assert raw_controls(block, allowed="\n\t") == []
    if "\\" not in text:
        assert unescape(line) == text and unescape(block) == text


@settings(max_examples=2000, derandomize=True, deadline=None)
@given(st.text(alphabet=PRINTABLE))
def test_printable_text_is_unchanged(text: str) -> None:
    assert visible(text) == text
    assert visible_block(text) == text
    assert visible_block(f"{text}\n\t{text}\n") == f"{text}\n\t{text}\n"


ANY_TEXT = st.text(alphabet=st.characters(codec=None))
JSON_VALUES = st.dictionaries(ANY_TEXT, ANY_TEXT | st.lists(ANY_TEXT, max_size=3), max_size=3)


@settings(max_examples=2000, derandomize=True, deadline=None)
@given(JSON_VALUES)
def test_escaped_json_decodes_to_the_same_values(value: object) -> None:
    document = visible_json(json.dumps(value, ensure_ascii=False, indent=2))
    assert raw_controls(document) == []
    assert json.loads(document) == value


def test_each_kind_is_shown_by_its_code() -> None:
    assert visible(f"a{TITLE}b\nc\td\x85e\u2028f") == "a\\x1b]0;pwned\\x07b\\nc\\td\\x85e\\u2028f"
    assert visible_block(f"a{CLEAR}\n\tb{RLO}\udc80\U000e0041") == "a\\x1b[2J\n\tb\\u202e\\udc80\\U000e0041"
    assert visible("한국어 café ✓ [bold]") == "한국어 café ✓ [bold]"
