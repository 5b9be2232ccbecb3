"""One answers-file reader for every kind: each kind's keys and shapes, and one line naming the file."""

from __future__ import annotations

import pytest

from diylisis.core import gate
from diylisis.core.errors import BadInput
from diylisis.edges import answers_file

TEXT, NUMBER = gate.Takes.TEXT, gate.Takes.NUMBER
PREVIEW = {
    "spec": gate.Question(id="spec", kind="spec", subject="axes",
                          options=(gate.Option(name="approve"), gate.Option(name="adjust", takes=TEXT))),
    "direction": gate.Question(id="direction", kind="direction", subject="direction",
                               options=(gate.Option(name="select", takes=NUMBER),
                                        gate.Option(name="synthesize", takes=TEXT))),
    "micro": gate.Question(id="micro", kind="micro", subject="micro",
                           options=(gate.Option(name="confirm"), gate.Option(name="materialize"))),
}
CLAIM = gate.Question(id="claim", kind="claim", subject="a claim", verdict=True,
                      flags=(gate.Option(name="withdraw"), gate.Option(name="revisit", takes=TEXT)))


def _vet(key: str) -> gate.Question | None:
    return CLAIM if key.startswith("claim-") else None


def test_preview_keys_read_with_a_number() -> None:
    text = 'spec = "approve"\ndirection = { select = 2 }\nmicro = "confirm"\n'
    assert answers_file.parse(text, "p.toml", PREVIEW.get) == (
        gate.Answer(item_id="spec", option="approve"), gate.Answer(item_id="direction", option="select", value="2"),
        gate.Answer(item_id="micro", option="confirm"))


def test_vet_answers_keyed_by_claim_and_antithesis_index() -> None:
    text = ('[answers."claim-1"]\n1 = { verdict = "stale: code says 60", revisit = "changed:src/cache.py" }\n'
            '2 = { verdict = "holds", withdraw = true }\n')
    assert answers_file.parse(text, "v.toml", _vet) == (
        gate.Answer(item_id="claim-1.1", option="verdict", value="stale: code says 60", flag="revisit",
                    flag_value="changed:src/cache.py"),
        gate.Answer(item_id="claim-1.2", option="verdict", value="holds", flag="withdraw"))


@pytest.mark.parametrize(("text", "template_for", "message"), [
    ('nosuch = "approve"\n', PREVIEW.get, "'nosuch' is not an item this run asks about"),
    ('spec = "select"\n', PREVIEW.get, "'select' for 'spec' is not one of approve, adjust"),
    ('direction = { select = "x" }\n', PREVIEW.get, "needs a number, not 'x'"),
    ('direction = { select = 1.5 }\n', PREVIEW.get, "the 'select' answer of 'direction' must be a number"),
    ('"claim-1" = "withdraw"\n', _vet, "must be {verdict = \"your judgment\"}"),
    ('"claim-1" = { verdict = "x", withdraw = true, revisit = "ref:main" }\n', _vet, "takes at most one of"),
    ('"claim-1" = { verdict = "x", approve = true }\n', _vet, "'approve' for 'claim-1' is not one of withdraw"),
])
def test_a_key_the_kind_does_not_take_is_one_line_naming_the_file(text: str, template_for, message: str) -> None:
    with pytest.raises(BadInput) as raised:
        answers_file.parse(text, "a.toml", template_for)
    assert raised.value.message.startswith("answers file a.toml: ") and message in raised.value.message


def test_an_array_answers_a_key_in_order_and_a_choice_carries_its_details() -> None:
    direction = gate.Question(id="direction", kind="direction", subject="direction", details=("deciding",),
                              options=(gate.Option(name="select", takes=NUMBER), gate.Option(name="insufficient")))
    text = 'direction = ["insufficient", { select = 2, deciding = ["failure", "cost"] }]\n'
    template_for = lambda key: direction if key.startswith("direction") else None  # noqa: E731
    with pytest.raises(BadInput, match="must be an option or"):
        answers_file.parse(text, "p.toml", template_for)  # an array is answers in order only where the kind says so
    assert answers_file.parse(text, "p.toml", template_for, in_order=True) == (
        gate.Answer(item_id="direction.1", option="insufficient"),
        gate.Answer(item_id="direction.2", option="select", value="2", details=(("deciding", ("failure", "cost")),)))


@pytest.mark.parametrize(("text", "message"), [
    ('direction = { select = 2, deciding = 3 }\n', "'deciding' of 'direction' must be a string or an array"),
    ('direction = { select = 2, ground = "x" }\n', "must be an option or {option = value}"),
])
def test_a_detail_of_the_wrong_shape_or_name_is_one_line(text: str, message: str) -> None:
    direction = gate.Question(id="direction", kind="direction", subject="direction", details=("deciding",),
                              options=(gate.Option(name="select", takes=NUMBER),))
    with pytest.raises(BadInput) as raised:
        answers_file.parse(text, "a.toml", lambda key: direction)
    assert raised.value.message.startswith("answers file a.toml: ") and message in raised.value.message
