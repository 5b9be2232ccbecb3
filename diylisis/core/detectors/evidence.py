"""Each rule's measured precision as a blocker on the labeled corpus, and the default severity it earns.

A rule that is wrong more than one time in ten should not block a commit on its own word:
a rule whose measured precision is below PRECISION_FOR_ERROR reports warnings by default
(scan shows them; certify and the hooks do not ask about them). `[detect] severity` can
still raise it to error for a repository where it earns that.

The precision is bench/quality.py's `blk_p` column: of the records the rule would block
at error (a finding no mechanical resolution repairs), the share labeled not portable, on
the four files of the portability corpus and the labeled files of bench/corpus (1,344
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
    "CT801": (25, 33),
    "DX101": (20, 20),
    "DX102": (4, 4),
    "DX104": (7, 8),
    "EP501": (28, 28),
    "EP502": (7, 8),
    "EP503": (4, 4),
    "EP504": (1, 1),
    "EP506": (9, 9),
    "EP507": (2, 2),
    "NP601": (68, 72),
    "NP602": (27, 27),
    "RD902": (1, 2),
    "RF301": (3, 4),
    "RF302": (3, 4),
    "SI201": (43, 43),
    "SI202": (12, 12),
    "SI203": (2, 2),
    "SI204": (5, 5),
    "SI205": (12, 12),
    "SI206": (29, 31),
    "UC701": (113, 113),
    "UC702": (15, 16),
    "UC703": (13, 13),
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
