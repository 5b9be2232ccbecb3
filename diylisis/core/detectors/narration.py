"""Process narration: accounts of the author's private workflow the reader cannot observe (checklist 7)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from diylisis.core.detectors._match import lexicon_findings
from diylisis.core.detectors.claims import UNTICKED
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
        and not (_ENVIRONMENT.search(m.group()) and _LINK.search(doc.line_of(m.start())))
        and not UNTICKED.match(doc.line_of(m.start()))  # a box to tick later is a to-do, not an account
        and not (_PULL_REQUEST_SUBJECT.search(doc.text.split("\n", 1)[0]) and not _PRIVATE_REVIEWER.search(m.group()))
        and not _not_an_account(doc, m.start(), m.end(), plain=not _PRIVATE_REVIEWER.search(m.group()))
        and not _open_review(doc, m)
        and not _describes_behaviour(doc, m)
        and not _SOUGHT_BEFORE.search(doc.prose[max(0, m.start() - 40) : m.start()]),
    )
    if "/" in doc.claims:
        for match in _SLASH_COMMAND_RUN.finditer(doc.claims):
            yield doc.finding("NP601", Category.PROCESS_NARRATION, match.start("run"), match.end("run"), _WHY_REVIEW,
                              _FIX_REVIEW)


# An agent that "reviews" or "audits" an object in the present tense is what a workflow or a feature
# does ("the action runs and Claude reviews the diff for bugs"), not an account of a review that ran.
# Only a word that opens an object makes "reviews" a verb; anything else after it ("found", "uncovered",
# "revealed", a preposition, nothing) leaves it a noun.
_PRESENT_VERB = LazyPattern(r"(?i)(?:^|\s)(?:reviews|audits)$")
_OBJECT_OPENS = LazyPattern(
    r"(?i)(?:the|a|an|this|that|these|those|each|every|all|any|your|its|their|new|incoming|pending|open|prs?|"
    r"mrs?|pull|merge|diffs?|changes|code|commits?|patches|patch|files?)(?![\w-])"
)


# Feedback asked for ("Ask for feedback from two Codex sessions") or gathered by the feature the change
# builds ("the bot collects comments from several Claude sessions") is no account of a review that ran.
# "Address feedback from Codex" stays one: a subject's imperative says what this change did.
_SOUGHT_BEFORE = LazyPattern(
    r"(?i)(?<![\w-])(?:asks? for|asking for|requests?|requesting|waits? for|waiting for|seeks?|seeking|collects|"
    r"gathers|aggregates|fetches)\s+(?:[\w-]+\s+){0,2}$"
)


def _describes_behaviour(doc: Doc, match: re.Match[str]) -> bool:
    """The match ends in a present-tense verb whose object follows (see _PRESENT_VERB)."""
    if not _PRESENT_VERB.search(match.group()):
        return False
    after = doc.prose[match.end() : match.end() + 40]
    word = re.match(r"[ \t]+([A-Za-z][\w-]*)", after)
    return word is not None and _OBJECT_OPENS.fullmatch(word.group(1)) is not None


def _not_an_account(doc: Doc, start: int, end: int, *, plain: bool) -> bool:
    """A review or audit the clause negates ("it wasn't caught in review") or proposes ("an audit to
    check this would make a good clean-up"); or a plain one (no agent, nothing private) whose object it
    names, so anyone can repeat it ("found during an audit of the flag table")."""
    clause_start = max(doc.prose.rfind(stop, 0, start) for stop in (". ", ".\n", ";", "\n\n")) + 1
    ends = [at for at in (doc.prose.find(stop, end) for stop in (". ", ".\n", ";", ":", ",", "(", "\n\n")) if at >= 0]
    before, after = doc.prose[clause_start:start], doc.prose[end : min(ends, default=len(doc.prose))]
    return bool(plain and _NEGATED_BEFORE.search(before) or _PROPOSED_AFTER.search(after)
                or plain and _OBJECT_NAMED.match(after))


_NEGATED_BEFORE = LazyPattern(r"(?i)(?<![\w-])(?:not|never|no|nobody|nothing|without)(?![\w-])|n't\b")
_PROPOSED_AFTER = LazyPattern(r"(?i)(?<![\w-])(?:would|could|should|might)(?![\w-])")
_OBJECT_NAMED = LazyPattern(r"(?i)\s+of\s+(?:the|this|that|these|our|its|every|all)\s+\w")


# An agent's slash command run on the work ("checked via /ground", "surfaced while running `/claim
# --review`", "(Codex + /frame checker)"): a word after a lone slash, bare or opening a code span. Root
# folders of a machine ("via /proc", "into /tmp") are paths, and a second slash or a dot makes a path. A
# command is lower-case letters: "with `/O2`" or "with `/utf-8`" passes a compiler flag.
_ROOT_FOLDERS = ("tmp|proc|dev|usr|etc|opt|bin|sbin|var|home|root|mnt|srv|sys|boot|lib|lib64|run|media|nix|"
                 "private|users|volumes")
_SLASH_COMMAND_RUN = LazyPattern(
    rf"(?i)(?:(?<![\w-])(?:checked|verified|validated|reviewed|confirmed|tested|linted)(?![\w-])[^.\n]{{0,60}}?"
    rf"(?=(?:via|using|with|through) `?/)|(?<![\w-])(?=(?:via|using|with|through) `|(?:ran|running) )"
    rf"|(?=\((?:codex|claude|gemini|copilot|cursor) ?[+&,]))"
    rf"(?P<run>(?:(?:via|using|with|through|ran|running) `?|\((?:codex|claude|gemini|copilot|cursor) ?[+&,] ?`?)"
    rf"/(?!(?:{_ROOT_FOLDERS})(?![\w-]))(?-i:[a-z]{{2,}}(?:[-_][a-z]+)*)(?![\w/.:+-]))"
)


# A squash-merged pull request names its number at the end of the subject ("Fix the cache (#1304)"):
# "flagged during review" there is the pull request's review, which the host shows. A reviewer named as
# an agent or qualified as private is still narration.
_PULL_REQUEST_SUBJECT = LazyPattern(r"\(#\d+\)\s*$")
_PRIVATE_REVIEWER = LazyPattern(
    r"(?i)(?<!\w)(?:codex|claude|gemini|copilot|cursor|gpt[\w.-]*|opus|sonnet|chatgpt|grok|deepseek|agents?|"
    r"sub-?agents?|llm|ai|model|internal|private|offline|off-list|adversarial|independent|red-team|cross(?:-\w+)?|"
    r"ensemble|multi-agent|sandbox|session|self)(?!\w)|/"
)
# A run on a shared environment is evidenced by a link to it on the same line ("Tested on staging:
# https://ci.example.org/runs/42")
_ENVIRONMENT = LazyPattern(r"(?i)(?<![\w-])(?:staging|prod|production)(?![\w-])")
_LINK = LazyPattern(r"https?://")


# A review nobody is named for is the project's
# own public one ("it wasn't caught in review"); an audit of a thing the sentence names is the
# author reading it ("found during an audit of the flag table"); an audit proposed is not narrated
# ("An independent audit ... would make a good clean-up").
_PLAIN_REVIEW = LazyPattern(r"(?i)^(?:surfaced|found|caught|spotted|flagged) (?:in|during) (?:code )?review$")
_NAMED_OBJECT = LazyPattern(r"(?i)^(?:surfaced|found|caught|spotted|flagged) (?:in|during) (?:an?|the) audit$")
_ARTICLE_BEFORE = LazyPattern(r"(?i)(?<![\w-])an? $")


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
    return _PROPOSED_AFTER.search(rest_of_sentence) is not None


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
        keep=lambda m: not (_TALK.search(m.group()) and _PUBLIC_RECORD_AFTER.search(_rest_of_paragraph(doc, m.end()))),
    )


# A chat, a call or a channel named as where something was discussed ("after discussions on IRC")
_VENUE = LazyPattern(
    r"(?i)(?<![\w-])(?:irc|matrix|gitter|telegram|wechat|mattermost|slack|discord|zoom|teams|online|calls?|meetings?|"
    r"stand-?ups?|syncs?|huddles?|chats?)(?![\w-])"
)
# A discussion named by where or with whom it happened ("after discussions on IRC", "a discussion with Ana").
_TALK = LazyPattern(rf"{_VENUE.pattern}|(?i:(?<![\w-])(?:discussions?|conversations?|talks?)(?![\w-]))")
# The paragraph goes on to name where the discussion is on record: "a discussion on IRC and on several
# issues", "follows a discussion on IRC. For more, see the pull request": the reader can read it there.
_PUBLIC_RECORD_AFTER = LazyPattern(
    r"(?i)(?<![\w-])(?:issues?|pull requests?|PR|mailing list|the list|on-list|thread|https?://)(?![\w-])|#\d+|\[\d+\]"
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
"codex findings", "subagent verification", "oracle review fixes", "self-review
follow-up", "codex 리뷰", "교차 리뷰", "리뷰 결과", "/tool로 확인한 결과", "review of the
rewrite turned up", "a full audit revealed", "second-pass review of the patch caught", an
agent's slash command run on the text ("checked via /ground", "while running `/claim`",
"(Codex + /frame)"; root folders such as /proc are paths), and
what the author did on a shared environment ("test-deploying on staging", "deleted the
files on the staging servers"; a link to the run on the same line evidences it). Pointing
at the review of a numbered pull request on the host is not narration, nor a review in a
squash-merged pull request (its subject ends "(#N)") unless the reviewer is named as an
agent or the review as private, nor a review in a checklist box still to tick, nor one the
clause negates ("it was not caught in review") or proposes ("an audit ... would make a good
clean-up"), nor a plain one whose object it names ("found during an audit of the flag
table"), which anyone can repeat, nor one nobody is named for ("it was caught in review":
the project's own).

Why a fresh reader fails: the review happened in the author's session; the reader cannot
see what it examined, so "found by review" is no evidence and no reason.

Example: bad "Tighten the lock scope (found in an adversarial review)." good "Tighten the
lock scope: holding it across the network call stalled every other writer."

Repair: keep the finding and its reason; drop who reviewed what, privately.
"""

_DOC_USER = """\
What it flags: decisions, requests and approvals from a chat or a call: "the user decided",
"User requested:", "[Request interrupted by user]" (a chat transcript pasted in), a
sentence or list item opening "User asked …", "User wanted …", "User approved …", "at the
user's request", "came up in the call yesterday", "after discussions on IRC", "this came up
online", "we've heard reports of", "worked through with Karl", "사용자 결정",
"사용자 요청", "사용자 승인", "ユーザー依頼:", "지시에 따라", "브리프에 명시". "The user
requested" inside a
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
