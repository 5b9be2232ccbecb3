"""The Rule record and the registry checks run when the registry loads (STYLE.md, Detector rules)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from msgspec import Struct

from diylisis.core.model import Category, Finding, Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from diylisis.core.detectors.settings import DetectSettings
    from diylisis.core.detectors.text import Doc
    from diylisis.core.lazy_pattern import LazyPattern

# Family letters plus three digits; the prefix X is reserved for user rules (flake8 VALID_CODE_PREFIX).
RULE_ID = re.compile(r"^[A-Z]{1,3}[0-9]{3}$")
RULE_NAME = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
DOC_SECTIONS = ("What it flags", "Why a fresh reader fails", "Example", "Repair")

Detect = Callable[["Doc"], Iterable[Finding]]


class Rule(Struct, frozen=True, kw_only=True):
    """One detector rule: stable id, kebab name, residue category, languages, doc, default severity."""

    id: str
    name: str
    category: Category
    languages: tuple[str, ...]
    summary: str
    doc: str
    detect: Detect
    severity: Severity = Severity.ERROR
    lexicon_keys: tuple[str, ...] = ()
    needs_tree: bool = False  # runs only when the context can answer tracked()/mentions()
    # The rule finds nothing unless one of these may match the record: a lexicon key some of
    # whose fragments' literals occur, a lexicon.SHAPES name some token has, or a pattern whose
    # required literals occur (one without any is searched for in the text). Empty: the rule
    # always runs. detect() skips the rest unread.
    requires: tuple[str | re.Pattern[str] | LazyPattern, ...] = ()
    # None: the rule may find something under any settings; else only under those it accepts
    # (a rule that flags what a list in the settings names has nothing to do while it is empty)
    applies: Callable[[DetectSettings], bool] | None = None

    def __post_init__(self) -> None:
        problems = rule_problems(self, user=False)
        if problems:
            raise ValueError(f"rule {self.id}: " + "; ".join(problems))


def rule_problems(rule: Rule, *, user: bool) -> tuple[str, ...]:
    """Everything wrong with a rule's id, name and doc; empty when it is well-formed."""
    problems = []
    if not RULE_ID.match(rule.id):
        problems.append(f"id {rule.id!r} is not family letters plus three digits (like DX101)")
    elif rule.id.startswith("X") != user:
        problems.append("the X prefix is reserved for user rules" if not user else "user rule ids start with X")
    if not RULE_NAME.match(rule.name):
        problems.append(f"name {rule.name!r} is not kebab-case")
    if not rule.summary.strip() or "\n" in rule.summary:
        problems.append("summary must be one line")
    for section in DOC_SECTIONS:
        if f"{section}:" not in rule.doc:
            problems.append(f"doc lacks the section {section!r}")
    if not rule.languages:
        problems.append("no languages")
    return tuple(problems)


def check_registry(rules: tuple[Rule, ...]) -> tuple[Rule, ...]:
    """Fail at load when two rules share an id or a name (gitlint meta-check), or a rule requires a key read whole."""
    from diylisis.core.detectors.lexicon import READ_WHOLE

    seen_ids: set[str] = set()
    seen_names: set[str] = set()
    for rule in rules:
        if rule.id in seen_ids:
            raise ValueError(f"duplicate rule id {rule.id}")
        if rule.name in seen_names:
            raise ValueError(f"duplicate rule name {rule.name}")
        seen_ids.add(rule.id)
        seen_names.add(rule.name)
        unfiltered = READ_WHOLE.intersection(rule.requires)
        if unfiltered:  # the prefilter keeps no bits for such a key: the rule would never run
            raise ValueError(f"rule {rule.id} requires {sorted(unfiltered)[0]}, a lexicon key read whole")
    return rules
