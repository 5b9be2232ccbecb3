"""accounting: which blocking findings of a record a certificate accounts for."""

from __future__ import annotations

from msgspec.structs import replace

from diylisis.core import accounting
from diylisis.core.model import Category, Finding, InlineEvidence, RouteJudgment, Severity, Value
from tests.core.test_codec import _certificate


def _finding(token: str, line: int, column: int = 1, *, severity: Severity = Severity.ERROR,
             rule_id: str = "DX101") -> Finding:
    return Finding(rule_id=rule_id, category=Category.DEICTIC, token=token, line=line, column=column,
                   why="points at the session", fix="say what it refers to", severity=severity)


def _judged(*items: str):
    return tuple(RouteJudgment(item=item, verdict=Value(evidence=InlineEvidence(content=item)),
                               basis="gate resolve: the author's words") for item in items)


def test_item_ids_number_repeated_slugs_in_order_of_position() -> None:
    later, earlier, other = _finding("this session", 3), _finding("This Session", 1, 5), _finding("Task #4", 2)
    assert [item for _, item in accounting.item_ids([later, earlier, other])] == [
        "this-session", "task-4", "this-session-2"]


def test_a_finding_is_accounted_for_by_a_judgment_of_its_item_or_a_premise_at_its_line() -> None:
    first, second = _finding("this session", 1), _finding("this session", 4)
    certificate = replace(_certificate(), judgments=_judged("this-session"))
    assert accounting.unaccounted(certificate, [first, second]) == (second,)
    premise = "accepted gap at line 4: 'this session' (points at the session) [deferred until: asked]"
    accepted = replace(certificate, reception=replace(certificate.reception, premises=(premise,)))
    assert accounting.unaccounted(accepted, [first, second]) == ()
    # a premise for the token at another line accounts for nothing
    elsewhere = replace(accepted, judgments=())
    assert accounting.unaccounted(elsewhere, [first, second]) == (first,)


def test_warnings_need_no_account() -> None:
    warning = _finding("earlier", 2, severity=Severity.WARNING)
    assert accounting.unaccounted(replace(_certificate(), judgments=()), [warning]) == ()


def test_the_failure_names_each_finding() -> None:
    text = accounting.failure((_finding("this session", 1), _finding("Task #4", 3, 9, rule_id="SI203")))
    assert text.startswith("unaccounted: the record has 2 blocking finding(s)")
    assert "line 1: DX101 deictic 'this session'" in text and "line 3: SI203 deictic 'Task #4'" in text
