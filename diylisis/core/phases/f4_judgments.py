"""F4: judgments — one RouteJudgment with a basis per kept or routed item (Rule 30)."""

from __future__ import annotations

from diylisis.core.model import InlineEvidence, Reference, RouteJudgment, Value
from diylisis.core.phases.f2_grounding import stable_ref
from diylisis.core.state import Disposition, DispositionKind, Item


def form(items: tuple[Item, ...], dispositions: tuple[Disposition, ...]) -> tuple[RouteJudgment, ...]:
    """F4 compress(kept ∪ routed) -> judgments; DROP'd items carry none."""
    token_of = {item.id: item.token for item in items}
    judgments = []
    for disposition in dispositions:
        if disposition.item_id not in token_of:
            continue
        match disposition.kind:
            case DispositionKind.KEEP:
                verdict: Value | Reference = Value(
                    evidence=InlineEvidence(content=disposition.value or token_of[disposition.item_id]))
            case DispositionKind.ROUTE:
                verdict = Reference(ref=stable_ref(disposition.value or token_of[disposition.item_id]))
            case DispositionKind.DROP:
                continue
        judgments.append(RouteJudgment(item=disposition.item_id, verdict=verdict,
                                       basis=disposition.basis))
    return tuple(judgments)


def basis_supports(judgment: RouteJudgment) -> bool:
    """Checklist 7: a Value cites an observation or a Resolve; a Reference a resolves_at or a Route."""
    basis = judgment.basis.lower()
    match judgment.verdict:
        case Value():
            return basis.startswith("observed:") or "gate resolve" in basis
        case Reference():
            return ("resolves_at" in basis or "gate route" in basis or "mechanical resolution" in basis
                    or basis.startswith("observed:"))
    return False
