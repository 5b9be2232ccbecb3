"""Session identifiers: labels whose meaning lives only in the session or a tracker the reader lacks (checklist 2)."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from diylisis.core.cjk import CJK_LETTERS, CjkPattern
from diylisis.core.detectors._match import hyphen_joined, lexicon_findings, lexicon_matches, line_start_defines
from diylisis.core.detectors.rule import Rule
from diylisis.core.detectors.text import Doc, is_common_word
from diylisis.core.lazy_pattern import LazyPattern
from diylisis.core.model import Category, Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from diylisis.core.detectors.lexicon import Lexicon

# A key may touch CJK text, which puts no space around it ("修复ABC-12的问题"): a letter
# other than a CJK one ends it.
_NOT_CJK_WORD = rf"[^\W{CJK_LETTERS}]"
UPPER_KEY = CjkPattern(
    rf"(?<!{_NOT_CJK_WORD})(?<![/#.-])([A-Z][A-Z0-9]{{1,9}})-(\d{{1,6}})(?!{_NOT_CJK_WORD}|[/-]|\.\d)"
)
# beads-style ids may carry a child number ("bd-o0u.6"); a prefix of two to four letters ("dolt-am0wf")
LOWER_KEY = CjkPattern(
    rf"(?<!{_NOT_CJK_WORD})(?<![/#.@-])([a-z]{{2,4}})-([a-z0-9]{{1,8}})(?:\.\d{{1,3}})*(?!{_NOT_CJK_WORD}|[/@-]|\.\w)"
)
# What every match of each key holds, cheap to compile: on CJK text the keys compile in full
# (milliseconds each), and most records hold no key shape at all.
_UPPER_HINT = LazyPattern(r"[A-Z][A-Z0-9]{1,9}-\d")
_LOWER_HINT = LazyPattern(r"[a-z]{2,4}-[a-z0-9]")
# Codes touch CJK text ("감사F11의", "監査F11の"): any CJK text may come before one, but
# after one only a particle may follow, hiragana or a Korean one; a noun ("A4용지", "A4纸") makes a name.
_PARTICLE = "의|에서|에게|에|은|는|이|가|을|를|으로|로|와|과|도|만|부터|까지|[\u3040-\u309f]"
_CODE_END = rf"(?!{_NOT_CJK_WORD}|[/%-]|\.\d)(?!(?!{_PARTICLE})[{CJK_LETTERS}])"
CODE = CjkPattern(rf"(?<!{_NOT_CJK_WORD})(?<![/#.-])([A-Z]{{1,2}})(\d{{1,2}}){_CODE_END}")
R_ROUND = LazyPattern(r"(?<![\w/#.-])R\d{1,2}(?:\s*[-–]\s*R\d{1,2})?(?![\w/%-]|\.\d)")
_CODE_HINT = LazyPattern(r"[A-Z]\d")  # in every CODE match, and far cheaper to look for
_VOWEL = LazyPattern(r"[aeiouy]")
_VERSION = LazyPattern(r"v\d+")
# Priority, heading, version, quarter and line-number shapes ("P1", "H2", "v3", "Q4", "L93").
_CODE_SKIP = frozenset({"P", "H", "V", "S", "Q", "X", "L", "ES", "IE", "PR", "HTTP", "TLS", "OS", "PY", "UI", "IO"})
_ENGLISH_PREFIX = frozenset(
    "re co de un in on an to be by up no go do so is as at of or if it non pre pro sub mid out off "
    "per via key top end all low one two six ten dry raw old new big get set let run add use see "
    "web app api cli gui log big day pre the and for not any line page item step task node port "
    "row col week gen ver rev "
    # four-letter words, since a prefix may have four letters ("dolt-am0wf")
    "post long full half self auto fast slow only with from into over last next make time base code "
    "file data test high real read sort html java http user type case mode size name tree path back "
    "side well both each more less most open drop pull push sync edit view list load save show hide "
    "exit init main core repo pipe hook lock fork join link mark pack part plan rule slot span unit "
    "word zero page item step task node port".split()
)


def _review_context(doc: Doc) -> bool:
    """The record talks about review rounds or private reviews, so short codes are likely finding labels."""
    if "review_context" not in doc.memo:
        keys = ("round_label", "private_review", "review_word")
        doc.memo["review_context"] = any(next(lexicon_matches(doc, key, "prose"), None) is not None for key in keys)
    return bool(doc.memo["review_context"])


def _defined(doc: Doc, term: str) -> bool:
    """The repository defines the term (only asked when a tree is available)."""
    return doc.has_tree and doc.context is not None and doc.context.mentions(term)


def round_labels(doc: Doc) -> Iterator[Finding]:
    """SI201: review-loop rounds ("round 6", "라운드 6", "5회차", "R6" next to review talk)."""
    why = "a review-loop round number means something only inside the author's review session"
    fix = "state what that round found or changed, without its number"
    yield from lexicon_findings(doc, "SI201", Category.SESSION_ID, "round_label", "prose", why, fix)
    if _review_context(doc):
        yield from lexicon_findings(doc, "SI201", Category.SESSION_ID, "bare_round_label", "prose", why, fix)
        for match in R_ROUND.finditer(doc.prose):
            if not _defined(doc, match.group()):
                yield doc.finding("SI201", Category.SESSION_ID, match.start(), match.end(), why, fix)


def finding_codes(doc: Doc) -> Iterator[Finding]:
    """SI202: finding codes of a private audit ("audit F11", "F24" in a review narrative)."""
    why = "the code names an item in a private audit or review the reader cannot open"
    fix = "say what the finding was, in a clause"
    if not _CODE_HINT.search(doc.prose):
        return
    codes = list(CODE.finditer(doc.prose))
    if not codes:
        return
    intro = doc.lexicon.pattern("finding_intro")
    review = _review_context(doc)
    numbers: dict[str, set[str]] = {}
    for match in codes:
        numbers.setdefault(match.group(1), set()).add(match.group(2))
    # A letter numbered three or more ways ("T1, T2, T3") is an enumeration of items somewhere.
    enumerated = {letters for letters, seen in numbers.items() if len(seen) >= 3}
    for match in codes:
        letters, _ = match.groups()
        if letters in _CODE_SKIP or line_start_defines(doc, match.group()):
            continue
        before = doc.prose[max(0, match.start() - 16) : match.start()]
        introduced = intro is not None and intro.search(before.split("\n")[-1]) is not None
        if not (introduced or review or letters in enumerated) or _defined(doc, match.group()):
            continue
        start = match.start()
        if introduced:
            found = intro.search(before.split("\n")[-1]) if intro else None
            start = match.start() - len(before.split("\n")[-1]) + found.start() if found else start
        yield doc.finding("SI202", Category.SESSION_ID, start, match.end(), why, fix)


def task_labels(doc: Doc) -> Iterator[Finding]:
    """SI203: task numbers of a session plan ("Task #4", "작업 #3")."""
    yield from lexicon_findings(
        doc,
        "SI203",
        Category.SESSION_ID,
        "task_label",
        "prose",
        "a task number from the author's plan or todo list, which is not in the repository",
        "describe the task instead of numbering it, or link the tracker entry",
        keep=lambda m: not _defined(doc, m.group()),
    )


def phase_labels(doc: Doc) -> Iterator[Finding]:
    """SI204: "Phase 2" when neither the record nor any file of the repository defines it."""
    plan = _record_plan(doc)
    for match in lexicon_matches(doc, "phase_label", "prose"):
        phrase = re.sub(r"\s+", " ", match.group())
        if (plan and line_start_defines(doc, phrase)) or _defined(doc, phrase):
            continue
        yield doc.finding(
            "SI204",
            Category.SESSION_ID,
            match.start(),
            match.end(),
            "a plan phase that no file in the repository defines",
            "say what the phase covers, or commit the plan that defines it and cite its path",
        )


_PHASE_LINE = LazyPattern(r"(?im)^[ \t>#*_\-+|]*(?:phase|stage|milestone|step) ?(\d{1,2}[a-z]?)\b")


def _record_plan(doc: Doc) -> bool:
    """The record lays out a plan: two or more phases open a line each ("Phase 1: …", "## Phase 2").

    One line opening with "Phase 4: …" (a subject, a heading) names the phase it belongs to; it
    does not say what the plan's other phases are, so it defines nothing.
    """
    return len({number.lower() for number in _PHASE_LINE.findall(doc.text)}) >= 2


def agent_identities(doc: Doc) -> Iterator[Finding]:
    """SI205: agent identities of a multi-agent rig ("rig/crew/name") that the tree does not hold."""
    words = doc.lexicon.words("agent_role")
    if not words:
        return
    pattern = _agent_pattern(words)
    for match in pattern.finditer(doc.locators):
        if doc.has_tree and doc.context is not None and doc.context.tracked(match.group()):
            continue
        yield doc.finding(
            "SI205",
            Category.SESSION_ID,
            match.start(),
            match.end(),
            "names an agent of the author's multi-agent setup, not anything in the repository",
            "drop the agent's name; the commit author and trailers already say who wrote it",
        )


@functools.cache
def _agent_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    roles = "|".join(re.escape(word) for word in words)
    return re.compile(rf"(?<![\w/.-])[a-z][\w-]*/(?:{roles})(?:/[a-z][\w-]*)?(?![\w/.-])", re.I)


def tracker_keys(doc: Doc) -> Iterator[Finding]:
    """SI206: issue keys ("ABC-123", "bd-a1b2") that no committed file defines and config does not map."""
    public = _public_prefixes(doc.lexicon)
    upper = hyphen_joined(UPPER_KEY, doc.prose) if _UPPER_HINT.search(doc.prose) else ()
    for match in upper:
        prefix, _ = match.groups()
        if prefix in public or prefix.rstrip("0123456789") in public:
            continue
        yield from _key_finding(doc, match)
    qualified: set[str] = set()
    candidates = []
    lower = hyphen_joined(LOWER_KEY, doc.prose) if _LOWER_HINT.search(doc.prose) else ()
    for match in lower:
        prefix, suffix = match.groups()
        if prefix in _ENGLISH_PREFIX or prefix.upper() in public:
            continue
        if len(match.group()) > len(prefix) + 1 + len(suffix) and (suffix.isdigit() or _VERSION.fullmatch(suffix)):
            continue  # "vi-2.52", "post-v2.30": a version, not a child id ("bd-o0u.6")
        candidates.append(match)
        # Without a tree only shapes English never has count: a digit, or one prefix used as a
        # numbering scheme for several ids. With a tree, vowel-less ids qualify and mentions() decides.
        # All-digit ids ("ab-12") need a two-letter prefix: "gcc-11" and "node-18" are versions.
        # All-digit ids stay short ("bd-42"): four digits and more are versions ("ld-1167").
        # Vowel-less ids of two letters are abbreviations ("gcc-rs"), not hashes; after a word of four
        # letters they are abbreviations or placeholders too ("rust-fmt", "tikv-xxx"): only a digit qualifies.
        if (re.search(r"[a-z]\d|\d[a-z]", suffix) or (suffix.isdigit() and len(prefix) == 2 and len(suffix) <= 3)) or (
            doc.has_tree and not _VOWEL.search(suffix) and not suffix.isdigit()
            and len(suffix) >= 3 and len(prefix) <= 3
        ):
            qualified.add(prefix)
        elif len(prefix) <= 3 and len(suffix) >= 3 and _subject_tag(doc, match) and not is_common_word(suffix):
            qualified.add(prefix)  # "Trim the retry loop (qx-vurpo)": how a tracker's key tags a subject
    for match in candidates:
        if match.group(1) in qualified:
            yield from _key_finding(doc, match)


def _subject_tag(doc: Doc, match: re.Match[str]) -> bool:
    """The match stands alone in parentheses at the end of the subject line ("… (qx-vurpo)")."""
    subject_end = doc.text.find("\n")
    subject_end = len(doc.text) if subject_end < 0 else subject_end
    return (
        doc.text[match.start() - 1 : match.start()] == "("
        and doc.text[match.end() : subject_end].rstrip() == ")"
    )


def _cited_by_own_change(doc: Doc, key: str) -> bool:
    """The commit's own change cites the key in parentheses, as a code comment citing the ticket does
    ("// slot fields (gt-h5sza)"): that carries the tracker's label into the tree and defines nothing
    the reader can open. A tree that also holds the key as a quoted value (a committed tracker export,
    `"id":"bd-12"`) defines it."""
    context = doc.context
    return context is not None and context.in_change(f"({key})") and not context.mentions(f'"{key}"')


@functools.cache
def _public_prefixes(lexicon: Lexicon) -> frozenset[str]:
    # keyed by the lexicon: hashing its 65 prefixes on every call cost more than the rule's search
    return frozenset(word.upper() for word in lexicon.words("public_key_prefix")) | {"GH"}


def _key_finding(doc: Doc, match: re.Match[str]) -> Iterator[Finding]:
    key = match.group()
    url = doc.settings.tracker_url(key)
    if url is None and _defined(doc, key) and not _cited_by_own_change(doc, key):
        return
    yield doc.finding(
        "SI206",
        Category.SESSION_ID,
        match.start(),
        match.end(),
        "an issue key of a tracker the reader cannot reach"
        if url is None
        else "an issue key; the configured tracker gives its full URL",
        "link the issue by its full URL, or describe it" if url is None else f"write {url}",
        resolution=url,
    )


_DOC_ROUND = """\
What it flags: review-loop round and cycle numbers: "round 6", "codex round 4",
"cycle 3", "라운드 6", "5회차", "리뷰 5라운드", and "R6" shorthand in a record that talks
about review rounds.

Why a fresh reader fails: the rounds happened in a private review loop; "fixed in round 6"
tells the reader neither what was wrong nor where to look.

Example: bad "Round 6 fix: guard the empty list." good "Guard the empty list: an empty
selection made the summary divide by zero."

Repair: say what the round found or decided, without its number.
"""

_DOC_CODES = """\
What it flags: finding codes of a private audit or review: "audit F11", "finding C2",
"지적 T3", and bare codes like "F24" or "T1" in a record that narrates review rounds,
unless some file in the repository defines the code.

Why a fresh reader fails: the audit report is not in the repository, so the code is a
dangling key.

Example: bad "Addresses audit F11." good "Rejects negative timeouts, which the scheduler
treated as 'wait forever'."

Repair: restate the finding, or commit the audit and cite its path.
"""

_DOC_TASK = """\
What it flags: task numbers from a session plan or todo list: "Task #4", "Task #3·#4",
"step #2", "작업 #5".

Why a fresh reader fails: the numbered list lived in the author's session; the number
resolves to nothing in the repository or its tracker.

Example: bad "Completes Task #4." good "Adds the --dry-run flag to the export command."

Repair: describe the task, or link its tracker issue by URL.
"""

_DOC_PHASE = """\
What it flags: plan phases ("Phase 2", "stage 3", "2단계") that neither the record nor
any file of the repository defines. The record defines a phase when it lays out the plan:
two or more phases each opening a line; a lone subject "Phase 4: …" names its phase and
defines nothing. Runs only when a repository tree is available.

Why a fresh reader fails: the plan that numbers the phases is not committed; "that's
Phase 2" cannot be looked up.

Example: bad "Leave retries for Phase 2." good "Leave retries for later: they need the
job table that is not written yet."

Repair: say what the phase is, or commit the plan and cite it.
"""

_DOC_AGENT = """\
What it flags: identities of agents in a multi-agent rig written as rig/role/name paths
(role words such as crew, polecats, refinery), unless the path is tracked.

Why a fresh reader fails: the agent's name and its worktree exist only on the author's
machine.

Example: bad "Picked up by shop/crew/ann after the rebase." good "Rebased onto the
storage refactor."

Repair: drop the agent's name; commit authorship and trailers already record who wrote it.
"""

_DOC_KEY = """\
What it flags: issue keys of a tracker ("ABC-123", "bd-a1b2", "bd-o0u.6", "dolt-am0wf")
that no committed file mentions and that [detect] trackers does not map to a URL. A key the
commit's own change adds to the tree (a code comment citing the ticket) is still a key, and so
is a lower-case id alone in parentheses ending the subject ("Trim the retry loop (qx-vurpo)")
when it is no English word. Public
identifier families (UTF-8, SHA-256, RFC-7231, CVE-..., SEP-...) are not keys; nor are
versions ("ld-1167") and two-letter abbreviations ("gcc-rs"). When config maps the prefix, the
finding carries the full URL as its resolution.

Why a fresh reader fails: the tracker is private or local to the author's checkout.

Example: bad "Fixes QA-88." good "Fixes https://tracker.example/browse/QA-88 (imports
failed on files with a BOM)."

Repair: link the issue by its full URL, or say what it was.
"""

RULES = (
    Rule(
        id="SI201",
        name="review-round",
        category=Category.SESSION_ID,
        languages=("en", "ko", "zh", "ja"),
        summary="Review-loop round or cycle numbers ('round 6', '라운드 6', '5회차').",
        doc=_DOC_ROUND,
        detect=round_labels,
        lexicon_keys=("round_label", "bare_round_label", "review_word"),
        requires=("round_label", "private_review", "review_word"),
    ),
    Rule(
        id="SI202",
        name="finding-code",
        category=Category.SESSION_ID,
        languages=("en", "ko", "zh", "ja"),
        summary="Finding codes of a private audit or review ('audit F11', 'F24').",
        doc=_DOC_CODES,
        detect=finding_codes,
        lexicon_keys=("finding_intro",),
        requires=("shape:letter_digit",),
    ),
    Rule(
        id="SI203",
        name="task-number",
        category=Category.SESSION_ID,
        languages=("en", "ko", "zh", "ja"),
        summary="Task numbers of a session plan ('Task #4').",
        doc=_DOC_TASK,
        detect=task_labels,
        lexicon_keys=("task_label",),
        requires=("task_label",),
    ),
    Rule(
        id="SI204",
        name="undefined-phase",
        category=Category.SESSION_ID,
        languages=("en", "zh", "ja"),
        summary="Plan phases ('Phase 2') that no file of the repository defines.",
        doc=_DOC_PHASE,
        detect=phase_labels,
        lexicon_keys=("phase_label",),
        needs_tree=True,
        requires=("phase_label",),
    ),
    Rule(
        id="SI205",
        name="agent-identity",
        category=Category.SESSION_ID,
        languages=("any",),
        summary="Agent identities of a multi-agent rig ('rig/crew/name').",
        doc=_DOC_AGENT,
        detect=agent_identities,
        lexicon_keys=("agent_role",),
        requires=("agent_role",),
    ),
    Rule(
        id="SI206",
        name="tracker-key",
        category=Category.SESSION_ID,
        languages=("any",),
        summary="Issue keys ('ABC-123', 'bd-a1b2') no committed file defines and config does not map.",
        doc=_DOC_KEY,
        detect=tracker_keys,
        lexicon_keys=("public_key_prefix",),
        requires=(UPPER_KEY, LOWER_KEY),
    ),
)
