"""identify (Phase 0): the claims of the pinned sources that the action reads and git shows suspect.

Pure: the claim lines come from a source's pinned text, the facts from `diylisis.edges.vet_facts`.
A claim enters S_high when the action reads its source (a Stake exists) and a suspect predicate
holds: a contradiction with code or config, lag behind a later commit, an unenforced value in a
highly cited source, or an inference read as a standing rule.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from diylisis.core import tagging
from diylisis.core.vet.model import Audit, ClaimFacts, ClaimRef, Source, Stake, Suspicion, Tags, audit_id

HIGH_LEVERAGE = 3  # spec working hypothesis: downstream_count >= 3
MAX_ASKED_PER_SOURCE = 4  # one batch: the strongest suspect claims of a source are asked, the rest reported
CHANGED = "the range changes "  # a read of the claims that name the path after it, not of the whole source
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_HEADING = re.compile(r"^[ \t]*#")
_INFERENCE = re.compile(r"\b(never|always|safe to|guaranteed|cannot fail|no need to)\b", re.I)
_ABSENT = re.compile(r"\b(not measured yet|not yet measured|TBD|to be decided|unknown for now)\b", re.I)


def claim_lines(source: Source) -> tuple[tagging.ClaimLine, ...]:
    """Each prose line of the source (not blank, not a heading, not inside a fence), with its
    paragraph: the run of non-blank, non-heading lines around it."""
    lines = source.text.split("\n")
    in_run = [bool(line.strip()) and not _HEADING.match(line) for line in lines]
    start = list(range(len(lines)))
    for index in range(1, len(lines)):
        if in_run[index] and in_run[index - 1]:
            start[index] = start[index - 1]
    end = list(range(len(lines)))
    for index in range(len(lines) - 2, -1, -1):
        if in_run[index] and in_run[index + 1]:
            end[index] = end[index + 1]
    fenced = False
    found = []
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced and in_run[index]:
            found.append(tagging.ClaimLine(source=source.path, line=index + 1, text=line,
                                           paragraph="\n".join(lines[start[index]:end[index] + 1])))
    return tuple(found)


def is_inference(text: str) -> bool:
    """The line states a standing rule ("never", "always", "safe to"): an inference-character claim."""
    return _INFERENCE.search(text) is not None


def is_absent(text: str) -> bool:
    """The line says its referent is not known yet ("not measured yet", "TBD")."""
    return _ABSENT.search(text) is not None


def suspicions(facts: ClaimFacts, leverage: tagging.LeverageTag) -> tuple[Suspicion, ...]:
    """The suspect predicates that hold for one claim, strongest first."""
    found = []
    if facts.contradictions:
        found.append(Suspicion.CONTRADICTION)
    if facts.freshness.lag:
        found.append(Suspicion.LAG)
    if is_inference(facts.claim.text) and not facts.agreements:
        found.append(Suspicion.INFERENCE)
    if (facts.agreements and not facts.contradictions and not facts.enforcement
            and leverage.downstream_count >= HIGH_LEVERAGE):
        found.append(Suspicion.UNENFORCED)
    if is_absent(facts.claim.text):
        found.append(Suspicion.ABSENT)
    return tuple(found)


def claim_ref(source: Source, facts: ClaimFacts, kinds: tuple[Suspicion, ...]) -> ClaimRef:
    """The ClaimRef of a claim line: its referent is the first scoped key it is compared with, else
    the line itself; its text is the line without surrounding blanks, verbatim."""
    line = facts.claim.text
    text = line.strip()
    start = line.index(text) + 1 if text else 1
    keyed = [*(c.fact.referent for c in facts.contradictions), *(a.fact.referent for a in facts.agreements)]
    referent = keyed[0] if keyed else f"{source.path}:L{facts.claim.line}"
    scope = ", ".join(sorted({c.fact.path for c in facts.contradictions} | {a.fact.path for a in facts.agreements}))
    return ClaimRef(referent=referent, claim_kind=kinds[0].value if kinds else "statement",
                    scope=scope or source.path, text=text, line=facts.claim.line,
                    column_start=start, column_end=start + len(text.encode()) - 1)


def claim_reads(reads: Sequence[str], claim: tagging.ClaimLine) -> tuple[str, ...]:
    """What the action reads of one claim: what it reads of the whole source (a line citing it,
    a leaned-on file, the naming with --source), and each path it changes that the claim names."""
    named = set(tagging.named_paths(claim.text))
    return tuple(r for r in reads if not r.startswith(CHANGED) or r.removeprefix(CHANGED) in named)


def strength(kinds: Sequence[Suspicion]) -> int:
    """The rank of a claim's strongest suspect predicate (0 is a contradiction)."""
    order = list(Suspicion)
    return min((order.index(kind) for kind in kinds), default=len(order))


def stake(reads: Sequence[str], leverage: tagging.LeverageTag) -> Stake:
    """The action's reading lines first, then every other branch that rests on the source."""
    branches = [b.locator for b in leverage.branches]
    return Stake(reads=tuple(reads), if_it_fails=tuple([*(r for r in reads if r in branches),
                                                        *(b for b in branches if b not in reads)]))


def identify(source: Source, measured: Sequence[ClaimFacts], leverage: tagging.LeverageTag,
             reads: Sequence[str], settled_lines: frozenset[int] = frozenset()) -> tuple[Audit, ...]:
    """S_high for one source: an audit per claim the action reads (claim_reads) with a suspect
    predicate, in line order, leaving out the lines the certificate settled. A claim the action
    does not read gives none."""
    audits = []
    for facts in sorted(measured, key=lambda f: f.claim.line):
        kinds = suspicions(facts, leverage)
        if not kinds or facts.claim.line in settled_lines:
            continue
        reading = claim_reads(reads, facts.claim)
        if not reading:
            continue
        claim = claim_ref(source, facts, kinds)
        provenance = tagging.provenance(agreements=facts.agreements, contradictions=facts.contradictions,
                                        enforcement=facts.enforcement, enforcement_basis=facts.enforcement_basis)
        audits.append(Audit(id=audit_id(source, claim), source=source, claim=claim, suspicions=kinds,
                            tags=Tags(provenance=provenance, freshness=facts.freshness, leverage=leverage),
                            facts=facts, stake=stake(reading, leverage)))
    return tuple(audits)
