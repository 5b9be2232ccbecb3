"""Phase 0: is this a direction decision whose futures cannot be told apart from the text?

The invocation itself asserts row 4 (two or more candidates, no real evidence needed, both type
guards holding); the author's flags say otherwise. After the threshold test (futures
recognizable from the text: no deficit) the first matching routing row wins: 1 a familiar
domain carries the futures (/ground), 2 real data or a live environment is needed (/inquire),
3 the field is thin (/ideate), the frame is missing (/frame) or the coordinates are implicit in
the substrate (/elicit). A failed type guard with no row matching is unfit.
"""

from __future__ import annotations

from diylisis.core.preview.model import DetectSignals, NotActivated

_SIBLINGS = {
    "ideate": ("the field of candidates is thin: diverge it first", "/ideate"),
    "frame": ("the frame or perspective itself is missing", "/frame"),
    "elicit": ("the decision's coordinates are implicit in the code or data", "/elicit"),
}


def distinct_candidates(candidates: tuple[str, ...]) -> tuple[str, ...]:
    """The candidates in the order given, blank ones and repeats (ignoring case and spacing) left out."""
    seen: dict[str, str] = {}
    for text in candidates:
        key = " ".join(text.split()).casefold()
        if key and key not in seen:
            seen[key] = " ".join(text.split())
    return tuple(seen.values())


def detect(candidates: tuple[str, ...], signals: DetectSignals) -> NotActivated | None:
    """None when the preview activates; otherwise the stand-down with its relay."""
    field = distinct_candidates(candidates)
    basis = f" ({signals.basis})" if signals.basis else ""
    if len(field) < 2:
        return NotActivated(
            kind="requires_fail",
            relay=f"a preview needs at least two different directions to compare; {len(field)} given. "
            "With one or none, the field of candidates is what is missing: diverge it first "
            "(/ideate), or name the frame (/frame) or the coordinates (/elicit) if those are missing.",
            row="3", protocol="/ideate")
    if signals.recognizable:
        return NotActivated(
            kind="no_deficit", relay="the futures of these directions can be told apart from their descriptions"
            f"{basis}: decide at a regular review, no probes are needed.")
    if signals.familiar:
        return NotActivated(
            kind="route_away", relay="a familiar domain's structure carries these futures without distortion"
            f"{basis}: validate that mapping (/ground) instead of building probes.", row="1", protocol="/ground")
    if signals.needs_real_data:
        return NotActivated(
            kind="route_away", relay=f"telling these futures apart needs real data or a live environment{basis}; "
            "placeholder probes cannot show it: investigate the facts (/inquire).", row="2", protocol="/inquire")
    if signals.sibling is not None:
        reason, protocol = _SIBLINGS[signals.sibling]
        return NotActivated(kind="route_away", relay=f"{reason}{basis} ({protocol}).", row="3", protocol=protocol)
    if signals.placeholders_distort:
        return NotActivated(
            kind="unfit", relay="placeholder data would blur the differences between these directions"
            f"{basis} (the placeholder_fidelity guard fails) and no other route fits: the decision "
            "stays at a regular review.")
    return None
