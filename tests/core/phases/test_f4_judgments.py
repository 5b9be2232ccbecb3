"""F4 judgments (Rule 30): one RouteJudgment per kept or routed item, none for a dropped one,
and checklist 7's test that each judgment's basis supports its verdict."""

from __future__ import annotations

import pytest

from diylisis.core.model import InlineEvidence, Reference, RefKind, RouteJudgment, StableRef, Value
from diylisis.core.phases.f4_judgments import basis_supports, form
from diylisis.core.state import Disposition, DispositionKind, Item, ItemKind, ItemOrigin


def _item(item_id: str) -> Item:
    return Item(id=item_id, token=f"token-{item_id}", line=1, column=0, kind=ItemKind.SESSION_ID,
                origin=ItemOrigin.TARGET)


def test_form_gives_a_value_for_keep_a_reference_for_route_and_nothing_for_drop() -> None:
    items = (_item("k"), _item("r"), _item("d"), _item("blank"))
    dispositions = (
        Disposition(item_id="k", kind=DispositionKind.KEEP, value="the parser rejects empty names",
                    basis="observed: text"),
        Disposition(item_id="r", kind=DispositionKind.ROUTE, value="docs/cli.md", basis="observed: tracked"),
        Disposition(item_id="d", kind=DispositionKind.DROP, value=None, basis="Gate Drop by the author"),
        Disposition(item_id="blank", kind=DispositionKind.KEEP, value=None, basis="observed: text"),
        Disposition(item_id="gone", kind=DispositionKind.KEEP, value="x", basis="observed: text"),
    )
    judgments = form(items, dispositions)
    assert [judgment.item for judgment in judgments] == ["k", "r", "blank"]
    assert judgments[0].verdict == Value(evidence=InlineEvidence(content="the parser rejects empty names"))
    assert judgments[1].verdict == Reference(ref=StableRef(kind=RefKind.PATH, locator="docs/cli.md"))
    assert judgments[2].verdict == Value(evidence=InlineEvidence(content="token-blank"))  # the token stands in
    assert judgments[1].basis == "observed: tracked"


@pytest.mark.parametrize(("verdict", "basis", "supported"), [
    (Value(evidence=InlineEvidence(content="x")), "observed: the record's text", True),
    (Value(evidence=InlineEvidence(content="x")), "Gate Resolve by the author: x", True),
    (Value(evidence=InlineEvidence(content="x")), "Gate Route by the author", False),
    (Reference(ref=StableRef(kind=RefKind.PATH, locator="a.md")), "resolves_at(a.md) held at F1", True),
    (Reference(ref=StableRef(kind=RefKind.PATH, locator="a.md")), "Gate Route by the author", True),
    (Reference(ref=StableRef(kind=RefKind.URL, locator="https://example.org")), "mechanical resolution to it",
     True),
    (Reference(ref=StableRef(kind=RefKind.PATH, locator="a.md")), "the author said so", False),
])
def test_basis_supports_checks_the_basis_against_the_verdict(verdict: Value | Reference, basis: str,
                                                              supported: bool) -> None:
    assert basis_supports(RouteJudgment(item="i", verdict=verdict, basis=basis)) is supported
