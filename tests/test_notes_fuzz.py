"""Property tests: the note codec round trip, the note decoder on arbitrary bytes, the certificate
decoder on arbitrary JSON, and the answers-file parser on arbitrary TOML-ish text.

Each property runs 2,000 examples from a fixed seed (derandomized), so CI sees the same cases
every run. bench/fuzz.py runs the same properties with many more examples and fresh seeds
(DISTILL_FUZZ_EXAMPLES sets the count; with it, the seed is random and hypothesis prints the
failing example).
"""

from __future__ import annotations

import json
import os
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diylisis.core import codec
from diylisis.core.errors import BadInput
from diylisis.core.gate import choice
from diylisis.core.model import (
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
    SweepStatus,
    Target,
    TargetIdentity,
    Value,
)
from diylisis.edges import answers_file, note_text, store
from diylisis.edges import certify_gate as gate

EXAMPLES = int(os.environ.get("DISTILL_FUZZ_EXAMPLES", "2000"))
FUZZ = settings(max_examples=EXAMPLES, derandomize="DISTILL_FUZZ_EXAMPLES" not in os.environ, deadline=None,
                database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
BLOB, REF = "0123456789abcdef" * 2 + "01234567", "refs/notes/distill"

# Every character a line splitter breaks on, JSON's own specials, and the low surrogates that
# undecodable bytes in a command-line argument become (surrogateescape). High surrogates are left
# out: JSON reads an escaped high-low pair as one character, so no JSON text holds the two apart.
SPECIAL = list("\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029\"\\/\x00\t\b") + ["\udc80", "\udcff", "\U0001f600", "\ufeff"]
CHARACTERS = st.one_of(st.characters(), st.sampled_from(SPECIAL))


def texts(min_size: int = 0) -> st.SearchStrategy[str]:
    return st.text(CHARACTERS, min_size=min_size, max_size=20)


def nonblank() -> st.SearchStrategy[str]:
    return texts(1).filter(lambda text: bool(text.strip()))


def optional(strategy: st.SearchStrategy[str]) -> st.SearchStrategy[str | None]:
    return st.none() | strategy


def several(strategy: st.SearchStrategy[str]) -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(strategy, max_size=3).map(tuple)


def weird_text(rng: random.Random, min_size: int = 0) -> str:
    """Text for one field: line breaks and JSON specials, ASCII, and any code point but a high surrogate."""
    characters = []
    for _ in range(rng.randint(min_size, 12)):
        pick = rng.random()
        if pick < 0.4:
            characters.append(rng.choice(SPECIAL))
        elif pick < 0.7:
            characters.append(chr(rng.randint(0x20, 0x7E)))
        else:
            code = rng.randint(0, 0x10FFFF)
            characters.append(chr(code if not 0xD800 <= code < 0xDC00 else code + 0x400))
    return "".join(characters)


def random_certificate(rng: random.Random) -> Certificate:
    """A certificate with arbitrary text in every string field (what the model allows). Built from one
    seeded random source per example: drawing each of its sixty strings through hypothesis costs
    a hundred times as much (as does hypothesis's own random source, one draw per call), and the
    properties need breadth more than shrinking."""
    def text() -> str:
        return weird_text(rng)

    def nonblank() -> str:
        while not (chosen := weird_text(rng, 1)).strip():
            pass
        return chosen

    def optional() -> str | None:
        return None if rng.random() < 0.3 else text()

    def several() -> tuple[str, ...]:
        return tuple(text() for _ in range(rng.randint(0, 3)))

    def verdict() -> Value | Reference:
        if rng.random() < 0.5:
            return Value(evidence=InlineEvidence(content=text()))
        return Reference(ref=StableRef(kind=rng.choice(list(RefKind)), locator=nonblank()))

    outcome = rng.choice(["already-portable", "repaired"])
    return Certificate(
        target=Target(kind=rng.choice(list(RecordKind)), locator=text(), revision=optional()),
        identity=TargetIdentity(digest=text(), boundary=text(), revision=optional()),
        role=nonblank(),
        activity=optional(),
        activation_edge=ActivationEdge(verb=text(), locator=text()),
        judgments=tuple(RouteJudgment(item=text(), verdict=verdict(), basis=nonblank())
                        for _ in range(rng.randint(0, 3))),
        outcome=outcome,
        deltas=tuple(EmittedDelta(kind=text(), location=text(), added=optional())
                     for _ in range(rng.randint(1, 2))) if outcome == "repaired" else (),
        reception=ReceptionProcedure(role=text(), granted_sources=several(), verification=several(),
                                     scope=optional(), stop=optional(), dereference_steps=several(),
                                     premises=several()),
        realization=rng.choice(list(Realization)),
        sweep=tuple(SweepRow(category=n, status=rng.choice(list(SweepStatus)), checked=nonblank())
                    for n in sorted(CHECKLIST)),
        issued_at=text(),
        tool_version=text(),
        suppressions=several(),
        consumer_profile=optional(),
        authority_copy=optional(),
    )


def certificates() -> st.SearchStrategy[Certificate]:
    return st.integers(0, 2 ** 64).map(lambda seed: random_certificate(random.Random(seed)))


@FUZZ
@given(st.lists(certificates(), min_size=1, max_size=3, unique_by=lambda certificate: certificate.role))
def test_every_certificate_survives_the_note_round_trip(written: list[Certificate]) -> None:
    lines = sorted((store.serialize(codec.certificate_to_dict(c)), c) for c in written)  # as a note is kept
    for line, _ in lines:
        assert line.splitlines() == [line]  # one line to every splitter
        assert line.encode("utf-8").splitlines() == [line.encode("utf-8")]
    note = ("\n".join(line for line, _ in lines) + "\n").encode("utf-8")
    read = note_text.decode_note(note, BLOB, REF)
    assert [line for line, _ in read] == [line for line, _ in lines]
    assert [codec.certificate_from_dict(data) for _, data in read] == [c for _, c in lines]


JSON_TEXT = st.lists(st.one_of(st.sampled_from(list('[]{}":,\\ 0123456789.-eE+truefalsnoi\n\r\t') + ['"role"']),
                               st.sampled_from(SPECIAL)), max_size=100).map("".join)
JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | texts(),
                           lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts(), inner, max_size=4),
                           max_leaves=20)


@st.composite
def note_like_bytes(draw: st.DrawFn) -> bytes:
    """Bytes that look more or less like a note: certificate lines, JSON values, nesting, edits."""
    kind = draw(st.sampled_from(["certificates", "values", "json-text", "nesting", "binary"]))
    if kind == "certificates":
        data = b"\n".join(store.serialize(codec.certificate_to_dict(c)).encode("utf-8")
                          for c in draw(st.lists(certificates(), max_size=2)))
    elif kind == "values":
        values = draw(st.lists(st.one_of(JSON_VALUES, st.dictionaries(texts(), JSON_VALUES, max_size=3).flatmap(
            lambda extra: st.just({**extra, "role": "reviewer"}))), max_size=3))
        ascii_only = draw(st.booleans())
        data = "\n".join(json.dumps(v, ensure_ascii=ascii_only) for v in values).encode("utf-8", "surrogatepass")
    elif kind == "json-text":
        data = draw(JSON_TEXT).encode("utf-8", "surrogatepass")
    elif kind == "nesting":
        depth = draw(st.integers(0, 3000))
        opener, closer = draw(st.sampled_from([("[", "]"), ("{\"a\":", "}"), ("[", "}"), ("[\"", "]")]))
        data = f'{{"role":"r","x":{opener * depth}1{closer * draw(st.integers(0, depth))}}}'.encode()
    else:
        data = draw(st.binary(max_size=300))
    for _ in range(draw(st.integers(0, 3))):  # a few byte edits
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(max_size=3)) + data[at + draw(st.integers(0, 3)):]
    return data


@FUZZ
@given(note_like_bytes())
def test_the_note_decoder_gives_certificate_objects_or_a_corrupt_note(content: bytes) -> None:
    try:
        read = note_text.decode_note(content, BLOB, REF)
    except note_text.CorruptNote as error:
        assert error.exit_code == 2 and "\n" not in error.message and BLOB in error.message
        return
    assert isinstance(read, list)
    for line, data in read:
        assert isinstance(line, str) and "\n" not in line
        assert isinstance(data, dict) and isinstance(data["role"], str)
        json.dumps(data, indent=2)  # what show --format json does with it


@st.composite
def mutated_certificates(draw: st.DrawFn) -> object:
    """A certificate's note object with one value somewhere in it replaced by an arbitrary one."""
    data = codec.certificate_to_dict(draw(certificates()))
    if draw(st.booleans()):
        return draw(JSON_VALUES)
    node: object = data
    for _ in range(draw(st.integers(0, 4))):
        if isinstance(node, dict) and node:
            key = draw(st.sampled_from(sorted(node)))
            if draw(st.booleans()) or not isinstance(node[key], dict | list):
                node[key] = draw(JSON_VALUES)
                break
            node = node[key]
        elif isinstance(node, list) and node:
            at = draw(st.integers(0, len(node) - 1))
            if draw(st.booleans()) or not isinstance(node[at], dict | list):
                node[at] = draw(JSON_VALUES)
                break
            node = node[at]
        else:
            break
    return data


@FUZZ
@given(mutated_certificates())
def test_the_certificate_decoder_gives_a_certificate_or_a_decode_error(data: object) -> None:
    if not isinstance(data, dict):
        return  # the note decoder lets only objects through
    try:
        certificate = codec.certificate_from_dict(data)
    except (codec.DecodeError, ValueError):  # what verify and show report as a corrupt certificate
        return
    assert isinstance(certificate, Certificate)


KEYS = st.one_of(st.sampled_from(["answers", "contract-stop", "ref-1", "a b", "a.b"]), texts(1))
OPTIONS = st.sampled_from([*gate.ANSWER_OPTIONS, "RESOLVE", "frobnicate", ""])
TOML_VALUES = st.recursive(
    st.one_of(texts(), OPTIONS, st.integers(-(2 ** 63), 2 ** 63 - 1), st.booleans(), st.floats(), st.datetimes(),
              st.dates(), st.times()),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3), max_leaves=8)
ENTRIES = st.one_of(OPTIONS, st.dictionaries(OPTIONS, texts() | TOML_VALUES, min_size=1, max_size=2), TOML_VALUES)


@st.composite
def answers_texts(draw: st.DrawFn) -> str:
    """The text of an answers file: TOML as tomli_w writes it (top level or in [answers]), or TOML-ish text."""
    import tomli_w

    kind = draw(st.sampled_from(["top-level", "answers-table", "answers-value", "text"]))
    if kind == "text":
        return "".join(draw(st.lists(st.one_of(st.sampled_from([*'[]{}="\'.,:#\n\\ -_ab1', "answers", "resolve"]),
                                               CHARACTERS), max_size=60)))
    table = draw(st.dictionaries(KEYS, ENTRIES, max_size=4))
    document = {"answers": table} if kind == "answers-table" else table
    if kind == "answers-value":
        document = {"answers": draw(TOML_VALUES)}
    try:
        return tomli_w.dumps(document)
    except (TypeError, ValueError):  # something TOML cannot hold: write it as text anyway
        return repr(document)


@FUZZ
@given(answers_texts())
def test_the_answers_parser_gives_answers_or_one_line_naming_the_file(text: str) -> None:
    try:
        answers = answers_file.parse(text, "answers.toml", gate.template_for)
    except BadInput as error:
        assert error.message.startswith("answers file answers.toml") and "\n" not in error.message
        return
    for answer in answers:
        assert isinstance(answer.item_id, str) and answer.option in gate.ANSWER_OPTIONS
        assert answer.value is None or (isinstance(answer.value, str) and answer.value.strip())


@FUZZ
@given(st.dictionaries(KEYS, st.one_of(st.sampled_from(["drop", "confirm"]),
                                       st.tuples(st.sampled_from(["resolve", "route", "defer", "value"]),
                                                 nonblank())), max_size=4), st.booleans())
def test_well_formed_answers_files_read_back_as_written(written: dict, in_a_table: bool) -> None:
    import tomli_w

    table = {key: entry if isinstance(entry, str) else {entry[0]: entry[1]} for key, entry in written.items()}
    if not in_a_table and "answers" in table:
        return  # a top-level item named answers is read as the table of answers
    answers = answers_file.parse(tomli_w.dumps({"answers": table} if in_a_table else table), "answers.toml",
                                 gate.template_for)
    expected = [choice(key, *((entry, None) if isinstance(entry, str) else entry))
                for key, entry in written.items()]
    assert sorted(answers, key=lambda a: a.item_id) == sorted(expected, key=lambda a: a.item_id)  # tomli_w writes
    # plain values before tables
