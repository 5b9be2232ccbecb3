"""Per-language word lists kept as data (lexicons/<lang>.toml), loaded lazily and compiled once.

A lexicon entry is a regular-expression fragment matched case-insensitively. Languages
whose words are space-delimited (`boundary = "word"`) get ASCII word boundaries around
each fragment; Korean (`boundary = "none"`) does not, because particles attach to the
noun ("위에서", "그 파일을") and a word boundary would never match.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

LEXICON_DIR = Path(__file__).with_name("lexicons")
_LEFT = r"(?<![A-Za-z0-9_])"
_RIGHT = r"(?![A-Za-z0-9_])"


@dataclass(frozen=True, slots=True)
class Lexicon:
    """The merged word lists of the enabled languages."""

    languages: tuple[str, ...]

    def pattern(self, key: str) -> re.Pattern[str] | None:
        """One compiled alternation of every enabled language's fragments under key (None: no entries)."""
        return _compiled(self.languages, key)

    def words(self, key: str) -> tuple[str, ...]:
        """The raw entries under key (for plain word sets, not patterns)."""
        out: list[str] = []
        for language in self.languages:
            out.extend(_load(language)[1].get(key, ()))
        return tuple(out)

    def languages_with(self, key: str) -> tuple[str, ...]:
        """Enabled languages whose lexicon has the key."""
        return tuple(lang for lang in self.languages if key in _load(lang)[1])


COMMON = "any"  # lexicons/any.toml: lists that belong to no language (hosts, identifier families)


def available_languages() -> tuple[str, ...]:
    """Languages with a lexicon file shipped in lexicons/ (not counting the language-independent one)."""
    return tuple(sorted(p.stem for p in LEXICON_DIR.glob("*.toml") if p.stem != COMMON))


def lexicon_for(languages: tuple[str, ...] | None) -> Lexicon:
    """The Lexicon of the requested languages (None: all shipped)."""
    shipped = available_languages()
    common = (COMMON,) if (LEXICON_DIR / f"{COMMON}.toml").exists() else ()
    if languages is None:
        return Lexicon(common + shipped)
    missing = [lang for lang in languages if lang not in shipped]
    if missing:
        from diylisis.errors import ConfigError

        raise ConfigError(f"[detect] languages: no lexicon for {', '.join(missing)} (have {', '.join(shipped)})")
    return Lexicon(common + tuple(languages))


def keys_of(language: str) -> frozenset[str]:
    """Every key a language's lexicon defines (for the meta-test: every key is used)."""
    return frozenset(_load(language)[1])


@functools.cache
def _load(language: str) -> tuple[str, dict[str, tuple[str, ...]]]:
    with (LEXICON_DIR / f"{language}.toml").open("rb") as handle:
        data = tomllib.load(handle)
    meta = data.get("meta", {})
    boundary = meta.get("boundary", "word")
    if boundary not in ("word", "none"):
        raise ValueError(f"lexicon {language}: boundary must be word or none")
    terms = {key: tuple(value) for key, value in data.get("terms", {}).items()}
    return boundary, terms


@functools.cache
def _compiled(languages: tuple[str, ...], key: str) -> re.Pattern[str] | None:
    parts = []
    for language in languages:
        boundary, terms = _load(language)
        for fragment in terms.get(key, ()):
            parts.append(f"{_LEFT}(?:{fragment}){_RIGHT}" if boundary == "word" else f"(?:{fragment})")
    if not parts:
        return None
    return re.compile("|".join(parts), re.IGNORECASE)
