"""Small helpers the rule families share: run a lexicon key over a view and emit findings."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from diylisis.core.detectors.text import Doc
from diylisis.core.lazy_pattern import LazyPattern
from diylisis.core.model import Category, Finding, Severity


def lexicon_matches(doc: Doc, key: str, view: str) -> Iterator[re.Match[str]]:
    """Matches of a lexicon key in one of the doc's views (prose, claims, locators)."""
    pattern = doc.pattern(key)
    if pattern is None:
        return
    text = getattr(doc, view)
    for match in pattern.finditer(text):
        if match.group().strip():
            yield match


_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def hyphen_joined(pattern: re.Pattern[str] | LazyPattern, text: str) -> Iterator[re.Match[str]]:
    """pattern.finditer(text), for a pattern whose every match starts where a run of ASCII letters
    and digits begins and that run ends at a hyphen ("ABC-123", "fold-and-flush").

    Such a match can start only at the few runs a hyphen ends, so only those are tried: finditer
    would try every position of the text, and the patterns' leading look-behind keeps the regex
    engine from skipping ahead. Tried in order and resumed after each match, as finditer does.
    """
    find = text.find
    match_at = (pattern.compiled_for(text) if isinstance(pattern, LazyPattern) else pattern).match
    end = 0
    hyphen = find("-")
    while hyphen >= 0:
        start = hyphen
        while start > end and text[start - 1] in _ALNUM:
            start -= 1
        match = match_at(text, start) if start < hyphen else None
        if match is not None:
            yield match
            end = match.end()
            hyphen = find("-", max(hyphen + 1, end))
        else:
            hyphen = find("-", hyphen + 1)


def lexicon_findings(
    doc: Doc,
    rule_id: str,
    category: Category,
    key: str,
    view: str,
    why: str,
    fix: str,
    *,
    keep: Callable[[re.Match[str]], bool] | None = None,
    severity: Severity = Severity.ERROR,
) -> Iterator[Finding]:
    """One finding per match of a lexicon key that `keep` accepts."""
    for match in lexicon_matches(doc, key, view):
        if keep is None or keep(match):
            yield doc.finding(rule_id, category, match.start(), match.end(), why, fix, severity=severity)


def first_paragraph_end(doc: Doc) -> int:
    """Offset where the record's first paragraph (subject and what follows it) ends."""
    match = re.search(r"\n\s*\n", doc.text)
    return match.start() if match else len(doc.text)


def line_start_defines(doc: Doc, phrase: str) -> bool:
    """Some line of the record starts with phrase (after list, heading or emphasis marks): it is defined here."""
    escaped = re.escape(phrase).replace(r"\ ", r"\s*")
    return re.search(rf"(?im)^[ \t>#*_\-+|0-9.()\[\]]*{escaped}\b", doc.text) is not None
