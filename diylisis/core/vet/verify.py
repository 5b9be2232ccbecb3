"""`vet --verify`'s checks over one stored result (a note line), pure: each check names the field
or fact that failed. The verdicts themselves are never checked; only that the ledger is whole."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from msgspec import Struct

from diylisis.core.vet.judgment import AssignedBy
from diylisis.core.vet.result import SCHEMA

_FIELDS = ("schema", "action", "action_digest", "commit", "leans_on", "sources", "formed", "claims",
           "dispositions", "trace", "history", "handoffs", "withdrawn", "unmet_revisits", "realization",
           "issued_at")


class Check(Struct, frozen=True, kw_only=True):
    """One check of `vet --verify`: its name, whether it held, and in plain words what failed."""

    name: str
    ok: bool
    detail: str


def structure(line: Mapping[str, object]) -> list[Check]:
    """The fields are there with their types, and the ledger invariants hold: dom(J) = formed,
    a user's entry holds a verdict, a certificate's a basis, and the history ends in J."""
    missing = [name for name in _FIELDS if name not in line]
    if missing:
        return [Check(name="structure", ok=False, detail=f"missing field(s): {', '.join(missing)}")]
    if line["schema"] != SCHEMA:
        return [Check(name="structure", ok=False, detail=f"schema is {line['schema']!r}, not {SCHEMA}")]
    formed, dispositions, history, claims, trace = (line[k] for k in ("formed", "dispositions", "history", "claims",
                                                                      "trace"))
    if not (isinstance(formed, list) and isinstance(dispositions, dict) and isinstance(history, list)
            and isinstance(claims, dict) and isinstance(trace, dict)):
        return [Check(name="structure", ok=False, detail="formed, dispositions, history, claims or trace has the"
                                                         " wrong type")]
    problems = []
    if set(dispositions) != set(formed):
        problems.append("dispositions do not cover exactly the claims formed")
    if set(claims) != set(formed) or not set(trace) <= set(formed):
        problems.append("claims or trace do not match the claims formed")
    for audit, entry in dispositions.items():
        if not isinstance(entry, dict):
            problems.append(f"disposition of {audit} is not an object")
            continue
        by, judged, basis = entry.get("assigned_by"), entry.get("judged"), entry.get("basis")
        match next((a for a in AssignedBy if a.value == by), None):
            case AssignedBy.USER:
                if not (isinstance(judged, dict) and str(judged.get("verdict", "")).strip()):
                    problems.append(f"{audit}: a user's disposition without a verdict")
            case AssignedBy.CERTIFICATE:
                if not (judged is None and isinstance(basis, str) and basis):
                    problems.append(f"{audit}: a certificate's disposition without its basis")
            case None:
                problems.append(f"{audit}: assigned_by is {by!r}")
    last: dict[str, object] = {}
    for step in history:
        if isinstance(step, dict) and isinstance(step.get("audit"), str):
            last[str(step["audit"])] = step.get("record")
    if {a: r for a, r in last.items() if r is not None} != dict(dispositions):
        problems.append("the history does not end in the dispositions")
    return [Check(name="structure", ok=not problems, detail="; ".join(problems) or "ledger whole")]


def spans(line: Mapping[str, object], texts: Mapping[str, str]) -> list[Check]:
    """Each claim's text sits, byte for byte, at its span in the pinned blob (TEXTS: blob id -> text)."""
    claims = line.get("claims")
    problems = []
    for audit, claim in (claims.items() if isinstance(claims, dict) else ()):
        span, text = claim.get("span"), claim.get("text")
        try:
            where, row, columns = str(span).rsplit(":", 2)
            blob = where.rsplit("@", 1)[1]
            number = int(row.removeprefix("L"))
            first, last = (int(c) for c in columns.removeprefix("c").split("-"))
        except (ValueError, IndexError):
            problems.append(f"{audit}: span {span!r} does not parse")
            continue
        lines = texts.get(blob, "").split("\n")
        found = lines[number - 1].encode()[first - 1:last].decode(errors="replace") if 0 < number <= len(lines) else ""
        if found != text:
            problems.append(f"{audit}: the claim text is not at {span}")
    return [Check(name="spans", ok=not problems, detail="; ".join(problems) or "every claim text at its span")]


def tags(line: Mapping[str, object], recomputed: Mapping[str, Mapping[str, object]],
         settled: Mapping[str, str]) -> list[Check]:
    """The tag facts stored for each claim equal those measured again at the note's commit, and a
    claim the certificate settled is settled the same way again (SETTLED: audit id -> settlement)."""
    claims = line.get("claims")
    problems = []
    for audit, claim in (claims.items() if isinstance(claims, dict) else ()):
        if isinstance(claim, dict) and "settlement" in claim:
            if settled.get(audit) != claim["settlement"]:
                problems.append(f"{audit}: settlement is {claim['settlement']!r}, measured {settled.get(audit)!r}")
            continue
        again = recomputed.get(audit)
        if again is None:
            problems.append(f"{audit}: no longer forms from its pinned source")
            continue
        stored = claim.get("tags") if isinstance(claim, dict) else None
        if not isinstance(stored, dict):
            problems.append(f"{audit}: tags missing")
            continue
        for field in sorted(set(stored) | set(again)):
            if stored.get(field) != again.get(field):
                problems.append(f"{audit}: tags.{field} is {stored.get(field)!r}, measured {again.get(field)!r}")
    return [Check(name="tags", ok=not problems, detail="; ".join(problems) or "every tag fact measured again")]


def summary(checks: Sequence[Check]) -> bool:
    """True when every check held."""
    return all(check.ok for check in checks)
