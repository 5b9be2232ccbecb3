"""F1 deixis detectors: the rule registry and `detect` (DESIGN.md F1; STYLE.md, Detector rules).

Pure: no pygit2, click or rich. Lexicons are TOML data loaded on first use; a rule that
raises surfaces as RuleCrashed (fail closed), never as silence.
"""

from __future__ import annotations

import re

from msgspec import Struct
from msgspec.structs import replace

from diylisis.core.detectors import (
    claims,
    deixis,
    narration,
    places,
    prefilter,
    references,
    rendering,
    session,
    suppressions,
    terms,
)
from diylisis.core.detectors.evidence import with_earned_severity
from diylisis.core.detectors.lexicon import lexicon_for, pattern_literals
from diylisis.core.detectors.prefilter import Prefilter, fold
from diylisis.core.detectors.rule import Rule, check_registry
from diylisis.core.detectors.settings import DetectSettings
from diylisis.core.detectors.suppressions import ignored_lines
from diylisis.core.detectors.text import prepare
from diylisis.core.errors import RuleCrashed
from diylisis.core.model import Category, Finding, RecordKind, RepoContext, Severity, Snapshot

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from diylisis.core.lazy_pattern import LazyPattern

RULES: tuple[Rule, ...] = check_registry(
    with_earned_severity(
        deixis.RULES
        + session.RULES
        + references.RULES
        + places.RULES
        + narration.RULES
        + claims.RULES
        + rendering.RULES
        + terms.RULES
        + suppressions.RULES
    )
)
_REQUIRED_PATTERNS = tuple(
    sorted({need.pattern for rule in RULES for need in rule.requires if not isinstance(need, str)})
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
    "is_markdown_path",
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
    markdown = snapshot.target.kind is RecordKind.PRBODY or is_markdown_path(snapshot.path)
    return detect_text(text, context, settings, path=snapshot.path, record=str(snapshot.target), markdown=markdown)


def detect_text(
    text: str,
    context: RepoContext | None,
    settings: DetectSettings,
    *,
    path: str | None = None,
    record: str = "<text>",
    markdown: bool | None = None,
) -> tuple[tuple[Finding, ...], tuple[Finding, ...]]:
    """Run the registry over a text: (findings, suppressed) (for scan and the benchmark).

    markdown: read the text's blocks as Markdown (None: when path names a Markdown file)."""
    lexicon = lexicon_for(settings.languages)
    folded = fold(text)
    triggers = lexicon.triggers_in(folded)
    runs = _plan(settings, path).runs(triggers, folded, text)
    if not runs:
        return (), ()
    markdown = is_markdown_path(path) if markdown is None else markdown
    doc = prepare(text, lexicon, settings, context, path, folded=folded, triggers=triggers, markdown=markdown)
    found: list[Finding] = []
    has_tree = doc.has_tree
    for rule, level in runs:
        if rule.needs_tree and not has_tree:
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
    if not found:
        return (), ()
    ignores = ignored_lines(text)
    # suppressed before deduplication: a suppressed finding must not take another rule's
    # overlapping one (`ignore UC703` hiding UC701 on the same words) out with it
    kept_found: list[Finding] = []
    suppressed_found: list[Finding] = []
    for finding in found:
        (suppressed_found if _suppressed(finding, ignores) else kept_found).append(finding)
    kept, suppressed = tuple(_dedupe(kept_found)), tuple(_dedupe(suppressed_found))
    return kept, suppressed


class _Plan(Struct, frozen=True, kw_only=True):
    """The enabled rules for one (settings, path) with their levels, and which of them each requirement lets run."""

    rules: tuple[tuple[Rule, Severity], ...]
    always: int  # bit i: rules[i] has no requirements
    by_fragments: tuple[tuple[int, int], ...]  # (lexicon fragments as triggers_in() bits, rules requiring them)
    fragments: int  # every bit of by_fragments: a history's records share a few hundred patterns of them
    literals: Prefilter  # the literals of required patterns, each standing for the rules requiring it
    # (a required pattern without literals, rules requiring it): searched in the text itself, and
    # only while one of those rules is not let through yet
    by_search: tuple[tuple[re.Pattern[str] | LazyPattern, int], ...]

    def runs(self, triggers: int, folded: str, text: str) -> tuple[tuple[Rule, Severity], ...]:
        """The rules some requirement of which may match the text (folded: its fold();
        triggers: lexicon.triggers_in(folded))."""
        present = triggers & self.fragments
        bits = self.always
        for fragments, owners in self.by_fragments:
            if present & fragments:
                bits |= owners
        bits |= self.literals.present(folded)
        for pattern, owners in self.by_search:
            if owners & ~bits and pattern.search(text):
                bits |= owners
        runs = []
        while bits:  # the set bits only, lowest first: most records let a few of the rules run
            lowest = bits & -bits
            runs.append(self.rules[lowest.bit_length() - 1])
            bits ^= lowest
        return tuple(runs)


_PLANS: dict[tuple[DetectSettings, str | None], _Plan] = {}
_LAST_PLAN: list[tuple[DetectSettings, str | None, _Plan]] = []  # the settings object, path and plan last looked up


def _plan(settings: DetectSettings, path: str | None) -> _Plan:
    """The plan for a record at path (a scan asks once, not per record)."""
    if _LAST_PLAN and _LAST_PLAN[0][0] is settings and _LAST_PLAN[0][1] == path:
        return _LAST_PLAN[0][2]  # hashing the settings costs more than the rest of this lookup
    key = (settings, path)
    plan = _PLANS.get(key)
    if plan is None:
        disabled = settings.disabled_for(path)
        rules = tuple(
            (rule, settings.level_for(rule.id, rule.severity, path))
            for rule in RULES
            if rule.id not in disabled and (rule.applies is None or rule.applies(settings))
        )
        lexicon = lexicon_for(settings.languages)
        required = pattern_literals(_REQUIRED_PATTERNS)
        always = 0
        by_fragments: list[tuple[int, int]] = []
        every_fragment = 0
        by_literal: dict[str, int] = {}
        by_search: dict[re.Pattern[str] | LazyPattern, int] = {}
        for index, (rule, _) in enumerate(rules):
            bit = 1 << index
            if not rule.requires:
                always |= bit
                continue
            fragments = 0
            for need in rule.requires:
                if isinstance(need, str):
                    fragments |= lexicon.key_bits(need)
                    continue
                literals = required[need.pattern]
                if literals is None:
                    by_search[need] = by_search.get(need, 0) | bit
                for literal in sorted(literals or ()):
                    by_literal[literal] = by_literal.get(literal, 0) | bit
            if fragments:
                by_fragments.append((fragments, bit))
                every_fragment |= fragments
        plan = _Plan(
            rules=rules,
            always=always,
            by_fragments=tuple(by_fragments),
            fragments=every_fragment,
            literals=prefilter.prefilter(by_literal.items()),
            by_search=tuple(by_search.items()),
        )
        if len(_PLANS) > 256:
            _PLANS.clear()
        _PLANS[key] = plan
    _LAST_PLAN[:] = [(settings, path, plan)]
    return plan


def is_markdown_path(path: str | None) -> bool:
    """The path names a Markdown file (.md, .markdown, .mdx)."""
    return path is not None and path.lower().endswith((".md", ".markdown", ".mdx"))


def is_blocking(finding: Finding) -> bool:
    """The finding makes a record not portable: an error that no mechanical resolution repairs."""
    return finding.severity is Severity.ERROR and not (
        finding.category is Category.BARE_ISSUE_REF and finding.resolution is not None
    )


def _relevel(finding: Finding, rule: Rule, level: Severity) -> Finding:
    """The finding at its final level: a rule's findings default to the rule's (or config's) level;
    one a rule deliberately lowered (an ambiguous case) stays lower unless config re-levels the rule."""
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
    if finding.rule_id == suppressions.RULE_ID:
        return False  # a comment that suppresses nothing is reported even inside `distill: off`
    ids = ignores.get(finding.line)
    return ids is not None and (not ids or finding.rule_id in ids)
