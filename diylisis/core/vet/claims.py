"""certify (Phase 0's fit of each candidate claim), pure: pass, handed elsewhere, or unattributable.

The four local claims are data, not configuration: OwnClaim (the action reads the claim and a
suspect predicate holds: it is asked), ContextInsufficient (/inquire: the value is not known
yet), GapUnnoticed (/gap: an open decision box), BoundaryUndefined (/bound: not the author's to
settle; vendored or generated paths, and paths CODEOWNERS gives to another owner). A candidate
that fits none gets exactly one narrowed re-assessment (only the evidence inside its own referent
and scope) and is then Unattributable.
Handed and unattributable claims are reported with their basis, never asked.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence

from msgspec import Struct

from diylisis.core import tagging
from diylisis.core.vet import identify as phase0
from diylisis.core.vet import owners
from diylisis.core.vet.model import ClaimFacts, ClaimRef, Source, Suspicion, audit_id


class Settlement(enum.Enum):
    """How the certificate settled a claim without asking."""

    CONTEXT_INSUFFICIENT = "ContextInsufficient"
    GAP_UNNOTICED = "GapUnnoticed"
    BOUNDARY_UNDEFINED = "BoundaryUndefined"
    UNATTRIBUTABLE = "Unattributable"


# The three inscribed deficits carry a hint where to take the claim; plain words first.
HINTS: dict[Settlement, str] = {
    Settlement.CONTEXT_INSUFFICIENT: "the value is not known yet: find or measure it first (/inquire)",
    Settlement.GAP_UNNOTICED: "a decision is still open: make it, or say who will (/gap)",
    Settlement.BOUNDARY_UNDEFINED: "it is not this author's to settle: ask the owner (/bound)",
}

_OPEN_BOX = re.compile(r"^[ \t]*(?:[-*+]|\d+\.)[ \t]+\[ \][ \t]+\S")
_OWNED_ELSEWHERE = re.compile(r"(^|/)(vendor|third_party|node_modules|generated|_generated)/")


class Settled(Struct, frozen=True, kw_only=True):
    """A candidate claim the certificate settled: handed elsewhere or unattributable, with its basis."""

    id: str
    source: Source
    claim: ClaimRef
    settlement: Settlement
    basis: str

    @property
    def hint(self) -> str | None:
        """Where to take it (only the three inscribed deficits have one)."""
        return HINTS.get(self.settlement)


def _settled(source: Source, facts: ClaimFacts, settlement: Settlement, basis: str) -> Settled:
    claim = phase0.claim_ref(source, facts, ())
    return Settled(id=audit_id(source, claim), source=source, claim=claim, settlement=settlement, basis=basis)


def fit(source: Source, facts: ClaimFacts, leverage: tagging.LeverageTag, reads: Sequence[str],
        ownership: owners.Ownership | None = None) -> Settled | None:
    """The certificate's fit of one claim line: None for a pass (an OwnClaim, or no candidate at
    all), else how it is settled and why. OWNERSHIP: the CODEOWNERS file at the vetted commit."""
    where = f"{source.path}:{facts.claim.line}"
    kinds = phase0.suspicions(facts, leverage)
    if Suspicion.ABSENT in kinds:
        return _settled(source, facts, Settlement.CONTEXT_INSUFFICIENT,
                        f"{where} says its value is not known yet")
    if _OPEN_BOX.match(facts.claim.text) and reads:
        return _settled(source, facts, Settlement.GAP_UNNOTICED, f"{where} is an unticked decision box")
    owned = [path for path in tagging.named_paths(facts.claim.text) if _OWNED_ELSEWHERE.search(path)]
    if owned and kinds:
        return _settled(source, facts, Settlement.BOUNDARY_UNDEFINED,
                        f"{where} names {owned[0]}, which is vendored or generated")
    if kinds and ownership is not None:
        named = [*tagging.named_paths(facts.claim.text),
                 *(c.fact.path for c in facts.contradictions), *(a.fact.path for a in facts.agreements)]
        bound = owners.boundary(ownership, list(dict.fromkeys(named)))
        if bound is not None:
            return _settled(source, facts, Settlement.BOUNDARY_UNDEFINED, bound.basis(where, ownership.author))
    if kinds and not reads:
        return _settled(source, facts, Settlement.UNATTRIBUTABLE,
                        f"none: the action does not read {source.path}")
    if kinds:
        return None  # OwnClaim: asked at the gate
    if reads and leverage.downstream_count >= phase0.HIGH_LEVERAGE and _states_something(facts.claim.text):
        # the first fit is ambiguous (a load-bearing claim, nothing measured); the one narrowed
        # re-assessment keeps only evidence inside its own referent and scope, and finds none
        return _settled(source, facts, Settlement.UNATTRIBUTABLE,
                        f"none: {leverage.downstream_count} files rest on {source.path}, but nothing at the"
                        f" vetted commit holds a value for {where}")
    return None


def _states_something(text: str) -> bool:
    """A sentence with a verb-like claim, not a label or a list of links."""
    return len(re.findall(r"[A-Za-z]{2,}", text)) >= 4 and not text.strip().startswith(("http", "[", "|"))
