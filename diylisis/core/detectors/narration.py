"""Process narration: accounts of the author's private workflow the reader cannot observe (checklist 7)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from diylisis.core.detectors._match import lexicon_findings
from diylisis.core.detectors.rule import Rule
from diylisis.core.detectors.terms import names_code_session
from diylisis.core.detectors.text import Doc
from diylisis.core.lazy_pattern import LazyPattern
from diylisis.core.model import Category, Finding


def private_reviews(doc: Doc) -> Iterator[Finding]:
    """NP601: private reviews, agent panels and tool runs narrated ("cross-reviewed with codex")."""
    yield from lexicon_findings(
        doc,
        "NP601",
        Category.PROCESS_NARRATION,
        "private_review",
        "prose",
        "narrates a private review or tool run; the reader cannot see it or check what it found",
        "state the findings and the reasons for the change; drop who reviewed it privately",
        keep=lambda m: not names_code_session(doc, m.group()) and not _open_review(doc, m),
    )


# Issue 16 (precision on careful human histories): a review nobody is named for is the project's
# own public one ("it wasn't caught in review"); an audit of a thing the sentence names is the
# author reading it ("found during an audit of the flag table"); an audit proposed is not narrated
# ("An independent audit ... would make a good clean-up").
_PLAIN_REVIEW = LazyPattern(r"(?i)^(?:surfaced|found|caught|spotted|flagged) (?:in|during) (?:code )?review$")
_NAMED_OBJECT = LazyPattern(r"(?i)^(?:surfaced|found|caught|spotted|flagged) (?:in|during) (?:an?|the) audit$")
_ARTICLE_BEFORE = LazyPattern(r"(?i)(?<![\w-])an? $")
_PROPOSAL = LazyPattern(r"(?i)(?<![\w-])(?:would|could|should|might)(?![\w-])")


def _open_review(doc: Doc, match: re.Match[str]) -> bool:
    """The review or audit matched is the public review, the reading of a named thing, or a proposal."""
    phrase = " ".join(match.group().split())
    if _PLAIN_REVIEW.match(phrase):
        return True
    if _NAMED_OBJECT.match(phrase) and doc.prose.startswith(" of ", match.end()):
        return True
    if _ARTICLE_BEFORE.search(doc.prose[max(0, match.start() - 4) : match.start()]) is None:
        return False
    rest_of_sentence = re.split(r"[.!?](?:\s|$)", doc.prose[match.end() :], maxsplit=1)[0]
    return _PROPOSAL.search(rest_of_sentence) is not None


def user_decisions(doc: Doc) -> Iterator[Finding]:
    """NP602: what the user decided, asked or approved in a chat ("the user decided", "사용자 결정")."""
    yield from lexicon_findings(
        doc,
        "NP602",
        Category.PROCESS_NARRATION,
        "user_decision",
        "prose",
        "cites a decision made in a conversation the reader never saw",
        "state the decision and its reason as the record's own; link a public issue if one exists",
    )


_DOC_REVIEW = """\
What it flags: narration of private reviews and tool runs: "cross-reviewed with codex",
"from adversarial review", "convergent findings (2/2 reviewer agreement)", "surfaced while
running …", "a 5-agent review", "AI cross-check (Codex + Gemini)", "team review feedback",
"codex findings", "codex 리뷰", "교차 리뷰", "리뷰 결과", "/tool로 확인한 결과". Pointing at the
review of a numbered pull request on the host is not narration, nor is a review nobody is named
for ("it was not caught in review": the project's own), an audit of a thing the sentence names
("found during an audit of the flag table") or an audit proposed ("an independent audit … would").

Why a fresh reader fails: the review happened in the author's session; the reader cannot
see what it examined, so "found by review" is no evidence and no reason.

Example: bad "Tighten the lock scope (found in an adversarial review)." good "Tighten the
lock scope: holding it across the network call stalled every other writer."

Repair: keep the finding and its reason; drop who reviewed what, privately.
"""

_DOC_USER = """\
What it flags: decisions, requests and approvals from a chat or a call: "the user decided",
"User requested:", a sentence or list item opening "User asked …", "User wanted …", "at the
user's request", "came up in the call yesterday", "worked through with Karl", "사용자 결정",
"사용자 요청", "사용자 승인", "지시에 따라", "브리프에 명시". "The user requested" inside a
sentence about what the program does is not flagged.

Why a fresh reader fails: the conversation is not part of the repository; the reader
cannot tell what was decided, by whom, or why.

Example: bad "Keep the old flag (the user decided)." good "Keep the old flag for one
release so existing scripts keep working; remove it in 3.0."

Repair: state the decision and its reason as the record's own.
"""

RULES = (
    Rule(
        id="NP601",
        name="private-review",
        category=Category.PROCESS_NARRATION,
        languages=("en", "ko", "de", "zh", "ja"),
        summary="Narrates private reviews or tool runs ('cross-reviewed with codex', 'codex 리뷰').",
        doc=_DOC_REVIEW,
        detect=private_reviews,
        lexicon_keys=("private_review",),
        requires=("private_review",),
    ),
    Rule(
        id="NP602",
        name="chat-decision",
        category=Category.PROCESS_NARRATION,
        languages=("en", "ko", "de", "zh", "ja"),
        summary="Cites what the user decided or asked in a chat ('the user decided', '사용자 결정').",
        doc=_DOC_USER,
        detect=user_decisions,
        lexicon_keys=("user_decision",),
        requires=("user_decision",),
    ),
)
