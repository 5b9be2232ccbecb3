"""The one JSON mapping for model values: certificates, run state, json output.

Frozen models become objects with their field names; enums become their values;
tuples become arrays. Members of a sum type (`Verdict = Value | Reference`) carry a
`"type"` tag so they decode to the right class. Decoding is typed by the model's own
annotations, so a malformed document fails with a clear error instead of half-loading.
Encoding is msgspec's to_builtins; decoding is written here, so that an unknown tag falls
back to the shape and an error names the path to the bad value.
"""

from __future__ import annotations

import enum
import types
from functools import cache

import msgspec

from diylisis.core import model

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar

    T = TypeVar("T")
    Decoder = Callable[[Any, str], Any]

# classes that are members of a union: each carries its Struct tag in the "type" field
TAGGED: dict[str, type] = {str(cls.__struct_config__.tag): cls for cls in (model.Value, model.Reference)}


class DecodeError(ValueError):
    """A JSON document does not have the shape of the model type it should hold."""


def encode(value: Any) -> Any:
    """Model value -> JSON-ready data (a tuple stays a tuple, which json writes as an array).

    Bytes are left as they are, so dumps refuses them: no JSON document of ours holds raw bytes, and
    msgspec would otherwise write them as base64 text."""
    return msgspec.to_builtins(value, str_keys=True, builtin_types=(bytes,))


def decode(cls: type[T], data: Any) -> T:
    """JSON data -> a model value of `cls` (raises DecodeError on a shape mismatch)."""
    decoded: T = _decoder(cls)(data, cls.__name__)
    return decoded


def dumps(value: Any) -> str:
    """Compact, key-sorted JSON for notes and run files (one line)."""
    import json  # not at the top: the commit-msg hook serializes nothing through here

    return json.dumps(encode(value), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


# --- decoding ---------------------------------------------------------------------------------
# Each type gets one decoding function, built from its annotations the first time it is met:
# verify decodes tens of thousands of certificates, so nothing is looked up or dispatched per
# value that can be settled once per type. A decoder is called as decoder(data, where), where
# `where` is the path that error messages name (Certificate.sweep[].category).

_DECODERS: dict[Any, Decoder] = {}


@cache
def _hints(cls: type) -> dict[str, Any]:
    import typing

    return typing.get_type_hints(cls, vars(model) | _extra_namespace())


def _extra_namespace() -> dict[str, Any]:
    from diylisis.core import gate, state

    return vars(gate) | vars(state)  # RunState.answers hold the gate's Answer; state's Question wins


def _decoder(tp: Any) -> Decoder:
    """The decoding function of tp, built on first use."""
    try:
        return _DECODERS[tp]
    except KeyError:
        pass
    except TypeError:  # an unhashable annotation: build its decoder each time
        return _build(tp)
    decoder = _DECODERS[tp] = _build(tp)
    return decoder


def _build(tp: Any) -> Decoder:
    import typing

    origin = typing.get_origin(tp)
    if tp is typing.Any:
        return _any
    if origin in (typing.Union, types.UnionType):
        return _union_decoder(tp, typing.get_args(tp))
    if origin is tuple:
        args = typing.get_args(tp)
        if len(args) == 2 and args[1] is Ellipsis:
            return _array_decoder(args[0])
        return _fixed_tuple_decoder(args)
    if origin is dict:
        return _dict_decoder(typing.get_args(tp)[1])
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_decoder(tp)
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return _model_decoder(tp)  # registers itself before its fields' decoders are built
    return _value_decoder(tp)


def _any(data: Any, where: str) -> Any:
    return data


def _value_decoder(tp: Any) -> Decoder:
    """A scalar: the JSON value itself when it is a tp (an int where a float is expected becomes one)."""
    name = getattr(tp, "__name__", tp)

    def mismatch(data: Any, where: str) -> DecodeError:
        return DecodeError(f"{where}: expected {name}, got {type(data).__name__}")

    if tp is float:
        def decode_float(data: Any, where: str) -> Any:
            if isinstance(data, int | float) and not isinstance(data, bool):
                return float(data)
            raise mismatch(data, where)

        return decode_float
    if tp is int:
        def decode_int(data: Any, where: str) -> Any:
            if isinstance(data, int) and not isinstance(data, bool):
                return data
            raise mismatch(data, where)

        return decode_int
    if isinstance(tp, type):
        def decode_instance(data: Any, where: str) -> Any:
            if isinstance(data, tp):
                return data
            raise mismatch(data, where)

        return decode_instance

    def decode_nothing(data: Any, where: str) -> Any:  # an annotation no JSON value can meet
        raise mismatch(data, where)

    return decode_nothing


def _enum_decoder(tp: type[enum.Enum]) -> Decoder:
    def decode_enum(data: Any, where: str) -> Any:
        try:
            return tp(data)
        except ValueError:
            raise DecodeError(f"{where}: {data!r} is not a {tp.__name__}") from None

    return decode_enum


def _union_decoder(tp: Any, options: tuple[Any, ...]) -> Decoder:
    """`A | B | None`: None when allowed; a tagged object as its tag's class; else the first
    option (in declared order) the data decodes as."""
    nullable = type(None) in options
    tagged = {tag: _decoder(cls) for tag, cls in TAGGED.items() if cls in options}
    tried = tuple(_decoder(option) for option in options if option is not type(None))

    def decode_union(data: Any, where: str) -> Any:
        if data is None and nullable:
            return None
        if tagged and isinstance(data, dict) and "type" in data:
            tag = data["type"]
            # an unhashable tag is no tag: try the options, as for an unknown one
            decoder = tagged.get(tag) if isinstance(tag, str) else None
            if decoder is not None:
                return decoder(data, where)
        for decoder in tried:
            try:
                return decoder(data, where)
            except DecodeError:
                continue
        raise DecodeError(f"{where}: {data!r} matches none of {tp}")

    return decode_union


def _array_decoder(item_type: Any) -> Decoder:
    """`tuple[T, ...]` from a JSON array."""
    decode_item = _decoder(item_type)
    plain = _plain_types(item_type)

    def decode_array(data: Any, where: str) -> Any:
        if not isinstance(data, list):
            raise DecodeError(f"{where}: expected an array")
        if plain:
            for item in data:
                if type(item) not in plain:
                    break
            else:
                return tuple(data)  # every item is what decode_item would return unchanged
        item_where = where + "[]"
        return tuple([decode_item(item, item_where) for item in data])

    return decode_array


def _fixed_tuple_decoder(args: tuple[Any, ...]) -> Decoder:
    """`tuple[A, B]` from a JSON array of exactly that many items (a length mismatch is a ValueError)."""
    decoders = tuple(_decoder(arg) for arg in args)

    def decode_fixed(data: Any, where: str) -> Any:
        if not isinstance(data, list):
            raise DecodeError(f"{where}: expected an array")
        item_where = where + "[]"
        return tuple(decode(item, item_where) for decode, item in zip(decoders, data, strict=True))

    return decode_fixed


def _dict_decoder(value_type: Any) -> Decoder:
    decode_value = _decoder(value_type)

    def decode_dict(data: Any, where: str) -> Any:
        if not isinstance(data, dict):
            raise DecodeError(f"{where}: expected an object")
        return {key: decode_value(item, where) for key, item in data.items()}

    return decode_dict


def _model_decoder(tp: type[msgspec.Struct]) -> Decoder:
    """A frozen model from a JSON object: each field decoded by its annotation, then the class
    itself validates (its __post_init__); unknown keys are ignored, a missing required field is
    an error. The plan is filled in after the decoder is registered, so a model whose fields
    refer back to it finds its own decoder instead of recursing."""
    plan: list[tuple[str, str, Decoder, bool, tuple[type, ...]]] = []  # name, ".name", decoder, required, plain
    name = tp.__name__

    def decoder(data: Any, where: str) -> Any:
        if not isinstance(data, dict):
            raise DecodeError(f"{where}: expected an object for {name}")
        kwargs = {}
        for field_name, suffix, decode_field, required, plain in plan:
            if field_name in data:
                value = data[field_name]
                kwargs[field_name] = value if type(value) in plain else decode_field(value, where + suffix)
            elif required:
                raise DecodeError(f"{where}: missing field {field_name!r}")
        try:
            return tp(**kwargs)
        except (TypeError, ValueError) as error:
            raise DecodeError(f"{where}: {error}") from None

    _DECODERS[tp] = decoder
    try:
        hints = _hints(tp)
        names = tp.__struct_fields__
        defaults = tp.__struct_defaults__  # the last len(defaults) fields'; NODEFAULT for a required one
        required = (True,) * (len(names) - len(defaults)) + tuple(d is msgspec.NODEFAULT for d in defaults)
        plan.extend((name, "." + name, _decoder(hints[name]), needed, _plain_types(hints[name]))
                    for name, needed in zip(names, required, strict=True))
    except BaseException:
        del _DECODERS[tp]
        raise
    return decoder


_PLAIN = (str, int, bool, float)


def _plain_types(tp: Any) -> tuple[type, ...]:
    """Exact JSON value types that tp's decoder returns as they are, so a caller may skip it: a
    plain scalar class (str, int, bool, float), and for `T | None` also None, when T is the
    first option tried."""
    import typing

    if tp in _PLAIN:
        return (tp,)
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        options = typing.get_args(tp)
        plain: list[type] = [type(None)] if type(None) in options else []
        first = next((option for option in options if option is not type(None)), None)
        if first in _PLAIN:
            plain.append(first)
        return tuple(plain)
    return ()

def certificate_to_dict(certificate: model.Certificate) -> dict[str, Any]:
    """Certificate -> the versioned JSON object stored in the note (docs/certificate.md)."""
    return {"schema": model.CERTIFICATE_SCHEMA, **encode(certificate)}


def certificate_from_dict(data: dict[str, Any]) -> model.Certificate:
    """A note's JSON object -> Certificate; an unknown schema version is a DecodeError."""
    schema = data.get("schema")
    if schema != model.CERTIFICATE_SCHEMA:
        raise DecodeError(f"certificate schema {schema!r} is not {model.CERTIFICATE_SCHEMA}")
    body = {key: value for key, value in data.items() if key != "schema"}
    return decode(model.Certificate, body)


SIGNATURE_FIELD = "signature"  # a note's signature envelope: beside the certificate, not part of it


def canonical_bytes(data: dict[str, Any]) -> bytes:
    """The certificate's canonical bytes, which a signature covers (docs/certificate.md): its JSON
    object without the signature field, keys sorted, no whitespace, every non-ASCII character
    escaped. They do not depend on how a note spells the same values, so any reader that parses
    the note's JSON computes the same bytes."""
    import json

    body = {key: value for key, value in data.items() if key != SIGNATURE_FIELD}
    return json.dumps(body, sort_keys=True, ensure_ascii=True, separators=(",", ":"),
                      allow_nan=False).encode("ascii")
