"""Each rule's measured precision as a blocker on the labeled corpus, and the default severity it earns.

A rule that is wrong more than one time in ten should not block a commit on its own word:
a rule whose measured precision is below PRECISION_FOR_ERROR reports warnings by default
(scan shows them; certify and the hooks do not ask about them). `[detect] severity` can
still raise it to error for a repository where it earns that.

The precision is bench/quality.py's `blk_p` column: of the records the rule would block
at error (a finding no mechanical resolution repairs), the share labeled not portable, on
the four files of the portability corpus and the labeled files of bench/corpus (2,283
records), with --repos-root holding copies of the repositories there are, so tree-only
rules ran on their records. That is the figure a wrong block costs; the finding
level `prec` beside it also counts findings that miss every label in a record that is not
portable anyway. A rule that would block fewer than MIN_RECORDS records is too little
measured and keeps the default its module gives; so does a rule the corpus never fires.
The bench marks a rule whose figure here no longer matches its measurement; update this
table when a rule changes.
"""

from __future__ import annotations

from msgspec.structs import replace

from diylisis.core.model import Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from diylisis.core.detectors.rule import Rule

PRECISION_FOR_ERROR = 0.9
MIN_RECORDS = 5

# rule id -> (records it would block that are labeled not portable, records it would block)
MEASURED: dict[str, tuple[int, int]] = {
    "CT801": (63, 146),
    "DX101": (20, 20),
    "DX102": (4, 4),
    "DX104": (7, 8),
    "EP501": (47, 50),
    "EP502": (7, 10),
    "EP503": (6, 6),
    "EP504": (3, 3),
    "EP506": (10, 11),
    "EP507": (2, 3),
    "NP601": (83, 86),
    "NP602": (35, 35),
    "RD902": (1, 2),
    "RD903": (0, 1),
    "RF301": (13, 14),
    "RF302": (10, 26),
    "SI201": (42, 42),
    "SI202": (12, 12),
    "SI203": (10, 10),
    "SI204": (5, 7),
    "SI205": (12, 13),
    "SI206": (34, 36),
    "UC701": (171, 172),
    "UC702": (20, 21),
    "UC703": (20, 20),
}


def precision(rule_id: str) -> float | None:
    """The measured precision of a rule as a blocker (None: it blocks too few records to tell)."""
    counts = MEASURED.get(rule_id)
    return counts[0] / counts[1] if counts and counts[1] >= MIN_RECORDS else None


def earned_severity(rule_id: str, default: Severity) -> Severity:
    """Warning for a measured rule below PRECISION_FOR_ERROR; otherwise the rule's own default."""
    measured = precision(rule_id)
    if measured is not None and measured < PRECISION_FOR_ERROR and default is Severity.ERROR:
        return Severity.WARNING
    return default


def with_earned_severity(rules: tuple[Rule, ...]) -> tuple[Rule, ...]:
    """The rules with the default severity their measured precision earns."""
    out = []
    for rule in rules:
        level = earned_severity(rule.id, rule.severity)
        out.append(rule if level is rule.severity else replace(rule, severity=level))
    return tuple(out)
