"""Which language a record is mostly written in, and whether a shipped lexicon covers it.

The language rules (session words, narration, pass claims in words) read lexicons; a record
in a language without one is judged by the language-neutral rules alone (links, paths,
issue numbers, ids, rendering). Saying so is better than passing it silently.

Only scripts are told apart: Hangul is Korean, kana Japanese, Chinese characters without
either Chinese. A line counts for the script it holds; fenced code is left out. A record
is mostly in such a language when its lines in it are at least as many as its English prose
lines (five or more Latin-script words, with at most a few CJK characters). Latin-script languages
are not told apart, so a German or French record reads as covered.
"""

from __future__ import annotations

import re

_HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")
_KANA = re.compile("[\u3040-\u30ff]")
_HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]")
_CJK = re.compile("[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})")


def main_language(text: str) -> str | None:
    """"ko", "ja" or "zh" when the record is mostly in that script; None otherwise (Latin script, or mixed)."""
    if text.isascii():
        return None
    counts = {"ko": 0, "ja": 0, "zh": 0}
    english = 0
    fenced = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or line.isascii():
            if not fenced and len(_LATIN_WORD.findall(line)) >= 5:
                english += 1
            continue
        words = len(_LATIN_WORD.findall(line))
        if words >= 5 and len(_CJK.findall(line)) < 2 * words:
            english += 1  # English prose quoting a few CJK words
        elif _HANGUL.search(line):
            counts["ko"] += 1
        elif _KANA.search(line):
            counts["ja"] += 1
        elif _HAN.search(line):
            counts["zh"] += 1
    language = max(counts, key=lambda name: counts[name])
    return language if counts[language] and counts[language] >= english else None


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
