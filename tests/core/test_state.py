"""The run state's closed sets: an Item's kind is an enum whose values the run file stores."""

from __future__ import annotations

import json

import pytest

from diylisis.core import codec
from diylisis.core.model import Category
from diylisis.core.state import Item, ItemKind, ItemOrigin


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
