"""The JSON shapes of a vet run: the gate's items, the VettedContext V that the note stores, and
the antitheses and audits as the run file keeps them. Pure."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

import msgspec

from diylisis.core.vet import claims, judgment
from diylisis.core.vet.model import Antithesis, Audit, Source

SCHEMA = "diylisis.vet/1"


def action_digest(action: str, leans_on: Sequence[str], sources: Sequence[Source]) -> str:
    """sha256 over the intent, the leaned-on references and the source ids: one note line per action."""
    text = "\n".join([action, *leans_on, *(source.id for source in sources)])
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def instructions_json() -> list[dict[str, str]]:
    """The instruction list exactly as the gate offers it, each with its effect."""
    return [{"instruction": name, "effect": effect} for name, effect in judgment.INSTRUCTIONS]


def item_json(audit: Audit, antithesis: Antithesis) -> dict[str, object]:
    """One open claim as the paused JSON lists it."""
    return {"id": audit.id, "source": audit.source.path, "line": audit.claim.line, "claim": audit.claim.text,
            "pattern": antithesis.pattern.value, "antithesis_index": antithesis.index,
            "antithesis": antithesis.antithesis, "evidence": list(antithesis.evidence),
            "basis": list(antithesis.basis), "stake": list(audit.stake.reads),
            "instructions": instructions_json()}


def claim_json(audit: Audit) -> dict[str, object]:
    """What the note keeps of an audit so `vet --verify` can re-check it: the span, the text and
    the tag facts as measured."""
    tags = audit.tags
    return {
        "source": audit.source.path, "span": audit.claim.span(audit.source), "text": audit.claim.text,
        "referent": audit.claim.referent, "claim_kind": audit.claim.claim_kind,
        "suspicions": [s.value for s in audit.suspicions], "stake": list(audit.stake.reads),
        "tags": {
            "provenance": tags.provenance.evidence.value, "enforced": tags.provenance.enforced,
            "written_by": tags.freshness.written_by, "stale": tags.freshness.stale,
            "lag": [c.commit for c in tags.freshness.lag],
            "leverage": tags.leverage.downstream_count,
            "branches": [b.locator for b in tags.leverage.branches],
            "contradictions": [f"{c.fact.path}:{c.fact.line}" for c in audit.facts.contradictions],
        },
    }


def entry_json(entry: judgment.LedgerEntry) -> dict[str, object]:
    """J(r) as JSON."""
    return {"assigned_by": entry.assigned_by.value, "claim_judged": entry.claim_judged,
            "judged": None if entry.judged is None else judgment.judged_json(entry.judged), "basis": entry.basis}


def settled_json(claim: claims.Settled) -> dict[str, object]:
    """What the note keeps of a claim the certificate settled."""
    return {"source": claim.source.path, "span": claim.claim.span(claim.source), "text": claim.claim.text,
            "referent": claim.claim.referent, "settlement": claim.settlement.value, "basis": claim.basis,
            "hint": claim.hint}


def vetted(*, action: str, commit: str, leans_on: Sequence[str], sources: Sequence[Source],
           observed_at: Mapping[str, int], formed: Sequence[str], audits: Sequence[Audit],
           settled: Sequence[claims.Settled], antitheses: Sequence[Antithesis],
           ledger: judgment.Ledger, unmet_revisits: Sequence[str], realization: judgment.Realization,
           issued_at: str) -> dict[str, object]:
    """V: the dispositions, the per-antithesis trace and the account, bound to the blobs read."""
    handoffs: list[dict[str, object]] = [{"audit": c.id, "deficit": c.settlement.value, "hint": c.hint}
                                         for c in settled if c.hint]
    withdrawn = []
    for entry in ledger.entries:
        instruction = entry.judged.instruction if entry.judged else None
        if instruction and instruction.kind is judgment.InstructionKind.HANDOFF:
            handoffs.append({"audit": entry.audit, "deficit": instruction.text, "hint": None})
        if instruction and instruction.kind is judgment.InstructionKind.WITHDRAW:
            withdrawn.append({"audit": entry.audit, "claim": entry.claim_judged})
    return {
        "schema": SCHEMA, "action": action, "action_digest": action_digest(action, leans_on, sources),
        "commit": commit, "leans_on": list(leans_on),
        "sources": [{"id": s.id, "path": s.path, "blob": s.blob, "origin": s.origin.value,
                     "observed_at": observed_at.get(s.path)} for s in sources],
        "formed": list(formed),
        "claims": {**{audit.id: claim_json(audit) for audit in audits}, **{c.id: settled_json(c) for c in settled}},
        "dispositions": {entry.audit: entry_json(entry) for entry in sorted(ledger.entries, key=lambda e: e.audit)},
        "trace": {audit_id: [msgspec.to_builtins(a) for a in antitheses if a.audit == audit_id] for audit_id in formed
                  if any(a.audit == audit_id for a in antitheses)},
        "history": [{"audit": h.audit, "antithesis": h.antithesis,
                     "record": None if h.record is None else entry_json(h.record)} for h in ledger.history],
        "handoffs": handoffs, "withdrawn": withdrawn, "unmet_revisits": list(unmet_revisits),
        "realization": realization.value, "issued_at": issued_at,
    }
