"""codec: the JSON mapping of model values, and the errors a malformed certificate decodes to."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

import pytest
from msgspec import Struct, field

from diylisis.core import codec
from diylisis.core.model import (
    CERTIFICATE_SCHEMA,
    CHECKLIST,
    ActivationEdge,
    Certificate,
    EmittedDelta,
    InlineEvidence,
    Realization,
    ReceptionProcedure,
    RecordKind,
    Reference,
    RefKind,
    RouteJudgment,
    StableRef,
    SweepRow,
    Target,
    TargetIdentity,
    Value,
)
from diylisis.core.state import RunState


def _certificate(**changes: object) -> Certificate:
    values: dict[str, object] = {
        "target": Target(kind=RecordKind.FILE, locator="docs/TASK.md", revision="abc1234"),
        "identity": TargetIdentity(digest="sha256:" + "0" * 64, boundary="the file's bytes", revision="abc1234"),
        "role": "reviewer",
        "activity": "review the retry change",
        "activation_edge": ActivationEdge(verb="Read {locator} and execute it", locator="file:docs/TASK.md"),
        "judgments": (
            RouteJudgment(item="record", verdict=Value(evidence=InlineEvidence(content="Retry uploads")),
                          basis="observed: the record's own text"),
            RouteJudgment(item="src/upload.py", verdict=Reference(ref=StableRef(kind=RefKind.PATH,
                                                                                 locator="src/upload.py")),
                          basis="resolves_at held at the certified revision"),
        ),
        "outcome": "repaired",
        "deltas": (EmittedDelta(kind="resolution", location="3:5", added="https://example.com/i/12"),
                   EmittedDelta(kind="excision", location="4:1")),
        "reception": ReceptionProcedure(role="reviewer", granted_sources=("src/",), verification=("pytest",),
                                        scope=None, stop="when the tests pass",
                                        dereference_steps=("git show abc1234:src/upload.py",)),
        "realization": Realization.GENERIC_SUBAGENT,
        "sweep": tuple(SweepRow(category=n, status="clear", checked=f"category {n}") for n in sorted(CHECKLIST)),
        "issued_at": "2026-01-01T00:00:00Z",
        "tool_version": "0.1.0",
        "suppressions": ("L101 at 2:1",),
        "authority_copy": "docs/TASK.md",
    }
    values.update(changes)
    return Certificate(**values)  # type: ignore[arg-type]


def _note(**changes: object) -> dict:
    """A certificate as a note holds it: the JSON text read back, as verify reads it."""
    return json.loads(json.dumps(codec.certificate_to_dict(_certificate(**changes))))


def test_a_certificate_survives_the_json_round_trip() -> None:
    certificate = _certificate()
    data = _note()
    assert data["schema"] == CERTIFICATE_SCHEMA
    assert data["judgments"][0]["verdict"]["type"] == "value"
    assert data["judgments"][1]["verdict"]["type"] == "reference"
    decoded = codec.certificate_from_dict(data)
    assert decoded == certificate
    assert decoded.realization is Realization.GENERIC_SUBAGENT
    assert isinstance(decoded.sweep, tuple) and isinstance(decoded.reception.granted_sources, tuple)
    assert isinstance(decoded.judgments[1].verdict, Reference)
    assert decoded.deltas[1].added is None  # a default filled in for a key the note leaves out


def test_optional_fields_left_out_take_their_defaults_and_unknown_keys_are_ignored() -> None:
    data = _note(outcome="already-portable", deltas=())
    for name in ("suppressions", "consumer_profile", "authority_copy"):
        del data[name]
    data["added_by_a_later_version"] = {"anything": [1, 2]}
    decoded = codec.certificate_from_dict(data)
    assert decoded.suppressions == () and decoded.consumer_profile is None and decoded.authority_copy is None


def _drop(name: str) -> Callable[[dict], None]:
    return lambda data: data.pop(name)


def _set(path: str, value: object) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        *parents, last = path.split(".")
        for part in parents:
            data = data[int(part)] if isinstance(data, list) else data[part]
        if isinstance(data, list):
            data[int(last)] = value
        else:
            data[last] = value

    return change


MALFORMED = [
    (_set("schema", "diylisis.certificate/2"),
     "certificate schema 'diylisis.certificate/2' is not diylisis.certificate/1"),
    (_drop("issued_at"), "Certificate: Object missing required field `issued_at`"),
    (_set("identity", None), "Certificate.identity: Expected `object`, got `null`"),
    (_set("judgments", {"a": 1}), "Certificate.judgments: Expected `array`, got `object`"),
    (_set("judgments.0.basis", "  "), "Certificate.judgments[0]: judgment for 'record' has no basis (Rule 30)"),
    (_set("judgments.1.verdict.ref.locator", " "),
     "Certificate.judgments[1].verdict.ref: a StableRef needs a locator"),
    (_set("judgments.0.verdict", {"evidence": {"content": 3}}),
     "Certificate.judgments[0].verdict: Object missing required field `type`"),
    (_set("realization", "oracle"), "Certificate.realization: Invalid enum value 'oracle'"),
    (_set("target.kind", "tape"), "Certificate.target.kind: Invalid enum value 'tape'"),
    (_set("suppressions", ["a", 1]), "Certificate.suppressions[1]: Expected `str`, got `int`"),
    (_set("sweep.0.category", "1"), "Certificate.sweep[0].category: Expected `int`, got `str`"),
    (_set("sweep.0.category", True), "Certificate.sweep[0].category: Expected `int`, got `bool`"),
    (_set("sweep.0.category", 1.0), "Certificate.sweep[0].category: Expected `int`, got `float`"),
    (_set("sweep.0.category", 12), "Certificate.sweep[0]: sweep category 12 is not 1..11"),
    (_set("tool_version", 1.5), "Certificate.tool_version: Expected `str`, got `float`"),
    (_set("activity", 3), "Certificate.activity: Expected `str | null`, got `int`"),
    (_set("deltas", []), "Certificate: outcome is repaired exactly when deltas were emitted"),
    (_set("reception.granted_sources", "src/"),
     "Certificate.reception.granted_sources: Expected `array`, got `str`"),
    (_set("sweep.3", "row"), "Certificate.sweep[3]: Expected `object`, got `str`"),
    (lambda data: data["sweep"].pop(),
     "Certificate: a certificate needs one sweep row for each of the eleven categories"),
    (lambda data: data["sweep"].__setitem__(1, dict(data["sweep"][0])),
     "Certificate: a certificate needs one sweep row for each of the eleven categories"),
]


@pytest.mark.parametrize(("change", "message"), MALFORMED, ids=[m for _, m in MALFORMED])
def test_a_malformed_certificate_is_a_decode_error_naming_where(change: Callable[[dict], None],
                                                                message: str) -> None:
    data = _note()
    change(data)
    with pytest.raises(codec.DecodeError) as raised:
        codec.certificate_from_dict(data)
    assert str(raised.value) == message


def test_a_verdict_tag_picks_its_class_and_a_missing_or_unknown_tag_is_an_error() -> None:
    """Every certificate ever written tags its verdicts, so a note without the tag was altered."""
    data = _note()
    data["judgments"][1]["verdict"]["type"] = "value"  # tagged value, but shaped as a reference
    with pytest.raises(codec.DecodeError, match=r"^Certificate\.judgments\[1\]\.verdict: .*`evidence`$"):
        codec.certificate_from_dict(data)
    for tag, error in (("nonsense", "Invalid value 'nonsense'"), (["value"], "Expected `str`, got `list`")):
        data = _note()
        data["judgments"][1]["verdict"]["type"] = tag
        with pytest.raises(codec.DecodeError) as raised:
            codec.certificate_from_dict(data)
        assert str(raised.value) == f"Certificate.judgments[1].verdict.type: {error}"
    data["judgments"][1]["verdict"].pop("type")
    with pytest.raises(codec.DecodeError, match="missing required field `type`"):
        codec.certificate_from_dict(data)


class Reading(Struct, frozen=True, kw_only=True):
    """A test model with the field shapes certificates lack."""

    value: float
    count: int = 0
    pair: tuple[str, str] = ("", "")
    labels: dict[str, int] = field(default_factory=dict)


def test_models_built_through_their_init_and_the_remaining_shapes() -> None:
    decoded = codec.decode(Reading, {"value": 2, "pair": ["a", "b"], "labels": {"x": 1}})
    assert decoded == Reading(value=2.0, pair=("a", "b"), labels={"x": 1})
    assert type(decoded.value) is float
    assert codec.decode(Reading, {"value": 0.5}).labels == {}
    with pytest.raises(codec.DecodeError, match=r"^Reading\.value: Expected `float`, got `bool`$"):
        codec.decode(Reading, {"value": True})
    with pytest.raises(codec.DecodeError, match=r"^Reading\.labels\[\.\.\.\]: Expected `int`, got `str`$"):
        codec.decode(Reading, {"value": 1, "labels": {"x": "1"}})
    assert codec.decode(Reading, {"value": 1, "seen": []}) == Reading(value=1.0)  # an unknown key is ignored
    with pytest.raises(codec.DecodeError, match="of length 2, got 1"):  # a fixed-length array of the wrong length
        codec.decode(Reading, {"value": 1, "pair": ["a"]})


def test_run_state_round_trips() -> None:
    from diylisis.core.model import Contract

    run = RunState(run_id="r1", target=Target(kind=RecordKind.COMMIT, locator="HEAD"),
                   contract=Contract(role="reviewer"), utterances=("review it",), contract_provenance=(),
                   status="running", judgments=_certificate().judgments,
                   repaired_targets=(("#12", "3:5"),))
    assert codec.decode(RunState, json.loads(codec.dumps(run))) == run


def test_the_bytes_a_certificate_and_a_run_file_are_written_as_stay_fixed() -> None:
    """Signatures cover the canonical bytes and notes hold the compact line, so a change of model
    library or encoder must not change one byte; the digests are those of the encoder the models
    had before they became Structs. Field order shows in the unsorted, indented --format json."""
    certificate = _certificate()
    data = codec.certificate_to_dict(certificate)
    assert codec.dumps(certificate.judgments[1]) == (
        '{"basis":"resolves_at held at the certified revision","item":"src/upload.py",'
        '"verdict":{"ref":{"kind":"path","locator":"src/upload.py"},"type":"reference"}}')
    assert codec.dumps(certificate.deltas[1]) == '{"added":null,"kind":"excision","location":"4:1"}'
    digests = {
        "canonical": hashlib.sha256(codec.canonical_bytes(data)).hexdigest(),
        "note": hashlib.sha256(codec.dumps(certificate).encode()).hexdigest(),
        "indented": hashlib.sha256(json.dumps(data, ensure_ascii=False, indent=2).encode()).hexdigest(),
    }
    assert digests == {
        "canonical": "41904e7921ab537f289d817def1857b1770c04a574c995148b29d67918562ef8",
        "note": "a47bc2cd3ce7636f860145b402679aa803101e6c72341a2f391fbe7bae9e0b2e",
        "indented": "e412e654840530a965f355551b37cf912817c4d4b457ea32cab6f9c67084df38",
    }
    from diylisis.core.model import Contract

    run = RunState(run_id="r1", target=Target(kind=RecordKind.COMMIT, locator="HEAD"),
                   contract=Contract(role="reviewer"), utterances=("review it",), contract_provenance=(),
                   status="running", judgments=certificate.judgments, repaired_targets=(("#12", "3:5"),))
    # the run file's fields, not its encoder, changed since: stop_reason kept, Qp's two copies gone
    assert hashlib.sha256(codec.dumps(run).encode()).hexdigest() == (
        "84b48a6e83c07d76ca0f49ec5da383c6c5072665d281fa1e65826bc453c9e6a6")
