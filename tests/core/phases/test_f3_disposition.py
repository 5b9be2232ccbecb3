"""F3 provenance and disposition (spec Phase 2): observed items are kept or routed, residue of
unknown provenance waits for the author at the gate, and each gate answer maps to one outcome."""

from __future__ import annotations

import pytest

from diylisis.core import tagging
from diylisis.core.gate import Answer
from diylisis.core.model import Contract
from diylisis.core.phases.f3_disposition import dispose, from_answer, relevant
from diylisis.core.state import (
    DispositionKind,
    Grounding,
    GroundingMark,
    Item,
    ItemKind,
    ItemOrigin,
    Provenance,
)

CONTRACT = Contract(role="implementer")


def _item(item_id: str, kind: str = "session-id", **fields: object) -> Item:
    return Item(id=item_id, token=f"token-{item_id}", line=1, column=0, kind=ItemKind(kind),
                origin=ItemOrigin.TARGET, **fields)


def _mark(item_id: str, grounding: Grounding, detail: str = "seen") -> GroundingMark:
    return GroundingMark(item_id=item_id, grounding=grounding, detail=detail)


def test_an_inline_item_is_kept_and_a_pointer_routed_to_its_locator() -> None:
    items = (_item("body", "content"), _item("ptr", "pointer", locator="docs/cli.md"))
    marks = (_mark("body", Grounding.INLINE, "the text"), _mark("ptr", Grounding.STABLE_POINTER, "tracked"))
    result = dispose(items, marks, (), CONTRACT)
    kept, routed = result.dispositions
    assert (kept.kind, kept.value, kept.basis) == (DispositionKind.KEEP, "token-body", "observed: the text")
    assert (routed.kind, routed.value) == (DispositionKind.ROUTE, "docs/cli.md")
    assert [mark.provenance for mark in result.provenance] == [Provenance.OBSERVED_KEEP] * 2
    assert result.gated == () and result.history == ()


def test_a_mechanical_resolution_routes_to_the_resolved_form() -> None:
    item = _item("issue", resolution="https://example.org/acme/tool/issues/12")
    result = dispose((item,), (_mark("issue", Grounding.STABLE_POINTER),), (), CONTRACT)
    assert result.dispositions[0].value == "https://example.org/acme/tool/issues/12"


def test_residue_without_an_answer_waits_at_the_gate() -> None:
    items = (_item("a"), _item("b"))
    marks = (_mark("a", Grounding.ROUTED_RESIDUAL), _mark("b", Grounding.ROUTED_RESIDUAL))
    result = dispose(items, marks, (Answer(item_id="b", option="confirm"),), CONTRACT)  # not a Qd option
    assert result.gated == ("a", "b")
    assert result.dispositions == ()
    assert [mark.provenance for mark in result.provenance] == [Provenance.UNKNOWN] * 2


def test_a_drop_answer_is_recorded_in_the_history_with_its_reason() -> None:
    item = _item("a")
    result = dispose((item,), (_mark("a", Grounding.ROUTED_RESIDUAL),),
                     (Answer(item_id="a", option="defer", value="the release is cut"),), CONTRACT)
    (disposition,) = result.dispositions
    assert disposition.kind is DispositionKind.DROP and disposition.by_gate
    (entry,) = result.history
    assert (entry.item_id, entry.token, entry.drop_reason) == ("a", "token-a", "Gate defer: the release is cut")


@pytest.mark.parametrize(("option", "kind", "value"), [
    ("resolve", DispositionKind.KEEP, "the parser rejects empty names"),
    ("route", DispositionKind.ROUTE, "docs/cli.md"),
    ("drop", DispositionKind.DROP, None),
    ("defer", DispositionKind.DROP, None),
])
def test_from_answer_maps_each_gate_option(option: str, kind: DispositionKind, value: str | None) -> None:
    answer = Answer(item_id="a", option=option, value="the parser rejects empty names" if option == "resolve"
                    else "docs/cli.md" if option == "route" else "later")
    disposition = from_answer(_item("a"), answer)
    assert (disposition.kind, disposition.value, disposition.by_gate) == (kind, value, True)


def test_from_answer_refuses_an_option_that_is_no_disposition() -> None:
    with pytest.raises(ValueError, match="not a disposition answer: confirm"):
        from_answer(_item("a"), Answer(item_id="a", option="confirm"))


def test_every_item_is_relevant_to_a_declared_role() -> None:
    assert relevant(_item("a"), CONTRACT) is True


def _support(value: float, written: str) -> tagging.SupportFacts:
    fact = tagging.CodeFact(path="src/cache.py", line=1, key="TIMEOUT", section=None, text=f"TIMEOUT = {written}",
                            value=tagging.quantity(written, None, "TIMEOUT"))
    assert fact.value.value == value
    return tagging.SupportFacts(revision="0" * 40, code=(fact,), enforcement=(), enforcement_basis="git grep")


POINTER_TEXT = "# Cache\n\nThe `TIMEOUT` in src/cache.py is 30 s.\nSee src/cache.py for the rest.\n"


def _pointer(item_id: str, line: int) -> Item:
    return Item(id=item_id, token="src/cache.py", line=line, column=0, kind="pointer", origin=ItemOrigin.TARGET,
                locator="src/cache.py")


def test_a_pointer_whose_source_contradicts_its_line_is_not_kept_as_observed() -> None:
    items = (_pointer("said", 3), _pointer("bare", 4))
    marks = (_mark("said", Grounding.STABLE_POINTER, "tracked"), _mark("bare", Grounding.STABLE_POINTER, "tracked"))
    result = dispose(items, marks, (), CONTRACT, text=POINTER_TEXT, path="docs/cache.md", facts=_support(60, "60"))
    said, bare = result.provenance
    assert said.provenance is Provenance.UNKNOWN and result.gated == ("said",)
    assert said.source == ("ProvisionalAssumption: docs/cache.md:3 says 30 s for TIMEOUT, "
                           "src/cache.py:1 holds `TIMEOUT = 60`")
    # a line that gives no value claims only the reference, which resolves_at observed
    assert bare.provenance is Provenance.OBSERVED_KEEP and [d.item_id for d in result.dispositions] == ["bare"]

    agreeing = dispose(items, marks, (), CONTRACT, text=POINTER_TEXT, path="docs/cache.md", facts=_support(30, "30"))
    assert [m.provenance for m in agreeing.provenance] == [Provenance.OBSERVED_KEEP] * 2
    assert agreeing.dispositions[0].basis.startswith("observed: DirectObserved: the value is seen at src/cache.py:1")


def test_a_contradicted_pointer_takes_only_a_deferral() -> None:
    items = (_pointer("said", 3),)
    marks = (_mark("said", Grounding.STABLE_POINTER, "tracked"),)
    routed = dispose(items, marks, (Answer(item_id="said", option="route", value="src/cache.py"),), CONTRACT,
                     text=POINTER_TEXT, path="docs/cache.md", facts=_support(60, "60"))
    assert routed.gated == ("said",)
    deferred = dispose(items, marks, (Answer(item_id="said", option="defer", value="until 60"),), CONTRACT,
                       text=POINTER_TEXT, path="docs/cache.md", facts=_support(60, "60"))
    assert deferred.gated == () and deferred.dispositions[0].kind is DispositionKind.DROP
