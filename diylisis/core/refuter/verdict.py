"""The refuter verdict format: parse and validate a command's answer, render a verdict (F5).

A verdict is text with a `Verdict:` line (Pass or Fail), a `Realization:` line, a
findings table and a category sweep table (spec: ZeroMemoryVerdict, EvidencedFinding).
Anything short of that is no verdict: `parse` names every defect it finds, so a
re-dispatch or the final stop can print all of them (Rule 9: a verdict without a full
sweep is rejected, never patched).
"""

from __future__ import annotations

import re

from diylisis.core.model import CHECKLIST, Realization, RefuterFinding, SweepRow, SweepStatus, ZeroMemoryVerdict

ADVISORY_TAGS = ("Resolve", "Route", "Drop", "Defer")
SWEEP_STATUSES = tuple(status.value for status in SweepStatus)
FINDINGS_HEADER = ("Quoted token", "Location", "Category", "Why unresolvable", "Advisory",
                   "Repair note")
SWEEP_HEADER = ("Category", "Status", "What was checked")

# markdown emphasis or a heading mark around a label is tolerated: "**Verdict:** Pass"
_LABEL = re.compile(r"^\s*(?:#+\s*)?[*_]*\s*(Verdict|Realization)\s*[*_]*\s*:\s*(.*?)\s*$", re.I)
_STATUS_ALIASES = {"n/a": "not-applicable", "na": "not-applicable",
                   "not applicable": "not-applicable"}
_CATEGORY = re.compile(r"^\s*(\d+)(?!\d)")
_SEPARATOR = re.compile(r"^:?-{3,}:?$")
_QUOTES = (('"', '"'), ("`", "`"), ("“", "”"), ("'", "'"))


class InvalidVerdict(ValueError):
    """The text is no verdict; `reasons` names each defect."""

    def __init__(self, reasons: tuple[str, ...]) -> None:
        super().__init__("; ".join(reasons))
        self.reasons = reasons


def parse(text: str, expected: Realization) -> ZeroMemoryVerdict:
    """F5 track: the verdict in text, or InvalidVerdict naming every defect (Rule 9)."""
    reasons: list[str] = []
    labels: dict[str, list[str]] = {"verdict": [], "realization": []}
    tables: list[list[tuple[int, list[str]]]] = []
    current: list[tuple[int, list[str]]] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("|"):
            if current is None:
                current = []
                tables.append(current)
            current.append((number, _cells(stripped)))
            continue
        current = None
        match = _LABEL.match(line)
        if match:
            labels[match.group(1).lower()].append(match.group(2).strip("*_` "))

    passed = _verdict_line(labels["verdict"], reasons)
    _realization_line(labels["realization"], expected, reasons)
    findings_table, sweep_table = _tables(tables, reasons)
    findings = _findings(findings_table or [], reasons)
    sweep = _sweep(sweep_table or [], reasons) if sweep_table is not None else ()
    if passed is True and findings:
        reasons.append(f"a Pass verdict lists {len(findings)} finding(s); a Pass has none")
    if passed is False and findings_table is not None and not findings_table:
        reasons.append("a Fail verdict needs at least one row in the findings table")
    if sweep:
        _consistency(findings, sweep, reasons)
    if reasons:
        raise InvalidVerdict(tuple(reasons))
    assert passed is not None
    return ZeroMemoryVerdict(passed=passed, realization=expected, sweep=sweep, findings=findings)


def render(verdict: ZeroMemoryVerdict) -> str:
    """The verdict in the exact format `parse` reads (for documentation and tests)."""
    lines = [f"Verdict: {'Pass' if verdict.passed else 'Fail'}",
             f"Realization: {verdict.realization.value}", "", "Findings:", "",
             _row(FINDINGS_HEADER), _row(("---",) * len(FINDINGS_HEADER))]
    for finding in verdict.findings:
        lines.append(_row((f'"{finding.token}"', finding.location,
                           f"{finding.category} {CHECKLIST[finding.category]}", finding.why,
                           finding.advisory, finding.repair)))
    lines += ["", "Category sweep:", "", _row(SWEEP_HEADER), _row(("---",) * len(SWEEP_HEADER))]
    for row in sorted(verdict.sweep, key=lambda r: r.category):
        lines.append(_row((f"{row.category} {CHECKLIST[row.category]}", row.status, row.checked)))
    return "\n".join(lines) + "\n"


def _row(cells: tuple[str, ...]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|").replace("\n", " ") for cell in cells) + " |"


def _cells(line: str) -> list[str]:
    body = line[1:-1] if line.endswith("|") and len(line) > 1 else line[1:]
    cells, cell, escaped = [], [], False
    for char in body:
        if escaped:
            cell.append(char if char == "|" else "\\" + char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "|":
            cells.append("".join(cell).strip())
            cell = []
        else:
            cell.append(char)
    if escaped:
        cell.append("\\")
    cells.append("".join(cell).strip())
    return cells


def _verdict_line(values: list[str], reasons: list[str]) -> bool | None:
    if len(values) != 1:
        reasons.append("no 'Verdict:' line" if not values else
                       f"{len(values)} 'Verdict:' lines; exactly one is allowed")
        return None
    value = values[0].lower()
    if value not in ("pass", "fail"):
        reasons.append(f"the Verdict line says {values[0]!r}; it must be Pass or Fail")
        return None
    return value == "pass"


def _realization_line(values: list[str], expected: Realization, reasons: list[str]) -> None:
    if len(values) != 1:
        reasons.append("no 'Realization:' line" if not values else
                       f"{len(values)} 'Realization:' lines; exactly one is allowed")
    elif values[0] != expected.value:
        reasons.append(f"the Realization line says {values[0]!r}, but this refuter is configured "
                       f"as {expected.value!r}")


def _tables(tables: list[list[tuple[int, list[str]]]], reasons: list[str]
            ) -> tuple[list[tuple[int, list[str]]] | None, list[tuple[int, list[str]]] | None]:
    """(findings rows, sweep rows) without their header and separator; None when absent."""
    found: dict[str, list[tuple[int, list[str]]]] = {}
    for table in tables:
        header = [cell.lower() for cell in table[0][1]]
        kind = ("findings" if header and header[0].startswith("quoted") else
                "sweep" if header and header[0] == "category" else None)
        if kind is None:
            reasons.append(f"line {table[0][0]}: a table whose header is neither the findings "
                           f"header ({' | '.join(FINDINGS_HEADER)}) nor the sweep header "
                           f"({' | '.join(SWEEP_HEADER)})")
            continue
        if kind in found:
            reasons.append(f"line {table[0][0]}: a second {kind} table; exactly one is allowed")
            continue
        width = len(FINDINGS_HEADER if kind == "findings" else SWEEP_HEADER)
        if len(header) != width:
            reasons.append(f"line {table[0][0]}: the {kind} table has {len(header)} columns, "
                           f"not {width}")
            continue
        rows = table[1:]
        if rows and all(_SEPARATOR.match(cell.replace(" ", "")) for cell in rows[0][1]):
            rows = rows[1:]
        found[kind] = rows
    if "findings" not in found:
        reasons.append("no findings table (write its header even when it has no rows)")
    if "sweep" not in found:
        reasons.append("no category sweep table")
    return found.get("findings"), found.get("sweep")


def _category(cell: str, where: str, reasons: list[str]) -> int | None:
    match = _CATEGORY.match(cell)
    if not match:
        reasons.append(f"{where}: the Category cell {cell!r} does not start with a number 1 to 11")
        return None
    number = int(match.group(1))
    if number not in CHECKLIST:
        reasons.append(f"{where}: category {number} is not 1 to 11")
        return None
    return number


def _unquote(token: str) -> str:
    for opening, closing in _QUOTES:
        if len(token) >= 2 and token.startswith(opening) and token.endswith(closing):
            return token[len(opening):-len(closing)]
    return token


def _findings(rows: list[tuple[int, list[str]]], reasons: list[str]) -> tuple[RefuterFinding, ...]:
    findings = []
    for number, cells in rows:
        where = f"findings line {number}"
        if len(cells) != len(FINDINGS_HEADER):
            reasons.append(f"{where}: {len(cells)} cells, not {len(FINDINGS_HEADER)}")
            continue
        token, location, category_cell, why, advisory, repair = cells
        token = _unquote(token)
        category = _category(category_cell, where, reasons)
        tag = next((t for t in ADVISORY_TAGS if t.lower() == advisory.strip("*_ ").lower()), None)
        if tag is None:
            reasons.append(f"{where}: the advisory cell {advisory!r} is not exactly one of "
                           f"{', '.join(ADVISORY_TAGS)}")
        empty = [name for name, value in (("quoted token", token), ("location", location),
                                          ("why unresolvable", why), ("repair note", repair))
                 if not value.strip()]
        if empty:
            reasons.append(f"{where}: empty {', '.join(empty)}")
        if category is None or tag is None or empty:
            continue
        findings.append(RefuterFinding(token=token, location=location, category=category, why=why,
                                       advisory=tag, repair=repair))
    return tuple(findings)


def _sweep(rows: list[tuple[int, list[str]]], reasons: list[str]) -> tuple[SweepRow, ...]:
    sweep: dict[int, SweepRow] = {}
    for number, cells in rows:
        where = f"sweep line {number}"
        if len(cells) != len(SWEEP_HEADER):
            reasons.append(f"{where}: {len(cells)} cells, not {len(SWEEP_HEADER)}")
            continue
        category = _category(cells[0], where, reasons)
        status = cells[1].strip("*_` ").lower()
        status = _STATUS_ALIASES.get(status, status)
        checked = cells[2]
        if category is None:
            continue
        if category in sweep:
            reasons.append(f"{where}: category {category} is swept twice")
            continue
        if status not in SWEEP_STATUSES:
            reasons.append(f"{where}: status {cells[1]!r} is not one of "
                           f"{', '.join(SWEEP_STATUSES)}")
            continue
        if not checked.strip():
            reasons.append(f"{where}: category {category} says nothing about what was checked")
            continue
        sweep[category] = SweepRow(category=category, status=SweepStatus(status), checked=checked)
    missing = [str(number) for number in CHECKLIST if number not in sweep]
    if missing and not rows:
        reasons.append("the category sweep table has no rows; it needs all eleven categories")
    elif missing:
        reasons.append(f"the sweep lacks a valid row for category {', '.join(missing)}")
    return tuple(sweep[number] for number in sorted(sweep)) if not missing else ()


def _consistency(findings: tuple[RefuterFinding, ...], sweep: tuple[SweepRow, ...],
                 reasons: list[str]) -> None:
    """The sweep trace and the findings name the same categories (evidence-cited, Rule 9)."""
    status = {row.category: row.status for row in sweep}
    cited = {finding.category for finding in findings}
    for category in sorted(cited):
        if status[category] != SweepStatus.FINDING:
            reasons.append(f"category {category} has a finding but its sweep row says "
                           f"{str(status[category])!r}, not 'finding'")
    for category in sorted(number for number, value in status.items() if value == SweepStatus.FINDING):
        if category not in cited:
            reasons.append(f"the sweep row for category {category} says 'finding' but no "
                           "findings row cites it")
