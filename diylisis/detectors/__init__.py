"""F1 deixis detectors: the rule registry and `detect` (DESIGN.md F1; STYLE.md, Detector rules).

Pure: no pygit2, click or rich. Lexicons are TOML data loaded on first use; a rule that
raises surfaces as RuleCrashed (fail closed), never as silence.
"""

from __future__ import annotations

from diylisis.detectors import (
    claims,
    deixis,
    narration,
    places,
    references,
    rendering,
    session,
    terms,
)
from diylisis.detectors.lexicon import lexicon_for
from diylisis.detectors.rule import Rule, check_registry
from diylisis.detectors.settings import DetectSettings
from diylisis.detectors.text import ignored_lines, prepare
from diylisis.errors import RuleCrashed
from diylisis.model import Category, Finding, RepoContext, Severity, Snapshot

RULES: tuple[Rule, ...] = check_registry(
    deixis.RULES
    + session.RULES
    + references.RULES
    + places.RULES
    + narration.RULES
    + claims.RULES
    + rendering.RULES
    + terms.RULES
)
_BY_KEY = {rule.id: rule for rule in RULES} | {rule.name: rule for rule in RULES}

__all__ = [
    "RULES",
    "DetectSettings",
    "Rule",
    "detect",
    "detect_text",
    "detect_with_suppressions",
    "is_blocking",
    "rule_by_key",
]


def rule_by_key(key: str) -> Rule | None:
    """The rule with this id or name (case-insensitive id), or None."""
    return _BY_KEY.get(key) or _BY_KEY.get(key.upper())


def detect(snapshot: Snapshot, context: RepoContext | None, settings: DetectSettings) -> tuple[Finding, ...]:
    """F1: every unsuppressed residue finding in a record, sorted by position."""
    return detect_with_suppressions(snapshot, context, settings)[0]


def detect_with_suppressions(
    snapshot: Snapshot, context: RepoContext | None, settings: DetectSettings
) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
    """F1: (findings, suppressed): suppressed ones matched an inline `distill: ignore` and must be recorded."""
    text = snapshot.data.decode("utf-8", errors="replace")
    return detect_text(text, context, settings, path=snapshot.path, record=str(snapshot.target))


def detect_text(
    text: str,
    context: RepoContext | None,
    settings: DetectSettings,
    *,
    path: str | None = None,
    record: str = "<text>",
) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
    """Run the registry over a text: (findings, suppressed) (for scan and the benchmark)."""
    doc = prepare(text, lexicon_for(settings.languages), settings, context, path)
    found: list[Finding] = []
    for rule, level in _plan(settings, path):
        if rule.needs_tree and not doc.has_tree:
            continue
        try:
            results = list(rule.detect(doc))
        except Exception as exc:  # fail closed: a crash names its rule (flake8 PluginExecutionFailed)
            raise RuleCrashed(rule.id, record, exc) from exc
        if not results:
            continue
        for finding in results:
            if rule.category is not Category.COINED_TERM and settings.accepts(finding.token):
                continue
            found.append(_relevel(finding, rule, level))
    found = _dedupe(found)
    ignores = ignored_lines(text)
    kept = tuple(f for f in found if not _suppressed(f, ignores))
    suppressed = tuple(f for f in found if _suppressed(f, ignores))
    return kept, suppressed


_PLANS: dict[tuple[DetectSettings, str | None], tuple[tuple[Rule, Severity], ...]] = {}


def _plan(settings: DetectSettings, path: str | None) -> tuple[tuple[Rule, Severity], ...]:
    """The enabled rules for a record at path with their configured levels (a scan asks once, not per record)."""
    key = (settings, path)
    plan = _PLANS.get(key)
    if plan is None:
        disabled = settings.disabled_for(path)
        plan = tuple(
            (rule, settings.level_for(rule.id, rule.severity, path)) for rule in RULES if rule.id not in disabled
        )
        if len(_PLANS) > 256:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def is_blocking(finding: Finding) -> bool:
    """The finding makes a record not portable: an error that no mechanical resolution repairs."""
    return finding.severity is Severity.ERROR and not (
        finding.category is Category.BARE_ISSUE_REF and finding.resolution is not None
    )


def _relevel(finding: Finding, rule: Rule, level: Severity) -> Finding:
    """The finding at its final level: a rule's findings default to the rule's (or config's) level;
    one a rule deliberately lowered (an ambiguous case) stays lower unless config re-levels the rule."""
    from dataclasses import replace

    if finding.severity is Severity.ERROR or level is not rule.severity:
        final = level
    else:
        final = finding.severity
    return finding if final is finding.severity else replace(finding, severity=final)


def _dedupe(findings: list[Finding]) -> list[Finding]:
    """One finding per overlapping span within a category (two rules seeing the same words)."""
    ordered = sorted(findings, key=lambda f: (f.line, f.column, -len(f.token), f.rule_id))
    out: list[Finding] = []
    for finding in ordered:
        if any(
            prior.category is finding.category
            and prior.line == finding.line
            and prior.column <= finding.column < prior.column + len(prior.token)
            for prior in out[-6:]
        ):
            continue
        out.append(finding)
    return out


def _suppressed(finding: Finding, ignores: dict[int, frozenset[str]]) -> bool:
    ids = ignores.get(finding.line)
    return ids is not None and (not ids or finding.rule_id in ids)
