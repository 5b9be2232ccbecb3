"""Repair deltas as pure text edits: resolutions add, excisions remove only dropped content."""

from __future__ import annotations

from diylisis.core.gate import Answer
from diylisis.core.phases import repair
from diylisis.core.state import DecisionRecord, Item, ItemKind, ItemOrigin

TEXT = "Implement the retry (Task #4) as above.\nWe decided to cap retries.\n"


def _item(token: str, kind: str, resolution: str | None = None) -> Item:
    line = 1 if token in TEXT.splitlines()[0] else 2
    column = TEXT.splitlines()[line - 1].index(token) + 1
    return Item(id=token.lower().replace(" ", "-").replace("#", ""), token=token, line=line,
                column=column, kind=ItemKind(kind), origin=ItemOrigin.TARGET, resolution=resolution)


def test_drop_excises_the_token_and_its_parentheses() -> None:
    item = _item("Task #4", "session-id")
    edits, conflicts = repair.plan(TEXT, (item,), (Answer(item_id=item.id, option="drop"),), (), frozenset())
    text, deltas = repair.apply(TEXT, edits, 1)
    assert conflicts == ()
    assert text.splitlines()[0] == "Implement the retry as above."
    assert deltas[0].kind == "excision" and deltas[0].added is None


def test_resolve_replaces_a_pointer_and_annotates_a_term() -> None:
    pointer = _item("as above", "deictic")
    answers = (Answer(item_id=pointer.id, option="resolve", value="as in docs/retries.md"),)
    text, _ = repair.apply(TEXT, repair.plan(TEXT, (pointer,), answers, (), frozenset())[0], 1)
    assert "as in docs/retries.md." in text and "as above" not in text
    term = _item("retry", "coined-term")
    answers = (Answer(item_id=term.id, option="resolve", value="a second upload attempt"),)
    text, _ = repair.apply(TEXT, repair.plan(TEXT, (term,), answers, (), frozenset())[0], 1)
    assert "retry (a second upload attempt)" in text


def test_mechanical_resolution_needs_no_answer_and_is_applied_once() -> None:
    text = "Fixes #12.\n"
    item = Item(id="12", token="#12", line=1, column=7, kind=ItemKind.BARE_ISSUE_REF, origin=ItemOrigin.TARGET,
                resolution="https://github.com/o/r/issues/12")
    edits, _ = repair.plan(text, (item,), (), (), frozenset())
    assert repair.apply(text, edits, 1)[0] == "Fixes https://github.com/o/r/issues/12.\n"
    assert repair.plan(text, (item,), (), (), frozenset({"12"}))[0] == ()


def test_decision_ledger_ref_is_added_beside_the_claim() -> None:
    decision = DecisionRecord(id="decision-1", claim="We decided to cap retries.", line=2)
    answers = (Answer(item_id="decision-1", option="resolve", value="src/upload.py"),)
    text, _ = repair.apply(TEXT, repair.plan(TEXT, (), answers, (decision,), frozenset())[0], 1)
    assert "We decided to cap retries (decision record: src/upload.py)." in text


def test_excision_that_cuts_into_kept_content_goes_back_to_the_gate() -> None:
    item = _item("Task #4", "session-id")
    start = TEXT.index("Task #4")
    _, conflicts = repair.plan(TEXT, (item,), (Answer(item_id=item.id, option="drop"),), (), frozenset(),
                               kept_spans=((start, start + 4),))
    assert conflicts == (item.id,)
