"""The built-in `lint-fallback` refuter: deterministic, always there, the weakest realization.

It sweeps all eleven checklist categories over the record's current state and records
what it checked for each, so a certificate can say exactly what stood behind its Pass.
"""

from __future__ import annotations

from diylisis.core.model import (
    CHECKLIST,
    Realization,
    Reference,
    RefuterFinding,
    SweepRow,
    SweepStatus,
    ZeroMemoryVerdict,
)
from diylisis.core.phases.f1_deixis import slug
from diylisis.core.phases.f4_judgments import basis_supports
from diylisis.core.refuter import RefuterInput
from diylisis.core.state import FieldProvenance

_ADVICE = {1: "Resolve", 2: "Resolve", 3: "Resolve", 4: "Route", 5: "Resolve", 7: "Resolve"}


def refute(request: RefuterInput) -> ZeroMemoryVerdict:
    """Sweep categories 1..11 in refute posture; Fail names every blocking item."""
    findings: list[RefuterFinding] = []
    rows: list[SweepRow] = []
    by_category: dict[int, list[str]] = {number: [] for number in CHECKLIST}
    for item in request.open_items:
        by_category.setdefault(item.checklist, []).append(item.id)
        findings.append(RefuterFinding(
            token=item.token, location=f"line {item.line}", category=item.checklist,
            why=item.why or f"{item.kind} a fresh reader cannot resolve",
            advisory=_ADVICE.get(item.checklist, "Resolve"), repair=item.fix or "resolve or drop it"))
    for number in (1, 2, 3, 5):
        rows.append(_row(number, by_category[number],
                         f"{len(request.watchlist)} watched session terms and every undisposed "
                         f"{CHECKLIST[number]} token in the current text"))

    for locator in request.unresolved_references:
        findings.append(RefuterFinding(token=locator, location="judgment", category=4,
                                       why="a Reference verdict's locator fails resolves_at",
                                       advisory="Route", repair="relocate to a tracked path or durable URL"))
    references = sum(1 for j in request.judgments if isinstance(j.verdict, Reference))
    rows.append(_row(4, by_category[4] + list(request.unresolved_references),
                     f"undisposed references in the text and resolves_at of {references} "
                     "Reference judgment(s) at the certified revision"))

    for source in request.missing_sources:
        findings.append(RefuterFinding(token=source, location="contract.allowed_sources", category=6,
                                       why="a granted source the receiver cannot open",
                                       advisory="Resolve", repair="grant a tracked path or durable URL"))
    rows.append(_row(6, list(request.missing_sources),
                     f"{len(request.contract.allowed_sources)} granted source(s) resolve; each of "
                     f"{references} Reference judgment(s) has a receiver-executable dereference step"))

    weak = [j.item for j in request.judgments if not basis_supports(j)]
    for judged in weak:
        findings.append(RefuterFinding(token=judged, location="judgment", category=7,
                                       why="the basis does not support the verdict it carries",
                                       advisory="Resolve", repair="cite the observation or gate answer"))
    rows.append(_row(7, by_category[7] + weak,
                     f"the basis of each of {len(request.judgments)} judgment(s) against its verdict, "
                     "and undisposed process narration and unverified claims"))

    edge_problem = _edge_problem(request)
    if edge_problem:
        findings.append(RefuterFinding(token=request.activation_edge.verb, location="activation edge",
                                       category=8, why=edge_problem, advisory="Resolve",
                                       repair="use a minimal verb and the certified target"))
    rows.append(_row(8, [edge_problem] if edge_problem else [],
                     f"verb {request.activation_edge.verb!r} is minimal and the locator names "
                     f"{request.activation_edge.locator}"))

    operative = _operative_problem(request)
    if operative:
        findings.append(RefuterFinding(token=request.contract.activity or "", location="contract.activity",
                                       category=9, why=operative, advisory="Resolve",
                                       repair="leave the method to the recipient"))
    rows.append(_row(9, [operative] if operative else [],
                     "whether a judgment-bearing activity prescribes its method without a verified artifact"))

    unconfirmed = [mark.field for mark in request.contract_provenance
                   if mark.provenance is FieldProvenance.AI_AUTHORED and not mark.confirmed]
    for field in unconfirmed:
        findings.append(RefuterFinding(token=field, location=f"contract.{field}", category=10,
                                       why="the field is not in the author's own words and was not confirmed",
                                       advisory="Resolve", repair="confirm or correct the field"))
    rows.append(_row(10, unconfirmed,
                     f"{len(request.contract_provenance)} tracked contract field(s) against "
                     f"{len(request.utterances)} utterance(s) and the F0 confirmation record"))

    for sibling in request.uncertified_siblings:
        findings.append(RefuterFinding(token=sibling, location="judgment", category=11,
                                       why="the record sends the reader to another record that holds no certificate",
                                       advisory="Route", repair="certify that record too, or inline what is needed"))
    rows.append(_row(11, list(request.uncertified_siblings),
                     "routed record files (task, design and plan files) for their own certificate"))
    premised = {_premised_slug(p.id) for p in request.premises}
    findings = [f for f in findings if slug(f.token) not in premised]  # not re-Failed (Rule 31)
    rows.sort(key=lambda row: row.category)
    return ZeroMemoryVerdict(passed=not findings, realization=Realization.LINT_FALLBACK,
                             sweep=tuple(rows), findings=tuple(findings))


def _premised_slug(premise_id: str) -> str:
    """The token slug a premise stands for: its id without the defer-/claim- and item-kind prefixes."""
    rest = premise_id.removeprefix("defer-").removeprefix("claim-")
    for prefix in ("refuter-", "recurrence-"):
        rest = rest.removeprefix(prefix)
    return rest


def _row(number: int, hits: list[str], checked: str) -> SweepRow:
    status = SweepStatus.FINDING if hits else SweepStatus.CLEAR
    detail = f"{checked}; found {len(hits)}" if hits else checked
    return SweepRow(category=number, status=status, checked=detail)


def _edge_problem(request: RefuterInput) -> str | None:
    edge = request.activation_edge
    if edge.locator != str(request.target):
        return f"the edge hands over {edge.locator}, not the certified {request.target}"
    if not edge.verb.strip():
        return "the activation verb is empty"
    return None


def _operative_problem(request: RefuterInput) -> str | None:
    from diylisis.core.phases.f0_contract import competence_substitution

    granted = set(request.contract.allowed_sources) - set(request.missing_sources)
    witness = competence_substitution(request.contract, lambda locator: locator in granted)
    if witness is not None:
        return f"a judgment-bearing activity: {witness}"
    return None
