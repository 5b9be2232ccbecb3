"""The preview's mode state as JSON and back, for a run paused at a gate and resumed later."""

from __future__ import annotations

from typing import Any

import msgspec

from diylisis.core.preview.flow import Lambda
from diylisis.core.preview.model import (
    Axis,
    Direction,
    ExposedUnknown,
    Fan,
    PlaceholderPolicy,
    ProbeSlot,
    Route,
    Spec,
    Tier,
)


def to_json(state: Lambda) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(state)  # enums as their values, as from_json reads them
    return data


def _fan(data: dict[str, Any]) -> Fan:
    return Fan(kind=data["kind"], tgt=tuple(data["tgt"]))


def from_json(data: dict[str, Any]) -> Lambda:
    """The state saved by to_json (KeyError, TypeError or ValueError when it is not one)."""
    spec = data["spec"]
    direction = data.get("direction")
    return Lambda(
        candidates=tuple(data["candidates"]),
        spec=Spec(axes=tuple(Axis(**axis) for axis in spec["axes"]), policy=PlaceholderPolicy(**spec["policy"]),
                  tgt=tuple(spec["tgt"]), tier=Tier(spec["tier"])),
        circulation=int(data["circulation"]),
        probes=tuple(ProbeSlot(**slot) for slot in data["probes"]),
        fans=tuple(_fan(fan) for fan in data["fans"]),
        pending=_fan(data["pending"]) if data.get("pending") else None,
        refan_budget=int(data["refan_budget"]),
        refan_kind=data.get("refan_kind"),
        insufficiency_relayed=bool(data["insufficiency_relayed"]),
        composition=data.get("composition"),
        unknowns=tuple(ExposedUnknown(text=u["text"], route=Route(u["route"])) for u in data["unknowns"]),
        direction=Direction(kind=direction["kind"], direction=direction["direction"],
                            deciding=tuple(direction["deciding"]), ground=direction.get("ground"))
        if direction else None,
        history=tuple((str(a), str(b)) for a, b in data["history"]),
    )
