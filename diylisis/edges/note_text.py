"""The text of a certificate note: JSON Lines no line splitter breaks, read by one bounded decoder.

A note holds one certificate per line. The lines are written so that every tool that splits
text into lines agrees where they end: a line holds no character that any splitter reads as a
line break. JSON already escapes the control characters (`\\n`, `\\r`, `\\v`, `\\f`, `\\x1c`..`\\x1e`);
U+0085, U+2028 and U+2029 are written as `\\u` escapes as well, and so are lone surrogates, which
have no UTF-8 form. Other text stays readable in `git log --notes=distill`. A note is read by
splitting on "\\n" only, so a note written before those characters were escaped still reads.

A note is untrusted input (it may come from a remote): it is read by one decoder with a size
limit and a nesting limit, and anything that is not a list of certificate objects is a
CorruptNote (exit 2) naming the note, never a crash.
"""

from __future__ import annotations

import json
import re

from diylisis.core.errors import DistillError

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

# A certificate line is a few kB and a note holds one line per role; a record is at most
# about 1 MiB, and no certificate copies a whole record. 8 MiB leaves room for any real note
# while refusing a planted one before it is parsed.
MAX_NOTE_BYTES = 8 * 1024 * 1024
# A certificate nests five levels (certificate, judgments, judgment, verdict, reference).
# Python's json module recurses once per level, and so do the codec and an indented dump.
# A line with at most this many brackets needs no scan, and most certificates have fewer.
MAX_DEPTH = 64

# What str.splitlines() (and so any "universal newline" reader) breaks on that JSON leaves raw.
_LINE_BREAKS = ("\u0085", "\u2028", "\u2029")
_JSON_SPACE = " \t\r"  # a line of these (besides "\n") is blank
# Every byte but JSON's brackets and quote; a string's own brackets go with the string.
_IRRELEVANT = bytes(b for b in range(256) if b not in b'[]{}"')
# A string once everything but quotes and brackets is gone, or an unterminated one running to
# the end of the line: every '"' starts a match, so the scan is linear whatever the line holds.
# Compiled on first use (re caches it): the commit-msg path reads a note this deep only when
# one is planted, so a plain commit does not pay for compiling it.
_STRING = rb'"[^"]*(?:"|\Z)'
_OPENERS = frozenset(b"[{")


class CorruptNote(DistillError):
    """A note under the certificate ref that is not a list of certificate objects."""

    def __init__(self, blob: str, ref: str, what: str, record: str | None = None) -> None:
        self.blob, self.ref, self.what, self.record = blob, ref, what, record
        prefix = f"{record}: " if record else ""
        super().__init__(f"{prefix}corrupt certificate note on blob {blob} in {ref}: {what}; "
                         f"inspect it with git notes --ref {ref} show {blob}")

    def for_record(self, record: str) -> CorruptNote:
        """The same error, naming the record whose content the note is on."""
        return CorruptNote(self.blob, self.ref, self.what, record)

    def __reduce__(self) -> tuple[object, ...]:  # a worker process sends it to the caller whole
        return (CorruptNote, (self.blob, self.ref, self.what, self.record))


def encode_line(certificate: Mapping[str, Any]) -> str:
    """One compact JSON line, keys sorted, that every line splitter reads as one line."""
    text = json.dumps(certificate, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    if text.isascii():
        return text
    # these occur only inside strings, where an escape means the same character
    for character in _LINE_BREAKS:
        if character in text:
            text = text.replace(character, _escape(character))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate
        text = "".join(_escape(c) if "\ud800" <= c <= "\udfff" else c for c in text)
    return text


def _escape(character: str) -> str:
    return f"\\u{ord(character):04x}"


def decode_note(content: bytes, blob: str, ref: str) -> list[tuple[str, dict[str, Any]]]:
    """(line, certificate object) for each non-blank line of a note's bytes; CorruptNote otherwise."""
    if len(content) > MAX_NOTE_BYTES:
        raise CorruptNote(blob, ref, f"{len(content)} bytes, over the {MAX_NOTE_BYTES}-byte limit of a note")
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CorruptNote(blob, ref, f"not UTF-8 text (byte {error.start})") from None
    return decode_text(text, blob, ref)


def decode_text(text: str, blob: str, ref: str) -> list[tuple[str, dict[str, Any]]]:
    """decode_note for a note already read as text."""
    if len(text) > MAX_NOTE_BYTES:
        raise CorruptNote(blob, ref, f"{len(text)} characters, over the {MAX_NOTE_BYTES} limit of a note")
    found: list[tuple[str, dict[str, Any]]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip(_JSON_SPACE):
            continue
        problem = _nesting_problem(line)
        if problem:
            raise CorruptNote(blob, ref, f"line {number} is {problem}")
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise CorruptNote(blob, ref, f"line {number} is not JSON ({error.msg})") from None
        except ValueError as error:  # JSON that Python will not hold, as a number of 5,000 digits
            raise CorruptNote(blob, ref, f"line {number} is not usable JSON ({error})") from None
        if not isinstance(value, dict) or not isinstance(value.get("role"), str):
            raise CorruptNote(blob, ref, f"line {number} is not a JSON object with a role")
        found.append((line, value))
    return found


def _nesting_problem(line: str) -> str | None:
    """Why json.loads should not be handed this line (brackets nested deeper than MAX_DEPTH, which
    it would recurse into), or None. Valid JSON nested at most MAX_DEPTH deep always passes.

    Escaped backslashes and quotes are dropped first, then every byte but brackets and quotes
    (UTF-8 never uses those bytes inside a multi-byte character), then the strings; what is left
    is the line's brackets as json.loads reads them, up to where it would stop at an error."""
    if line.count("[") + line.count("{") <= MAX_DEPTH:
        return None  # cannot nest deeper than it has brackets
    data = line.encode("utf-8", "surrogatepass").replace(b"\\\\", b"").replace(b'\\"', b"")
    depth = 0
    for byte in re.sub(_STRING, b"", data.translate(None, _IRRELEVANT)):
        if byte in _OPENERS:
            depth += 1
            if depth > MAX_DEPTH:
                return f"nested more than {MAX_DEPTH} levels deep"
        else:
            depth -= 1  # below zero, or a mismatched pair: json.loads stops there with an error
    return None


def stored_certificates(repo_root: Any, data: bytes, record: str) -> list[tuple[dict[str, Any], Any]]:
    """(note object, Certificate) for each certificate stored for these snapshot bytes; a note that
    does not parse, or holds a certificate that does not decode, is a CorruptNote naming record."""
    from diylisis.core import codec
    from diylisis.edges import store

    config = store.settings(repo_root)
    blob = store.blob_id(data, config.object_format)
    try:
        notes = store.get(repo_root, data)
    except CorruptNote as error:
        raise error.for_record(record) from None
    decoded = []
    for number, note in enumerate(notes, start=1):
        try:
            decoded.append((note, codec.certificate_from_dict(note)))
        except (codec.DecodeError, ValueError) as error:
            raise CorruptNote(blob, config.notes_ref, f"certificate {number} does not decode ({error})",
                              record) from None
    return decoded
