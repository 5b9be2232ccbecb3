"""The preview's mode state and its gates: Qspec (Approve | Adjust), Qdir (Select | Synthesize),
Qmicro (Confirm | Materialize), the one shared re-fan budget and the exits.

Every function takes the state and an answer and returns a Step: the new state, what comes
next, a relay to show, and the arm when the run ends. Nothing here generates or destroys a
probe; the caller does what `next` names ("instantiate" a pending fan, "harvest" then discard).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from msgspec import Struct
from msgspec.structs import replace

from diylisis.core.preview import axes as axes_mod
from diylisis.core.preview.model import (
    Arm,
    Axis,
    Contrast,
    Direction,
    DirectionKind,
    ExposedUnknown,
    Fan,
    FanKind,
    PlaceholderPolicy,
    ProbeSlot,
    Route,
    Spec,
    Tier,
)

MAX_TARGETS = 4


class Next(StrEnum):
    """What a Step hands the caller: a gate to ask, a fan to instantiate, the harvest, or the end."""

    QSPEC = "qspec"
    INSTANTIATE = "instantiate"
    QDIR = "qdir"
    QMICRO = "qmicro"
    HARVEST = "harvest"
    END = "end"

    @property
    def is_gate(self) -> bool:
        return self in (Next.QSPEC, Next.QDIR, Next.QMICRO)


class Lambda(Struct, frozen=True, kw_only=True):
    """The run's state (the spec's Λ), minus what lives at the edges (paths, processes)."""

    candidates: tuple[str, ...]
    spec: Spec
    circulation: int = 1  # which Qspec circulation is open or was last approved
    probes: tuple[ProbeSlot, ...] = ()
    fans: tuple[Fan, ...] = ()
    pending: Fan | None = None  # approved, not yet instantiated
    refan_budget: int = 1
    refan_kind: FanKind | None = None  # Gap or Materialization, once the one re-fan is spent
    insufficiency_relayed: bool = False
    composition: str | None = None  # a synthesis waiting at Qmicro
    unknowns: tuple[ExposedUnknown, ...] = ()
    direction: Direction | None = None
    history: tuple[tuple[str, str], ...] = ()

    def directions(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(slot.direction for slot in self.probes))


class Step(Struct, frozen=True, kw_only=True):
    state: Lambda
    next: Next
    relay: str = ""
    arm: Arm | None = None


class QspecAnswer(Struct, frozen=True, kw_only=True):
    kind: Literal["approve", "adjust", "dissolve", "withdraw"]
    text: str = ""


class QdirAnswer(Struct, frozen=True, kw_only=True):
    kind: Literal["select", "synthesize", "insufficient", "unprobed", "interrogate", "withdraw"]
    probe: int | None = None
    text: str = ""
    deciding: tuple[str, ...] = ()
    ground: str | None = None


class QmicroAnswer(Struct, frozen=True, kw_only=True):
    kind: Literal["confirm", "materialize"]


def start(candidates: tuple[str, ...], axes: tuple[Axis, ...], tier: Tier, marker: str,
          tgt: tuple[str, ...] | None = None) -> Lambda:
    """The state at the first Qspec: all candidates targeted when there are at most four."""
    targets = tgt if tgt is not None else (candidates if len(candidates) <= MAX_TARGETS else ())
    return Lambda(candidates=candidates, spec=Spec(axes=axes, policy=PlaceholderPolicy(marker=marker), tgt=targets,
                                                   tier=tier))


def _fan_kind(state: Lambda) -> FanKind:
    return state.refan_kind if state.probes and state.refan_kind else FanKind.CONTRAST


def spec_problems(state: Lambda) -> tuple[str, ...]:
    """Why the spec cannot be approved as it stands."""
    problems = list(axes_mod.axis_problems(state.spec.axes, state.candidates))
    tgt = state.spec.tgt
    kind = _fan_kind(state)
    if kind is FanKind.CONTRAST and not 2 <= len(tgt) <= MAX_TARGETS:
        problems.append(f"{len(state.candidates)} candidates: choose 2 to {MAX_TARGETS} of them to probe "
                        "(adjust with 'tgt 1,2,3')" if not tgt else
                        f"the probe target set has {len(tgt)} directions; it must have 2 to {MAX_TARGETS}")
    if kind is not FanKind.CONTRAST and not tgt:
        problems.append("the re-fan has no direction to probe")
    if kind is not FanKind.MATERIALIZATION:
        problems += [f"{target!r} is not one of the candidates" for target in tgt if target not in state.candidates]
    return tuple(problems)


def on_qspec(state: Lambda, answer: QspecAnswer) -> Step:
    state = replace(state, history=state.history + ((f"qspec-{state.circulation}", answer.kind),))
    if answer.kind == "withdraw":
        return Step(state=state, next=Next.END, relay="you withdrew at the spec gate; nothing was decided",
                    arm=Arm.EARLY_EXIT)
    if answer.kind == "dissolve":
        basis = answer.text.strip() or "the settled axes made the futures recognizable"
        return Step(state=state, next=Next.END, relay=f"the preview dissolved: {basis}", arm=Arm.DISSOLUTION_EXIT)
    if answer.kind == "adjust":
        try:
            revised = revise(state, answer.text)
        except ValueError as problem:
            return Step(state=state, next=Next.QSPEC, relay=f"that revision was not applied: {problem}")
        return Step(state=replace(revised, circulation=state.circulation + 1), next=Next.QSPEC,
                    relay="revised; nothing was generated")
    problems = spec_problems(state)
    if problems:
        return Step(state=state, next=Next.QSPEC, relay="the spec cannot be approved yet: " + "; ".join(problems))
    settled = replace(state.spec, axes=axes_mod.settle(state.spec.axes, state.circulation))
    fan = Fan(kind=_fan_kind(state), tgt=state.spec.tgt)
    return Step(state=replace(state, spec=settled, pending=fan), next=Next.INSTANTIATE)


def revise(state: Lambda, text: str) -> Lambda:
    """Apply an Adjust: `;`-separated `axis ID: QUESTION`, `drop ID`, `tgt N,N` (candidate numbers,
    from 1), `tier vignette|mockup` (ValueError names a directive it cannot apply)."""
    spec = state.spec
    for directive in filter(None, (part.strip() for part in text.split(";"))):
        word, _, rest = directive.partition(" ")
        rest = rest.strip()
        if word == "axis":
            axis = axes_mod.parse_axis(rest)
            spec = replace(spec, axes=tuple(a for a in spec.axes if a.id != axis.id) + (axis,))
        elif word == "drop":
            if rest not in {a.id for a in spec.axes}:
                raise ValueError(f"there is no axis {rest!r} to drop")
            if any(a.id == rest and a.settled_at for a in spec.axes):
                raise ValueError(f"the axis {rest!r} was settled at an earlier circulation and stays")
            spec = replace(spec, axes=tuple(a for a in spec.axes if a.id != rest))
        elif word == "tgt":
            if state.refan_kind is FanKind.MATERIALIZATION and state.probes:
                raise ValueError("the target set of a materialization is the composition; it cannot be changed")
            try:
                numbers = [int(part) for part in rest.replace(",", " ").split()]
            except ValueError:
                raise ValueError(f"'tgt {rest}' needs candidate numbers, e.g. 'tgt 1,3'") from None
            if any(not 1 <= n <= len(state.candidates) for n in numbers) or not numbers:
                raise ValueError(f"candidate numbers run from 1 to {len(state.candidates)}")
            spec = replace(spec, tgt=tuple(dict.fromkeys(state.candidates[n - 1] for n in numbers)))
        elif word == "tier":
            try:
                spec = replace(spec, tier=Tier(rest))
            except ValueError:
                raise ValueError("the tier is 'vignette' or 'mockup'") from None
        else:
            raise ValueError(f"{directive!r}: use 'axis ID: QUESTION', 'drop ID', 'tgt N,N' or 'tier mockup'")
    return replace(state, spec=spec)


def instantiated(state: Lambda) -> Lambda:
    """The pending fan's probes added (indices continue across fans); the fan is recorded."""
    assert state.pending is not None
    first = len(state.probes)
    slots = tuple(ProbeSlot(index=first + offset, direction=direction, fan=len(state.fans))
                  for offset, direction in enumerate(state.pending.tgt))
    return replace(state, probes=state.probes + slots, fans=state.fans + (state.pending,), pending=None)


def on_qdir(state: Lambda, answer: QdirAnswer, seen: Contrast) -> Step:
    state = replace(state, history=state.history + (("qdir", answer.kind),))
    if answer.kind == "withdraw":
        return Step(state=state, next=Next.END, relay="you withdrew at the direction gate; no direction was settled",
                    arm=Arm.EARLY_EXIT)
    if answer.kind == "select":
        slot = next((slot for slot in state.probes if slot.index == answer.probe), None)
        if slot is None:
            known = ", ".join(str(slot.index) for slot in state.probes)
            return Step(state=state, next=Next.QDIR, relay=f"there is no probe {answer.probe}; select one of {known}")
        settled = {row.axis.id for row in seen.rows}
        unknown_axes = [axis for axis in answer.deciding if axis not in settled]
        if unknown_axes:
            return Step(state=state, next=Next.QDIR,
                        relay=f"deciding axes must be settled axes; not: {', '.join(unknown_axes)}")
        deciding = answer.deciding or tuple(row.axis.id for row in seen.rows if not row.flagged)
        direction = Direction(kind=DirectionKind.SELECT, direction=slot.direction, deciding=deciding,
                              ground=answer.ground)
        return Step(state=replace(state, direction=direction), next=Next.HARVEST)
    if answer.kind == "synthesize":
        if not answer.text.strip():
            return Step(state=state, next=Next.QDIR,
                        relay="a synthesis needs its text: what do you compose from the probes?")
        return Step(state=replace(state, composition=answer.text.strip()), next=Next.QMICRO)
    if answer.kind == "interrogate":
        unknown = ExposedUnknown(text=" ".join(answer.text.split()), route=Route.INQUIRE)
        return Step(state=replace(state, unknowns=tuple(dict.fromkeys((*state.unknowns, unknown)))), next=Next.QDIR,
                    relay="a probe cannot answer a factual question; it is recorded as an unknown to inquire into")
    if answer.kind == "unprobed":
        return _unprobed(state, answer.text)
    return insufficient(state)


def _unprobed(state: Lambda, named: str) -> Step:
    if named in state.directions():
        return Step(state=state, next=Next.QDIR, relay=f"{named!r} was probed: select its probe instead")
    if state.refan_budget > 0:
        spec = replace(state.spec, tgt=(named,))
        return Step(state=replace(state, spec=spec, refan_budget=0, refan_kind=FanKind.GAP,
                            circulation=state.circulation + 1), next=Next.QSPEC,
                    relay=f"{named!r} was never probed: it gets a probe first (the one re-fan); settle the spec for it")
    return Step(state=state, next=Next.END,
                relay=f"{named!r} was never probed and the re-fan is spent: its future was never shown, "
                "so the decision goes back to a regular review", arm=Arm.EARLY_EXIT)


def insufficient(state: Lambda) -> Step:
    """The contrast does not tell the futures apart: the shared budget decides the branch."""
    if state.refan_budget > 0:
        return Step(state=replace(state, refan_budget=0, refan_kind=FanKind.GAP, circulation=state.circulation + 1),
                    next=Next.QSPEC,
                    relay="the contrast is insufficient: one re-fan is left; revise the axes or targets, then approve")
    if state.refan_kind is FanKind.MATERIALIZATION and not state.insufficiency_relayed:
        return Step(state=replace(state, insufficiency_relayed=True), next=Next.QDIR,
                    relay="the re-fan went on your own synthesis and the contrast is still insufficient; "
                    "choose among all the probes on the table")
    if state.refan_kind is FanKind.MATERIALIZATION:
        return Step(state=state, next=Next.END,
                    relay="the accumulated probes cannot make these futures recognizable; the decision "
                    "goes back to a regular review", arm=Arm.EARLY_EXIT)
    return Step(state=state, next=Next.END,
                relay="a re-fan did not make the futures recognizable either: the difficulty is "
                "probably not one probes can show", arm=Arm.MISDIAGNOSIS_EXIT)


def on_qmicro(state: Lambda, answer: QmicroAnswer) -> Step:
    state = replace(state, history=state.history + (("qmicro", answer.kind),))
    assert state.composition is not None
    if answer.kind == "confirm":
        confirmed = Direction(kind=DirectionKind.SYNTHESIZE, direction=state.composition)
        return Step(state=replace(state, direction=confirmed),
                    next=Next.HARVEST)
    if state.refan_budget == 0:
        return Step(state=state, next=Next.QMICRO,
                    relay="the one re-fan is spent, so the synthesis cannot be materialized; confirm it "
                    "or withdraw")
    fan = Fan(kind=FanKind.MATERIALIZATION, tgt=(state.composition,))
    spec = replace(state.spec, tgt=(state.composition,))
    return Step(state=replace(state, spec=spec, refan_budget=0, refan_kind=FanKind.MATERIALIZATION, pending=fan),
                next=Next.INSTANTIATE)


def qmicro_options(state: Lambda) -> tuple[str, ...]:
    """Materialize is offered only while the re-fan budget lasts."""
    return ("confirm", "materialize") if state.refan_budget > 0 else ("confirm",)
