"""Which of a record's blocking findings a certificate accounts for (verify, Rule 24).

A certificate is issued only at F6's fixed point, where every residue item F1 found has
been disposed: repaired away (then detection no longer finds it in the certified bytes),
kept or routed (a RouteJudgment names the item), or accepted as a gap at the gate (a Defer,
which F7 emits as a reception premise "accepted gap at line N: 'token' (...)"). So a
blocking finding in the certified bytes is accounted for exactly when the certificate holds
a judgment for its item or an accepted-gap premise for its token at its line; any other one
means the certificate was not made by a run over these bytes under these rules, whatever it
claims (docs/certificate.md, "What verify re-checks").

Item ids are the ones F1 gives (f1_deixis.scan): the token's slug, numbered from the second
finding of the same slug on, in the order of line, column and rule id.
"""

from __future__ import annotations

from collections.abc import Iterable

from diylisis.core.detectors import is_blocking
from diylisis.core.model import Certificate, Finding
from diylisis.core.phases.f1_deixis import slug


def item_ids(findings: Iterable[Finding]) -> list[tuple[Finding, str]]:
    """Each finding with the item id F1 gives it, in F1's order."""
    counts: dict[str, int] = {}
    named = []
    for finding in sorted(findings, key=lambda f: (f.line, f.column, f.rule_id)):
        base = slug(finding.token)
        counts[base] = counts.get(base, 0) + 1
        named.append((finding, base if counts[base] == 1 else f"{base}-{counts[base]}"))
    return named


def unaccounted(certificate: Certificate, findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """The blocking findings that the certificate neither judges nor accepts as a premise."""
    judged = {judgment.item for judgment in certificate.judgments}
    premises = certificate.reception.premises
    missing = []
    for finding, item_id in item_ids(findings):
        if not is_blocking(finding) or item_id in judged:
            continue
        accepted = f"accepted gap at line {finding.line}: {finding.token!r}"
        if any(premise.startswith(accepted) for premise in premises):
            continue
        missing.append(finding)
    return tuple(missing)


def failure(findings: tuple[Finding, ...]) -> str:
    """One verify failure naming each unaccounted finding."""
    named = "; ".join(f"line {f.line}: {f.rule_id} {f.category.value} {f.token!r}" for f in findings[:10])
    more = f"; and {len(findings) - 10} more" if len(findings) > 10 else ""
    return (f"unaccounted: the record has {len(findings)} blocking finding(s) this certificate does not "
            f"account for ({named}{more}); certify it again")
