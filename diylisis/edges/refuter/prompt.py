"""The refuter prompt: the shipped instructions plus the F5 inputs rendered as labeled text.

Each input is printed under a heading that states what it may be used for, so a fresh
reader sees the scoping (utterance for category 10 only, premises for category 6 and
deduplication only) next to the data itself (spec F5, Phase 3 comprehension_gate).
"""

from __future__ import annotations

from importlib import resources

from diylisis.core.model import Realization, Reference, RouteJudgment, Value
from diylisis.core.phases.f7_certify import premise_text
from diylisis.core.refuter import RefuterInput

INSTRUCTIONS = "instructions.md"


def instructions(realization: Realization) -> str:
    """The refuter instructions shipped with the package, naming the expected realization."""
    text = resources.files("diylisis.core.refuter").joinpath(INSTRUCTIONS).read_text(encoding="utf-8")
    return text.replace("{realization}", realization.value)


def build(request: RefuterInput, realization: Realization) -> str:
    """The full prompt a command refuter receives on stdin (issue 6, item 2)."""
    return instructions(realization).rstrip("\n") + "\n\n" + render_input(request)


def render_input(request: RefuterInput) -> str:
    """RefuterInput as text, each part headed by its name and its allowed use."""
    contract = request.contract
    parts = [
        "# Inputs",
        _section("Target", "the record under certification",
                 [f"locator: {request.target}",
                  f"certified revision: {request.revision or '(none: no commit yet)'}"]),
        _target_text(request.text),
        _section("Judgments", "attack each basis (category 7); routed references for 4 and 6",
                 [_judgment(j) for j in request.judgments] or ["(none)"]),
        _section("Contract", "read the record for this recipient and activity",
                 [f"role: {contract.role}",
                  f"activity: {contract.activity or '(not declared)'}",
                  "allowed sources: " + (", ".join(contract.allowed_sources) or "(none granted)"),
                  f"scope: {contract.scope or '(not declared)'}",
                  "verification commands: " + ("; ".join(contract.verification) or "(none)"),
                  f"stop condition: {contract.stop or '(not declared)'}"]),
        _section("Activation edge", "category 8",
                 [f"verb: {_verb(request)}",
                  f"locator: {request.activation_edge.locator}"]),
        _section("Watchlist", "session terms to check for a definition (categories 1 to 3)",
                 list(request.watchlist) or ["(empty)"]),
        _section("Open items", "detector hints without a settled disposition; confirm or dismiss",
                 [f"line {i.line}: {i.token!r} ({i.kind}; category {i.checklist}) {i.why}".rstrip()
                  for i in request.open_items] or ["(none)"]),
        _section("Unresolved references", "category 4",
                 list(request.unresolved_references) or ["(none)"]),
        _section("Uncertified siblings", "category 6 (a record routed to that has no certificate)",
                 list(request.uncertified_siblings) or ["(none)"]),
        _section("Missing sources", "category 6 (granted sources that do not resolve)",
                 list(request.missing_sources) or ["(none)"]),
        _section("Constituting utterance", "CATEGORY 10 ONLY; the recipient never sees this",
                 [repr(u) for u in request.utterances] or ["(none given)"]),
        _section("Contract confirmation record", "CATEGORY 10 ONLY",
                 [f"{m.field}: {m.provenance}" + (f" (confirmed: {m.confirmed})" if m.confirmed else "")
                  for m in request.contract_provenance]
                 + [f"author's answer at the contract gate: {request.cp_answer or '(none)'}"]),
        _section("Reception premises", "CATEGORY 6 AND DEDUPLICATION ONLY: do not re-fail these",
                 [premise_text(p) for p in request.premises] or ["(none)"]),
    ]
    return "\n\n".join(parts) + "\n"


def _section(title: str, use: str, lines: list[str]) -> str:
    return f"## {title} (use: {use})\n\n" + "\n".join(f"- {line}" for line in lines)


def _target_text(text: str) -> str:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    width = len(str(len(lines)))
    body = "\n".join(f"{number:>{width}}| {line}" for number, line in enumerate(lines, 1))
    return ("## Target content (use: everything; line numbers are not part of the record)\n\n"
            f"----- BEGIN TARGET ({len(lines)} lines) -----\n{body}\n----- END TARGET -----")


def _judgment(judgment: RouteJudgment) -> str:
    match judgment.verdict:
        case Value(evidence=evidence):
            verdict = f"Value (kept inline): {evidence.content!r}"
        case Reference(ref=ref):
            verdict = f"Reference ({ref.kind.value}): {ref.locator}"
        case _:
            verdict = repr(judgment.verdict)
    return f"item {judgment.item!r}: {verdict}; basis: {judgment.basis}"




def _verb(request: RefuterInput) -> str:
    edge = request.activation_edge
    return edge.verb.replace("{locator}", edge.locator)
