"""Rendering for people and for machines: the only module that imports rich.

Text goes to stdout; JSON is the same result objects through the codec.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from diylisis.core import codec
from diylisis.core.engine import Certified, Paused, Result, Stopped
from diylisis.core.model import Certificate, Reference
from diylisis.core.phases.f7_certify import rigor_words
from diylisis.core.safe_text import visible, visible_block, visible_json, visible_lines
from diylisis.core.state import DispositionKind, ItemKind, RunState, RunStatus

if TYPE_CHECKING:
    from rich.progress import ProgressColumn

    from diylisis.core.gate import Answer

T = TypeVar("T")

DROPPED = "(dropped; excised from the record)"


def _dropped_ids(state: RunState) -> set[str]:
    return {d.item_id for d in state.dispositions
            if d.kind is DispositionKind.DROP and "Defer" not in d.basis}


def evidence(state: RunState) -> dict[str, Any]:
    """Convergence evidence as data: substitution table, disposition trace, ledger, judgments.

    Dropped content never leaves the session: a dropped item shows as a content-free mark.
    """
    dropped = _dropped_ids(state)
    dispositions = {d.item_id: d for d in state.dispositions}
    return {
        "substitution_table": [
            {"item": row.item_id,
             "surface_token": DROPPED if row.item_id in dropped else row.surface_token,
             "canonical_ref": None if row.item_id in dropped else row.canonical_ref,
             "unresolved": row.unresolved}
            for row in state.subst_table],
        "disposition_trace": [
            {"item": item_id, "disposition": d.kind.value,
             "basis": "Gate Drop by the author" if item_id in dropped else d.basis}
            for item_id, d in dispositions.items()],
        "ledger": [codec.encode(entry) for entry in state.ledger if entry.item_id not in dropped],
        "judgments": [codec.encode(j) for j in state.judgments],
        "premises": [codec.encode(p) for p in state.premises],
        "passes": state.pass_n,
        "repair_commits": list(state.repair_commits),
    }


def result_json(result: Result) -> str:
    """`--format json` for certify and resume."""
    state = result.state
    if isinstance(result, Paused):
        payload: dict[str, Any] = {
            "run": state.run_id, "status": RunStatus.PAUSED,
            "items": [{"id": q.id, "gate": q.gate.value, "token": q.token, "reason": q.reason,
                       "options": list(q.options), "line": q.line} for q in state.open_questions]}
        if state.proposed_change is not None:
            payload["change"] = state.proposed_change
            payload["confirm"] = f"git distill resume {state.run_id} --yes"
    elif isinstance(result, Certified):
        payload = {"run": state.run_id, "status": RunStatus.CERTIFIED,
                   "certificate": codec.certificate_to_dict(result.certificate),
                   # who stated each contract field and who confirmed it (Rule 29): the run file
                   # that held it is removed once the run is certified
                   "contract_provenance": [codec.encode(mark) for mark in state.contract_provenance],
                   "evidence": evidence(state), "brief": result.brief}
    else:
        payload = {"run": state.run_id, "status": state.status, "reason": result.reason,
                   "evidence": evidence(state)}
    return visible_json(json.dumps(payload, ensure_ascii=False, indent=2))


def result_text(result: Result, verbose: bool = False) -> str:
    """Plain text for certify and resume: evidence first, then the reception procedure.

    Every line quotes the record, the contract or the refuter: each is escaped as one line.
    """
    state = result.state
    lines: list[str] = []
    if isinstance(result, Paused) and state.proposed_change is not None:
        lines.append(f"Paused run {state.run_id}: the repair below changes {state.target}; nothing is changed yet.")
        lines += state.proposed_change.splitlines()
        if state.open_questions:
            lines.append("Answer these too before you apply it:")
            for q in state.open_questions:
                lines.append(f"  {q.id}: {q.reason}")
                lines.append(f"    git distill answer {state.run_id} {q.id} {q.options[0]} VALUE")
        lines.append(f"To apply it: git distill resume {state.run_id} --yes")
        lines.append(f"To give it up: git distill runs abort {state.run_id}")
        return visible_lines(lines) + "\n"
    if isinstance(result, Paused):
        lines.append(f"Paused run {state.run_id}: {len(state.open_questions)} item(s) need your judgment.")
        for q in state.open_questions:
            where = f" line {q.line}" if q.line else ""
            lines.append(f"  {q.id} ({q.gate.value}){where}: {q.token!r}")
            lines.append(f"    {q.reason}")
            for option in q.options:
                value = "" if option in ("drop", "confirm") else " VALUE"
                lines.append(f"    git distill answer {state.run_id} {q.id} {option}{value}")
        lines.append(f"Then: git distill resume {state.run_id}")
        return visible_lines(lines) + "\n"
    if isinstance(result, Stopped):
        return visible(f"Stopped without a certificate (run {state.run_id}): {result.reason}") + "\n"
    data = evidence(state)
    certificate = result.certificate
    lines.append(f"Certified {certificate.target} for role {certificate.role}: {certificate.outcome}"
                 f" after {state.pass_n} pass(es).")
    lines += [f"Note: {c}." for c in certificate.coverage]
    if not verbose:
        lines += trace_lines(state)
        if state.repair_commits:
            lines.append("Repair commits: " + ", ".join(c[:12] for c in state.repair_commits))
        return visible_lines(lines) + "\n\n" + visible_block(result.brief)
    rows = [row for row in data["substitution_table"] if row["surface_token"] != row["canonical_ref"]]
    if rows:
        lines.append("Substitution table:")
        lines += [f"  {row['surface_token']} -> {row['canonical_ref'] or '(judged at the gate)'}" for row in rows]
    if data["disposition_trace"]:
        lines.append("Disposition trace:")
        lines += [f"  {row['item']}: {'DEFER' if 'Defer' in row['basis'] else row['disposition']} — {row['basis']}"
                  for row in data["disposition_trace"]]
    settled = {a.item_id for a in state.answers} | {d.item_id for d in state.dispositions}
    open_entries = [entry for entry in data["ledger"]
                    if not (entry["reason"] == "unresolved" and entry["item_id"] in settled)]
    if open_entries:
        lines.append("Surfaced ledger:")
        lines += [f"  {entry['item_id']}: {entry['reason']} — {entry['detail']}" for entry in open_entries]
    lines.append("Judgments:")
    lines += [f"  {line}" for line in judgment_lines(certificate)]
    if state.repair_commits:
        lines.append("Repair commits: " + ", ".join(c[:12] for c in state.repair_commits))
    return visible_lines(lines) + "\n\n" + visible_block(result.brief)


def trace_lines(state: RunState) -> list[str]:
    """What happened to each item, in plain words (the spec's terms are in --verbose and JSON).

    A dropped item is named by its id only: its text never leaves the session."""
    items = {item.id: item for item in state.items}
    answers = {a.item_id: a for a in state.answers}
    dropped = _dropped_ids(state)
    lines: list[str] = []
    observed: list[str] = []
    for d in state.dispositions:
        item = items.get(d.item_id)
        answer = answers.get(d.item_id)
        name = d.item_id if d.item_id in dropped or item is None else f"{d.item_id} ({item.token!r})"
        if answer is not None:
            lines.append(f"  {name}: {_answer_words(answer)}")
        elif item is not None and item.kind is ItemKind.POINTER and d.kind is DispositionKind.ROUTE:
            observed.append(item.token)
        elif item is not None and item.resolution and d.kind is not DispositionKind.DROP:
            if any(delta.item_id == d.item_id for delta in state.repair_deltas):
                lines.append(f"  {name}: rewritten to its stable form {item.resolution}")
            else:
                lines.append(f"  {name}: kept as written; the reader opens it as {item.resolution}")
    for decision in state.decisions:
        answer = answers.get(decision.id)
        if answer is not None and decision.id not in {d.item_id for d in state.dispositions}:
            lines.append(f"  {decision.id} (a decision on line {decision.line}): {_answer_words(answer)}")
    if observed:
        lines.append("  references that resolve in the repository: " + ", ".join(dict.fromkeys(observed)))
    return ["What happened to each item:", *lines] if lines else []


def _answer_words(answer: Answer) -> str:
    value = answer.value or ""
    return {"resolve": f"you said what it means: {value}",
            "route": f"you pointed it to {value}",
            "drop": "you dropped it; it was taken out of the record",
            "defer": f"accepted as a premise the reader is told about, until: {value}",
            "confirm": "you confirmed it",
            "correct": f"you corrected it: {value}",
            "value": f"you answered: {value}"}.get(answer.option, answer.option)


def judgment_lines(certificate: Certificate) -> list[str]:
    out = []
    for judgment in certificate.judgments:
        if isinstance(judgment.verdict, Reference):
            verdict = f"Reference {judgment.verdict.ref.kind.value}:{judgment.verdict.ref.locator}"
        else:
            verdict = f"Value {judgment.verdict.evidence.content!r}"
        out.append(f"{judgment.item}: {verdict} (basis: {judgment.basis})")
    return out


def certificate_text(certificate: Certificate) -> str:
    """One certificate for `git distill show`."""
    lines = [
        f"{certificate.target}  role={certificate.role}  outcome={certificate.outcome}",
        f"  identity: {certificate.identity.digest} ({certificate.identity.boundary})"
        + (f" at {certificate.identity.revision[:12]}" if certificate.identity.revision else ""),
        f"  issued: {certificate.issued_at} by diylisis {certificate.tool_version}",
        f"  rigor: {certificate.realization.value} — {rigor_words(certificate.realization.value)}",
    ]
    if certificate.activity:
        lines.append(f"  activity: {certificate.activity}")
    lines += [f"  judgment {line}" for line in judgment_lines(certificate)]
    lines += [f"  delta: {d.kind} at {d.location}" + (f": {d.added}" if d.added else "")
              for d in certificate.deltas]
    lines += [f"  premise: {p}" for p in certificate.reception.premises]
    lines += [f"  suppressed: {s}" for s in certificate.suppressions]
    lines += [f"  coverage: {c}" for c in certificate.coverage]
    return visible_lines(lines) + "\n"


def gate_evidence(console: Any, state: RunState) -> None:
    """Before the questions: substitution table, disposition trace and ledger entries as text.

    What the record says reaches rich as Text, never as markup: `[bold]` in a record is shown.
    """
    from rich.table import Table

    data = evidence(state)
    table = Table(title="Substitution table")
    for column in ("item", "surface token", "canonical reference"):
        table.add_column(column)
    for row in data["substitution_table"]:
        table.add_row(*(plain(cell) for cell in (row["item"], row["surface_token"],
                                                 row["canonical_ref"] or "unresolved")))
    console.print(table)
    for row in data["disposition_trace"]:
        console.print(plain(f"  {row['item']}: {row['disposition']} — {row['basis']}"))
    for entry in data["ledger"]:
        console.print(plain(f"  ledger {entry['item_id']}: {entry['reason']}"))


def plain(text: str, style: str = "") -> Any:
    """text as a rich Text: shown as written, control characters escaped, no markup read."""
    from rich.text import Text

    return Text(visible(text), style=style)


LONG_RANGE = 200  # records; below this a bar would only flicker


def progress(items: Iterable[T], label: str, total: int | None = None, *, show: bool = True) -> Iterator[T]:
    """Yield items under a progress display on stderr when it is a terminal, show is set (the
    callers pass False for json and sarif output) and the work is long.

    The display counts the records done (of the total when known), their rate per second and
    the time so far, and disappears after. With no known total it appears once LONG_RANGE
    records are done. When stdout is the same kind of terminal, what the caller prints while
    it runs is drawn above the display instead of through it.
    """
    import sys
    from itertools import islice

    if not show or not sys.stderr.isatty() or (total is not None and total < LONG_RANGE):
        yield from items
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    iterator = iter(items)
    done_before = 0
    if total is None:
        head = list(islice(iterator, LONG_RANGE))
        yield from head
        done_before = len(head)
        if done_before < LONG_RANGE:
            return  # a short range: no display at all
    counted = (TextColumn("{task.completed} of {task.total} records") if total is not None
               else TextColumn("{task.completed} records"))
    columns = [TextColumn("{task.description}"), *([BarColumn()] if total is not None else []), counted,
               _rate_column(), TimeElapsedColumn()]
    with Progress(*columns, console=Console(stderr=True), transient=True, redirect_stdout=_stdout_is_terminal(),
                  redirect_stderr=False) as bar:
        task = bar.add_task(label, total=total, completed=done_before)
        for item in iterator:
            bar.advance(task)
            yield item


def _stdout_is_terminal() -> bool:
    import sys

    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _rate_column() -> ProgressColumn:
    from rich.progress import ProgressColumn, Task
    from rich.text import Text

    class RateColumn(ProgressColumn):
        """Records per second, over rich's recent samples."""

        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text(f"{speed:,.0f}/s" if speed else "…/s")

    return RateColumn()
