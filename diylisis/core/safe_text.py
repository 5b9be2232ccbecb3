"""Text that cannot drive a terminal: the one escaping step for everything we print.

A record's text, a note, a configuration and a refuter's output are written by someone else
(DESIGN.md, Trust). Printed raw, their control characters would set the window title, clear
the screen, plant hyperlinks or reorder what the reader sees; each is shown here as a visible
escape instead (ESC as `\\x1b`, RIGHT-TO-LEFT OVERRIDE as `\\u202e`). Printable text, in any
script, is left exactly as it is.

- `visible(text)`: a value printed inside one line of ours (a token, a path, a reason):
  newline and tab are escaped too, so a value cannot forge a line of its own.
- `visible_lines(lines)`: lines of ours joined into a report, each escaped as by `visible`.
- `visible_block(text)`: text printed as a block (a prompt, a whole report): newline and tab
  are kept for layout, every other control character is escaped.
- `visible_json(document)`: a JSON document (already serialized) with the same characters
  written as JSON `\\uXXXX` escapes, so it decodes to exactly the same values.
"""

from __future__ import annotations

import re
from functools import cache

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Iterable

# What a terminal or a reader's eye acts on instead of showing it: the C0 controls, DEL and
# the C1 controls (U+0085 NEXT LINE and U+009B, the one-character CSI, among them); the line
# and paragraph separators U+2028/U+2029; the bidirectional marks, embeddings, overrides and
# isolates (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069), which reorder the text
# around them; lone surrogates, which a UTF-8 terminal stream cannot even encode; the
# noncharacters U+FDD0-U+FDEF (never text, so free to mark our own color codes, see app/hooks/shared.py)
# and the tag characters U+E0000-U+E007F, invisible letters that can hide a second message.
_UNSEEN = (
    "\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff\ufdd0-\ufdef"
    "\U000e0000-\U000e007f"
)
_SHORT = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _SHORT:
        return _SHORT[char]
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


@cache
def _pattern(kept: str) -> re.Pattern[str]:
    # compiled on first need: the class takes about 1.5 ms to compile, more than a clean
    # commit's whole hook run spends printing (nothing), and printable text never needs it
    controls = "".join(chr(code) for code in range(0x20) if chr(code) not in kept)
    return re.compile(f"[{re.escape(controls)}{_UNSEEN}]")


def visible(text: str) -> str:
    """text for one line of output: every control character, newline and tab included, as an escape."""
    if text.isprintable():  # the common case, and far faster than the pattern
        return text
    return _pattern("").sub(_escape, text)


def visible_lines(lines: Iterable[str]) -> str:
    """lines joined by newlines, each escaped as by visible(), a line break inside one included."""
    return "\n".join(map(visible, lines))


def visible_block(text: str) -> str:
    """text for a block of output: newlines and tabs kept, every other control character as an escape."""
    if text.replace("\n", "").replace("\t", "").isprintable():
        return text
    return _pattern("\n\t").sub(_escape, text)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON writes a character beyond the BMP as its UTF-16 surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def visible_json(document: str) -> str:
    """A serialized JSON document with every control character json.dumps leaves raw as a `\\uXXXX` escape.

    Outside strings a JSON document is ASCII without controls, so only string contents change,
    and each to an escape that decodes to the same character.
    """
    if document.isascii() and "\x7f" not in document:  # DEL is ASCII, and json.dumps leaves it raw
        return document
    return _pattern("".join(map(chr, range(0x20)))).sub(_json_escape, document)  # json.dumps escaped C0
