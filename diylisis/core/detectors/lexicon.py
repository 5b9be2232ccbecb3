"""Per-language word lists kept as data (lexicons/<lang>.toml), loaded lazily and compiled once.

A lexicon entry is a regular-expression fragment matched case-insensitively. Languages
whose words are space-delimited (`boundary = "word"`) get ASCII word boundaries around
each fragment; Korean (`boundary = "none"`) does not, because particles attach to the
noun ("위에서", "그 파일을") and a word boundary would never match.

What the prefilter needs of the lexicons (the parsed entries and each fragment's required
literals, diylisis.core.detectors.prefilter) costs more to compute than a one-record process
such as the commit-msg hook should spend, so it is kept in a per-user cache
(diylisis.edges.user_cache) keyed by the package version, the interpreter and the size and
time of the lexicon files and of the modules that compute it: any edit rebuilds it, on the
next run, without a command.
"""

from __future__ import annotations

import functools
import os
import re

from msgspec import Struct

from diylisis.core.detectors.prefilter import Prefilter, further_literals, prefilter, required_literals

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

# os.path, not pathlib: the commit-msg hook imports this module and nothing else it loads needs pathlib
LEXICON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lexicons")
_LEFT = r"(?<![A-Za-z0-9_])"
_RIGHT = r"(?![A-Za-z0-9_])"


class Lexicon(Struct, frozen=True, kw_only=True):
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

        A key's fragments take consecutive bits, in order (key_bits); the SHAPES take the bits
        above them. folded is the fold() of a record's text; a literal has no run of whitespace,
        so what occurs in a masked view of the text occurs in the text.
        """
        scanner = _scanner(self.languages)
        present = scanner.always | scanner.literals.present(folded)
        pending = present & scanner.further_bits
        while pending:
            bit = pending & -pending
            pending ^= bit
            if not all(any(literal in folded for literal in pieces) for pieces in scanner.further[bit]):
                present ^= bit
        return present | _shapes_in(self.languages, folded)

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
        from diylisis.core.errors import ConfigError

        raise ConfigError(f"[detect] languages: no lexicon for {', '.join(missing)} (have {', '.join(shipped)})")
    return Lexicon(languages=common + tuple(languages))


@functools.cache
def _keys(languages: tuple[str, ...]) -> tuple[str, ...]:
    """Every key some of the languages' lexicons define, sorted."""
    return tuple(sorted({key for language in languages for key in _load(language)[1]}))


def keys_of(language: str) -> frozenset[str]:
    """Every key a language's lexicon defines (for the meta-test: every key is used)."""
    return frozenset(_load(language)[1])


def _load(language: str) -> tuple[str, dict[str, tuple[str, ...]]]:
    return _derived().lexicons[language]


def _parse_lexicon(
    language: str, directory: str | os.PathLike[str] = LEXICON_DIR
) -> tuple[str, dict[str, tuple[str, ...]]]:
    import tomllib

    with open(os.path.join(directory, f"{language}.toml"), "rb") as handle:
        return _parsed(language, tomllib.load(handle))


def _parsed(language: str, data: Mapping[str, Any]) -> tuple[str, dict[str, tuple[str, ...]]]:
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
# fragment's required literals, compared after fold() (diylisis.core.detectors.prefilter).


class _Gate(Struct, frozen=True, kw_only=True):
    """The prefilter of one key's fragments: which literal lets which fragments through."""

    triggers: tuple[tuple[str, int], ...]  # (folded literal, bit mask of the fragments it lets through)
    always: int  # fragments with no required literal: they always run
    full: int
    further: tuple[tuple[int, tuple[tuple[str, ...], ...]], ...] = ()  # (fragment bit, further_literals)


# Keys that detectors read whole, never through pattern_for: as word lists (words()) or as their
# whole alternation (pattern()). Their literals would only cost the prefilter time: the
# one- and two-letter entries of public_key_prefix, and "ok" in checklist_result, occur in
# most records. No rule may require them (rule.check_registry).
READ_WHOLE = frozenset({"public_key_prefix", "common_compound", "checklist_result", "finding_intro", "tracker_name"})


@functools.cache
def _gate(languages: tuple[str, ...], key: str) -> _Gate | None:
    """The prefilter of key's fragments (None: the key has none, or is read whole, and is not filtered)."""
    parts = _parts(languages, key)
    if not parts or key in READ_WHOLE:
        return None
    triggers: dict[str, int] = {}
    always = 0
    further = []
    derived = _derived()
    for index, (_, fragment) in enumerate(parts):
        if fragment in derived.literals:
            required, more = derived.literals[fragment], derived.further.get(fragment, ())
        else:
            required, more = _sorted(required_literals(fragment)), _sorted_sets(further_literals(fragment))
        if required is None:
            always |= 1 << index
            continue
        for literal in required:
            triggers[literal] = triggers.get(literal, 0) | 1 << index
        if more:
            further.append((1 << index, more))
    return _Gate(
        triggers=tuple(triggers.items()), always=always, full=(1 << len(parts)) - 1, further=tuple(further)
    )


# Shapes a whitespace-separated token of the folded text can have, which a rule may require as
# it requires a lexicon key: a rule whose every match lies inside a token of that shape is
# skipped for a text with no such token. Each shape has a bit just above the fragments' bits,
# which triggers_in() sets.
SHAPES = {
    "shape:hex_run": re.compile(r"[0-9a-f]{7}"),  # a commit id's seven hex digits, lower-cased
    "shape:letter_digit": re.compile(r"[a-z]\d"),  # a letter, lower-cased, then a digit: "f11"
    "shape:digit": re.compile(r"\d"),  # any decimal digit, as the regex engine's \d
}


@functools.cache
def _shape_bits(languages: tuple[str, ...]) -> dict[str, int]:
    first = 1 << _layout(languages).size
    return {name: first << index for index, name in enumerate(SHAPES)}


def _shapes_in(languages: tuple[str, ...], text: str) -> int:
    """The bits of the shapes some token of text has (text: a folded record)."""
    return sum(bit for name, bit in _shape_bits(languages).items() if SHAPES[name].search(text))


class _Layout(Struct, frozen=True, kw_only=True):
    """Where each key's fragments sit in a triggers_in() bit mask."""

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


class _Scanner(Struct, frozen=True, kw_only=True):
    """Everything triggers_in needs for the keys of a set of languages."""

    literals: Prefilter  # every key's literals, each standing for the bits of the fragments it lets through
    always: int  # fragments without required literals
    further: dict[int, tuple[tuple[str, ...], ...]]  # fragment bit -> its further literal sets
    further_bits: int  # the fragments that have some


@functools.cache
def _scanner(languages: tuple[str, ...]) -> _Scanner:
    """Everything triggers_in needs, for every key of the languages' lexicons (built once per process)."""
    offsets = _layout(languages).offset
    pairs: list[tuple[str, int]] = []
    further: dict[int, tuple[tuple[str, ...], ...]] = {}
    always = 0
    for key in _keys(languages):
        gate = _gate(languages, key)
        if gate is None:
            continue
        always |= gate.always << offsets[key]
        pairs.extend((literal, bits << offsets[key]) for literal, bits in gate.triggers)
        further.update((bit << offsets[key], sets) for bit, sets in gate.further)
    return _Scanner(literals=prefilter(pairs), always=always, further=further, further_bits=sum(further))


@functools.lru_cache(maxsize=4096)
def _subset(languages: tuple[str, ...], key: str, mask: int) -> re.Pattern[str]:
    parts = _parts(languages, key)
    return re.compile(_alternation(tuple(part for i, part in enumerate(parts) if mask >> i & 1)), re.IGNORECASE)


@functools.cache
def pattern_literals(patterns: tuple[str, ...]) -> dict[str, tuple[str, ...] | None]:
    """required_literals of each pattern, sorted (for the patterns rules require), kept in the per-user
    cache under the patterns themselves and cache_key()."""
    from diylisis.edges import user_cache

    key = cache_key() + "\n" + "\n".join(patterns)
    cached = user_cache.read("pattern-literals", key)
    if isinstance(cached, dict) and set(cached) == set(patterns):
        return {pattern: None if found is None else tuple(found) for pattern, found in cached.items()}
    computed = {pattern: _sorted(required_literals(pattern)) for pattern in patterns}
    user_cache.write("pattern-literals", key, computed)
    return computed


def _sorted(found: frozenset[str] | None) -> tuple[str, ...] | None:
    return None if found is None else tuple(sorted(found))


def _sorted_sets(sets: tuple[frozenset[str], ...]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(sorted(pieces)) for pieces in sets)


# --- the per-user cache of what is derived from the lexicon files ----------------------------


class _Derived(Struct, frozen=True, kw_only=True):
    """The tables derived from the lexicon files that the per-user cache keeps."""

    lexicons: dict[str, tuple[str, dict[str, tuple[str, ...]]]]  # language -> what _parse_lexicon returns
    literals: dict[str, tuple[str, ...] | None]  # lexicon fragment -> required_literals, sorted
    further: dict[str, tuple[tuple[str, ...], ...]]  # lexicon fragment -> further_literals, when it has some


def _toml_names(directory: str | os.PathLike[str]) -> list[str]:
    """The languages (file stems) of the lexicon files in directory, sorted."""
    return sorted(name[: -len(".toml")] for name in os.listdir(directory) if name.endswith(".toml"))


def derive(directory: str | os.PathLike[str] = LEXICON_DIR) -> _Derived:
    """What the prefilter needs of the lexicon files in directory, computed from them."""
    lexicons = {name: _parse_lexicon(name, directory) for name in _toml_names(directory)}
    fragments = [fragment for _, terms in lexicons.values() for entries in terms.values() for fragment in entries]
    literals = {fragment: _sorted(required_literals(fragment)) for fragment in fragments}
    further = {fragment: sets for fragment in fragments if (sets := _sorted_sets(further_literals(fragment)))}
    return _Derived(lexicons=lexicons, literals=literals, further=further)


def cache_key(directory: str | os.PathLike[str] = LEXICON_DIR) -> str:
    """What the cached tables depend on: the package version, the interpreter, and the size and
    modification time of the lexicon files and of the modules that derive the tables from them."""
    import sys

    from diylisis import __version__
    from diylisis.core.detectors import prefilter as prefilter_module

    files = [os.path.join(directory, f"{name}.toml") for name in _toml_names(directory)]
    parts = [__version__, sys.implementation.cache_tag or sys.implementation.name]
    for path in [__file__, prefilter_module.__file__ or "", *files]:
        status = os.stat(path)
        parts.append(f"{os.path.basename(path)}:{status.st_size}:{status.st_mtime_ns}")
    return " ".join(parts)


def _as_json(derived: _Derived) -> dict[str, object]:
    return {
        "lexicons": {language: [boundary, terms] for language, (boundary, terms) in derived.lexicons.items()},
        "literals": derived.literals,
        "further": derived.further,
    }


def _from_json(value: Any) -> _Derived | None:
    """The tables from the cache file's JSON; None when its shape is not theirs (a miss)."""
    try:
        lexicons = {
            language: (boundary, {key: tuple(entries) for key, entries in terms.items()})
            for language, (boundary, terms) in value["lexicons"].items()
        }
        literals = {
            fragment: None if found is None else tuple(found)
            for fragment, found in value["literals"].items()
        }
        further = {
            fragment: tuple(tuple(pieces) for pieces in sets)
            for fragment, sets in value["further"].items()
        }
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return _Derived(lexicons=lexicons, literals=literals, further=further)


@functools.cache
def _derived() -> _Derived:
    """The tables for the shipped lexicons: from the per-user cache when current, else computed and cached."""
    from diylisis.edges import user_cache

    key = cache_key()
    name = "lexicons"
    cached = user_cache.read(name, key)
    derived = _from_json(cached) if cached is not None else None
    if derived is None:
        derived = derive()
        user_cache.write(name, key, _as_json(derived))
    return derived
