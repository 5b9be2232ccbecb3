"""F1: deictic closure — scan the target's own content into items and a substitution table.

Also binds decision-shaped sentences to DecisionRecords (Rule 33). Residue tokens come
from the detector registry; pointers (paths, commit ids, URLs the repository can
resolve) become items too, because the certificate judges them as Reference verdicts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from msgspec import Struct

from diylisis.core.lazy_pattern import LazyPattern
from diylisis.core.model import Finding, RepoContext, Snapshot
from diylisis.core.state import DecisionRecord, Item, ItemKind, ItemOrigin, Substitution

_URL = re.compile(r"https?://[^\s<>()\"'`\]]+")
_PATHLIKE = re.compile(
    r"(?<![\w/.:-])((?:[\w.-]+/)+[\w.-]+\.\w+|[\w-]+\.(?:md|txt|py|toml|json|yaml|yml|rs|go|c|h|js|ts))"
    r"(?::\d+)?(?![\w/])"
)
_COMMIT_ID = re.compile(r"(?<![\w/#-])([0-9a-f]{7,40})(?![\w-])")
_SENTENCE_PART = r"(?:[^.\n]|\.(?=\S))*"  # a dot inside a path or number does not end a sentence
_DECISION_WORDS = ("we decided", "decided to", "decision:", "we chose", "chose to", "we will use", "opted for",
                   "settled on", "instead of")
_DECISION = LazyPattern(
    # "decision:" ends in a colon, which a word boundary after it would require a letter to follow
    _SENTENCE_PART + r"\b(?:" + "|".join(_DECISION_WORDS) + r")(?:(?<=:)|\b)" + _SENTENCE_PART + r"\.?|"
    + _SENTENCE_PART + r"(?:결정했|결정함|결정:|택했|채택)" + _SENTENCE_PART + r"\.?",
    re.IGNORECASE,
)
_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)
_DURABLE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org", "lore.kernel.org",
                  "public-inbox.org", "docs.python.org", "pypi.org")

class ScanResult(Struct, frozen=True, kw_only=True):
    """F1 output: items, their substitution rows and the decision records."""

    items: tuple[Item, ...]
    subst_table: tuple[Substitution, ...]
    decisions: tuple[DecisionRecord, ...]


def slug(token: str) -> str:
    """A readable, stable item id from a token ("Task #4" -> "task-4")."""
    if token.isascii():  # NFKC leaves ASCII as it is; most records never load unicodedata
        text = token.lower()
    else:
        import unicodedata

        text = unicodedata.normalize("NFKC", token).lower()
    text = _NON_WORD.sub("-", text).strip("-_")
    return (text[:40].strip("-") or "item")


def scan(snapshot: Snapshot, findings: Iterable[Finding], context: RepoContext | None,
         self_ledger: str | None) -> ScanResult:
    """F1 scan(target, deixis): residue items, pointer items and decision records."""
    text = snapshot.text
    ids: dict[str, int] = {}
    items: list[Item] = []
    rows: list[Substitution] = []

    def new_id(base: str) -> str:
        ids[base] = ids.get(base, 0) + 1
        return base if ids[base] == 1 else f"{base}-{ids[base]}"

    residue_spans: list[tuple[int, int]] = []
    for finding in sorted(findings, key=lambda f: (f.line, f.column, f.rule_id)):
        item = Item(
            id=new_id(slug(finding.token)), token=finding.token, line=finding.line,
            column=finding.column, kind=ItemKind(finding.category.value), origin=ItemOrigin.TARGET,
            rule_id=finding.rule_id, why=finding.why, fix=finding.fix,
            resolution=finding.resolution, checklist=finding.category.checklist,
        )
        items.append(item)
        rows.append(Substitution(item_id=item.id, surface_token=finding.token,
                                 canonical_ref=finding.resolution, confidence=1.0 if finding.resolution else 0.0,
                                 unresolved=finding.resolution is None))
        residue_spans.append((finding.line, finding.column))
    for line_no, column, token, locator in _pointers(text, context):
        if any(line == line_no and abs(col - column) < len(token) for line, col in residue_spans):
            continue
        item = Item(id=new_id("ref-" + slug(token)), token=token, line=line_no, column=column,
                    kind=ItemKind.POINTER, origin=ItemOrigin.TARGET, locator=locator, checklist=4)
        items.append(item)
        rows.append(Substitution(item_id=item.id, surface_token=token, canonical_ref=locator,
                                 confidence=1.0, unresolved=False))
    subject = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if subject:
        items.append(Item(id="record", token=subject, line=1, column=1, kind=ItemKind.CONTENT,
                          origin=ItemOrigin.TARGET, checklist=11))
    decisions = tuple(_decisions(text, context, self_ledger))
    return ScanResult(items=tuple(items), subst_table=tuple(rows), decisions=decisions)


def _pointers(text: str, context: RepoContext | None) -> Iterable[tuple[int, int, str, str]]:
    for line_no, line in enumerate(text.splitlines(), start=1):
        for match in _URL.finditer(line):
            url = match.group(0).rstrip(".,;:")
            if durable_url(url):
                yield line_no, match.start() + 1, url, url
        if context is None:
            continue
        for match in _PATHLIKE.finditer(line):
            path = match.group(1)
            if "://" in line[max(0, match.start() - 8):match.start()]:
                continue
            if context.tracked(path):
                yield line_no, match.start() + 1, match.group(0), path
        for match in _COMMIT_ID.finditer(line):
            full = context.commit_id(match.group(1)) if re.search(r"[a-f]", match.group(1)) else None
            if full:
                yield line_no, match.start() + 1, match.group(1), full


def durable_url(url: str) -> bool:
    """resolves_at for URLs by durability class: public hosts pass; local and session links fail."""
    lowered = url.lower()
    host = re.sub(r"^https?://", "", lowered).split("/", 1)[0].split(":", 1)[0]
    if host in ("localhost", "127.0.0.1", "0.0.0.0") or host.endswith(".local"):
        return False
    if re.match(r"^(10|127|192\.168|169\.254|172\.(1[6-9]|2\d|3[01]))\.", host):
        return False
    if private_host(host):
        return False
    if "/session" in lowered or "/threads/" in lowered or "/artifact/" in lowered:
        return False
    return host in _DURABLE_HOSTS or "." in host


# names only a private network resolves (RFC 6762, RFC 8375, RFC 2606 and common intranet use)
_PRIVATE_SUFFIXES = ("corp", "internal", "intranet", "lan", "local", "localdomain", "home", "home.arpa",
                     "private", "test", "invalid", "example", "onion")
_PRIVATE_LABELS = frozenset({"internal", "intranet", "intra", "corp", "vpn"})


def private_host(host: str) -> bool:
    """A host a receiver outside the author's network cannot open (Rule 21: private hosts fail)."""
    labels = host.lower().rstrip(".").split(".")
    if len(labels) < 2:
        return True  # a bare name resolves only on some network's search domain
    if any(".".join(labels[-len(suffix.split(".")):]) == suffix for suffix in _PRIVATE_SUFFIXES):
        return True
    return bool(_PRIVATE_LABELS & set(labels[:-1]))


def _decisions(text: str, context: RepoContext | None,
               self_ledger: str | None) -> Iterable[DecisionRecord]:
    seen = 0
    for line_no, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith((">", "```")) or not _may_decide(line):
            continue
        for match in _DECISION.finditer(line):
            claim = match.group(0).strip()
            if len(claim) < 8:
                continue
            seen += 1
            yield DecisionRecord(id=f"decision-{seen}", claim=claim, line=line_no,
                                 ledger_ref=_ledger_ref(claim, context) or self_ledger)


def _may_decide(line: str) -> bool:
    """False only where _DECISION cannot match: an ASCII line holding none of its words.

    The pattern tries every start of a sentence and backtracks over the rest of it, so a line
    it does not match costs time quadratic in its length; most lines name no decision at all.
    A line with other characters is always tried: IGNORECASE folds some of them onto ASCII
    letters (the Kelvin sign onto k), and the Korean words have no case.
    """
    if not line.isascii():
        return True
    lowered = line.lower()
    return any(word in lowered for word in _DECISION_WORDS)


def _ledger_ref(claim: str, context: RepoContext | None) -> str | None:
    """The durable record the decision names, when the sentence itself carries one (Rule 33)."""
    for found in _URL.finditer(claim):
        url = found.group(0)
        if durable_url(url):
            return url.rstrip(".,;:")
    if context is None:
        return None
    for match in _COMMIT_ID.finditer(claim):
        full = context.commit_id(match.group(1))
        if full:
            return full
    for match in _PATHLIKE.finditer(claim):
        if context.tracked(match.group(1)):
            return match.group(1)
    return None
