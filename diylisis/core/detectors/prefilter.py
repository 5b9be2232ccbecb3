"""The detector prefilter: literals every match of a regular expression holds, found in a text in one pass.

A rule or a lexicon fragment whose required literals are all absent from a record cannot match
it, so its regular expression is not run. `required_literals` reads a pattern in the syntax
of the `re` module by itself (no private parser of the interpreter's) and answers None
whenever it is not sure; `Prefilter` finds every literal of a set in a text with one
Aho-Corasick automaton (pyahocorasick). Literals are compared after `fold`, which merges
what the regex engine's case-insensitive matching merges.

Pure: no file, git or terminal I/O.
"""

from __future__ import annotations

from collections.abc import Iterable

from diylisis.core.lazy_pattern import LazyPattern

TYPE_CHECKING = False
if TYPE_CHECKING:  # typing costs the commit-msg hook an import
    from collections.abc import Iterator
    from typing import Protocol

    class _Automaton(Protocol):
        def iter(self, text: str) -> Iterator[tuple[int, int]]: ...

# Characters that `re` with IGNORECASE equates although their lower-case forms differ, each
# mapped to one member of its class ("ſession" matches "session"); U+0307 goes because
# "İ".lower() is "i" with a combining dot while the regex engine reads "İ" as "i".
# tests/core/detectors/test_prefilter.py checks every cased character against the running
# interpreter's `re`, so a Unicode update that adds a pair fails there, not silently here.
_EXTRA_CASES = {
    0x0131: 0x0069, 0x017F: 0x0073, 0x03B9: 0x0345, 0x03BC: 0x00B5, 0x03C3: 0x03C2, 0x03D0: 0x03B2,
    0x03D1: 0x03B8, 0x03D5: 0x03C6, 0x03D6: 0x03C0, 0x03F0: 0x03BA, 0x03F1: 0x03C1, 0x03F5: 0x03B5,
    0x1C80: 0x0432, 0x1C81: 0x0434, 0x1C82: 0x043E, 0x1C83: 0x0441, 0x1C84: 0x0442, 0x1C85: 0x0442,
    0x1C86: 0x044A, 0x1C87: 0x0463, 0x1E9B: 0x1E61, 0x1FBE: 0x0345, 0x1FD3: 0x0390, 0x1FE3: 0x03B0,
    0xA64B: 0x1C88, 0xFB06: 0xFB05,
}
_FOLD: dict[int, int | None] = {0x0307: None, **_EXTRA_CASES}


def fold(text: str) -> str:
    """text lower-cased with the regex engine's case-insensitive equivalences merged."""
    low = text.lower()
    return low if low.isascii() else low.translate(_FOLD)


# --- reading a pattern -------------------------------------------------------------------------
# A node: ("lit", char), ("set", chars or None: any of many), ("zero",) for what matches no
# character (anchors, look-arounds, \b), ("alt", (sequence, ...)) for a group or alternation,
# ("rep", node, least, most or None) for a repetition.
_Node = tuple[object, ...]
_ANY: _Node = ("set", None)
_ZERO: _Node = ("zero",)
_CLASS_ESCAPES = frozenset("dDwWsS")
_ZERO_ESCAPES = frozenset("bBAZ")
_CONTROL = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_MAX_SET = 8  # a class of more characters than this is read as any character
_MAX_ALTERNATIVES = 64


class _Unsure(Exception):
    """The pattern uses syntax this reader does not follow: it claims no literal."""


class _Reader:
    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.at = 0

    def peek(self, ahead: int = 0) -> str:
        index = self.at + ahead
        return self.text[index] if index < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        if not char:
            raise _Unsure("unexpected end")
        self.at += 1
        return char

    def alternation(self) -> _Node:
        sequences = [self.sequence()]
        while self.peek() == "|":
            self.at += 1
            sequences.append(self.sequence())
        return ("alt", tuple(sequences))

    def sequence(self) -> tuple[_Node, ...]:
        items: list[_Node] = []
        while self.peek() and self.peek() not in "|)":
            item = self.atom()
            while True:
                bounds = self.quantifier()
                if bounds is None:
                    break
                item = ("rep", item, bounds[0], bounds[1])
            items.append(item)
        return tuple(items)

    def quantifier(self) -> tuple[int, int | None] | None:
        char = self.peek()
        if char in ("*", "+", "?"):
            self.at += 1
            bounds: tuple[int, int | None] = {"*": (0, None), "+": (1, None), "?": (0, 1)}[char]
        elif char == "{":
            end = self.text.find("}", self.at)
            body = self.text[self.at + 1 : end] if end > 0 else ""
            least, comma, most = body.partition(",")
            if not body or not (least.isdigit() or not least) or not (most.isdigit() or not most):
                return None  # not a repetition: "{" is a literal brace
            if not comma and not least:
                return None
            if not least.isascii() or not most.isascii():
                return None
            self.at = end + 1
            bounds = (int(least or 0), int(most) if comma and most else (None if comma else int(least)))
        else:
            return None
        if self.peek() in ("?", "+"):  # lazy or possessive: the same strings, in another order
            self.at += 1
        return bounds

    def atom(self) -> _Node:
        char = self.take()
        if char == "(":
            return self.group()
        if char == "[":
            return self.char_class()
        if char == ".":
            return _ANY
        if char in ("^", "$"):
            return _ZERO
        if char == "\\":
            return self.escape()
        return ("lit", char)

    def group(self) -> _Node:
        zero = False
        if self.peek() == "?":
            self.at += 1
            kind = self.take()
            if kind == ":" or kind == ">":
                pass
            elif kind in ("=", "!"):
                zero = True
            elif kind == "<" and self.peek() in ("=", "!"):
                self.at += 1
                zero = True
            elif kind == "P" and self.peek() == "<" or kind == "<":
                end = self.text.find(">", self.at)
                if end < 0:
                    raise _Unsure("unterminated group name")
                self.at = end + 1
            elif kind == "P" and self.peek() == "=":
                end = self.text.find(")", self.at)
                if end < 0:
                    raise _Unsure("unterminated back reference")
                self.at = end + 1
                return ("rep", _ANY, 0, None)  # a back reference: some text, maybe none
            elif kind == "#":
                end = self.text.find(")", self.at)
                if end < 0:
                    raise _Unsure("unterminated comment")
                self.at = end + 1
                return _ZERO
            elif kind.isalpha() or kind == "-":
                flags = kind
                while self.peek() and self.peek() not in ":)":
                    flags += self.take()
                if "x" in flags or not all(flag.isalpha() or flag == "-" for flag in flags):
                    raise _Unsure("verbose or unknown flags")
                if self.take() == ")":
                    return _ZERO  # flags for the whole pattern
            else:
                raise _Unsure("conditional or unknown group")
        inner = self.alternation()
        if self.take() != ")":
            raise _Unsure("unbalanced group")
        return _ZERO if zero else inner

    def escape(self) -> _Node:
        char = self.take()
        if char in _CLASS_ESCAPES:
            return _ANY
        if char in _ZERO_ESCAPES:
            return _ZERO
        if char in _CONTROL:
            return ("lit", _CONTROL[char])
        if char in ("x", "u", "U"):
            return ("lit", self.code(char))
        if char.isdigit():
            return ("rep", _ANY, 0, None)  # a back reference or an octal escape: unknown text
        if char.isascii() and char.isalpha():
            raise _Unsure(f"escape \\{char}")
        return ("lit", char)

    def code(self, kind: str) -> str:
        width = {"x": 2, "u": 4, "U": 8}[kind]
        digits = self.text[self.at : self.at + width]
        if len(digits) != width or not all(d in "0123456789abcdefABCDEF" for d in digits):
            raise _Unsure("bad character code")
        self.at += width
        return chr(int(digits, 16))

    def char_class(self) -> _Node:
        members: set[str] = set()
        many = False
        if self.peek() == "^":
            self.at += 1
            many = True
        first = True
        while True:
            char = self.take()
            if char == "]" and not first:
                break
            first = False
            if char == "[" and self.peek() == ":":
                raise _Unsure("nested set")
            if char == "\\":
                escaped = self.take()
                if escaped in _CLASS_ESCAPES:
                    many = True
                    continue
                if escaped in _CONTROL:
                    char = _CONTROL[escaped]
                elif escaped == "b":
                    char = "\b"
                elif escaped in ("x", "u", "U"):
                    char = self.code(escaped)
                elif escaped.isascii() and escaped.isalnum():
                    raise _Unsure(f"escape \\{escaped} in a set")
                else:
                    char = escaped
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                many = True  # a range: read as many characters
                self.at += 1
                if self.take() == "\\":
                    self.take()
                continue
            members.add(char)
        if many or len(members) > _MAX_SET:
            return _ANY
        return ("set", frozenset(members))


def _parse(pattern: str) -> tuple[_Node, ...]:
    reader = _Reader(pattern)
    node = reader.alternation()
    if reader.at != len(pattern):
        raise _Unsure("unbalanced parenthesis")
    sequences: tuple[tuple[_Node, ...], ...] = node[1]  # type: ignore[assignment]
    return sequences[0] if len(sequences) == 1 else (node,)


# --- the literals a pattern requires ---------------------------------------------------------


def required_literals(pattern: str) -> frozenset[str] | None:
    """Folded literals of which every match of pattern (read case-insensitively) contains one,
    in the text and in any view of it with stretches masked to spaces (None: none known)."""
    try:
        items = _parse(pattern)
    except (_Unsure, ValueError, OverflowError):
        return None
    found = _required(items)
    if not found:
        return None
    pieces = _cut(found)
    return None if "" in pieces else pieces


def further_literals(pattern: str) -> tuple[frozenset[str], ...]:
    """Sets of folded literals besides required_literals(pattern), each also needed by every match.

    A match holds one literal of each set, so a text must hold one of each for the pattern to
    match it: the prefilter checks them once the first set has let the pattern through.
    """
    first = required_literals(pattern)
    if first is None:
        return ()
    out: list[frozenset[str]] = []
    for found in _candidates(_parse(pattern))[1:]:
        pieces = _cut(found)
        if "" not in pieces and pieces != first and pieces not in out:
            out.append(pieces)
    return tuple(out)


def _cut(found: frozenset[str]) -> frozenset[str]:
    """Each literal folded and cut to its part that is safe to look for (see _UNSAFE), without those
    that hold another: a text holding "tests" holds "test", so {"test", "tests"} says no more."""
    cut = {max(_UNSAFE.split(fold(s)), key=lambda p: len(p.strip())).strip() for s in found}
    return frozenset(s for s in cut if not any(other != s and other in s for other in cut))


# A view blanks masked characters to spaces, and every masked stretch but a one-character link
# text ("[x](url)") or line is at least three long; so a literal occurs in a view only where it
# occurs in the text once it has no space at either end, no two whitespace characters in a row,
# and no bracket or newline. Cut a literal there.
_UNSAFE = LazyPattern(r"\s{2,}|[\[\]\n]")


def _required(items: tuple[_Node, ...]) -> frozenset[str] | None:
    """A set of strings one of which every match of the item sequence contains (None: unknown)."""
    candidates = _candidates(items)
    return candidates[0] if candidates else None


def _candidates(items: tuple[_Node, ...]) -> list[frozenset[str]]:
    """Every set of strings of which each match of the item sequence contains one, best first."""
    candidates: list[frozenset[str]] = []
    run: frozenset[str] = frozenset({""})
    for item in items:
        exact = _exact(item)
        if exact is not None:
            joined = frozenset(a + b for a in run for b in exact)
            if len(joined) <= _MAX_ALTERNATIVES:
                run = joined
                continue
            candidates.append(run)
            run = exact
            continue
        # the item is not one of a few strings, but each of its matches may start with one
        starts = _exact_start(item)
        if starts is not None and "" not in starts:
            joined = frozenset(a + b for a in run for b in starts)
            if len(joined) <= _MAX_ALTERNATIVES:
                candidates.append(joined)
        candidates.append(run)
        run = frozenset({""})
        inner: frozenset[str] | None = None
        if item[0] == "alt":
            alternatives = [_required(sequence) for sequence in item[1]]  # type: ignore[attr-defined]
            if all(alternative is not None for alternative in alternatives):
                inner = frozenset().union(*alternatives)  # type: ignore[arg-type]
        elif item[0] == "rep" and item[2] >= 1:  # type: ignore[operator]
            inner = _required((item[1],))  # type: ignore[arg-type]
        if inner is not None:
            candidates.append(inner)
    candidates.append(run)
    usable = [cand for cand in candidates if cand and "" not in cand]
    # Long literals rarely occur by chance.
    return sorted(
        usable, key=lambda cand: (min(min(len(s) for s in cand), 8), -len(cand), min(len(s) for s in cand)),
        reverse=True,
    )


def _exact(item: _Node) -> frozenset[str] | None:
    """The strings an item matches, when it matches one of a few fixed strings (zero-width items match "")."""
    kind = item[0]
    if kind == "lit":
        return frozenset({item[1]})  # type: ignore[arg-type]
    if kind == "zero":
        return frozenset({""})
    if kind == "set":
        return item[1]  # type: ignore[return-value]
    if kind == "alt":
        return _union([_exact_sequence(sequence) for sequence in item[1]])  # type: ignore[attr-defined]
    if kind == "rep" and item[2] == item[3] == 1:
        return _exact(item[1])  # type: ignore[arg-type]
    if kind == "rep" and item[2] == 0 and item[3] == 1:
        once = _exact(item[1])  # type: ignore[arg-type]
        return None if once is None else once | {""}
    return None


def _exact_start(item: _Node) -> frozenset[str] | None:
    """Strings one of which every match of a group or alternation starts with (None: unknown)."""
    if item[0] == "alt":
        return _union([_fixed_start(sequence)[0] for sequence in item[1]])  # type: ignore[attr-defined]
    return None


def _exact_sequence(items: tuple[_Node, ...]) -> frozenset[str] | None:
    strings, whole = _fixed_start(items)
    return strings if whole else None


def _fixed_start(items: tuple[_Node, ...]) -> tuple[frozenset[str], bool]:
    """(the fixed strings a sequence's matches open with, whether they are its whole matches)."""
    out: frozenset[str] = frozenset({""})
    for item in items:
        exact = _exact(item)
        whole = exact is not None
        if exact is None:
            exact = _exact_start(item)
            if exact is None:
                return out, False
        joined = frozenset(a + b for a in out for b in exact)
        if len(joined) > _MAX_ALTERNATIVES:
            return out, False
        if not whole:
            return joined, False
        out = joined
    return out, True


def _union(sets: list[frozenset[str] | None]) -> frozenset[str] | None:
    if any(strings is None for strings in sets):
        return None
    union: frozenset[str] = frozenset().union(*sets)  # type: ignore[arg-type]
    return union if len(union) <= _MAX_ALTERNATIVES else None


# --- finding literals in a text --------------------------------------------------------------


class Prefilter:
    """Literals, each standing for a bit mask, found together in one pass over a folded text.

    The pass is pyahocorasick's automaton, a declared dependency, built on first use: one of the
    ASCII literals for an ASCII text (no other literal can occur in one; most records are ASCII,
    and that automaton costs about half as much to build), one of every literal for any other
    text. An interpreter that lacks pyahocorasick (a git hook run by another Python than the one
    diylisis was installed into) still gets every literal, by one substring test each: slower on
    long ranges, the same bits.
    """

    __slots__ = ("_automata", "masks", "native")

    def __init__(self, masks: tuple[tuple[str, int], ...], *, native: bool = True) -> None:
        self.masks = masks  # (folded literal, mask), each literal once
        self.native = native  # use pyahocorasick when the interpreter has it
        self._automata: dict[bool, _Automaton | None] = {}  # ASCII only? -> automaton (None: substring tests)

    def present(self, folded: str) -> int:
        """The union of the masks of every literal that occurs in folded (a fold() of the text)."""
        if not self.masks:
            return 0
        ascii_only = folded.isascii()
        if ascii_only not in self._automata:
            self._automata[ascii_only] = self._build(ascii_only)
        automaton = self._automata[ascii_only]
        bits = 0
        if automaton is not None:
            for _, mask in automaton.iter(folded):
                bits |= mask
            return bits
        for literal, mask in self.masks:
            if literal in folded:
                bits |= mask
        return bits

    def _build(self, ascii_only: bool) -> _Automaton | None:
        """The automaton of the literals (only the ASCII ones: ascii_only), None without pyahocorasick."""
        if not self.native:
            return None
        try:
            import ahocorasick  # type: ignore[import-not-found]
        except ImportError:
            return None
        automaton = ahocorasick.Automaton()
        for literal, mask in self.masks:
            if literal.isascii() or not ascii_only:
                automaton.add_word(literal, mask)
        if len(automaton) == 0:
            return None  # no literal can occur: the substring tests below find none either
        automaton.make_automaton()
        built: _Automaton = automaton
        return built


def prefilter(literals: Iterable[tuple[str, int]], *, native: bool = True) -> Prefilter:
    """The Prefilter of (folded literal, bit mask) pairs; a literal given twice stands for both masks.
    native=False uses the substring tests that stand in when pyahocorasick is missing."""
    masks: dict[str, int] = {}
    for literal, mask in literals:
        if literal:
            masks[literal] = masks.get(literal, 0) | mask
    return Prefilter(tuple(masks.items()), native=native)
