"""Per-language word lists kept as data (lexicons/<lang>.toml), loaded lazily and compiled once.

A lexicon entry is a regular-expression fragment matched case-insensitively. Languages
whose words are space-delimited (`boundary = "word"`) get ASCII word boundaries around
each fragment; Korean (`boundary = "none"`) does not, because particles attach to the
noun ("위에서", "그 파일을") and a word boundary would never match.

What the prefilter derives from the lexicons (each fragment's required literals, found by
parsing it with re._parser) and the parsed entries themselves are shipped precomputed in
lexicons/derived.json, so a one-record process such as the commit-msg hook skips that work.
The file records a digest of what it was made from (the TOML files, this module's source,
the interpreter); when the digest differs everything is computed as before. Regenerate it
with `python -m diylisis.detectors.lexicon --write-cache`.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from dataclasses import dataclass

from diylisis import precompiled
from diylisis.digests import sha256

# os.path, not pathlib: the commit-msg hook imports this module and nothing else it loads needs pathlib
LEXICON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lexicons")
CACHE_PATH = os.path.join(LEXICON_DIR, "derived.json")
_LEFT = r"(?<![A-Za-z0-9_])"
_RIGHT = r"(?![A-Za-z0-9_])"


@dataclass(frozen=True, slots=True, kw_only=True)
class Lexicon:
    """The merged word lists of the enabled languages."""

    languages: tuple[str, ...]

    def pattern(self, key: str) -> re.Pattern[str] | None:
        """One compiled alternation of every enabled language's fragments under key (None: no entries)."""
        return _compiled(self.languages, key)

    def words(self, key: str) -> tuple[str, ...]:
        """The raw entries under key (for plain word sets, not patterns)."""
        return _words(self.languages, key)

    def triggers_in(self, folded: str) -> int:
        """One bit mask over every key's fragments: those whose required literals occur in folded.

        A key's fragments take consecutive bits, in order (key_bits). folded is the fold() of a
        record's text; a literal has no run of whitespace, so what occurs in a masked view of the
        text occurs in the text.

        Each distinct whitespace-separated token of folded is looked up once per process: a
        trie-shaped alternation lists the longest literal piece starting at each position of
        the token, and the pieces that are its prefixes come with it.
        """
        _SEEN[self.languages] = seen = _SEEN.get(self.languages, 0) + 1
        if seen <= _WARM_UP:
            return _confirmed(self.languages, _triggers_one_by_one(self.languages, folded), folded)
        return _confirmed(self.languages, _triggers_scanned(self.languages, folded))

    def key_bits(self, key: str) -> int:
        """The bits of key's fragments in a triggers_in() mask (0: no language has the key, or it is read whole);
        for a SHAPES name, the bit of that shape."""
        if key in SHAPES:
            return _shape_bits(self.languages)[key]
        layout = _layout(self.languages)
        return layout.full.get(key, 0) << layout.offset.get(key, 0)

    def pattern_for(self, key: str, present: int) -> re.Pattern[str] | None:
        """pattern(key) reduced to the fragments that can match the text or a view of it (None: none can).

        present is triggers_in() of the text's fold(). A fragment whose required literals are
        all absent cannot match anywhere, so dropping it from the alternation changes no
        match; most records skip most keys' regexes entirely.
        """
        layout = _layout(self.languages)
        full = layout.full.get(key)
        if full is None:
            return _compiled(self.languages, key)  # not filtered: no entries (None), or a key read whole
        mask = present >> layout.offset[key] & full
        if not mask:
            return None
        if mask == full:
            return _compiled(self.languages, key)
        if precompiled.installed and _SEEN.get(self.languages, 0) <= _WARM_UP:
            # the whole alternation came compiled with the package; a reduced one would be compiled here
            return _compiled(self.languages, key)
        return _subset(self.languages, key, mask)


COMMON = "any"  # lexicons/any.toml: lists that belong to no language (hosts, identifier families)


@functools.cache
def available_languages() -> tuple[str, ...]:
    """Languages with a lexicon file shipped in lexicons/ (not counting the language-independent one)."""
    return tuple(name for name in _toml_names(LEXICON_DIR) if name != COMMON)  # sorted, as listed


def lexicon_for(languages: tuple[str, ...] | None) -> Lexicon:
    """The Lexicon of the requested languages (None: all shipped)."""
    return _lexicon_for(None if languages is None else tuple(languages))


@functools.cache
def _lexicon_for(languages: tuple[str, ...] | None) -> Lexicon:
    shipped = available_languages()
    common = (COMMON,) if os.path.exists(os.path.join(LEXICON_DIR, f"{COMMON}.toml")) else ()
    if languages is None:
        return Lexicon(languages=common + shipped)
    missing = [lang for lang in languages if lang not in shipped]
    if missing:
        from diylisis.errors import ConfigError

        raise ConfigError(f"[detect] languages: no lexicon for {', '.join(missing)} (have {', '.join(shipped)})")
    return Lexicon(languages=common + tuple(languages))


@functools.cache
def _keys(languages: tuple[str, ...]) -> tuple[str, ...]:
    """Every key some of the languages' lexicons define, sorted."""
    return tuple(sorted({key for language in languages for key in _load(language)[1]}))


def keys_of(language: str) -> frozenset[str]:
    """Every key a language's lexicon defines (for the meta-test: every key is used)."""
    return frozenset(_load(language)[1])


@functools.cache
def _load(language: str) -> tuple[str, dict[str, tuple[str, ...]]]:
    derived = _derived()
    if derived is not None and language in derived.lexicons:
        return derived.lexicons[language]
    return _parse_lexicon(language)


def _parse_lexicon(
    language: str, directory: str | os.PathLike[str] = LEXICON_DIR
) -> tuple[str, dict[str, tuple[str, ...]]]:
    import tomllib

    with open(os.path.join(directory, f"{language}.toml"), "rb") as handle:
        return _parsed(language, tomllib.load(handle))


def _parsed(language: str, data: dict) -> tuple[str, dict[str, tuple[str, ...]]]:
    meta = data.get("meta", {})
    boundary = meta.get("boundary", "word")
    if boundary not in ("word", "none"):
        raise ValueError(f"lexicon {language}: boundary must be word or none")
    terms = {key: tuple(value) for key, value in data.get("terms", {}).items()}
    return boundary, terms


@functools.cache
def _words(languages: tuple[str, ...], key: str) -> tuple[str, ...]:
    out: list[str] = []
    for language in languages:
        out.extend(_load(language)[1].get(key, ()))
    return tuple(out)


@functools.cache
def _compiled(languages: tuple[str, ...], key: str) -> re.Pattern[str] | None:
    parts = _parts(languages, key)
    if not parts:
        return None
    return re.compile(_alternation(parts), re.IGNORECASE)


def _alternation(parts: tuple[tuple[str, str], ...]) -> str:
    """The parts as one alternation, in order, with a run of word-bounded parts sharing one left boundary.

    (?<!w)(?:A(?!w)|B(?!w)) matches what (?<!w)(?:A)(?!w)|(?<!w)(?:B)(?!w) matches, but a position
    inside a word fails once instead of once per part: most positions of a text are inside words.
    """
    pieces: list[str] = []
    run: list[str] = []
    for wrapped, _ in parts:
        if wrapped.startswith(_LEFT):
            run.append(wrapped[len(_LEFT) :])
            continue
        if run:
            pieces.append(_LEFT + "(?:" + "|".join(run) + ")")
            run = []
        pieces.append(wrapped)
    if run:
        pieces.append(_LEFT + "(?:" + "|".join(run) + ")")
    return "|".join(pieces)


@functools.cache
def _parts(languages: tuple[str, ...], key: str) -> tuple[tuple[str, str], ...]:
    """(fragment wrapped in its language's boundaries, raw fragment), in alternation order."""
    parts = []
    for language in languages:
        boundary, terms = _load(language)
        for fragment in terms.get(key, ()):
            parts.append((f"{_LEFT}(?:{fragment}){_RIGHT}" if boundary == "word" else f"(?:{fragment})", fragment))
    return tuple(parts)


# The literal prefilter (Lexicon.triggers_in and pattern_for). Every match of a fragment contains one of the
# fragment's required literals, compared after fold(): the regex engine's IGNORECASE equates
# characters by simple lower case plus a few extra pairs (re._casefix: s/ſ, i/ı, σ/ς...), so
# fold lowers and maps each such class to one member. fold may only merge more, never less:
# a literal seen where the regex cannot match costs time, one missed would lose a finding.
try:
    from re._casefix import _EXTRA_CASES
except ImportError:  # pragma: no cover - another interpreter: no prefilter, every fragment runs
    _EXTRA_CASES = None

_FOLD: dict[int, int | None] = {0x307: None}  # "İ".lower() is "i" plus a combining dot; the regex sees "i"
for _low, _others in (_EXTRA_CASES or {}).items():
    _canon = min((_low, *_others))
    for _member in (_low, *_others):
        if _member != _canon:
            _FOLD[_member] = _canon


def fold(text: str) -> str:
    """text lower-cased with the regex engine's case-insensitive equivalences merged (for triggers_in)."""
    low = text.lower()
    return low if low.isascii() else low.translate(_FOLD)


@dataclass(frozen=True, slots=True, kw_only=True)
class _Gate:
    triggers: tuple[tuple[str, int], ...]  # (folded literal, bit mask of the fragments it lets through)
    always: int  # fragments with no required literal: they always run
    full: int
    further: tuple[tuple[int, tuple[tuple[str, ...], ...]], ...] = ()  # (fragment bit, further_literals)
    shaped: tuple[tuple[int, tuple[str, ...]], ...] = ()  # (fragment bit, required_shapes)


_MAX_ALTERNATIVES = 64


# Keys that detectors read whole, never through pattern_for: as word lists (words()) or as their
# whole alternation (pattern()). Their literals would only cost the token scanner time: the
# one- and two-letter entries of public_key_prefix, and "ok" in checklist_result, let most
# tokens of a record own some. No rule may require them (rule.check_registry).
READ_WHOLE = frozenset({"public_key_prefix", "common_compound", "checklist_result", "finding_intro"})


@functools.cache
def _gate(languages: tuple[str, ...], key: str) -> _Gate | None:
    """The prefilter of key's fragments (None: the key has none, or is read whole, and is not filtered)."""
    parts = _parts(languages, key)
    if not parts or key in READ_WHOLE:
        return None
    triggers: dict[str, int] = {}
    always = 0
    further = []
    shaped = []
    derived = _derived()
    for index, (_, fragment) in enumerate(parts):
        if derived is not None and fragment in derived.literals:  # read directly: one lookup per fragment
            required, more = derived.literals[fragment], derived.further.get(fragment, ())
            shapes = derived.shapes.get(fragment, ())
        else:
            required = required_literals(fragment)
            more = further_literals(fragment)
            shapes = required_shapes(fragment)
        if required is None:
            always |= 1 << index
            continue
        for literal in required:
            triggers[literal] = triggers.get(literal, 0) | 1 << index
        if more:
            further.append((1 << index, tuple(tuple(pieces) for pieces in more)))
        if shapes:
            shaped.append((1 << index, shapes))
    return _Gate(
        triggers=tuple(triggers.items()),
        always=always,
        full=(1 << len(parts)) - 1,
        further=tuple(further),
        shaped=tuple(shaped),
    )


# Shapes a whitespace-separated token of the folded text can have, which a rule may require as
# it requires a lexicon key: a rule whose every match lies inside a token of that shape is
# skipped for a text with no such token. A lexicon fragment every match of which holds a digit
# (required_shapes) is dropped the same way. Each shape has a bit just above the fragments'
# bits, which triggers_in() sets; a history repeats its tokens, so each is tested once per process.
SHAPES = {
    "shape:hex_run": re.compile(r"[0-9a-f]{7}"),  # a commit id's seven hex digits, lower-cased
    "shape:letter_digit": re.compile(r"[a-z]\d"),  # a letter, lower-cased, then a digit: "f11"
    "shape:digit": re.compile(r"\d"),  # any decimal digit, as the regex engine's \d
}


@functools.cache
def _shape_bits(languages: tuple[str, ...]) -> dict[str, int]:
    first = 1 << _layout(languages).size
    return {name: first << index for index, name in enumerate(SHAPES)}


@functools.cache
def _answer_bits(languages: tuple[str, ...]) -> int:
    """The bits a triggers_in() answer may hold: every fragment's and every shape's."""
    return _further_table(languages)[3] | sum(_shape_bits(languages).values())


def _shapes_in(languages: tuple[str, ...], text: str) -> int:
    """The bits of the shapes some token of text has (text: a folded record, or one of its tokens)."""
    return sum(bit for name, bit in _shape_bits(languages).items() if SHAPES[name].search(text))


def _confirmed(languages: tuple[str, ...], present: int, folded: str | None = None) -> int:
    """present without the fragments some further literal set of which has no member in the text.

    A further set found in the text has its own bit above the fragments' bits (_further_table):
    the scanner sets it from the tokens; given folded, the sets of the fragments present are
    looked up here instead. The set bits are dropped from the answer.
    """
    checked, needs, set_literals, _ = _further_table(languages)
    pending = present & checked
    while pending:
        bit = pending & -pending
        pending ^= bit
        need, sets = needs[bit]
        if folded is not None:
            for set_bit in sets:
                if not present & set_bit and any(literal in folded for literal in set_literals[set_bit]):
                    present |= set_bit
        if present & need != need:
            present ^= bit
    return present & _answer_bits(languages)


@functools.cache
def _further_table(
    languages: tuple[str, ...],
) -> tuple[int, dict[int, tuple[int, tuple[int, ...]]], dict[int, tuple[str, ...]], int]:
    """The further literal sets and required shapes in triggers_in() terms: (the fragments that have some,
    fragment bit -> (the bits of its sets and shapes, each set's bit), set bit -> its literals, every fragment bit).
    Set bits lie above the shapes' bits, which lie above the fragments'."""
    layout = _layout(languages)
    fragments = (1 << layout.size) - 1
    shape_bits = _shape_bits(languages)
    needs: dict[int, tuple[int, tuple[int, ...]]] = {}
    set_literals = {}
    next_bit = 1 << (layout.size + len(SHAPES))
    for key in _keys(languages):
        gate = _gate(languages, key)
        if gate is None:
            continue
        for bit, sets in gate.further:
            own = []
            for literals in sets:
                set_literals[next_bit] = literals
                own.append(next_bit)
                next_bit <<= 1
            needs[bit << layout.offset[key]] = (sum(own), tuple(own))
        for bit, shapes in gate.shaped:
            shifted = bit << layout.offset[key]
            need, own = needs.get(shifted, (0, ()))
            needs[shifted] = (need | sum(shape_bits[name] for name in shapes), own)
    return sum(needs), needs, set_literals, fragments


@dataclass(frozen=True, slots=True, kw_only=True)
class _Layout:
    offset: dict[str, int]  # key -> the triggers_in() bit of its first fragment
    full: dict[str, int]  # key -> the bits of all its fragments, unshifted
    size: int  # bits the fragments of every key take


@functools.cache
def _layout(languages: tuple[str, ...]) -> _Layout:
    offset: dict[str, int] = {}
    full: dict[str, int] = {}
    at = 0
    for key in _keys(languages):
        gate = _gate(languages, key)
        if gate is None:
            continue
        offset[key] = at
        full[key] = gate.full
        at += gate.full.bit_length()
    return _Layout(offset=offset, full=full, size=at)


# A process that judges one record (the commit-msg hook) would spend more compiling the trie
# than it saves; the first records are checked literal by literal, with the same answers.
_WARM_UP = 16
_SEEN: dict[tuple[str, ...], int] = {}


def _triggers_one_by_one(languages: tuple[str, ...], folded: str) -> int:
    offsets = _layout(languages).offset
    present = 0
    for key in _keys(languages):
        gate = _gate(languages, key)
        if gate is None:
            continue
        mask = gate.always
        for literal, bits in gate.triggers:
            if literal in folded:
                mask |= bits
        present |= mask << offsets[key]
    return present | _shapes_in(languages, folded)


def _triggers_scanned(languages: tuple[str, ...], folded: str) -> int:
    scanner = _scanner(languages)
    present = scanner.always
    memo = _TOKEN_OWNERS.get(languages)
    if memo is None:
        memo = _TOKEN_OWNERS[languages] = ({}, set())
    known, owning_nothing = memo
    tokens = set(folded.split())
    for token in tokens.difference(owning_nothing):
        owners = known.get(token)
        if owners is None:
            owners = _token_owners(scanner, token, _shapes_in(languages, token))
            if len(known) + len(owning_nothing) < _TOKEN_MEMO:
                if owners is _NO_OWNERS:
                    owning_nothing.add(token)
                else:
                    known[token] = owners
        bits, confirm = owners
        present |= bits
        for literal, more, inner in confirm:
            if (not inner or tokens.issuperset(inner)) and literal in folded:
                present |= more
    return present


# Each literal is found through its longest whitespace-free piece, which lies inside one token
# of folded.split(); a history repeats its words, so each distinct token is looked up once, and
# most own nothing. A literal longer than its piece is then confirmed in the whole text, unless
# the token cannot hold the piece where the literal has it (a word the literal goes on after
# ends a token) or one of its inner words (those between two others) is missing from the
# tokens: where the literal occurs, each inner word is a whole token, and a set lookup costs
# less than a search of the text.
_TOKEN_MEMO = 200_000
# (fragment bits, (literal to confirm in the text, bits, its inner words) ...)
_Owners = tuple[int, tuple[tuple[str, int, tuple[str, ...]], ...]]
# languages -> (token -> what it owns, the tokens that own nothing)
_TOKEN_OWNERS: dict[tuple[str, ...], tuple[dict[str, _Owners], set[str]]] = {}
_NO_OWNERS: _Owners = (0, ())
# a literal whose piece a token holds: (the literal, its bits, its piece, _piece_places(literal) ...)
_Confirm = tuple[str, int, str, bool, bool, bool, bool]


def _token_owners(scanner: _Scanner, token: str, shapes: int) -> _Owners:
    """The fragments the pieces occurring in one token let through, and those whose literal must be
    confirmed; with the token's shapes (_shapes_in) among the bits."""
    if scanner.pattern is None:
        return (shapes, ()) if shapes else _NO_OWNERS
    bits = shapes
    confirm: dict[str, int] = {}
    for found in scanner.pattern.findall(token):
        outright, literals = scanner.closure[found]
        bits |= outright
        for literal, more, piece, anywhere, ending, starting, alone in literals:
            if (
                anywhere
                or (ending and token.endswith(piece))
                or (starting and token.startswith(piece))
                or (alone and token == piece)
            ):
                confirm[literal] = confirm.get(literal, 0) | more
    if not bits and not confirm:
        return _NO_OWNERS
    return bits, tuple((literal, more, tuple(literal.split()[1:-1])) for literal, more in confirm.items())


def _piece_places(literal: str) -> tuple[bool, bool, bool, bool]:
    """Where a token holding the literal's piece must have it: (anywhere, ending the token,
    starting it, as all of it). A word the literal goes on after ends a token, and a word it has
    before starts one."""
    words = literal.split()
    last = len(words) - 1
    places = {(index > 0, index < last) for index, word in enumerate(words) if word == _piece(literal)}
    return (False, False) in places, (False, True) in places, (True, False) in places, (True, True) in places


def _piece(literal: str) -> str:
    """The longest whitespace-free part of a literal (the literal itself when it has no whitespace)."""
    parts = literal.split()
    return max(parts, key=len) if parts else literal


@dataclass(frozen=True, slots=True, kw_only=True)
class _Scanner:
    pattern: re.Pattern[str] | None  # every literal's piece in a trie, found at every position
    # found piece -> (the bits it and its prefixes let through, the literals they need confirmed)
    closure: dict[str, tuple[int, tuple[_Confirm, ...]]]
    always: int  # fragments without required literals
    # bits also name further literal sets (_further_table): a token holding a member sets its set's bit


@functools.cache
def _scanner(languages: tuple[str, ...]) -> _Scanner:
    """Everything triggers_in needs, for every key of the languages' lexicons."""
    offsets = _layout(languages).offset
    owners: dict[str, set[tuple[str | None, int]]] = {}
    always = 0
    for key in _keys(languages):
        gate = _gate(languages, key)
        if gate is None:
            continue
        always |= gate.always << offsets[key]
        for literal, bits in gate.triggers:
            piece = _piece(literal)
            owners.setdefault(piece, set()).add((None if piece == literal else literal, bits << offsets[key]))
    for set_bit, literals in _further_table(languages)[2].items():  # a further set's bit, as a fragment's
        for literal in literals:
            piece = _piece(literal)
            owners.setdefault(piece, set()).add((None if piece == literal else literal, set_bit))
    if not owners:
        return _Scanner(pattern=None, closure={}, always=always)
    closure = {}
    for found in owners:
        outright = 0
        literals = []
        for end in range(1, len(found) + 1):
            for literal, bits in owners.get(found[:end], ()):
                if literal is None:
                    outright |= bits
                else:
                    literals.append((literal, bits, found[:end], *_piece_places(literal)))
        closure[found] = (outright, tuple(literals))
    # A lookahead matches at every position, so findall lists the longest piece starting at each.
    return _Scanner(pattern=re.compile(f"(?=({_trie(sorted(owners))}))"), closure=closure, always=always)


def _trie(words: list[str]) -> str:
    """An alternation of literals shaped as a trie: at each position it matches the longest one."""
    root: dict[str, dict] = {}
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def build(node: dict[str, dict]) -> str:
        branches = [re.escape(char) + build(child) for char, child in sorted(node.items()) if char]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(root)


@functools.lru_cache(maxsize=4096)
def _subset(languages: tuple[str, ...], key: str, mask: int) -> re.Pattern[str]:
    parts = _parts(languages, key)
    return re.compile(_alternation(tuple(part for i, part in enumerate(parts) if mask >> i & 1)), re.IGNORECASE)


def required_literals(fragment: str) -> frozenset[str] | None:
    """Folded literals of which every match of fragment contains one, in the text and in its views (None: none)."""
    from re import _parser

    if _EXTRA_CASES is None:
        return None
    try:
        parsed = _parser.parse(fragment, re.IGNORECASE)
    except re.error:
        return None
    found = _required(list(parsed))
    if not found:
        return None
    pieces = _cut(found)
    return None if "" in pieces else pieces


def further_literals(fragment: str) -> tuple[frozenset[str], ...]:
    """Sets of folded literals besides required_literals(fragment), each also needed by every match.

    A match holds one literal of each set, so a record must hold one of each for the fragment
    to match it: the prefilter checks them after the first set let the fragment through.
    """
    from re import _parser

    first = required_literals(fragment)
    if first is None:
        return ()
    parsed = _parser.parse(fragment, re.IGNORECASE)
    out = []
    for found in _candidates(list(parsed))[1:]:
        pieces = _cut(found)
        if "" not in pieces and pieces != first and pieces not in out:
            out.append(pieces)
    return tuple(out)


def required_shapes(fragment: str) -> tuple[str, ...]:
    """The SHAPES some token of every text fragment matches in must have: ("shape:digit",) when
    each match holds a decimal digit, else ()."""
    from re import _parser

    try:
        parsed = _parser.parse(fragment, re.IGNORECASE)
    except re.error:
        return ()
    return ("shape:digit",) if _holds_digit(list(parsed)) else ()


def _holds_digit(items: list) -> bool:
    """Every match of the item sequence holds a decimal digit (False: not known to)."""
    from re import _constants as c

    for op, av in items:
        if op is c.IN:
            if av and all(
                (kind is c.CATEGORY and value is c.CATEGORY_DIGIT)
                or (kind is c.LITERAL and 48 <= value <= 57)
                or (kind is c.RANGE and 48 <= value[0] <= value[1] <= 57)
                for kind, value in av
            ):
                return True
        elif op is c.LITERAL and 48 <= av <= 57:
            return True
        elif op is c.SUBPATTERN and _holds_digit(list(av[-1])):
            return True
        elif op is c.ATOMIC_GROUP and _holds_digit(list(av)):
            return True
        elif op is c.BRANCH and all(_holds_digit(list(alternative)) for alternative in av[1]):
            return True
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1 and _holds_digit(list(av[2])):
            return True
    return False


def _cut(found: frozenset[str]) -> frozenset[str]:
    """Each literal folded and cut to its part that is safe to look for (see _UNSAFE), without those
    that hold another: a text holding "tests" holds "test", so {"test", "tests"} says no more than {"test"}."""
    cut = {max(_UNSAFE.split(fold(s)), key=lambda p: len(p.strip())).strip() for s in found}
    return frozenset(s for s in cut if not any(other != s and other in s for other in cut))


# The text is scanned once for every view. A view blanks masked characters to spaces, and every
# masked stretch but a one-character link text ("[x](url)") or line is at least three long; so
# a literal occurs in a view only where it occurs in the text, once it has no space at either
# end, no two whitespace characters in a row, and no bracket or newline. Cut a literal there.
_UNSAFE = re.compile(r"\s{2,}|[\[\]\n]")


def _required(items: list) -> frozenset[str] | None:
    """A set of strings one of which every match of the item sequence contains (None: unknown)."""
    candidates = _candidates(items)
    return candidates[0] if candidates else None


def _candidates(items: list) -> list[frozenset[str]]:
    """Every set of strings of which each match of the item sequence contains one, best first."""
    from re import _constants as c

    candidates: list[frozenset[str]] = []
    run: frozenset[str] = frozenset({""})
    for op, av in items:
        exact = _exact(op, av)
        if exact is not None:
            joined = frozenset(a + b for a in run for b in exact)
            if len(joined) <= _MAX_ALTERNATIVES:
                run = joined
                continue
            candidates.append(run)
            run = exact
            continue
        # the item is not one of a few strings, but each of its matches may start with one: the
        # run then goes on into that start ("1" then "0", "92.168" or "72." makes "10", "192.168", "172.")
        starts = _exact_start(op, av)
        if starts is not None and "" not in starts:
            joined = frozenset(a + b for a in run for b in starts)
            if len(joined) <= _MAX_ALTERNATIVES:
                candidates.append(joined)
        candidates.append(run)
        run = frozenset({""})
        inner: frozenset[str] | None = None
        if op is c.SUBPATTERN:
            inner = _required(list(av[-1]))
        elif op is c.ATOMIC_GROUP:
            inner = _required(list(av))
        elif op is c.BRANCH:
            alternatives = [_required(list(alt)) for alt in av[1]]
            if all(alt is not None for alt in alternatives):
                inner = frozenset().union(*alternatives)  # type: ignore[arg-type]
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
            inner = _required(list(av[2]))
        if inner is not None:
            candidates.append(inner)
    candidates.append(run)
    usable = [cand for cand in candidates if cand and "" not in cand]
    # Long literals rarely occur by chance; the scanner's trie makes many of them cheap.
    return sorted(usable, key=lambda cand: (min(min(len(s) for s in cand), 8), -len(cand), min(len(s) for s in cand)),
                  reverse=True)


def _exact(op: object, av: object) -> frozenset[str] | None:
    """The strings an item matches, when it matches one of a few fixed strings (zero-width items match "")."""
    from re import _constants as c

    if op is c.LITERAL:
        return frozenset({chr(av)})  # type: ignore[arg-type]
    if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
        return frozenset({""})
    if op is c.IN:
        if all(kind is c.LITERAL for kind, _ in av) and len(av) <= 8:  # type: ignore[attr-defined]
            return frozenset(chr(code) for _, code in av)  # type: ignore[attr-defined]
        return None
    if op is c.SUBPATTERN:
        return _exact_sequence(list(av[-1]))  # type: ignore[index]
    if op is c.BRANCH:
        return _union([_exact_sequence(list(alt)) for alt in av[1]])  # type: ignore[index]
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] == av[1] == 1:  # type: ignore[index]
        return _exact_sequence(list(av[2]))  # type: ignore[index]
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] == 0 and av[1] == 1:  # type: ignore[index]
        once = _exact_sequence(list(av[2]))  # type: ignore[index]
        return None if once is None else once | {""}  # "x?" matches nothing or x
    return None


def _exact_start(op: object, av: object) -> frozenset[str] | None:
    """Strings one of which every match of an item starts with: for a group or an alternation, the
    fixed strings each alternative opens with (None: unknown)."""
    from re import _constants as c

    if op is c.SUBPATTERN:
        return _fixed_start(list(av[-1]))[0]  # type: ignore[index]
    if op is c.BRANCH:
        return _union([_fixed_start(list(alt))[0] for alt in av[1]])  # type: ignore[index]
    return None


def _exact_sequence(items: list) -> frozenset[str] | None:
    """The strings a sequence matches, when it matches one of a few fixed strings."""
    strings, whole = _fixed_start(items)
    return strings if whole else None


def _fixed_start(items: list) -> tuple[frozenset[str], bool]:
    """(the fixed strings a sequence's matches open with, whether they are its whole matches): its
    exact items, then the start of the first other item."""
    out: frozenset[str] = frozenset({""})
    for op, av in items:
        exact = _exact(op, av)
        whole = exact is not None
        if exact is None:
            exact = _exact_start(op, av)
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
    """The union of string sets (None: one is unknown, or they hold too many strings together)."""
    if any(strings is None for strings in sets):
        return None
    union = frozenset().union(*sets)  # type: ignore[arg-type]
    return union if len(union) <= _MAX_ALTERNATIVES else None


# --- the precomputed file (lexicons/derived.json) -------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _Derived:
    lexicons: dict[str, tuple[str, dict[str, tuple[str, ...]]]]  # language -> what _parse_lexicon returns
    literals: dict[str, tuple[str, ...] | None]  # fragment -> required_literals, sorted
    further: dict[str, tuple[tuple[str, ...], ...]]  # lexicon fragment -> further_literals, each sorted
    shapes: dict[str, tuple[str, ...]]  # lexicon fragment -> required_shapes, when it has some


_ABSENT = object()


def fragment_literals(fragment: str) -> tuple[str, ...] | frozenset[str] | None:
    """required_literals(fragment), read from the precomputed file when it is current."""
    derived = _derived()
    if derived is not None:
        found = derived.literals.get(fragment, _ABSENT)
        if found is not _ABSENT:
            return found  # type: ignore[return-value]
    return required_literals(fragment)


def _toml_names(directory: str | os.PathLike[str]) -> list[str]:
    """The languages (file stems) of the lexicon files in directory, sorted."""
    return sorted(name[: -len(".toml")] for name in os.listdir(directory) if name.endswith(".toml"))


def _read(path: str | os.PathLike[str]) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def source_digest(directory: str | os.PathLike[str] = LEXICON_DIR) -> str:
    """SHA-256 of what the precomputed file is derived from: directory's TOML files, this module, the interpreter."""
    # The literals depend on re._parser and on str.lower and re._casefix, whose tables follow
    # the interpreter's Unicode version; this module's source holds the derivation itself.
    digest = sha256()
    digest.update(f"{sys.implementation.name} {sys.version_info[0]}.{sys.version_info[1]}\n".encode())
    for path in [__file__, *(os.path.join(directory, f"{name}.toml") for name in _toml_names(directory))]:
        data = _read(path).replace(b"\r\n", b"\n")  # a checkout with CRLF line ends is the same source
        digest.update(f"{os.path.basename(path)} {len(data)}\n".encode())
        digest.update(data)
    return digest.hexdigest()


def cache_text(directory: str | os.PathLike[str] = LEXICON_DIR) -> str:
    """The precomputed file's content for the lexicons in directory, computed from the TOML files."""
    lexicons = {}
    literals: dict[str, list[str] | None] = {}
    further: dict[str, list[list[str]]] = {}
    shapes: dict[str, list[str]] = {}
    for name in _toml_names(directory):
        boundary, terms = _parse_lexicon(name, directory)
        lexicons[name] = {"boundary": boundary, "terms": {key: list(value) for key, value in terms.items()}}
        for fragments in terms.values():
            for fragment in fragments:
                found = required_literals(fragment)
                literals[fragment] = None if found is None else sorted(found)
                if more := further_literals(fragment):
                    further[fragment] = [sorted(pieces) for pieces in more]
                if needed := required_shapes(fragment):
                    shapes[fragment] = list(needed)
    from diylisis.detectors import RULES

    for rule in RULES:  # the patterns rules require (Rule.requires) are looked up the same way
        for need in rule.requires:
            if not isinstance(need, str):
                found = required_literals(need.pattern)
                literals[need.pattern] = None if found is None else sorted(found)
    body = {
        "digest": source_digest(directory),
        "lexicons": lexicons,
        "literals": literals,
        "further": further,
        "shapes": shapes,
    }
    return json.dumps(body, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def write_cache(path: str | os.PathLike[str] = CACHE_PATH) -> None:
    """Write cache_text() of the shipped lexicons to path."""
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(cache_text())


def read_cache(path: str | os.PathLike[str], digest: str) -> _Derived | None:
    """The tables stored in path when it records digest (None: missing, unreadable or made from other sources)."""
    try:
        body = json.loads(_read(path))
        if body["digest"] != digest:
            return None
        lexicons = {
            language: (entry["boundary"], {key: tuple(value) for key, value in entry["terms"].items()})
            for language, entry in body["lexicons"].items()
        }
        literals = {fragment: None if found is None else tuple(found) for fragment, found in body["literals"].items()}
        further = {fragment: tuple(tuple(pieces) for pieces in sets) for fragment, sets in body["further"].items()}
        shapes = {fragment: tuple(names) for fragment, names in body["shapes"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return _Derived(lexicons=lexicons, literals=literals, further=further, shapes=shapes)


@functools.cache
def _derived() -> _Derived | None:
    try:
        digest = source_digest()
    except OSError:
        return None
    return read_cache(CACHE_PATH, digest)


if __name__ == "__main__":
    if sys.argv[1:] != ["--write-cache"]:
        sys.exit("usage: python -m diylisis.detectors.lexicon --write-cache")
    # Run as __main__ this file is a second copy of the module; write through the package's one.
    from diylisis.detectors.lexicon import write_cache as write

    write()
