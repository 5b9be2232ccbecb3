"""The vet use case: pin the sources an action leans on, measure their claims, and form S_high
with one antithesis per audit (Elenchus Phases 0 and 1).

Sources are read by blob id at the pinned revision only; nothing here writes to the work tree,
the index or any ref.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from msgspec import Struct

from diylisis.core import tagging
from diylisis.core.errors import BadInput
from diylisis.core.vet import claims, patterns
from diylisis.core.vet import identify as phase0
from diylisis.core.vet.model import Antithesis, Audit, ClaimFacts, Origin, Source
from diylisis.edges import vet_facts
from diylisis.edges.vet_facts import COMMIT_PREFIX

_PAST_SESSION = ("tasks/", "task", "plan", "handoff", "todo", "notes/")


class VetRequest(Struct, frozen=True, kw_only=True):
    """What the user asked vet to do."""

    action: str
    sources: tuple[str, ...] = ()
    range: str | None = None
    leans_on: tuple[str, ...] = ()
    at: str = "HEAD"
    what_if: str | None = None  # Pattern B's condition Z, the user's (vet never invents one)


class Formed(Struct, frozen=True, kw_only=True):
    """Phase 0 and 1 done: the pinned revision, sources, audits and their antitheses."""

    action: str
    commit: str
    sources: tuple[Source, ...]
    audits: tuple[Audit, ...]
    antitheses: tuple[Antithesis, ...]
    leans_on: tuple[str, ...]


def origin_of(path: str) -> Origin:
    """Commit messages, task, plan and handoff files are a past session's record; other records
    are documents read."""
    if path.startswith(COMMIT_PREFIX):
        return Origin.PAST_SESSION
    lowered = path.lower()
    return Origin.PAST_SESSION if any(mark in lowered for mark in _PAST_SESSION) else Origin.DOCUMENT_READ


def _path_of(locator: str) -> tuple[str, str | None]:
    if locator.startswith(COMMIT_PREFIX):
        return locator, None
    body = locator.removeprefix("file:")
    if ":" in body.split("@", 1)[0]:
        raise BadInput(f"vet reads file records only (file:PATH or PATH[@REV]), not {locator}")
    path, _, revision = body.partition("@")
    return path.strip("/"), revision or None


def pin(root: Path, commit: str, locators: Sequence[str]) -> tuple[Source, ...]:
    """The sources LOCATORS name, each pinned by its blob at COMMIT (or at its own @REV), or, for a
    `commit:REV`, by the commit's id (its message is the record), the first locator of a path
    kept; a dirty work-tree file is refused, since vet would read other bytes than the user sees.
    All objects come from one `git cat-file --batch`, the dirt from one status."""
    named: list[tuple[str, str, str | None, str]] = []  # (locator, path, its own revision, object name)
    for locator in locators:
        path, revision = _path_of(locator)
        if path.startswith(COMMIT_PREFIX):
            given = path.removeprefix(COMMIT_PREFIX)
            # a full id (the range's commits) is checked to be a commit by the read below
            full = len(given) in (40, 64) and all(c in "0123456789abcdef" for c in given)
            sha = given if full else vet_facts.resolve(root, given)
            named.append((f"{COMMIT_PREFIX}{sha}", f"{COMMIT_PREFIX}{sha}", sha, sha))
        else:
            at = vet_facts.resolve(root, revision) if revision else commit
            named.append((locator, path, revision, f"{at}:{path}"))
    stored = vet_facts.read_objects(root, [name for _, _, _, name in named])
    files = [path for _, path, revision, _ in named if revision is None]
    dirty = vet_facts.dirty_paths(root, files)
    sources: dict[str, Source] = {}
    for locator, path, revision, name in named:
        found = stored[name]
        is_commit = path.startswith(COMMIT_PREFIX)
        if found is None or found.type != ("commit" if is_commit else "blob"):
            raise BadInput(f"{path} is not tracked at {revision or 'the vetted revision'}")
        if revision is None and path in dirty:
            raise BadInput(f"{path} has uncommitted changes; commit or stash them first, so vet reads what you see")
        shown = locator if locator.startswith(("file:", COMMIT_PREFIX)) else f"file:{path}"
        sources.setdefault(path, Source(locator=shown, path=path, blob=found.id, origin=origin_of(path),
                                        text=vet_facts.object_text(found)))
    return tuple(sources.values())


def _read_claims(lines: Mapping[str, Sequence[tagging.ClaimLine]],
                 reads: Mapping[str, Sequence[str]]) -> dict[tuple[str, int], tuple[str, ...]]:
    """What the action reads (phase0.claim_reads) of each claim it reads, by (source path, line)."""
    return {(path, line.line): reading for path, found in lines.items() for line in found
            if (reading := phase0.claim_reads(reads.get(path, ()), line))}


def _written(root: Path, at: str, sources: Sequence[Source], lines: Mapping[str, Sequence[tagging.ClaimLine]],
             wanted: frozenset[tuple[str, int]]) -> dict[tuple[str, int], tuple[str, int]]:
    """(the commit that wrote it, that commit's time) of the WANTED claim lines of files, from
    their blame at AT (one blame per source, a few running at once), and of every line of a
    commit message, which the commit itself wrote."""
    messages = [source for source in sources if source.path.startswith(COMMIT_PREFIX)]
    times = vet_facts.commit_times(root, [source.blob for source in messages])
    written = {(source.path, line.line): (source.blob, times[source.blob])
               for source in messages for line in lines[source.path]}
    blamed = vet_facts.blames(root, at, {
        source.path: [claim.line for claim in lines[source.path] if (source.path, claim.line) in wanted]
        for source in sources if not source.path.startswith(COMMIT_PREFIX)})
    # a source pinned at another revision than the blame's may have fewer lines there
    written |= {(path, line): found for path, by_line in blamed.items() for line, found in by_line.items()
                if (path, line) in wanted}
    return written


def _compared(lines: Mapping[str, Sequence[tagging.ClaimLine]], facts: tuple[tagging.CodeFact, ...]
              ) -> dict[tuple[str, int], tuple[tuple[tagging.Comparison, ...], tuple[tagging.Comparison, ...]]]:
    """tagging.compare of each claim line with the code facts, by (source path, line)."""
    by_key: dict[str, list[int]] = {}
    for index, fact in enumerate(facts):
        by_key.setdefault(fact.key.lower(), []).append(index)

    def comparable(line: tagging.ClaimLine) -> tuple[tagging.CodeFact, ...]:
        # compare pairs a line only with facts whose key it holds and, for code, whose (ASCII) path
        # its paragraph names: the others are left out here, in order
        lowered, paragraph = line.text.lower(), line.paragraph.lower()
        held = sorted(i for key, found in by_key.items() if key in lowered for i in found)
        return tuple(facts[i] for i in held if facts[i].section is not None or not facts[i].path.isascii()
                     or facts[i].path.lower() in paragraph)

    return {(path, line.line): tagging.compare(line, comparable(line)) for path, found in lines.items()
            for line in found}


def _measure(root: Path, commit: str, sources: Sequence[Source], lines: Mapping[str, Sequence[tagging.ClaimLine]],
             read: frozenset[tuple[str, int]], written: Mapping[tuple[str, int], tuple[str, int]],
             revision_time: int, compared: Mapping[tuple[str, int], tuple[tuple[tagging.Comparison, ...],
                                                                            tuple[tagging.Comparison, ...]]],
             pinned_at: str) -> dict[str, tuple[ClaimFacts, ...]]:
    """The facts of each claim line of SOURCES at COMMIT, by source path: code values (COMPARED),
    enforcement, age (WRITTEN, from _written) and lag, with one grep, one object read and one
    `git log -G` per (blame commit, path, token) for all of them.

    Only the claims the action reads (READ) are checked for lag: any other claim is never asked,
    and its certificate (unattributable) rests on what its text and the code say. A line with no
    age measured (one no suspect predicate could hold for) is given the run's commit (PINNED_AT)
    and the revision's time, with no basis."""
    observed = {at: [*(c.fact for c in contradictions), *(a.fact for a in agreements)]
                for at, (contradictions, agreements) in compared.items()}
    enforced = vet_facts.enforcement_of(root, commit, [fact.key for seen in observed.values() for fact in seen])
    queries: list[tuple[tuple[str, int], vet_facts.LagQuery]] = []
    for path, found in lines.items():
        for line in found:
            paths, tokens = tagging.named_paths(line.text), tagging.named_tokens(line.text)
            if paths and tokens and (path, line.line) in read:
                since = written.get((path, line.line), (pinned_at, revision_time))[0]
                queries.append(((path, line.line), vet_facts.LagQuery(since=since, paths=paths, tokens=tokens)))
    lagged = dict(zip((at for at, _ in queries), vet_facts.lags(root, commit, [q for _, q in queries]),
                      strict=True))
    measured: dict[str, tuple[ClaimFacts, ...]] = {}
    for source in sources:
        rows = []
        for line in lines[source.path]:
            at = (source.path, line.line)
            contradictions, agreements = compared[at]
            enforcement: tuple[tagging.Enforcement, ...] = ()
            enforcement_basis = ""
            for key in dict.fromkeys(fact.key for fact in observed[at]):
                found_lines, enforcement_basis = enforced[key]
                enforcement += found_lines
            written_by, observed_at = written.get(at, (pinned_at, revision_time))
            lag, basis = lagged.get(at, ((), ()))
            blamed = ((f"git show -s {source.blob[:12]}",) if source.path.startswith(COMMIT_PREFIX) else
                      (f"git blame -L {line.line},{line.line} {commit[:12]} -- {source.path}",)
                      if at in written else ())
            freshness = tagging.freshness(written_by, observed_at, revision_time, source.origin.value, lag,
                                          (*blamed, *basis))
            rows.append(ClaimFacts(claim=line, measured_at=commit, contradictions=contradictions,
                                   agreements=agreements, enforcement=enforcement,
                                   enforcement_basis=enforcement_basis, freshness=freshness))
        measured[source.path] = tuple(rows)
    return measured


def _naming(added: Sequence[tuple[str, int, str]], names: Sequence[str]) -> dict[str, list[int]]:
    """For each of NAMES, the indexes of the ADDED lines holding it, in order: one search of all
    the lines joined, per name."""
    joined = "\n".join(text for _, _, text in added)
    starts = list(itertools.accumulate((len(text) + 1 for _, _, text in added), initial=0))
    found: dict[str, list[int]] = {}
    for name in dict.fromkeys(names):
        hits: list[int] = []
        at = joined.find(name)
        while at >= 0:
            index = bisect.bisect_right(starts, at) - 1
            hits.append(index)
            at = joined.find(name, starts[index + 1])  # the next line: one hit per line is enough
        found[name] = hits
    return found


def _reads(source: Source, citing: tagging.LeverageTag, added: Sequence[tuple[str, int, str]],
           naming: Mapping[str, Sequence[int]], leans_on: Sequence[str], explicit: bool,
           basenames: Mapping[str, int]) -> tuple[str, ...]:
    """The action's lines that cite the source (its diff, its leans-on files), or, for a source named
    with --source when the action names nothing else, the naming itself. NAMING gives the added
    lines holding each citation pattern (_naming)."""
    lines = sorted({index for name in vet_facts.citation_patterns(source.path, basenames) for index in naming[name]})
    reads = [f"{added[i][0]}:{added[i][1]}" for i in lines if added[i][0] != source.path]
    for leaned in leans_on:
        if leaned == source.path:
            reads.append(f"leans on {leaned}")
        reads.extend(b.locator for b in citing.branches if b.path == leaned)
    if explicit and not added and not leans_on:
        reads.append(f"named with --source {source.path}")
    return tuple(dict.fromkeys(reads))


class Pinned(Struct, frozen=True, kw_only=True):
    """The sources as pinned at the start of a run, and what the action reads of each."""

    action: str
    commit: str
    sources: tuple[Source, ...]
    reads: tuple[tuple[str, tuple[str, ...]], ...]  # (source path, the action's lines that read it)
    leans_on: tuple[str, ...]
    # (source path, its leverage) as measured at COMMIT while pinning, for formation to reuse;
    # empty when the pinned sources come back from a run file or a note
    citing: tuple[tuple[str, tagging.LeverageTag], ...] = ()


def pin_all(root: Path, request: VetRequest) -> Pinned:
    """Phase 0's input: resolve the revision, pin every source by blob, and find what the action
    reads of each (its diff's lines, its leans-on files)."""
    if not request.action.strip():
        raise BadInput("--action is required: name the merge, deploy or handoff the sources are vetted for")
    commit = vet_facts.resolve(root, request.at)
    tracked = vet_facts.tracked_paths(root, commit)
    is_tracked = frozenset(tracked)
    added: tuple[tuple[str, int, str], ...] = ()
    in_range: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    locators = list(request.sources)
    if request.range:
        base, dots, tip = request.range.partition("..")
        if not dots or not base or not tip.lstrip("."):
            raise BadInput(f"--range takes A..B, not {request.range}")
        base, tip = vet_facts.resolve(root, base), vet_facts.resolve(root, tip.lstrip("."))
        changed = vet_facts.changed_paths(root, base, tip)
        added = vet_facts.added_lines(root, base, tip)
        in_range = vet_facts.range_commits(root, base, tip)
        locators += [f"{COMMIT_PREFIX}{sha}" for sha in in_range]
        locators += [p for p in changed if p.endswith(vet_facts.RECORD_SUFFIXES) and p in is_tracked]
        locators += list(vet_facts.records_naming(root, commit, changed))
        # the records the range's own lines cite ("per docs/design.md")
        locators += [path for _, _, text in added for path in tagging.named_paths(text)
                     if path in is_tracked and path.endswith(vet_facts.RECORD_SUFFIXES)]
    leans_on = tuple(_path_of(item)[0] for item in request.leans_on)
    for leaned in leans_on:
        if leaned not in is_tracked:
            raise BadInput(f"--leans-on {leaned}: not tracked at the vetted revision")
    ordered = tuple(sorted(pin(root, commit, locators), key=lambda s: s.path))
    messages = frozenset(f"{COMMIT_PREFIX}{sha}" for sha in in_range)
    explicit = _explicit(root, request)
    citing = vet_facts.citations_of(root, commit, [source.path for source in ordered], tracked)
    basenames = vet_facts.basename_counts(tracked)
    naming = _naming(added, [name for source in ordered
                             for name in vet_facts.citation_patterns(source.path, basenames)])
    reads = [(source.path, _reads(source, citing[source.path], added, naming, leans_on, source.locator in explicit,
                                  basenames)) for source in ordered]
    # the action takes the range's commits, so it reads what their messages say; of another
    # record, it reads the claims that name a path it changes
    reads = [(source.path, (*found, f"a commit of the range {request.range}") if source.path in messages else
              (*found, *_changed_named(source, changed)))
             for source, (_, found) in zip(ordered, reads, strict=True)]
    return Pinned(action=request.action, commit=commit, sources=ordered, reads=tuple(reads), leans_on=leans_on,
                  citing=tuple(citing.items()))


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
    lines = {source.path: phase0.claim_lines(source) for source in pinned.sources}
    claim_reading = _read_claims(lines, reads)
    read = frozenset(claim_reading)
    # the read lines a suspect predicate may hold for whatever the code says: lag (a path and a
    # token named), an inference, an absent value; only these and those the code values pair
    # with need an age, and so a blame
    by_text = frozenset((path, line.line) for path, found in lines.items() for line in found
                        if (path, line.line) in read
                        and ((tagging.named_paths(line.text) and tagging.named_tokens(line.text))
                             or phase0.is_inference(line.text) or phase0.is_absent(line.text)))
    # one search for the values of every key any claim line names, shared by all sources
    keys = frozenset().union(*(tagging.candidate_keys(line.text) for found in lines.values() for line in found))
    # the two greps over the tree run while the sources are blamed: each is mostly a git process to wait for
    with ThreadPoolExecutor(max_workers=2) as pool:
        facts_job = pool.submit(vet_facts.code_facts, root, commit, keys)
        pinned_citing = dict(pinned.citing) if commit == pinned.commit else {}
        citations_job = (None if all(s.path in pinned_citing for s in pinned.sources) else
                         pool.submit(vet_facts.citations_of, root, commit, [s.path for s in pinned.sources], tracked))
        # a claim line's age comes from the blame at the run's commit, so that re-reading the
        # evidence at a later HEAD keeps the pinned text's history
        written = _written(root, pinned.commit, pinned.sources, lines, by_text)
        facts = facts_job.result()
        citations = pinned_citing if citations_job is None else citations_job.result()
    compared = _compared(lines, facts)
    by_value = frozenset(at for at in read - by_text if compared[at][0] or compared[at][1])
    if by_value:
        written |= _written(root, pinned.commit, [s for s in pinned.sources if not s.path.startswith(COMMIT_PREFIX)],
                            lines, by_value)
    measured_of = _measure(root, commit, pinned.sources, lines, read, written, revision_time, compared, pinned.commit)
    ownership = vet_facts.ownership(root, commit, pinned.commit, tracked)
    for source in pinned.sources:
        citing, measured = citations[source.path], measured_of[source.path]
        reading = reads.get(source.path, ())
        fits = [fitted for facts in measured
                if (fitted := claims.fit(source, facts, citing,
                                         claim_reading.get((source.path, facts.claim.line), ()),
                                         ownership)) is not None]
        asked, beyond = _capped(source, phase0.identify(source, measured, citing, reading,
                                                        frozenset(f.claim.line for f in fits)))
        audits.extend(asked)
        settled.extend(sorted([*fits, *beyond], key=lambda s: s.claim.line))
    return tuple(audits), tuple(settled)


def _capped(source: Source, found: Sequence[Audit]) -> tuple[tuple[Audit, ...], tuple[claims.Settled, ...]]:
    """At most MAX_ASKED_PER_SOURCE audits of one source, the strongest suspicions first (then
    by line); the others are reported as settled, never asked, with the cap as their basis."""
    cap = phase0.MAX_ASKED_PER_SOURCE
    if len(found) <= cap:
        return tuple(found), ()
    ranked = sorted(found, key=lambda a: (phase0.strength(a.suspicions), a.claim.line))
    kept = {a.id for a in ranked[:cap]}
    basis = (f"several claims standing: the action reads {len(found)} suspect claims of {source.path};"
             f" vet asks the {cap} strongest of a source, and this one is not among them")
    beyond = tuple(claims.Settled(id=a.id, source=source, claim=a.claim, settlement=claims.Settlement.UNATTRIBUTABLE,
                                  basis=basis) for a in found if a.id not in kept)
    return tuple(a for a in found if a.id in kept), beyond


def form(root: Path, request: VetRequest) -> Formed:
    """Phases 0 and 1: pin the sources, measure every claim, keep the suspect ones the action reads,
    and posit one antithesis for each."""
    pinned = pin_all(root, request)
    audits, _ = formation(root, pinned)
    return Formed(action=request.action, commit=pinned.commit, sources=pinned.sources, audits=audits,
                  antitheses=tuple(patterns.posit(audit, what_if=request.what_if) for audit in audits),
                  leans_on=pinned.leans_on)


def _changed_named(source: Source, changed: Sequence[str]) -> tuple[str, ...]:
    """A read (phase0.CHANGED) for each path the range changes that a claim line of SOURCE names."""
    named = {path for line in phase0.claim_lines(source) for path in tagging.named_paths(line.text)}
    return tuple(f"{phase0.CHANGED}{path}" for path in changed if path in named and path != source.path)


def _explicit(root: Path, request: VetRequest) -> frozenset[str]:
    return frozenset(f"{COMMIT_PREFIX}{vet_facts.resolve(root, locator.removeprefix(COMMIT_PREFIX))}"
                     if locator.startswith(COMMIT_PREFIX) else f"file:{_path_of(locator)[0]}"
                     for locator in request.sources)
