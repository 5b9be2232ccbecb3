"""The vet use case: pin the sources an action leans on, measure their claims, and form S_high
with one antithesis per audit (Elenchus Phases 0 and 1).

Sources are read by blob id at the pinned revision only; nothing here writes to the work tree,
the index or any ref.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from diylisis.core import tagging
from diylisis.core.errors import BadInput
from diylisis.core.vet import claims, patterns
from diylisis.core.vet import identify as phase0
from diylisis.core.vet.model import Antithesis, Audit, ClaimFacts, Origin, Source
from diylisis.edges import vet_facts, vet_owners

_PAST_SESSION = ("tasks/", "task", "plan", "handoff", "todo", "notes/")


@dataclass(frozen=True, slots=True, kw_only=True)
class VetRequest:
    """What the user asked vet to do."""

    action: str
    sources: tuple[str, ...] = ()
    range: str | None = None
    leans_on: tuple[str, ...] = ()
    at: str = "HEAD"
    what_if: str | None = None  # Pattern B's condition Z, the user's (vet never invents one)


@dataclass(frozen=True, slots=True, kw_only=True)
class Formed:
    """Phase 0 and 1 done: the pinned revision, sources, audits and their antitheses."""

    action: str
    commit: str
    sources: tuple[Source, ...]
    audits: tuple[Audit, ...]
    antitheses: tuple[Antithesis, ...]
    leans_on: tuple[str, ...]


def origin_of(path: str) -> Origin:
    """Task, plan and handoff files are a past session's record; other records are documents read."""
    lowered = path.lower()
    return Origin.PAST_SESSION if any(mark in lowered for mark in _PAST_SESSION) else Origin.DOCUMENT_READ


def _path_of(locator: str) -> tuple[str, str | None]:
    body = locator.removeprefix("file:")
    if ":" in body.split("@", 1)[0]:
        raise BadInput(f"vet reads file records only (file:PATH or PATH[@REV]), not {locator}")
    path, _, revision = body.partition("@")
    return path.strip("/"), revision or None


def pin(root: Path, commit: str, locator: str, tracked: Sequence[str]) -> Source:
    """The source LOCATOR names, pinned by its blob at COMMIT (or at its own @REV); a dirty work-tree
    file is refused, since vet would read other bytes than the user sees."""
    path, revision = _path_of(locator)
    at = vet_facts.resolve(root, revision) if revision else commit
    blob = vet_facts.blob_id(root, at, path)
    if blob is None:
        raise BadInput(f"{path} is not tracked at {revision or 'the vetted revision'}")
    if revision is None and vet_facts.dirty(root, path):
        raise BadInput(f"{path} has uncommitted changes; commit or stash them first, so vet reads what you see")
    return Source(locator=locator if locator.startswith("file:") else f"file:{path}", path=path, blob=blob,
                  origin=origin_of(path), text=vet_facts.blob_text(root, blob))


def _measure(root: Path, commit: str, source: Source, revision_time: int, facts: tuple[tagging.CodeFact, ...],
             pinned_at: str | None = None) -> tuple[ClaimFacts, ...]:
    """The facts of each claim line of SOURCE at COMMIT: code values, enforcement, blame and lag.
    A claim line's age comes from the blame at PINNED_AT (the run's commit, COMMIT when None), so
    that re-reading the evidence at a later HEAD keeps the pinned text's history."""
    lines = phase0.claim_lines(source)
    blame = vet_facts.blame_lines(root, pinned_at or commit, source.path) if lines else {}
    measured = []
    for line in lines:
        contradictions, agreements = tagging.compare(line, facts)
        observed = [*(c.fact for c in contradictions), *(a.fact for a in agreements)]
        enforcement: tuple[tagging.Enforcement, ...] = ()
        enforcement_basis = ""
        for key in dict.fromkeys(fact.key for fact in observed):
            found, enforcement_basis = vet_facts.enforcement(root, commit, key)
            enforcement += found
        # a source pinned at another revision than the blame's may have fewer lines there
        written_by, observed_at = blame.get(line.line, (pinned_at or commit, revision_time))
        paths = tagging.named_paths(line.text)
        tokens = tagging.named_tokens(line.text)
        lag, basis = vet_facts.lag(root, written_by, commit, paths, tokens) if paths and tokens else ((), ())
        freshness = tagging.freshness(written_by, observed_at, revision_time, source.origin.value, lag,
                                      (f"git blame -L {line.line},{line.line} {commit[:12]} -- {source.path}", *basis))
        measured.append(ClaimFacts(claim=line, measured_at=commit, contradictions=contradictions, agreements=agreements,
                                   enforcement=enforcement, enforcement_basis=enforcement_basis,
                                   freshness=freshness))
    return tuple(measured)


def _reads(source: Source, citing: tagging.LeverageTag, added: Sequence[tuple[str, int, str]],
           leans_on: Sequence[str], explicit: bool, tracked: Sequence[str]) -> tuple[str, ...]:
    """The action's lines that cite the source (its diff, its leans-on files), or, for a source named
    with --source when the action names nothing else, the naming itself."""
    names = vet_facts.citation_patterns(source.path, tracked)
    reads = [f"{path}:{line}" for path, line, text in added if path != source.path and any(n in text for n in names)]
    for leaned in leans_on:
        if leaned == source.path:
            reads.append(f"leans on {leaned}")
        reads.extend(b.locator for b in citing.branches if b.path == leaned)
    if explicit and not added and not leans_on:
        reads.append(f"named with --source {source.path}")
    return tuple(dict.fromkeys(reads))


@dataclass(frozen=True, slots=True, kw_only=True)
class Pinned:
    """The sources as pinned at the start of a run, and what the action reads of each."""

    action: str
    commit: str
    sources: tuple[Source, ...]
    reads: tuple[tuple[str, tuple[str, ...]], ...]  # (source path, the action's lines that read it)
    leans_on: tuple[str, ...]


def pin_all(root: Path, request: VetRequest) -> Pinned:
    """Phase 0's input: resolve the revision, pin every source by blob, and find what the action
    reads of each (its diff's lines, its leans-on files)."""
    if not request.action.strip():
        raise BadInput("--action is required: name the merge, deploy or handoff the sources are vetted for")
    commit = vet_facts.resolve(root, request.at)
    tracked = vet_facts.tracked_paths(root, commit)
    added: tuple[tuple[str, int, str], ...] = ()
    locators = list(request.sources)
    if request.range:
        base, dots, tip = request.range.partition("..")
        if not dots or not base or not tip.lstrip("."):
            raise BadInput(f"--range takes A..B, not {request.range}")
        base, tip = vet_facts.resolve(root, base), vet_facts.resolve(root, tip.lstrip("."))
        changed = vet_facts.changed_paths(root, base, tip)
        added = vet_facts.added_lines(root, base, tip)
        locators += [p for p in changed if p.endswith(vet_facts.RECORD_SUFFIXES) and p in tracked]
        locators += list(vet_facts.records_naming(root, commit, changed))
        # the records the range's own lines cite ("per docs/design.md")
        locators += [path for _, _, text in added for path in tagging.named_paths(text)
                     if path in tracked and path.endswith(vet_facts.RECORD_SUFFIXES)]
    leans_on = tuple(_path_of(item)[0] for item in request.leans_on)
    for leaned in leans_on:
        if leaned not in tracked:
            raise BadInput(f"--leans-on {leaned}: not tracked at the vetted revision")
    sources: dict[str, Source] = {}
    for locator in locators:
        source = pin(root, commit, locator, tracked)
        sources.setdefault(source.path, source)
    ordered = tuple(sorted(sources.values(), key=lambda s: s.path))
    explicit = _explicit(request)
    reads = []
    for source in ordered:
        citing = vet_facts.citations(root, commit, source.path, tracked)
        reads.append((source.path, _reads(source, citing, added, leans_on, source.locator in explicit, tracked)))
    return Pinned(action=request.action, commit=commit, sources=ordered, reads=tuple(reads), leans_on=leans_on)


def audits_of(root: Path, pinned: Pinned, evidence_at: str | None = None) -> tuple[Audit, ...]:
    """The audits `formation` gives (the claims that go to the gate)."""
    return formation(root, pinned, evidence_at)[0]


def formation(root: Path, pinned: Pinned,
              evidence_at: str | None = None) -> tuple[tuple[Audit, ...], tuple[claims.Settled, ...]]:
    """Phase 0 and Step 1 of Phase 1 over pinned sources: every claim measured at the pinned
    revision (or, on a revisit, its evidence re-read at EVIDENCE_AT) and fitted: the suspect
    ones the action reads become audits, the ones the certificate settles are returned apart,
    each in source then line order."""
    commit = evidence_at or pinned.commit
    tracked = vet_facts.tracked_paths(root, commit)
    revision_time = vet_facts.commit_time(root, commit)
    reads = dict(pinned.reads)
    audits: list[Audit] = []
    settled: list[claims.Settled] = []
    # one search for the values of every key any claim line names, shared by all sources
    keys = frozenset().union(*(tagging.candidate_keys(line.text) for source in pinned.sources
                               for line in phase0.claim_lines(source)))
    facts = vet_facts.code_facts(root, commit, keys)
    ownership = vet_owners.ownership(root, commit, pinned.commit)
    for source in pinned.sources:
        citing = vet_facts.citations(root, commit, source.path, tracked)
        measured = _measure(root, commit, source, revision_time, facts, pinned.commit)
        reading = reads.get(source.path, ())
        fits = [fitted for facts in measured
                if (fitted := claims.fit(source, facts, citing, reading, ownership)) is not None]
        settled.extend(fits)
        audits.extend(phase0.identify(source, measured, citing, reading, frozenset(f.claim.line for f in fits)))
    return tuple(audits), tuple(settled)


def form(root: Path, request: VetRequest) -> Formed:
    """Phases 0 and 1: pin the sources, measure every claim, keep the suspect ones the action reads,
    and posit one antithesis for each."""
    pinned = pin_all(root, request)
    audits = audits_of(root, pinned)
    return Formed(action=request.action, commit=pinned.commit, sources=pinned.sources, audits=audits,
                  antitheses=tuple(patterns.posit(audit, what_if=request.what_if) for audit in audits),
                  leans_on=pinned.leans_on)


def _explicit(request: VetRequest) -> frozenset[str]:
    return frozenset(f"file:{_path_of(locator)[0]}" for locator in request.sources)
