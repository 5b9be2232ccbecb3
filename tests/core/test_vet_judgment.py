"""core/vet/judgment: an answer's JSON in the note and the run file, and a damaged one read back."""

from __future__ import annotations

import pytest

from diylisis.core.errors import BadInput
from diylisis.core.vet import judgment


@pytest.mark.parametrize("answer", [
    judgment.judged("a-1", 2, "the cache holds for a day"),
    judgment.judged("a-1", 1, "stale", withdraw=True),
    judgment.judged("a-1", 3, "holds while the flag is on", revisit="the flag is removed"),
])
def test_an_answer_survives_its_json_and_the_json_leaves_out_the_audit(answer: judgment.Judged) -> None:
    data = judgment.judged_json(answer)
    assert list(data) == ["antithesis", "verdict", "instruction"]
    if answer.instruction is not None:
        assert data["instruction"] == {"kind": answer.instruction.kind.value, "text": answer.instruction.text,
                                       "anchor": None}
    assert judgment.judged_from_json("a-1", data) == answer


@pytest.mark.parametrize("data", [
    {"antithesis": "2", "verdict": "holds", "instruction": None},
    {"antithesis": 2, "verdict": "  ", "instruction": None},  # a verdict is required
    {"antithesis": 2, "verdict": "holds", "instruction": {"kind": "forget"}},
    {"antithesis": 2, "verdict": "holds", "instruction": {"kind": "withdraw", "text": "why"}},
    {"verdict": "holds", "instruction": None},
])
def test_a_damaged_answer_is_one_line_of_bad_input(data: dict[str, object]) -> None:
    with pytest.raises(BadInput, match=r"^the saved answer for a-1 is damaged$"):
        judgment.judged_from_json("a-1", data)
