"""posit (Phase 1 Step 2): one antithesis per audit by Patterns A, C or D, built from measured facts.

Each antithesis quotes at least one measured fact the thesis does not contain, and the command
that shows it; `validate` refuses one that does not, and any "have you checked" question.
Pattern B needs a condition Z the user supplies (`--what-if`); vet never invents one.
"""

from __future__ import annotations

import re

from diylisis.core import tagging
from diylisis.core.vet.model import Antithesis, Audit, Pattern, Suspicion

_CHECK_QUESTION = re.compile(r"\bhave you (checked|verified)\b", re.I)


class InvalidAntithesis(ValueError):
    """An antithesis that quotes no measured fact, or asks whether something was checked."""


def _short(commit: str) -> str:
    return commit[:7]


def _leverage_fact(leverage: tagging.LeverageTag, source: str) -> str:
    branches = ", ".join(b.locator for b in leverage.branches)
    return f"{leverage.downstream_count} files cite {source}: {branches}"


def _lag_facts(freshness: tagging.FreshnessTag) -> list[str]:
    return [f'commit {_short(c.commit)} "{c.subject}" changed {c.token} in {c.path} after this line was'
            f" written (in {_short(freshness.written_by)})" for c in freshness.lag]


def _cross_source(audit: Audit) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    claim = audit.facts.claim
    sides = [f"{c.fact.path}:{c.fact.line} {c.fact.text.strip()}" for c in audit.facts.contradictions]
    said = audit.facts.contradictions[0].claim_value.written
    evidence = [f'{claim.source}:{claim.line} "{claim.text.strip()}"', *sides,
                _leverage_fact(audit.tags.leverage, audit.source.path), *_lag_facts(audit.tags.freshness)]
    text = (f"{claim.source}:{claim.line} says {said}, but " + " and ".join(sides)
            + f". {audit.tags.leverage.downstream_count} files rest on {claim.source}."
            + "".join(f" {_short(c.commit)} changed {c.token} after the line was written." for c in
                      audit.tags.freshness.lag)
            + " Which of them is authoritative for this value, and what reconciles the divergence?")
    at = audit.facts.measured_at[:12]
    basis = (*(f"git grep -n -w {c.fact.key} {at} -- {c.fact.path}" for c in audit.facts.contradictions),
             audit.tags.leverage.basis, *audit.tags.freshness.basis)
    return text, tuple(evidence), tuple(dict.fromkeys(basis))


def _provenance(audit: Audit) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    claim = audit.facts.claim
    keys = sorted({a.fact.key for a in audit.facts.agreements} | {c.token for c in audit.tags.freshness.lag})
    named = ", ".join(f"`{key}`" for key in keys) or "what it describes"
    evidence = [*(f"{a.fact.path}:{a.fact.line} {a.fact.text.strip()}" for a in audit.facts.agreements),
                f"no test or CI line names {named}" if not audit.facts.enforcement else
                "tested by " + ", ".join(f"{e.path}:{e.line}" for e in audit.facts.enforcement),
                _leverage_fact(audit.tags.leverage, audit.source.path), *_lag_facts(audit.tags.freshness)]
    if audit.tags.freshness.lag:
        text = (f"{claim.source}:{claim.line} was written before "
                + ", ".join(f"{_short(c.commit)} changed {c.token} in {c.path}" for c in audit.tags.freshness.lag)
                + f". Does it still describe the code {audit.tags.leverage.downstream_count} files rely on it for?")
    else:
        text = (f"No test or CI step names {named}. If it changed today, would {claim.source} break, or stay"
                f" silently wrong for the {audit.tags.leverage.downstream_count} files that cite it?")
    basis = (audit.facts.enforcement_basis, audit.tags.leverage.basis, *audit.tags.freshness.basis)
    return text, tuple(evidence), tuple(dict.fromkeys(basis))


def _inference(audit: Audit) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    claim = audit.facts.claim
    evidence = (_leverage_fact(audit.tags.leverage, audit.source.path),
                f"{claim.source}:{claim.line} was written in {_short(audit.tags.freshness.written_by)}"
                f" and has not changed since")
    text = (f"{claim.source}:{claim.line} states a standing rule. Does it rest on a result seen at one point in"
            f" time, or on one run, now read as always true? {audit.tags.leverage.downstream_count} files"
            " treat this record as a premise.")
    basis = (audit.tags.leverage.basis,
             f"git blame -L {claim.line},{claim.line} {audit.facts.measured_at[:12]} -- {claim.source}")
    return text, evidence, basis


def posit(audit: Audit, index: int = 1) -> Antithesis:
    """The antithesis of the audit's strongest suspicion: C for a contradiction, D for an
    inference, A for lag or an unenforced value."""
    if Suspicion.CONTRADICTION in audit.suspicions:
        pattern, (text, evidence, basis) = Pattern.CROSS_SOURCE_CONSISTENCY, _cross_source(audit)
    elif Suspicion.INFERENCE in audit.suspicions:
        pattern, (text, evidence, basis) = Pattern.INFERENCE_FALLACY_AUDIT, _inference(audit)
    else:
        pattern, (text, evidence, basis) = Pattern.PROVENANCE_AUDIT, _provenance(audit)
    antithesis = Antithesis(audit=audit.id, index=index, pattern=pattern, thesis=audit.claim.text,
                            antithesis=text, evidence=evidence, basis=basis)
    validate(antithesis)
    return antithesis


def validate(antithesis: Antithesis) -> None:
    """Refuse an antithesis that quotes no fact absent from its thesis, shows no command, or asks
    whether something was checked."""
    if _CHECK_QUESTION.search(antithesis.antithesis):
        raise InvalidAntithesis(f"{antithesis.audit}: an antithesis may not ask whether something was checked")
    if not any(fact not in antithesis.thesis and antithesis.thesis not in fact for fact in antithesis.evidence):
        raise InvalidAntithesis(f"{antithesis.audit}: the antithesis quotes no fact beyond its thesis")
    if not antithesis.basis:
        raise InvalidAntithesis(f"{antithesis.audit}: the antithesis names no command that shows its facts")
