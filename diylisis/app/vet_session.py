"""A vet run from start to note: the per-claim gate in batches, the ledger J, pause, answer and
resume, and the result written as a note on the action's commit (Elenchus Phases 2 and 3).

The gate is handed in (terminal, answers file or none); this module decides what is asked, in
which order, and what each answer changes. It never edits a source, the index or a branch: its
only writes are the run file under .git/distill/runs and the note under refs/notes/distill-vet.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from msgspec import Struct
from msgspec.structs import replace

from diylisis.app import vet
from diylisis.core.errors import BadInput
from diylisis.core.vet import claims, judgment, patterns, result, triggers
from diylisis.core.vet.model import Antithesis, Audit, Pattern, Source
from diylisis.edges import run_files, vet_facts, vet_gate, vet_note, vet_runs, vet_triggers
from diylisis.edges.gate import Gate

NO_CANDIDATE = "no source met the criteria"
NONE_CLAIMED = "candidates formed, all handed elsewhere or unattributable"


class GateItem(Struct, frozen=True, kw_only=True):
    """One open claim: the audit and its open antithesis, from which the gate's question is rendered."""

    audit: Audit
    antithesis: Antithesis


class Paused(Struct, frozen=True, kw_only=True):
    """The run waits on the claims still open; its file is saved."""

    run_id: str
    open_items: tuple[GateItem, ...]
    messages: tuple[str, ...]


class Vetted(Struct, frozen=True, kw_only=True):
    """Every claim has its verdict: RESULT is the value stored as the note on the action's commit."""

    run_id: str
    result: Mapping[str, object]
    messages: tuple[str, ...]


Outcome = Paused | Vetted  # where a run stands after start or resume


def _current(antitheses: Sequence[Antithesis]) -> dict[str, Antithesis]:
    latest: dict[str, Antithesis] = {}
    for antithesis in antitheses:
        if antithesis.audit not in latest or antithesis.index > latest[antithesis.audit].index:
            latest[antithesis.audit] = antithesis
    return latest


def _sources_of(root: Path, run: vet_runs.VetRun) -> tuple[Source, ...]:
    return tuple(Source(locator=s.locator, path=s.path, blob=s.blob, origin=s.origin,
                        text=vet_facts.blob_text(root, s.blob)) for s in run.sources)


def _pinned(root: Path, run: vet_runs.VetRun) -> vet.Pinned:
    return vet.Pinned(action=run.action, commit=run.commit, sources=_sources_of(root, run), reads=run.reads,
                      leans_on=run.leans_on)


def _audits(root: Path, run: vet_runs.VetRun) -> tuple[tuple[Audit, ...], tuple[claims.Settled, ...]]:
    """The run's audits and settled claims, recomputed from the pinned blobs; a run whose claims
    no longer form is damaged."""
    audits, settled = vet.formation(root, _pinned(root, run))
    known = {a.id for a in audits} | {s.id for s in settled}
    missing = [audit_id for audit_id in run.formed if audit_id not in known]
    if missing:
        raise BadInput(f"run {run.run_id} no longer forms {', '.join(missing)} from its pinned sources")
    return audits, settled


def _certificate_entries(settled: Sequence[claims.Settled]) -> judgment.Ledger:
    ledger = judgment.Ledger()
    for claim in settled:
        ledger = judgment.record(ledger, judgment.LedgerEntry(
            audit=claim.id, assigned_by=judgment.AssignedBy.CERTIFICATE, claim_judged=claim.claim.text,
            judged=None, basis=f"{claim.settlement.value}: {claim.basis}"))
    return ledger


def relay_lines(settled: Sequence[claims.Settled]) -> tuple[str, ...]:
    """One line per claim settled without asking: handed elsewhere (with the hint) or unattributable."""
    lines = []
    for claim in settled:
        where = f"{claim.source.path}:{claim.claim.line}"
        if claim.hint:
            lines.append(f"handed elsewhere: {where}: {claim.hint}; {claim.basis}")
        else:
            lines.append(f"unattributable: {where}: {claim.basis}")
    return tuple(lines)


def _notices(root: Path, run: vet_runs.VetRun) -> tuple[str, ...]:
    notices = []
    for source in run.sources:
        if vet_facts.worktree_blob(root, source.path) not in (source.blob, None):
            notices.append(f"{source.path} changed since the run started; vet keeps vetting the bytes it"
                           f" pinned (blob {source.blob[:12]})")
    return tuple(notices)


def start(root: Path, git_dir: Path, request: vet.VetRequest, gate: Gate) -> Outcome:
    """Form S_high, then ask, pause or finish."""
    pinned = vet.pin_all(root, request)
    audits, settled = vet.formation(root, pinned)
    order = {s.path: n for n, s in enumerate(pinned.sources)}
    formed = sorted([*((order[a.source.path], a.claim.line, a.id) for a in audits),
                     *((order[c.source.path], c.claim.line, c.id) for c in settled)])
    run = vet_runs.VetRun(
        run_id=run_files.new_run_id(), action=pinned.action, commit=pinned.commit, leans_on=pinned.leans_on,
        sources=tuple(vet_runs.PinnedRef(locator=s.locator, path=s.path, blob=s.blob, origin=s.origin)
                      for s in pinned.sources),
        reads=pinned.reads, formed=tuple(audit_id for _, _, audit_id in formed),
        antitheses=tuple(patterns.posit(audit, what_if=request.what_if) for audit in audits),
        ledger=_certificate_entries(settled), presented=(), realization=vet_gate.realization(gate),
        what_if=request.what_if)
    relay = relay_lines(settled)
    if request.what_if and audits and not any(a.pattern is Pattern.COUNTERFACTUAL_GAP for a in run.antitheses):
        relay = (*relay, f"--what-if {request.what_if!r} names nothing the claims' facts name (a key, a code token or"
                         " a file): no claim was challenged with it")
    if not audits:
        return _finish(root, git_dir, run, audits, settled, (NONE_CLAIMED if settled else NO_CANDIDATE, *relay),
                       saved=False)
    return _advance(root, git_dir, run, audits, settled, gate, saved=False, notices=relay)


def anchored(root: Path, answer: judgment.Judged) -> judgment.Judged:
    """The answer with its revisit condition anchored to how it stands now (None: unwatchable)."""
    instruction = answer.instruction
    if instruction is None or instruction.kind is not judgment.InstructionKind.REVISIT or instruction.text is None:
        return answer
    anchor = vet_triggers.state(root, triggers.parse(instruction.text))
    return replace(answer, instruction=replace(instruction, anchor=anchor))


def _revisit_met(root: Path, entry: judgment.LedgerEntry) -> bool:
    instruction = entry.judged.instruction if entry.judged else None
    if instruction is None or instruction.kind is not judgment.InstructionKind.REVISIT or instruction.text is None:
        return False
    condition = triggers.parse(instruction.text)
    now = vet_triggers.state(root, condition)
    return now is not None and triggers.met(condition, instruction.anchor, now)


def _reenter(root: Path, run: vet_runs.VetRun, audits: Sequence[Audit], met: Sequence[str],
             ledger: judgment.Ledger) -> tuple[tuple[Audit, ...], tuple[Antithesis, ...], judgment.Ledger]:
    """The LOOP: each claim whose Revisit is met goes back to Phase 1 with its evidence re-read at
    HEAD and a fresh antithesis (the next index; the old ones stay in the trace). A claim that no
    longer meets the criteria at HEAD is settled by the certificate, with the fit as its basis."""
    head = vet_facts.resolve(root, "HEAD")
    reformed, _ = vet.formation(root, _pinned(root, run), evidence_at=head)
    again = {(a.source.path, a.claim.line): a for a in reformed}
    current = _current(run.antitheses)
    fresh = list(run.antitheses)
    updated = list(audits)
    for audit_id in met:
        position = next(i for i, a in enumerate(updated) if a.id == audit_id)
        old = updated[position]
        entry = ledger.get(audit_id)
        condition = entry.judged.instruction.text if entry and entry.judged and entry.judged.instruction else ""
        ledger = judgment.remove(ledger, audit_id)
        measured = again.get((old.source.path, old.claim.line))
        if measured is None:
            ledger = judgment.record(ledger, judgment.LedgerEntry(
                audit=audit_id, assigned_by=judgment.AssignedBy.CERTIFICATE, claim_judged=old.claim.text, judged=None,
                basis=f"Revisit({condition}) was met; re-read at {head[:12]}, the claim no longer meets the criteria"))
            continue
        renewed = replace(measured, id=audit_id)  # the audit id is fixed at formation
        updated[position] = renewed
        fresh.append(patterns.posit(renewed, index=current[audit_id].index + 1, what_if=run.what_if))
    return tuple(updated), tuple(fresh), ledger


def _advance(root: Path, git_dir: Path, run: vet_runs.VetRun, audits: Sequence[Audit],
             settled: Sequence[claims.Settled], gate: Gate, saved: bool, notices: tuple[str, ...] = ()) -> Outcome:
    ledger = run.ledger
    presented = run.presented
    formed = tuple(audits)  # as measured at the run's commit: what the note stores and verify re-measures
    vet_gate.check_slots(gate, {audit: a.index for audit, a in _current(run.antitheses).items()
                                if ledger.get(audit) is None})
    while True:
        by_id = {audit.id: audit for audit in audits}
        current = _current(run.antitheses)
        for batch in judgment.batches([a for a in run.formed if ledger.get(a) is None]):
            items = tuple(GateItem(audit=by_id[a], antithesis=current[a]) for a in batch)
            answers = vet_gate.ask(gate, [(item.audit, item.antithesis) for item in items])
            for item in items:
                answer = answers.get(item.audit.id)
                if answer is None:
                    continue
                judgment.check_index(answer, item.antithesis.index)
                ledger = judgment.record(ledger, judgment.user_entry(anchored(root, answer), item.audit.claim.text))
            still_open = tuple(item for item in items if ledger.get(item.audit.id) is None)
            if still_open:
                vet_runs.save(git_dir, replace(run, ledger=ledger, presented=presented))
                return Paused(run_id=run.run_id, open_items=still_open, messages=notices)
            presented = (*presented, *batch)
        # Phase 3 done: the LOOP re-enters the claims whose Revisit condition now holds
        met = [entry.audit for entry in ledger.entries if _revisit_met(root, entry)]
        if not met:
            break
        audits, antitheses, ledger = _reenter(root, run, audits, met, ledger)
        run = replace(run, antitheses=antitheses)
        notices = (*notices, *(f"{audit}: its revisit condition holds now; asked again with a new challenge"
                               for audit in met))
    return _finish(root, git_dir, replace(run, ledger=ledger, presented=presented,
                                          realization=vet_gate.realization(gate) if not saved else run.realization),
                   formed, settled, notices,
                   saved=saved)


def _finish(root: Path, git_dir: Path, run: vet_runs.VetRun, audits: Sequence[Audit],
            settled: Sequence[claims.Settled], messages: tuple[str, ...], saved: bool) -> Outcome:
    sources = _sources_of(root, run)
    observed = {s.path: t for s in sources if (t := vet_facts.last_commit_time(root, run.commit, s.path)) is not None}
    unmet = tuple(f"Revisit({e.judged.instruction.text}) on {e.audit}"
                  + ("" if e.judged.instruction.anchor is not None else " (vet cannot watch this condition)")
                  for e in run.ledger.entries if e.judged and e.judged.instruction
                  and e.judged.instruction.kind is judgment.InstructionKind.REVISIT)
    issued = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    value = result.vetted(action=run.action, commit=run.commit, leans_on=run.leans_on, sources=sources,
                          observed_at=observed, formed=run.formed, audits=audits, settled=settled,
                          antitheses=run.antitheses, ledger=run.ledger,
                          unmet_revisits=unmet, realization=run.realization, issued_at=issued)
    vet_note.put(root, run.commit, value)
    if saved:
        run_files.remove(git_dir, run.run_id)
    return Vetted(run_id=run.run_id, result=value,
                  messages=(*messages, *(f"not carried out: {u}" for u in unmet)))


def answer(root: Path, git_dir: Path, run_id: str, audit_id: str, verdict: str | None, *, antithesis: int | None,
           withdraw: bool, revisit: str | None, handoff: str | None) -> tuple[str, ...]:
    """Record one claim's answer in a paused run; the claims still open."""
    run = vet_runs.load(git_dir, run_id)
    current = _current(run.antitheses)
    if audit_id not in run.formed:
        raise BadInput(f"run {run_id} has no claim {audit_id}")
    if run.ledger.get(audit_id) is not None:
        raise BadInput(f"{audit_id} is already answered in run {run_id}")
    index = current[audit_id].index if antithesis is None else antithesis
    given = judgment.judged(audit_id, index, verdict, withdraw=withdraw, revisit=revisit, handoff=handoff)
    judgment.check_index(given, current[audit_id].index)
    claim = next(a.thesis for a in run.antitheses if a.audit == audit_id)
    ledger = judgment.record(run.ledger, judgment.user_entry(anchored(root, given), claim))
    vet_runs.save(git_dir, replace(run, ledger=ledger))
    return tuple(a for a in run.formed if ledger.get(a) is None)


def resume(root: Path, git_dir: Path, run_id: str, gate: Gate) -> Outcome:
    """Continue a paused run from its file: the audits recomputed from the pinned blobs."""
    run = vet_runs.load(git_dir, run_id)
    audits, settled = _audits(root, run)
    return _advance(root, git_dir, run, audits, settled, gate, saved=True, notices=_notices(root, run))
