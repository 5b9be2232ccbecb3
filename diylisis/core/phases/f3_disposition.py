"""F3: relevance (F3a), provenance (F3b) and the KEEP/ROUTE/DROP disposition (spec Phase 2)."""

from __future__ import annotations

from dataclasses import dataclass

from diylisis.core.model import Contract
from diylisis.core.state import (
    RESIDUAL_OPTIONS,
    Disposition,
    DispositionKind,
    Grounding,
    GroundingMark,
    HistoryEntry,
    Item,
    Provenance,
    ProvenanceMark,
)

TYPE_CHECKING = False  # true for type checkers only: the hook never imports typing
if TYPE_CHECKING:
    from diylisis.core.gate import Answer


@dataclass(frozen=True, slots=True, kw_only=True)
class DispositionResult:
    provenance: tuple[ProvenanceMark, ...]
    dispositions: tuple[Disposition, ...]
    gated: tuple[str, ...]  # item ids awaiting the author's judgment at Qd
    history: tuple[HistoryEntry, ...]


def relevant(item: Item, contract: Contract) -> bool:
    """F3a: every item of the record serves a reader in the declared role until the gate says otherwise.

    A detector cannot tell which residue the role needs, so nothing is dropped by
    relevance alone: dropping target text is the author's judgment (spec F3).
    """
    return bool(contract.role)


def dispose(items: tuple[Item, ...], grounding: tuple[GroundingMark, ...],
            answers: tuple[Answer, ...], contract: Contract) -> DispositionResult:
    """F3b provenance and F3 disposition; Unknown goes to the gate unless already answered."""
    by_item = {mark.item_id: mark for mark in grounding}
    answered = {answer.item_id: answer for answer in answers}
    provenance, dispositions, gated, history = [], [], [], []
    for item in items:
        mark = by_item[item.id]
        if not relevant(item, contract):
            continue
        if mark.grounding is Grounding.ROUTED_RESIDUAL:
            provenance.append(ProvenanceMark(item_id=item.id, provenance=Provenance.UNKNOWN,
                                             source="no observable source in the record or repository"))
            answer = answered.get(item.id)
            if answer is None or answer.option not in RESIDUAL_OPTIONS:
                gated.append(item.id)
                continue
            disposition = from_answer(item, answer)
            dispositions.append(disposition)
            if disposition.kind is DispositionKind.DROP:
                history.append(HistoryEntry(item_id=item.id, token=item.token,
                                            disposition=DispositionKind.DROP,
                                            drop_reason=f"Gate {answer.option}"
                                            + (f": {answer.value}" if answer.value else "")))
            continue
        provenance.append(ProvenanceMark(item_id=item.id, provenance=Provenance.OBSERVED_KEEP,
                                         source=mark.detail))
        if mark.grounding is Grounding.INLINE:
            dispositions.append(Disposition(item_id=item.id, kind=DispositionKind.KEEP,
                                            value=item.token, basis=f"observed: {mark.detail}"))
        else:
            locator = item.locator or item.resolution or item.token
            dispositions.append(Disposition(item_id=item.id, kind=DispositionKind.ROUTE,
                                            value=locator, basis=f"observed: {mark.detail}"))
    return DispositionResult(provenance=tuple(provenance), dispositions=tuple(dispositions),
                             gated=tuple(gated), history=tuple(history))


def from_answer(item: Item, answer: Answer) -> Disposition:
    """Gate answer -> terminal disposition: Resolve KEEP, Route ROUTE, Drop/Defer DROP."""
    match answer.option:
        case "resolve":
            return Disposition(item_id=item.id, kind=DispositionKind.KEEP, value=answer.value,
                               basis=f"Gate Resolve by the author: {answer.value}", by_gate=True)
        case "route":
            return Disposition(item_id=item.id, kind=DispositionKind.ROUTE, value=answer.value,
                               basis=f"Gate Route by the author; resolves_at({answer.value}) checked",
                               by_gate=True)
        case "drop":
            return Disposition(item_id=item.id, kind=DispositionKind.DROP, value=None,
                               basis="Gate Drop by the author", by_gate=True)
        case "defer":
            return Disposition(item_id=item.id, kind=DispositionKind.DROP, value=None,
                               basis=f"Gate Defer by the author: released from the certificate, the text stays in the "
                                     f"record as a premise until: {answer.value}", by_gate=True)
    raise ValueError(f"not a disposition answer: {answer.option}")
