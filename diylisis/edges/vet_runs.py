"""A paused vet run's file: `.git/distill/runs/<id>.json` with `"kind": "vet"` (never pushed).

It keeps what the run cannot recompute: the pinned sources (by blob), what the action reads of
each, the audits formed, every antithesis posited (append-only), the ledger J with its history
and the claims presented. The audits themselves are recomputed from the pinned blobs on resume.
The file is written, read and removed through `diylisis.edges.run_files`, as every kind's is.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
from msgspec import Struct

from diylisis.core.errors import BadInput
from diylisis.core.vet import judgment, result
from diylisis.core.vet.model import Antithesis, Origin
from diylisis.edges import run_files

KIND = "vet"


class PinnedRef(Struct, frozen=True, kw_only=True):
    """A source as the run file keeps it: by blob, its text read again from the object store."""

    locator: str
    path: str
    blob: str
    origin: Origin


class VetRun(Struct, frozen=True, kw_only=True):
    """A vet run's saved state (Λ without what the pinned blobs give back)."""

    run_id: str
    action: str
    commit: str
    leans_on: tuple[str, ...]
    sources: tuple[PinnedRef, ...]
    reads: tuple[tuple[str, tuple[str, ...]], ...]
    formed: tuple[str, ...]
    antitheses: tuple[Antithesis, ...]
    ledger: judgment.Ledger
    presented: tuple[str, ...]
    realization: judgment.Realization
    what_if: str | None = None  # Pattern B's condition, posited again when a Revisit re-enters a claim


def _ledger_json(ledger: judgment.Ledger) -> dict[str, object]:
    return {"entries": [{"audit": e.audit, **result.entry_json(e)} for e in ledger.entries],
            "history": [{"audit": h.audit, "antithesis": h.antithesis,
                         "record": None if h.record is None else {"audit": h.record.audit,
                                                                  **result.entry_json(h.record)}}
                        for h in ledger.history]}


def _entry(data: dict[str, object]) -> judgment.LedgerEntry:
    audit, by, claim, basis, raw = (data.get(k) for k in ("audit", "assigned_by", "claim_judged", "basis", "judged"))
    if not isinstance(audit, str) or not isinstance(by, str) or not isinstance(claim, str):
        raise ValueError("ledger entry")
    answer = judgment.judged_from_json(audit, raw) if isinstance(raw, dict) else None
    return judgment.LedgerEntry(audit=audit, assigned_by=judgment.AssignedBy(by), claim_judged=claim,
                                judged=answer, basis=basis if isinstance(basis, str) else None)


def save(git_dir: Path, run: VetRun) -> str:
    """Write the run file atomically (diylisis.edges.run_files); its path."""
    data = {
        "run": run.run_id, "action": run.action, "commit": run.commit, "leans_on": list(run.leans_on),
        "sources": msgspec.to_builtins(run.sources), "reads": msgspec.to_builtins(run.reads),
        "formed": list(run.formed), "antitheses": msgspec.to_builtins(run.antitheses),
        "ledger": _ledger_json(run.ledger), "presented": list(run.presented), "realization": run.realization.value,
        "what_if": run.what_if,
    }
    return run_files.save(git_dir, KIND, run.run_id, data)


def load(git_dir: Path, run_id: str) -> VetRun:
    """The saved vet run; exit 2 when it is missing, of another kind, or damaged."""
    stored = run_files.load(git_dir, run_id)
    if stored.kind != KIND:
        raise BadInput(f"run {run_id} is not a vet run")
    data = stored.data
    try:
        ledger = data["ledger"]
        return VetRun(
            run_id=run_id, action=str(data["action"]), commit=str(data["commit"]),
            leans_on=tuple(str(x) for x in data["leans_on"]),
            sources=msgspec.convert(data["sources"], tuple[PinnedRef, ...]),
            reads=msgspec.convert(data["reads"], tuple[tuple[str, tuple[str, ...]], ...]),
            formed=tuple(str(x) for x in data["formed"]),
            antitheses=msgspec.convert(data["antitheses"], tuple[Antithesis, ...]),
            ledger=judgment.Ledger(
                entries=tuple(_entry(e) for e in ledger["entries"]),
                history=tuple(judgment.HistoryEntry(
                    audit=str(h["audit"]), antithesis=h["antithesis"],
                    record=None if h["record"] is None else _entry(h["record"])) for h in ledger["history"])),
            presented=tuple(str(x) for x in data["presented"]),
            realization=judgment.Realization(str(data["realization"])),
            what_if=None if data.get("what_if") is None else str(data["what_if"]))
    except (KeyError, TypeError, ValueError):
        raise BadInput(f"run {run_id}'s file is damaged") from None
