"""Process narration: accounts of the author's private workflow the reader cannot observe (checklist 7)."""

from __future__ import annotations

from collections.abc import Iterator

from diylisis.core.detectors._match import lexicon_findings
from diylisis.core.detectors.rule import Rule
from diylisis.core.detectors.terms import names_code_session
from diylisis.core.detectors.text import Doc
from diylisis.core.lazy_pattern import LazyPattern
from diylisis.core.model import Category, Finding


_WHY_REVIEW = "narrates a private review or tool run; the reader cannot see it or check what it found"
_FIX_REVIEW = "state the findings and the reasons for the change; drop who reviewed it privately"


def private_reviews(doc: Doc) -> Iterator[Finding]:
    """NP601: private reviews, agent panels and tool runs narrated ("cross-reviewed with codex")."""
    yield from lexicon_findings(
        doc,
        "NP601",
        Category.PROCESS_NARRATION,
        "private_review",
        "prose",
        _WHY_REVIEW,
        _FIX_REVIEW,
        keep=lambda m: not names_code_session(doc, m.group())  # "another session" of the code's own
        and not (_ENVIRONMENT.search(m.group()) and _LINK.search(doc.line_of(m.start()))),
    )
    if "/" in doc.claims:
        for match in _SLASH_COMMAND_RUN.finditer(doc.claims):
            yield doc.finding("NP601", Category.PROCESS_NARRATION, match.start(), match.end(), _WHY_REVIEW, _FIX_REVIEW)


# An agent's slash command run on the work ("checked via /ground", "surfaced while running `/claim
# --review`", "(Codex + /frame checker)"): a word after a lone slash, bare or opening a code span. Root
# folders of a machine ("via /proc", "into /tmp") are paths, and a second slash or a dot makes a path.
_ROOT_FOLDERS = "tmp|proc|dev|usr|etc|opt|bin|sbin|var|home|root|mnt|srv|sys|boot|lib|lib64|run|media|nix|private|users|volumes"
_SLASH_COMMAND_RUN = LazyPattern(
    rf"(?i)(?:(?<![\w-])(?:via|using|with|ran|running|through)|\((?:codex|claude|gemini|copilot|cursor) ?[+&,]) `?"
    rf"/(?!(?:{_ROOT_FOLDERS})(?![\w-]))[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*(?![\w/.-])"
)


# A run on a shared environment is evidenced by a link to it on the same line ("Tested on staging:
# https://ci.example.org/runs/42")
_ENVIRONMENT = LazyPattern(r"(?i)(?<![\w-])(?:staging|prod|production)(?![\w-])")
_LINK = LazyPattern(r"https?://")


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
        keep=lambda m: not (_VENUE.search(m.group()) and _PUBLIC_RECORD_AFTER.search(_rest_of_paragraph(doc, m.end()))),
    )


# A chat, a call or a channel named as where something was discussed ("after discussions on IRC")
_VENUE = LazyPattern(
    r"(?i)(?<![\w-])(?:irc|matrix|gitter|telegram|wechat|mattermost|slack|discord|zoom|teams|online|calls?|meetings?|"
    r"stand-?ups?|syncs?|huddles?|chats?)(?![\w-])"
)
# The paragraph goes on to name where the discussion is on record: "a discussion on IRC and on several
# issues", "follows a discussion on IRC. For more, see the pull request": the reader can read it there.
_PUBLIC_RECORD_AFTER = LazyPattern(
    r"(?i)(?<![\w-])(?:issues?|pull requests?|PR|mailing list|thread|https?://)(?![\w-])|#\d+|\[\d+\]"
)
_AFTER_LIMIT = 160


def _rest_of_paragraph(doc: Doc, offset: int) -> str:
    """The text after offset up to the end of its paragraph (at most _AFTER_LIMIT characters)."""
    rest = doc.text[offset : offset + _AFTER_LIMIT]
    blank = rest.find("\n\n")
    return rest if blank < 0 else rest[:blank]


_DOC_REVIEW = """\
What it flags: narration of private reviews and tool runs: "cross-reviewed with codex",
"from adversarial review", "convergent findings (2/2 reviewer agreement)", "surfaced while
running …", "a 5-agent review", "AI cross-check (Codex + Gemini)", "team review feedback",
"codex findings", "codex 리뷰", "교차 리뷰", "리뷰 결과", "/tool로 확인한 결과", "review of the
rewrite turned up", an agent's slash command run on the text ("checked via /ground", "while
running `/claim`", "(Codex + /frame)"; root folders such as /proc are paths), and
what the author did on a shared environment ("test-deploying on staging", "deleted the
files on the staging servers"; a link to the run on the same line evidences it). Pointing
at the review of a numbered pull request on the host is not narration.

Why a fresh reader fails: the review happened in the author's session; the reader cannot
see what it examined, so "found by review" is no evidence and no reason.

Example: bad "Tighten the lock scope (found in an adversarial review)." good "Tighten the
lock scope: holding it across the network call stalled every other writer."

Repair: keep the finding and its reason; drop who reviewed what, privately.
"""

_DOC_USER = """\
What it flags: decisions, requests and approvals from a chat or a call: "the user decided",
"User requested:", a sentence or list item opening "User asked …", "User wanted …", "User approved …", "at the
user's request", "came up in the call yesterday", "after discussions on IRC", "this came up
online", "we've heard reports of", "worked through with Karl", "사용자 결정",
"사용자 요청", "사용자 승인", "지시에 따라", "브리프에 명시". "The user requested" inside a
sentence about what the program does is not flagged, nor a discussion whose paragraph goes
on to name where it is on record (an issue, a pull request, a list, a link).

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
        requires=("private_review", _SLASH_COMMAND_RUN),
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
