"""Small helpers the rule families share: run a lexicon key over a view and emit findings."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from diylisis.detectors.text import Doc
from diylisis.model import Category, Finding, Severity


def lexicon_matches(doc: Doc, key: str, view: str) -> Iterator[re.Match[str]]:
    """Matches of a lexicon key in one of the doc's views (prose, claims, locators)."""
    pattern = doc.pattern(key)
    if pattern is None:
        return
    text = getattr(doc, view)
    for match in pattern.finditer(text):
        if match.group().strip():
            yield match


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
