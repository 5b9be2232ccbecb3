"""F6: settle — the measure legs, leak lint, exposure scan and the fixed point (spec F6, Phase 4)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from msgspec import Struct

from diylisis.core.model import Contract, Reference, RouteJudgment, ZeroMemoryVerdict
from diylisis.core.phases.f4_judgments import basis_supports
from diylisis.core.state import DecisionRecord, Disposition, Item, LedgerEntry, Measure

# contract fields the certificate and the reception procedure emit (the role is the user's framing)
CONTRACT_CHANNEL_FIELDS = ("activity", "scope", "stop", "allowed_sources", "verification", "activation_verb")
UNREADABLE = "(unreadable)"  # exposure_scan's token for a source the run could not read


def measure(*, items: tuple[Item, ...], dispositions: tuple[Disposition, ...],
            ledger: tuple[LedgerEntry, ...], leaks: int,
            authored: tuple[str, ...], judgments: tuple[RouteJudgment, ...],
            unresolved_references: tuple[str, ...], decisions: tuple[DecisionRecord, ...],
            activity: str | None, stop: str | None) -> Measure:
    """measure(Λ): every leg of the hygiene measure, counted over the pass's state."""
    disposed = {d.item_id for d in dispositions}
    residue = [item for item in items if item.kind.is_residue]
    return Measure(
        unresolved_anchors=sum(1 for item in residue if item.id not in disposed),
        unmet_stop=1 if activity and not stop else 0,
        unsurfaced_residual=sum(1 for entry in ledger if not entry.surfaced),
        leaked_drops=leaks,
        undisposed_authored=sum(1 for item_id in authored if item_id not in disposed),
        missing_bases=sum(1 for judgment in judgments if not basis_supports(judgment)),
        unresolvable_route_pointers=len(unresolved_references),
        ledgerless_decisions=sum(1 for d in decisions if not d.ledger_ref and not d.deferral),
    )


def unresolved_references(judgments: tuple[RouteJudgment, ...], holds: Callable[[str], bool]) -> tuple[str, ...]:
    """Reference locators that fail resolves_at now (the unresolvable-route-pointers leg)."""
    return tuple(j.verdict.ref.locator for j in judgments
                 if isinstance(j.verdict, Reference) and not holds(j.verdict.ref.locator))


def leak_lint(dropped: tuple[str, ...], channels: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """leak_free(Λ): no dropped token may appear on any emit channel or in the record."""
    return tuple((token, name) for token in dropped for name, text in channels.items()
                 if token and token in text)


def contract_channels(contract: Contract) -> dict[str, str]:
    """The contract's emitted fields as leak-lint channels, one per field (emit_candidate: contract)."""
    return {f"contract.{name}": "; ".join(value) if isinstance(value, tuple) else value or ""
            for name in CONTRACT_CHANNEL_FIELDS if (value := getattr(contract, name))}


def leaking_fields(dropped: tuple[str, ...], contract: Contract) -> dict[str, tuple[str, ...]]:
    """Contract fields that hold dropped content, with the tokens each holds (itself an item, Rule 18)."""
    tokens = tuple(dict.fromkeys(token.strip() for token in dropped if token.strip()))
    found = {}
    for channel, text in contract_channels(contract).items():
        held = tuple(token for token in tokens if token in text)
        if held:
            found[channel.removeprefix("contract.")] = held
    return found


def exposure_scan(dropped: tuple[str, ...], sources: Mapping[str, str | None]) -> tuple[tuple[str, str], ...]:
    """Dropped tokens readable through a Reference locator or a granted source (detection only).

    A source the run cannot read while something was dropped is an exposure residual
    too: non-exposure cannot be certified for it.
    """
    if not dropped:
        return ()
    hits = []
    for locator, text in sources.items():
        if text is None:
            hits.append((UNREADABLE, locator))
            continue
        hits.extend((token, locator) for token in dropped if token in text)
    return tuple(hits)


def exposure_detail(token: str, locator: str) -> str:
    """The evidence an exposure residual carries: the exposing source, or the source it could not read."""
    if token == UNREADABLE:
        return (f"this run cannot read {locator}, so it cannot show that {locator} does not expose "
                "what was dropped")
    return f"dropped content is still readable through {locator}, which this run cannot edit"


class Settled(Struct, frozen=True, kw_only=True):
    """F6's output at the fixed point: the verdict the pass settled on and the digest of the
    bytes it reviewed, which F7 re-checks before it certifies (Rule 24)."""

    verdict: ZeroMemoryVerdict
    reviewed: str  # the snapshot digest (sha256:<hex>) the settling pass read


def settle(*, total: int, verdict: ZeroMemoryVerdict, deltas_this_pass: int, gate_changed: bool,
           reviewed: str) -> Settled | None:
    """F6 settle: the pass's Settled value when it reached the fixed point, else None (another pass)."""
    if not fixed_point(total, verdict, deltas_this_pass, gate_changed):
        return None
    return Settled(verdict=verdict, reviewed=reviewed)


def fixed_point(total: int, verdict: ZeroMemoryVerdict, deltas_this_pass: int, gate_changed: bool) -> bool:
    """fixed_point(Λ): measure settled, verdict Pass, and a delta-free, gate-quiet pass."""
    return total == 0 and verdict.passed and deltas_this_pass == 0 and not gate_changed
