"""The run state's closed sets: an Item's kind is an enum whose values the run file stores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diylisis.core import codec
from diylisis.core.model import Category
from diylisis.core.state import (
    DeltaKind,
    FieldMark,
    FieldProvenance,
    Item,
    ItemKind,
    ItemOrigin,
    LedgerEntry,
    LedgerReason,
    RepairDelta,
    RunState,
)


def test_every_residue_category_is_an_item_kind_and_only_those_are_residue() -> None:
    assert {kind.value for kind in ItemKind if kind.is_residue} == {category.value for category in Category} | {
        ItemKind.COMPREHENSION_GAP.value}
    assert not ItemKind.POINTER.is_residue and not ItemKind.CONTENT.is_residue


def test_a_stored_item_keeps_its_kind_as_the_string_and_reads_back_as_the_enum() -> None:
    item = Item(id="as-above", token="as above", line=2, column=1, kind=ItemKind.DEICTIC, origin=ItemOrigin.TARGET)
    stored = json.loads(codec.dumps(item))
    assert stored["kind"] == "deictic"
    read = codec.decode(Item, stored)
    assert read == item and read.kind is ItemKind.DEICTIC


def test_a_stored_kind_that_is_no_item_kind_does_not_read() -> None:
    stored = json.loads(codec.dumps(Item(id="x", token="x", line=1, column=1, kind=ItemKind.POINTER,
                                         origin=ItemOrigin.TARGET)))
    with pytest.raises(ValueError):
        codec.decode(Item, {**stored, "kind": "decision"})


def test_repair_ledger_and_field_words_are_enums_stored_as_the_words_run_files_hold() -> None:
    assert [kind.value for kind in DeltaKind] == ["resolution", "excision"]
    assert [p.value for p in FieldProvenance] == ["user_stated", "ai_authored"]
    assert [r.value for r in LedgerReason] == ["unresolved", "unknown-provenance", "comprehension-gap",
                                               "certification-leg", "exposure", "recurrence"]
    delta = RepairDelta(kind=DeltaKind.EXCISION, item_id="task-4", pass_n=1, line=1, before=" (Task #4)", after="")
    entry = LedgerEntry(item_id="exposure-notes-md", reason=LedgerReason.EXPOSURE, detail="notes.md")
    mark = FieldMark(field="activity", provenance=FieldProvenance.AI_AUTHORED)
    for value, word in ((delta, "excision"), (entry, "exposure"), (mark, "ai_authored")):
        stored = json.loads(codec.dumps(value))
        assert word in stored.values()
        read = codec.decode(type(value), stored)
        assert read == value
    assert codec.decode(RepairDelta, json.loads(codec.dumps(delta))).kind is DeltaKind.EXCISION
    with pytest.raises(ValueError):
        codec.decode(LedgerEntry, {**json.loads(codec.dumps(entry)), "reason": "forgotten"})


def test_the_saved_run_file_reads_its_ledger_reasons_as_enums() -> None:
    saved = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "runs"
                        / "certify-paused-at-a-repair.json").read_text())
    state = codec.decode(RunState, saved)
    assert state.ledger and all(type(entry.reason) is LedgerReason for entry in state.ledger)
    assert {entry.reason for entry in state.ledger} == {LedgerReason.UNRESOLVED}
