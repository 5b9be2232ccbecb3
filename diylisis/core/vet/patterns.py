"""posit (Phase 1 Step 2): one antithesis per audit by Patterns A-D, built from measured facts.

Each antithesis quotes at least one measured fact the thesis does not contain, and the command
that shows it; `validate` refuses one that does not, and any "have you checked" question.
Pattern B (counterfactual gap forecasting) is the user's: a condition Z from `--what-if Z`
replaces a current condition, and the challenge asks whether the claim still holds where the
action reads it. vet never invents Z; it posits B only for a claim Z names (a key, a code token
or a file the claim's facts name), and for any other claim the measured patterns stand.
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


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


def _names(audit: Audit) -> frozenset[str]:
    """What a condition may name to bear on the claim, lower-cased: the keys and sections of its
    code facts, the code tokens it names, and the files it and its facts name (path and stem)."""
    facts = audit.facts
    code = [*(c.fact for c in facts.contradictions), *(a.fact for a in facts.agreements)]
    paths = [*tagging.named_paths(facts.claim.text), *(fact.path for fact in code)]
    names = {fact.key for fact in code} | {fact.section for fact in code if fact.section}
    names |= set(tagging.named_tokens(facts.claim.text))
    names |= set(paths) | {path.rsplit("/", 1)[-1].split(".", 1)[0] for path in paths}
    return frozenset(name.lower() for name in names if len(name) >= 3)


def bears_on(audit: Audit, what_if: str) -> bool:
    """The condition names something the claim's facts name (not merely a common word)."""
    said = {word.lower() for word in _NAME.findall(what_if)} | {p.lower() for p in tagging.named_paths(what_if)}
    return bool(said & _names(audit))


def _counterfactual(audit: Audit, what_if: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    claim = audit.facts.claim
    code = [*(c.fact for c in audit.facts.contradictions), *(a.fact for a in audit.facts.agreements)]
    now = [f"{fact.path}:{fact.line} {fact.text.strip()}" for fact in code]
    where = list(audit.stake.reads) or [b.locator for b in audit.tags.leverage.branches]
    gap = ", ".join(where) or claim.source
    evidence = (f'condition given with --what-if: "{what_if}"', *(f"holds now: {line}" for line in now),
                *(f"the action reads the claim at {read}" for read in audit.stake.reads),
                _leverage_fact(audit.tags.leverage, audit.source.path))
    current = f" in place of {' and '.join(now)}" if now else ""
    text = (f'If {what_if}{current}, a gap opens at {gap}, which rests on {claim.source}:{claim.line}.'
            f" Does the claim still hold there, and for the {audit.tags.leverage.downstream_count} files that"
            f" cite {claim.source}?")
    at = audit.facts.measured_at[:12]
    basis = (*(f"git grep -n -w {fact.key} {at} -- {fact.path}" for fact in code), audit.tags.leverage.basis)
    return text, evidence, tuple(dict.fromkeys(basis))


def posit(audit: Audit, index: int = 1, what_if: str | None = None) -> Antithesis:
    """The antithesis: B when the user's condition WHAT_IF bears on the claim, else that of the
    strongest suspicion: C for a contradiction, D for an inference, A for lag or an unenforced value."""
    if what_if and bears_on(audit, what_if):
        pattern, (text, evidence, basis) = Pattern.COUNTERFACTUAL_GAP, _counterfactual(audit, what_if.strip())
    elif Suspicion.CONTRADICTION in audit.suspicions:
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
