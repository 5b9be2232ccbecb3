"""Vet's text for people: the pre-gate block of a claim, the gate's question and instructions,
and the account at the end. Plain words; record text is passed through `visible` by the caller's
renderer (every line here goes through `lines_visible`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from diylisis.core.vet import judgment
from diylisis.core.vet.model import Antithesis, Audit, Pattern

PATTERN_WORDS: dict[Pattern, str] = {
    Pattern.PROVENANCE_AUDIT: "what supports it",
    Pattern.COUNTERFACTUAL_GAP: "if a condition changes",
    Pattern.CROSS_SOURCE_CONSISTENCY: "other sources disagree",
    Pattern.INFERENCE_FALLACY_AUDIT: "how it was concluded",
}
QUESTION = "Your verdict on this claim, in your own words:"


def _days(seconds: int) -> str:
    return f"{seconds // 86400} days"


def pregate_block(audit: Audit, antithesis: Antithesis) -> list[str]:
    """The claim and its place, what the action reads of it, its tags, the challenge and its basis."""
    tags = audit.tags
    freshness = tags.freshness
    lines = [
        f"[{audit.id}] {audit.source.path} line {audit.claim.line}",
        f"  claim: {audit.claim.text}",
        f"  the action reads it at: {', '.join(audit.stake.reads)}",
        f"  if it fails: {', '.join(audit.stake.if_it_fails) or 'nothing else cites it'}",
        f"  support: {tags.provenance.support}",
        f"  age: written {_days(freshness.age)} before the vetted commit"
        + (f"; changed since by {', '.join(c.commit[:7] for c in freshness.lag)}" if freshness.lag else ""),
        f"  cited by {tags.leverage.downstream_count} file(s)",
        f"  challenge {antithesis.index} ({PATTERN_WORDS[antithesis.pattern]}): {antithesis.antithesis}",
        "  facts:",
        *(f"    - {fact}" for fact in antithesis.evidence),
        "  shown by:",
        *(f"    $ {command}" for command in antithesis.basis),
    ]
    return lines


def instruction_lines() -> list[str]:
    """The instruction list, exactly, with each effect; at most one may be given, none is chosen for you."""
    return ["  then at most one instruction:",
            *(f"    {name}: {effect}" for name, effect in judgment.INSTRUCTIONS)]


def paused_lines(run_id: str, items: Sequence[tuple[Audit, Antithesis]]) -> list[str]:
    """What a paused run prints: each open claim, the reach note, and the commands that answer it."""
    lines = []
    for audit, antithesis in items:
        lines += [*pregate_block(audit, antithesis), ""]
    lines += [judgment.REACH_NOTE, QUESTION, *instruction_lines(), "", "answer each claim with:"]
    for audit, _antithesis in items:
        lines.append(f"  git distill answer {run_id} {audit.id} --verdict \"...\""
                     " [--withdraw | --revisit CONDITION | --handoff DEFICIT]")
    lines.append(f"then: git distill resume {run_id}")
    return lines


def account_lines(value: Mapping[str, object], messages: Sequence[str]) -> list[str]:
    """The account of a finished run: per claim, each challenge and the answer (or why it was not
    asked); then what was handed on, and the messages (what was not carried out)."""
    formed, trace, dispositions, claims = (value.get(k) for k in ("formed", "trace", "dispositions", "claims"))
    if not (isinstance(formed, list) and formed and isinstance(trace, dict) and isinstance(dispositions, dict)
            and isinstance(claims, dict)):
        return [*messages] or ["no source met the criteria"]
    lines = [f"vetted {len(formed)} claim(s) for: {value.get('action')}"]
    for audit_id in formed:
        claim = claims.get(audit_id, {})
        lines.append(f"[{audit_id}] {claim.get('source')}: {claim.get('text')}")
        for antithesis in trace.get(audit_id, []):
            lines.append(f"  challenge {antithesis['index']}: {antithesis['antithesis']}")
        entry = dispositions.get(audit_id)
        judged = entry.get("judged") if isinstance(entry, dict) else None
        if isinstance(judged, dict):
            instruction = judged.get("instruction")
            said = f"  your verdict: {judged['verdict']}"
            if isinstance(instruction, dict):
                said += f" ({instruction['kind']}" + (f": {instruction['text']})" if instruction["text"] else ")")
            lines.append(said)
        elif isinstance(entry, dict):
            lines.append(f"  not asked: {entry.get('basis')}")
    handoffs = value.get("handoffs")
    for handoff in handoffs if isinstance(handoffs, list) else []:
        lines.append(f"handed on: {handoff.get('audit')}: {handoff.get('hint') or handoff.get('deficit')}")
    lines += list(messages)
    return lines
