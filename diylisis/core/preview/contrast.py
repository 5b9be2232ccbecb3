"""Phase 3: the per-axis contrast, the commitments every probe shares, the unknowns they expose.

A cell is the probe's value on a settled axis with the paths it cites; UNGROUNDED when a cited
path is not in the probe's tree, UNDIFFERENTIATED when the probe gave no value (or failed). A row
is flagged only when all its cells are equal, or none is grounded. An axis a probe raises that
was never settled is listed as raised by that probe, never added. A common commitment is a
changed path with the same blob in every probe, or a declared commitment equal in all.
"""

from __future__ import annotations

from diylisis.core.preview.model import (
    Axis,
    Cell,
    CellKind,
    CommitmentKind,
    CommonCommitment,
    Contrast,
    ContrastRow,
    ExposedUnknown,
    ProbeEvidence,
    ProbeStatus,
    Route,
)

DATA_PREFIXES = ("data/", "fixtures/", "seeds/", "seed/", "testdata/")


def _cell(probe: ProbeEvidence, axis: Axis) -> Cell:
    if probe.status is not ProbeStatus.POPULATED:
        return Cell(kind=CellKind.UNDIFFERENTIATED, note=f"the probe {probe.status.replace('_', ' ')}")
    found = next(((value, paths) for axis_id, value, paths in probe.axis_values if axis_id == axis.id), None)
    if found is None or not found[0].strip():
        return Cell(kind=CellKind.UNDIFFERENTIATED, note="the probe gave no value on this axis")
    value, paths = found
    if probe.narrated:
        return Cell(kind=CellKind.VALUE, value=value, note="narrated")
    missing = tuple(path for path in paths if path not in probe.present_paths)
    if missing or not paths:
        return Cell(kind=CellKind.UNGROUNDED, value=value, paths=paths,
                    note=f"cites {', '.join(missing)}, not in the probe" if missing else "cites no file")
    only_data = all(path.startswith(DATA_PREFIXES) for path in paths)
    return Cell(kind=CellKind.VALUE, value=value, paths=paths,
                note="divergence lives in fake data" if only_data else "")


def _row(axis: Axis, probes: tuple[ProbeEvidence, ...]) -> ContrastRow:
    cells = tuple((probe.index, _cell(probe, axis)) for probe in probes)
    grounded = [cell for _, cell in cells if cell.kind is CellKind.VALUE]
    values = {" ".join(cell.value.split()).casefold() for _, cell in cells}
    flagged = not grounded or len(values) < 2 or len(cells) < 2
    return ContrastRow(axis=axis, cells=cells, flagged=flagged)


def _common(probes: tuple[ProbeEvidence, ...]) -> tuple[CommonCommitment, ...]:
    if len(probes) < 2:
        return ()
    changed = [dict(probe.changed) for probe in probes]
    paths = set(changed[0]).intersection(*changed[1:])
    same_blob = [CommonCommitment(key=path, value=changed[0][path], kind=CommitmentKind.PATH)
                 for path in sorted(paths) if len({found[path] for found in changed}) == 1]
    declared = [dict(probe.commitments) for probe in probes]
    keys = set(declared[0]).intersection(*declared[1:])
    same_value = [CommonCommitment(key=key, value=declared[0][key], kind=CommitmentKind.DECLARED)
                  for key in sorted(keys) if len({found[key] for found in declared}) == 1]
    return tuple(same_blob + same_value)


def _unknowns(probes: tuple[ProbeEvidence, ...]) -> tuple[tuple[ExposedUnknown, ...], tuple[str, ...]]:
    routes = {route.value.casefold(): route for route in Route}
    kept: dict[tuple[str, Route], ExposedUnknown] = {}
    rejected = []
    for probe in probes:
        for text, route in probe.unknowns:
            found = routes.get(route.strip().casefold())
            if found is None or not text.strip():
                shown = text.strip() or "(empty)"
                rejected.append(f"probe {probe.index}: {shown} (route {route!r} is not Gap or Inquire)")
                continue
            kept.setdefault((" ".join(text.split()), found), ExposedUnknown(text=" ".join(text.split()), route=found))
    return tuple(kept.values()), tuple(rejected)


def contrast(axes: tuple[Axis, ...], probes: tuple[ProbeEvidence, ...],
             prior: tuple[ExposedUnknown, ...] = ()) -> Contrast:
    """The contrast of the probes over the settled axes, with prior unknowns kept (merged, never lost)."""
    settled = {axis.id for axis in axes}
    raised = tuple(sorted({(probe.index, axis_id) for probe in probes for axis_id, _, _ in probe.axis_values
                           if axis_id not in settled}))
    found, rejected = _unknowns(probes)
    merged = tuple(dict.fromkeys((*prior, *found)))
    problems = tuple(
        [f"probe {p.index} ({p.direction}) {p.status.replace('_', ' ')}" for p in probes
         if p.status is not ProbeStatus.POPULATED]
        + [f"probe {p.index} deleted or changed its placeholder stamp" for p in probes if not p.stamp_intact])
    return Contrast(rows=tuple(_row(axis, probes) for axis in axes), common=_common(probes), unknowns=merged,
                    rejected_unknowns=rejected, raised_axes=raised, problems=problems)


def deciding_rows(result: Contrast, deciding: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """The rows that decided, as {axis: {direction label: value}}, for the record."""
    return {row.axis.id: {str(index): cell.value or cell.kind for index, cell in row.cells}
            for row in result.rows if row.axis.id in deciding}
