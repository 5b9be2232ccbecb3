"""Deictic anchors: pointers whose target is a position in the author's session (F1; checklist 3)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from diylisis.core.detectors._match import (
    first_paragraph_end,
    lexicon_findings,
    lexicon_matches,
    line_start_defines,
)
from diylisis.core.detectors.rule import Rule
from diylisis.core.detectors.terms import names_code_session
from diylisis.core.detectors.text import Doc
from diylisis.core.lazy_pattern import LazyPattern
from diylisis.core.model import Category, Finding

_SESSION_INTRO = LazyPattern(r"(?i)(?:next|new|following|fresh|다음|새|새로운) ?(?:session|세션)")


def session_deixis(doc: Doc) -> Iterator[Finding]:
    """DX101: "this session", "이번 세션", unless the record itself introduces the session (a prompt for it)."""
    intro: re.Match[str] | None | bool = False  # searched on the first finding only
    for finding in lexicon_findings(
        doc,
        "DX101",
        Category.DEICTIC,
        "session_deixis",
        "prose",
        "points at the author's working session, which the reader never saw",
        "name what happened in it (the decision, the file, the commit) instead of the session",
    ):
        if _CLASS_SESSION.search(finding.token):
            continue  # "in Session", "that Session": a class or product named Session, not a sitting
        if names_code_session(doc, finding.token):
            continue  # the repository's code has a session object: "that session" may be it
        low = finding.token.lower()
        # A prompt written for the next session may call that session "this session".
        offset = doc.line_starts[finding.line - 1] + finding.column - 1
        if intro is False:
            intro = _SESSION_INTRO.search(doc.prose)
        if isinstance(intro, re.Match) and intro.start() < offset and any(
                w in low for w in ("this", "이번", "본", "현재", "the current")):
            continue
        yield finding


# A lower-case English word before a capitalized "Session" (not title case, not German "diese
# Session"): the name of a class or product, as requests' Session.
_CLASS_SESSION = LazyPattern(r"^(?:in|that|the|a|an|this|my|our|another|same|other|previous|current) Session\b")
# The same clause names where the discussion is: a list, a thread, an issue, a commit the reader has
# ("as discussed in 8e4309038f (...)", "as discussed in the previous commit"). A line break inside
# the clause is no stop; a blank line is.
_PUBLIC_DISCUSSION = LazyPattern(
    r"(?i)^(?:[^.\n]|\n(?![ \t]*\n)){0,60}?(?:mailing list|the list|on-list|upstream|thread|\[\d+\]|https?://|issue|"
    r"pull request|\bPR\b|#\d+|RFC|review of|with \w+ \w+ <|lore\.kernel|public-inbox|메일링|"
    r"\b[0-9a-f]{7,40}\b|\b(?:previous|next|parent|preceding|last|earlier|first|prior) (?:commit|patch)|cover letter)"
)
# "mark the hunk as decided": a state being named, not a decision taken somewhere else
_MARKED_AS = LazyPattern(r"(?i)\b(?:mark|marks|marked|marking|flag|flags|flagged|treat|treats|treated)\b[^.\n]{0,40}$")


def discourse_deixis(doc: Doc) -> Iterator[Finding]:
    """DX102: "as discussed", "논의한 대로": a conversation the record does not contain (a cited public one is fine)."""
    yield from lexicon_findings(
        doc,
        "DX102",
        Category.DEICTIC,
        "discourse_deixis",
        "prose",
        "refers to a discussion that is not in the record or the repository",
        "state the conclusion of that discussion and its reason in the record",
        keep=lambda m: not _PUBLIC_DISCUSSION.search(doc.text[m.end() : m.end() + 80])
        and not _MARKED_AS.search(doc.text[max(0, m.start() - 50) : m.start()]),
    )


def above_deixis(doc: Doc) -> Iterator[Finding]:
    """DX103: "as above", "위에서 말한" in the first paragraph, where nothing is above it."""
    limit = first_paragraph_end(doc)
    yield from lexicon_findings(
        doc,
        "DX103",
        Category.DEICTIC,
        "above_deixis",
        "prose",
        "points above, but nothing in the record comes before it: the target is in the session",
        "say what it refers to, or move the pointer after the text it points at",
        keep=lambda m: m.start() < limit,
    )


def option_deixis(doc: Doc) -> Iterator[Finding]:
    """DX104: "option B", "B안", "선택지 1" when the record never lists the options."""
    for match in lexicon_matches(doc, "option_label", "prose"):
        phrase = match.group().strip()
        if line_start_defines(doc, phrase) or _listed_elsewhere(doc, phrase, match.start()):
            continue
        yield doc.finding(
            "DX104",
            Category.DEICTIC,
            match.start(),
            match.end(),
            "names an option from a list the reader never saw",
            "say what the option is (one clause) instead of its label",
        )


def earlier_referent(doc: Doc) -> Iterator[Finding]:
    """DX105: "the earlier approach", "이전 안" when the record never described that approach."""
    for match in lexicon_matches(doc, "earlier_referent", "prose"):
        noun = re.findall(r"[A-Za-z]+", match.group())[-1:] or []
        if noun and re.search(rf"(?i)\b{noun[0]}", doc.text[: match.start()]):
            continue  # the record introduced the approach before pointing back at it
        if _DESCRIBED_AFTER.match(doc.prose, match.end()):
            continue  # "the previous approach of relying on gc was ...": described where it is named
        if (_REPLACED_CODE.fullmatch(match.group()) and doc.has_tree and doc.path is None
                and _REPLACING.search(_sentence_around(doc.text, match.start(), match.end()))):
            continue  # "replaces the old approach, which ...": the code the change replaces, the diff shows it
        yield doc.finding(
            "DX105",
            Category.DEICTIC,
            match.start(),
            match.end(),
            "points back at an approach or plan the record never describes",
            "say in a clause what that approach was and why it was dropped",
        )


# What follows a pointer that describes what it points at: "the old approach of relying on gc", "the
# original idea to detect ...", "the previous design (a lock per table)", "the old approach: one file".
_DESCRIBED_AFTER = LazyPattern(r"(?i)[ \t]*(?:\(|:|[—–]|(?:of|to)[ \t]+\w|,?[ \t]*(?:which|where)(?![\w-]))")
# The code a commit's change replaces, named by its place in time ("the old approach", "the previous
# implementation"); a plan, a proposal or an idea of the author's ("the earlier plan") is no code.
_REPLACED_CODE = LazyPattern(
    r"(?i)the (?:old|previous|original|prior|existing) (?:approach|design|solution|implementation)"
)


# A sentence about replacing that code, not about keeping it or going back to it
_REPLACING = LazyPattern(
    r"(?i)\b(?:replac\w*|instead of|rather than|drops?|dropped|removes?|removed|rewrites?|rewrote|swaps?|"
    r"caused|could ?n[o']t|failed|broke)\b"
)


def _sentence_around(text: str, start: int, end: int) -> str:
    """The sentence that holds text[start:end]: from the stop or blank line before it to the one after."""
    before = max(text.rfind(stop, 0, start) for stop in (". ", ".\n", "\n\n"))
    ends = [at for at in (text.find(stop, end) for stop in (". ", ".\n", "\n\n")) if at >= 0]
    return text[before + 1 : min(ends, default=len(text))]


_NAMED_BEFORE = LazyPattern(
    r"`[^`\n]+`|\S+/\S+|\S+\.[A-Za-z]{1,5}\b|\b(?:branch|브랜치) \S+|(?<![0-9a-zA-Z])[0-9a-f]{7,40}(?![0-9a-zA-Z])"
)


def that_referent(doc: Doc) -> Iterator[Finding]:
    """DX106: "that file", "그 파일" when the record names no file (or branch) before it."""
    for match in lexicon_matches(doc, "that_referent", "prose"):
        before = doc.text[: match.start()]
        noun = re.sub(r"(?:을|를|이|가|은|는|에|에서|의|도|로)$", "", match.group().split()[-1])
        if _NAMED_BEFORE.search(before) or noun.lower() in before.lower():
            continue  # something was named before: the pointer has an antecedent in the record
        yield doc.finding(
            "DX106",
            Category.DEICTIC,
            match.start(),
            match.end(),
            "points at a file or document the record never names",
            "name the file by its path",
        )


def _listed_elsewhere(doc: Doc, phrase: str, at: int) -> bool:
    """The phrase also appears followed by ':' or '—' or '=' somewhere: it is defined in the record."""
    escaped = re.escape(phrase)
    for match in re.finditer(rf"(?i){escaped}\s*(?:\*\*)?\s*[:—=–]", doc.text):
        if match.start() != at:
            return True
    return False


_DOC_SESSION = """\
What it flags: a reference to the author's working session: "this session", "the same
session", "another session", "the prior session", "End-of-session", "a late-night
session", "이번 세션", "본 세션", "같은 세션", "이번 루프".

Why a fresh reader fails: the reader was not in that session; "the bug this session found"
names nothing they can open. A prompt written for the next session that introduces "this
session" itself is not flagged.

Example: bad "Fixes the parser bug found in this session." good "Fixes the parser bug
that drops the last line of a file without a trailing newline."

Repair: name what the session produced (the decision, the file, the commit) in the record.
"""

_DOC_DISCOURSE = """\
What it flags: pointers to a conversation: "as discussed", "as agreed", "per our
discussion", "the approach we settled on", "addresses the concerns" (with no place the
concerns were raised), "논의한 대로", "말씀하신 대로".

Why a fresh reader fails: the discussion lives in a chat or a call the reader cannot see,
so the reason behind the change is missing.

Example: bad "Use a queue here, as discussed." good "Use a queue here so that slow
consumers do not block the reader thread."

Repair: write down the conclusion and the reason the discussion reached.
"""

_DOC_ABOVE = """\
What it flags: "as above", "mentioned earlier", "위에서 말한", "앞서 언급한" in the first
paragraph of a record, where nothing precedes it. Later in a record such a pointer can
refer to the record's own text and is not flagged.

Why a fresh reader fails: with nothing above, the pointer can only mean the author's
earlier conversation.

Example: bad subject "Apply the fix mentioned above" good subject "Close the socket
before retrying the handshake".

Repair: replace the pointer with the thing it points at.
"""

_DOC_OPTION = """\
What it flags: option labels ("option B", "approach 2", "B안", "선택지 1", "세 갈래 중
1번") when the record never lists the options (no line starting with the label, no
"label:" definition).

Why a fresh reader fails: the options were presented in a session; the label alone says
nothing about what was chosen.

Example: bad "Go with option B for the cache." good "Cache parsed manifests in memory
rather than on disk (the disk cache went stale across branches)."

Repair: state the chosen option in words, and the rejected ones if they matter.
"""

_DOC_EARLIER = """\
What it flags: "the earlier approach", "the previous plan", "the original proposal", "이전 안",
"기존 안", "앞선 제안", when the record has not described that approach before pointing
back at it, nor right after ("the previous approach of relying on gc", "the original idea to
detect ..."). In a commit message, "the old approach" or "the previous implementation" is the
code the change replaces, which the diff shows.

Why a fresh reader fails: the earlier approach was discussed or tried in the session; the
reader cannot tell what it was or why it lost.

Example: bad "Go back to the earlier approach for retries." good "Retry with a fixed
delay again; the exponential backoff we tried first starved the other workers. The
earlier approach is simpler and fast enough."

Repair: describe the approach in a clause where it is first mentioned.
"""

_DOC_THAT = """\
What it flags: Korean "그 파일", "그 문서", "그 스크립트", "그 브랜치", "그 커밋" when
nothing before it in the record names a path, a commit or branch, or uses the noun itself.
(English "that file" is left alone: "that" is far more often a conjunction there.)

Why a fresh reader fails: the file was open in the author's session; the reader cannot
tell which one is meant.

Example: bad "재시도 도우미를 그 파일로 옮겼다." good "재시도 도우미를 net/retry.py로
옮겼다. 그 파일에 백오프 코드도 있다."

Repair: name the file by its path.
"""

RULES = (
    Rule(
        id="DX101",
        name="session-deixis",
        category=Category.DEICTIC,
        languages=("en", "ko", "de", "zh", "ja"),
        summary="Points at the author's working session ('this session', '이번 세션').",
        doc=_DOC_SESSION,
        detect=session_deixis,
        lexicon_keys=("session_deixis",),
        requires=("session_deixis",),
    ),
    Rule(
        id="DX102",
        name="discussion-deixis",
        category=Category.DEICTIC,
        languages=("en", "ko", "de", "zh", "ja"),
        summary="Points at a discussion the record does not contain ('as discussed', '논의한 대로').",
        doc=_DOC_DISCOURSE,
        detect=discourse_deixis,
        lexicon_keys=("discourse_deixis",),
        requires=("discourse_deixis",),
    ),
    Rule(
        id="DX103",
        name="nothing-above",
        category=Category.DEICTIC,
        languages=("en", "ko", "zh", "ja"),
        summary="Points above ('as above', '앞서 말한') where the record has nothing above.",
        doc=_DOC_ABOVE,
        detect=above_deixis,
        lexicon_keys=("above_deixis",),
        requires=("above_deixis",),
    ),
    Rule(
        id="DX104",
        name="unlisted-option",
        category=Category.DEICTIC,
        languages=("en", "ko", "zh", "ja"),
        summary="Names an option ('option B', 'B안') the record never lists.",
        doc=_DOC_OPTION,
        detect=option_deixis,
        lexicon_keys=("option_label",),
        requires=("option_label",),
    ),
    Rule(
        id="DX105",
        name="earlier-referent",
        category=Category.DEICTIC,
        languages=("en", "ko", "zh", "ja"),
        summary="Points back at an approach the record never described ('the earlier approach', '이전 안').",
        doc=_DOC_EARLIER,
        detect=earlier_referent,
        lexicon_keys=("earlier_referent",),
        requires=("earlier_referent",),
    ),
    Rule(
        id="DX106",
        name="unanchored-that",
        category=Category.DEICTIC,
        languages=("ko",),
        summary="Points at '그 파일' (that file) when the record names no file before it.",
        doc=_DOC_THAT,
        detect=that_referent,
        lexicon_keys=("that_referent",),
        requires=("that_referent",),
    ),
)
