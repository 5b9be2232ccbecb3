"""F3: relevance (F3a), provenance (F3b) and the KEEP/ROUTE/DROP disposition (spec Phase 2).

F3b tags each pointer with `diylisis.core.tagging`, the module vet's tags come from: ObservedKeep
requires DirectObserved, so a path that resolves does not thereby support what the record says
of it. The repository's values arrive as `SupportFacts` an edge measured; this module reads no git.
"""

from __future__ import annotations

from msgspec import Struct

from diylisis.core.model import Contract
from diylisis.core.state import (
    RESIDUAL_OPTIONS,
    Disposition,
    DispositionKind,
    Grounding,
    GroundingMark,
    HistoryEntry,
    Item,
    ItemKind,
    Provenance,
    ProvenanceMark,
)

TYPE_CHECKING = False  # true for type checkers only: the commit-msg hook never imports tagging
if TYPE_CHECKING:
    from diylisis.core import tagging
    from diylisis.core.gate import Answer


# A pointer whose line the source contradicts is the record's claim against the code: the author
# edits the record, or accepts the claim as a premise with a condition; a repair cannot pick the value.
UNSUPPORTED_OPTIONS = ("defer",)


class DispositionResult(Struct, frozen=True, kw_only=True):
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


def support_keys(items: tuple[Item, ...], text: str) -> frozenset[str]:
    """F3b: the keys the pointer lines of TEXT give values for, which an edge measures into SupportFacts."""
    if not any(item.kind == ItemKind.POINTER for item in items):
        return frozenset()
    from diylisis.core import tagging

    lines = text.split("\n")
    return frozenset(key for item in items if item.kind == ItemKind.POINTER and 0 < item.line <= len(lines)
                     for key in tagging.candidate_keys(lines[item.line - 1]))


def pointer_support(item: Item, mark: GroundingMark, text: str, path: str,
                    facts: tagging.SupportFacts | None) -> tagging.Support:
    """F3b support integrity of a pointer: what its line says of the source, against the source.
    Without measured facts (a record read from the index) only the reference is judged."""
    from diylisis.core import tagging

    if facts is None or not text:
        return tagging.Support(tag=tagging.reference_only(mark.detail), contradictions=())
    return tagging.support(tagging.claim_line(path, text, item.line), facts, mark.detail)


def dispose(items: tuple[Item, ...], grounding: tuple[GroundingMark, ...],
            answers: tuple[Answer, ...], contract: Contract, *, text: str = "", path: str = "",
            facts: tagging.SupportFacts | None = None) -> DispositionResult:
    """F3b provenance and F3 disposition; Unknown goes to the gate unless already answered.

    TEXT and PATH are the record's, FACTS what the repository holds for the keys its pointer
    lines give values for: a pointer is ObservedKeep only when its line is DirectObserved.
    """
    by_item = {mark.item_id: mark for mark in grounding}
    answered = {answer.item_id: answer for answer in answers}
    provenance, dispositions, gated, history = [], [], [], []
    for item in items:
        mark = by_item[item.id]
        if not relevant(item, contract):
            continue
        observed: tagging.Support | None = None
        if item.kind == ItemKind.POINTER and mark.grounding is Grounding.STABLE_POINTER:
            observed = pointer_support(item, mark, text, path, facts)
        unsupported = observed is not None and not observed.direct
        if mark.grounding is Grounding.ROUTED_RESIDUAL or unsupported:
            source = observed.describe() if observed is not None else "no observable source in the record or repository"
            provenance.append(ProvenanceMark(item_id=item.id, provenance=Provenance.UNKNOWN, source=source))
            answer = answered.get(item.id)
            if answer is None or answer.option not in (UNSUPPORTED_OPTIONS if unsupported else RESIDUAL_OPTIONS):
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
        detail = mark.detail if observed is None or not observed.tag.basis else observed.describe()
        provenance.append(ProvenanceMark(item_id=item.id, provenance=Provenance.OBSERVED_KEEP, source=detail))
        if mark.grounding is Grounding.INLINE:
            dispositions.append(Disposition(item_id=item.id, kind=DispositionKind.KEEP,
                                            value=item.token, basis=f"observed: {detail}"))
        else:
            locator = item.locator or item.resolution or item.token
            dispositions.append(Disposition(item_id=item.id, kind=DispositionKind.ROUTE,
                                            value=locator, basis=f"observed: {detail}"))
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
