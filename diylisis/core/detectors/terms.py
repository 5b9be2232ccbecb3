"""Coined terms: names made up during the session that neither the record nor the repository defines (checklist 1)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from diylisis.core.detectors._match import hyphen_joined
from diylisis.core.detectors.rule import Rule
from diylisis.core.detectors.text import Doc, is_common_word
from diylisis.core.lazy_pattern import LazyPattern
from diylisis.core.model import Category, Finding, Severity

HYPHENATED = LazyPattern(r"(?<![\w/.@#$`'-])[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z][A-Za-z0-9]*){1,4}(?![\w/.@=(-])")
# The look-behind follows the first letter so that the regex engine skips to capital letters
# instead of trying every position; it reads as (?<![\w/.@#$`-])[A-Z][a-z]+...
CAMEL = LazyPattern(r"[A-Z](?<![\w/.@#$`-][A-Z])[a-z]+(?:[A-Z][a-z0-9]+){1,4}(?![\w/.(=-])")
_CAMEL_HINT = re.compile(r"[A-Z](?<=[a-z][A-Z])")  # a lower-case letter then a capital, found from the capitals
_DEFINES = (
    r"\b(?:means|is|are|stands for|refers to|=|:|called|named|—|–)\b",
    r"(?:이란|란|는|은)\s",
)


def coined_terms(doc: Doc) -> Iterator[Finding]:
    """CT801: hyphenated or CamelCase jargon that the repository never mentions and the record never defines."""
    assert doc.context is not None
    seen: set[str] = set()
    candidates = []
    for pattern in _candidate_patterns(doc.prose):
        matches = hyphen_joined(pattern, doc.prose) if pattern is HYPHENATED else pattern.finditer(doc.prose)
        for match in matches:
            term = match.group()
            low = term.lower()
            if low in seen:
                continue
            if pattern is HYPHENATED:
                if term.count("-") == 1 and (term[0].lower() + term[1:]).islower():
                    seen.add(low)  # a later "Foo-Bar" is the same word
                    continue  # two-part compounds ("Empty-string" opening a sentence too) are ordinary English
                if _is_common(term, _common(doc.lexicon.words("common_compound"))) or _is_idiom(term):
                    continue
            seen.add(low)
            if doc.settings.accepts(term) or _defined_in_record(doc, term, match.start()):
                continue
            candidates.append(match)
    prefetch = getattr(doc.context, "prefetch_mentions", None)
    if prefetch is not None and candidates:
        prefetch([m.group() for m in candidates])  # one git grep on the hook path, not one per term
    for match in candidates:
        if doc.context.mentions(match.group()):
            continue
        yield doc.finding(
            "CT801",
            Category.COINED_TERM,
            match.start(),
            match.end(),
            "a term that no file of the repository contains and the record does not define",
            "define it in a clause where it first appears, or use the established name",
        )


_PLAIN_SESSION = LazyPattern(
    r"(?i)^(?:this|that|the same|the other|another|a different|the previous|the last|the earlier|an earlier"
    r"|a previous|our|my|the current) (session)$"
)


def names_code_session(doc: Doc, token: str) -> bool:
    """A plain "that session" in a repository whose code has a `session` identifier ("mention that
    session signature checks max age" in a web framework): the repository's own word, not a sitting."""
    match = _PLAIN_SESSION.match(" ".join(token.split()))
    if match is None or not doc.has_tree:
        return False
    assert doc.context is not None
    word = match.group(1)
    return doc.context.uses_identifier(word.lower()) or doc.context.uses_identifier(word.capitalize())


def _candidate_patterns(prose: str) -> tuple[LazyPattern, ...]:
    """HYPHENATED and CAMEL, each only when the text has what every match of it holds ('-', a lower-upper pair)."""
    return ((HYPHENATED,) if "-" in prose else ()) + ((CAMEL,) if _CAMEL_HINT.search(prose) else ())


def rejected_terms(doc: Doc) -> Iterator[Finding]:
    """CT802: terms the configuration's reject list always flags."""
    for term in doc.settings.reject:
        for match in _reject_pattern(term).finditer(doc.prose):
            yield doc.finding(
                "CT802",
                Category.COINED_TERM,
                match.start(),
                match.end(),
                "the project's configuration rejects this term",
                "use the project's established name",
            )


@functools.cache
def _reject_pattern(term: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(term)}(?![A-Za-z0-9_])", re.I)


@functools.cache
def _common(words: tuple[str, ...]) -> re.Pattern[str] | None:
    if not words:
        return None
    return re.compile("|".join(f"(?:{w})" for w in words), re.I)


def _is_common(term: str, common: re.Pattern[str] | None) -> bool:
    if common is None:
        return False
    parts = term.split("-")
    return any(common.fullmatch(f"{a}-{b}") for a, b in zip(parts, parts[1:], strict=False))


# Closed-class words that join an English idiom's parts ("off-by-one", "worst-of-both-worlds");
# a name made of content words only ("gate-integrity-rule") is the kind a session coins.
_JOINERS = frozenset(
    "a an the of by to and or in on at for from with without into over under up down off out as than "
    "not no if all both either per via".split()
)


def _is_idiom(term: str) -> bool:
    """Every part is a frequent English word (a plural's singular, a number) and an inner part
    joins them: "off-by-one", "worst-of-both-worlds" are idioms of the language, not names."""
    parts = term.lower().split("-")
    return any(part in _JOINERS for part in parts[1:-1]) and all(
        part.isdigit() or is_common_word(part) or part.endswith("s") and is_common_word(part[:-1]) for part in parts
    )


def _defined_in_record(doc: Doc, term: str, at: int) -> bool:
    """The record defines the term: quoted, emphasized or followed by a definition where it first appears."""
    escaped = re.escape(term)
    if re.search(rf"[\"“'*`]{escaped}[\"”'*`]", doc.text):
        return True
    after = doc.text[at + len(term) : at + len(term) + 14]
    return any(re.match(rf"\s*\(?\s*{p}", after) for p in _DEFINES)


_DOC_COINED = """\
What it flags: hyphenated (three or more parts, or capitalized) and CamelCase terms that no
file of the repository contains (case-insensitive) and that the record does not define
(quoted, emphasized, or followed by "means", ":", "—", "이란"…). Generic compounds
("read-only", "re-run", "well-known"), idioms of frequent English words joined by a
function word ("off-by-one", "worst-of-both-worlds"; diylisis/core/detectors/common_words.py)
and glossary terms are accepted. Runs only with a
repository.

Why a fresh reader fails: the name was made up in the session; the reader cannot look it up.

Example: bad "Switch the importer to the fold-and-flush mode." good "Switch the importer
to write each batch as soon as it is parsed instead of buffering the whole file."

Repair: define the term where it first appears, or use the established name; add it to
[detect] glossary if the project adopts it. Default severity: warning (set
severity.CT801 = "error" in [detect] to make it block).
"""

_DOC_REJECT = """\
What it flags: every occurrence of a term listed in [detect] reject.

Why a fresh reader fails: the project decided the term misleads (an old name, an internal
nickname); the configuration records that decision.

Example: bad (with reject = ["v2 shim"]) "Route calls through the v2 shim." good "Route
calls through the compatibility layer in compat/."

Repair: use the project's established name.
"""

RULES = (
    Rule(
        id="CT801",
        name="coined-term",
        category=Category.COINED_TERM,
        languages=("en",),
        summary="Jargon the repository never mentions and the record never defines.",
        doc=_DOC_COINED,
        detect=coined_terms,
        lexicon_keys=("common_compound",),
        needs_tree=True,
        requires=(HYPHENATED, _CAMEL_HINT),
        # Measured on the portability corpus, most candidates the tree lacks are ordinary
        # prose; a warning asks the author without failing the record (raise it in [detect]).
        severity=Severity.WARNING,
    ),
    Rule(
        id="CT802",
        name="rejected-term",
        category=Category.COINED_TERM,
        languages=("any",),
        summary="Terms the configuration's reject list always flags.",
        doc=_DOC_REJECT,
        detect=rejected_terms,
        applies=lambda settings: bool(settings.reject),
    ),
)
