"""The preview's answers: the shared answers-file reader, the terminal's words, and the flow's answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from diylisis.app import preview_gate
from diylisis.core.errors import BadInput
from diylisis.core.preview import flow


def _file(tmp_path: Path, text: str) -> preview_gate.AnswersFile:
    path = tmp_path / "answers.toml"
    path.write_text(text, encoding="utf-8")
    return preview_gate.AnswersFile(path)


def test_each_gate_takes_its_answers_in_order(tmp_path: Path) -> None:
    answers = _file(tmp_path, 'spec = ["approve", { dissolve = "only one survives" }]\n'
                              'direction = { select = 2, deciding = ["failure"], ground = "caching" }\n')
    first, second = answers.take("qspec"), answers.take("qspec")
    assert first is not None and second is not None and answers.take("qspec") is None
    assert preview_gate.read("qspec", first) == flow.QspecAnswer(kind="approve")
    assert preview_gate.read("qspec", second) == flow.QspecAnswer(kind="dissolve", text="only one survives")
    direction = answers.take("qdir")
    assert direction is not None and preview_gate.read("qdir", direction) == flow.QdirAnswer(
        kind="select", probe=2, deciding=("failure",), ground="caching")
    assert answers.take("qmicro") is None


def test_the_terminal_words_read_as_the_file_does() -> None:
    assert preview_gate.read("qspec", preview_gate.typed("qspec", " adjust  axis cost: what does it cost? ")) == \
        flow.QspecAnswer(kind="adjust", text="axis cost: what does it cost?")
    assert preview_gate.read("qdir", preview_gate.typed("qdir", "select 3")) == flow.QdirAnswer(kind="select", probe=3)


@pytest.mark.parametrize(("text", "message"), [
    ('micro = "approve"\n', "'approve' for 'micro' is not one of confirm, materialize"),
    ('spec = "dissolve"\n', "needs a value"),
    ('direction = { select = 1, ground = ["a", "b"] }\n', "ground is one text"),
    ('spec = { approve = true, deciding = ["failure"] }\n', "must be an option or {option = value}"),
    ('verdict = "holds"\n', "'verdict' is not an item this run asks about"),
])
def test_an_answer_that_does_not_fit_its_gate_is_exit_2_before_any_probe(tmp_path: Path, text: str,
                                                                          message: str) -> None:
    with pytest.raises(BadInput) as raised:
        _file(tmp_path, text)
    assert message in raised.value.message and "\n" not in raised.value.message
