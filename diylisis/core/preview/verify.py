"""What a later reader can re-check of a stored DirectionalContrast record.

Probe contents are destroyed by design, so the discard is checkable only as a declaration:
every probe index 0..n-1 has exactly one disposition, the selected direction was probed, the
deciding axes were settled, every unknown has a route, the fans have their sizes.
"""

from __future__ import annotations

from typing import Any

from diylisis.core.preview.model import DirectionKind, FanKind, ProbeDisposition, Route

SCHEMA = "distill-preview/1"
_DISPOSITIONS = frozenset(ProbeDisposition)
_ROUTES = frozenset(Route)
_ARMS = {"DirectionalContrast"}


def record_problems(record: Any) -> tuple[str, ...]:
    """Why the record does not hold up; () when it does."""
    if not isinstance(record, dict):
        return ("the record is not a JSON object",)
    if record.get("schema") != SCHEMA:
        return (f"unknown schema {record.get('schema')!r} (expected {SCHEMA})",)
    problems: list[str] = []
    trace = record.get("discard_trace")
    if not isinstance(trace, list):
        return ("the record has no discard trace",)
    indices = sorted(int(e.get("probe", {}).get("index", -1)) for e in trace if isinstance(e, dict))
    if indices != list(range(len(trace))):
        problems.append(f"the discard trace does not declare each probe once (indices {indices})")
    bad = sorted({str(e.get("disposition")) for e in trace if isinstance(e, dict)} - _DISPOSITIONS)
    if bad:
        problems.append(f"unknown dispositions: {', '.join(bad)}")
    failed = [e for e in trace if isinstance(e, dict) and e.get("disposition") == ProbeDisposition.DISCARD_FAILED]
    if failed:
        problems.append(f"{len(failed)} probe(s) were declared DiscardFailed: "
                        + "; ".join(str(e.get("reason", "")) for e in failed))
    if record.get("arm") not in _ARMS:
        problems.append(f"the arm {record.get('arm')!r} is not a DirectionalContrast")
    direction = record.get("direction") or {}
    probed = {e.get("probe", {}).get("direction") for e in trace if isinstance(e, dict)}
    if direction.get("kind") == DirectionKind.SELECT and direction.get("direction") not in probed:
        problems.append(f"the selected direction {direction.get('direction')!r} was never probed")
    if direction.get("kind") not in tuple(DirectionKind):
        problems.append("the record names no constituted direction")
    settled = {a.get("id") for a in record.get("axes", []) if isinstance(a, dict) and a.get("settled_at")}
    unsettled = sorted(set(record.get("contrast_map", {})) - settled)
    if unsettled:
        problems.append(f"deciding rows on axes never settled: {', '.join(map(str, unsettled))}")
    unrouted = [u for u in record.get("exposed_unknowns", [])
                if not isinstance(u, dict) or u.get("route") not in _ROUTES]
    if unrouted:
        problems.append(f"{len(unrouted)} unknown(s) without a Gap or Inquire route")
    fans = record.get("fans", [])
    if not 1 <= len(fans) <= 2:
        problems.append(f"{len(fans)} fans: a preview has one, or two with its one re-fan")
    for fan in fans:
        size = len(fan.get("tgt", [])) if isinstance(fan, dict) else 0
        kind = fan.get("kind") if isinstance(fan, dict) else None
        if kind == FanKind.CONTRAST and not 2 <= size <= 4:
            problems.append(f"the first fan probed {size} directions (2 to 4 expected)")
        elif kind in (FanKind.GAP, FanKind.MATERIALIZATION) and size < 1:
            problems.append(f"the {kind} re-fan probed nothing")
    probed_count = sum(len(fan.get("tgt", [])) for fan in fans if isinstance(fan, dict))
    if probed_count != len(trace):
        problems.append(f"the fans made {probed_count} probes but the discard trace declares {len(trace)}")
    if record.get("non_evidence") != "evidence for no claim":
        problems.append("the record lacks its non-evidence line")
    return tuple(problems)
