"""Which language a record is mostly written in, and whether a shipped lexicon covers it.

The language rules (session words, narration, pass claims in words) read lexicons; a record
in a language without one is judged by the language-neutral rules alone (links, paths,
issue numbers, ids, rendering). Saying so is better than passing it silently.

Only scripts are told apart. Hangul is Korean, kana Japanese, Chinese characters without
either Chinese; a script that one language writes (Greek, Thai, Hebrew, Georgian, Armenian)
names that language, and a script many languages share is named as BCP 47 writes an
undetermined language in it ("und-Cyrl", "und-Arab"). A line counts for the script most of
its letters are in; fenced code is left out. A record is mostly in such a language when its
lines in it are at least as many as its English prose lines (five or more Latin-script words,
with at most a few letters of other scripts). Latin-script languages are not told apart, so a
German or French record reads as covered.
"""

from __future__ import annotations

import re

from diylisis.core.cjk import HAN, HANGUL, KANA

# (language, letters of its script): CJK first, as a line of kana and Chinese characters is Japanese
_SCRIPTS = (
    ("ko", re.compile(f"[{HANGUL}]")),
    ("ja", re.compile(f"[{KANA}]")),
    ("zh", re.compile(f"[{HAN}]")),
    ("und-Cyrl", re.compile("[\u0400-\u04ff\u0500-\u052f]")),
    ("el", re.compile("[\u0370-\u03ff\u1f00-\u1fff]")),
    ("und-Arab", re.compile("[\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff]")),
    ("he", re.compile("[\u0590-\u05ff]")),
    ("th", re.compile("[\u0e00-\u0e7f]")),
    ("und-Deva", re.compile("[\u0900-\u097f]")),
    ("ka", re.compile("[\u10a0-\u10ff]")),
    ("hy", re.compile("[\u0530-\u058f]")),
)
_LETTERS = dict(_SCRIPTS)
_CJK = ("ko", "ja", "zh")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})")


def main_language(text: str) -> str | None:
    """The language (or BCP 47 "und-<Script>") of the script the record is mostly in; None for
    Latin script or a mix no script dominates."""
    if text.isascii():
        return None
    counts = dict.fromkeys(_LETTERS, 0)
    english = 0
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        words = len(_LATIN_WORD.findall(line))
        if line.isascii():
            english += words >= 5
            continue
        language = _line_language(line)
        if language is None:
            continue
        if words >= 5 and len(_LETTERS[language].findall(line)) < 2 * words:
            english += 1  # English prose quoting a few words of another script
        else:
            counts[language] += 1
    language = max(counts, key=lambda name: counts[name])
    return language if counts[language] and counts[language] >= english else None


def _line_language(line: str) -> str | None:
    """The language of a line's script: Hangul, then kana, then Chinese characters (a Japanese
    line holds them too) when the line has any; else the script with most letters."""
    for name in _CJK:
        if _LETTERS[name].search(line):
            return name
    best, most = None, 0
    for name, letters in _SCRIPTS[len(_CJK) :]:
        found = len(letters.findall(line))
        if found > most:
            best, most = name, found
    return best


def uncovered_language(text: str, languages: tuple[str, ...] | None = None) -> str | None:
    """The record's main language when no lexicon of languages (None: every shipped one) covers it."""
    language = main_language(text)
    if language is None:
        return None
    from diylisis.core.detectors.lexicon import available_languages

    return None if language in (available_languages() if languages is None else languages) else language


def coverage_note(language: str) -> str:
    """What a reader of the report is told about a record in a language without a lexicon."""
    return f"language {language}: only language-neutral rules ran"


def coverage_notes(text: str, languages: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """() when the record's language has a lexicon, else its one coverage note."""
    language = uncovered_language(text, languages)
    return () if language is None else (coverage_note(language),)
