"""The one JSON mapping for model values: certificates, run state, json output.

Frozen models become objects with their field names; enums become their values;
tuples become arrays. Members of a sum type (`Verdict = Value | Reference`) carry a
`"type"` tag so they decode to the right class. Decoding is typed by the model's own
annotations, so a malformed document fails with a clear error instead of half-loading.
Only decoding imports typing (to read those annotations); encoding, which the commit-msg
hook does, does not.
"""

from __future__ import annotations

import enum
import json
import types
from functools import cache

from diylisis import model
from diylisis.frozen import MISSING, fields, is_model

TYPE_CHECKING = False  # true for type checkers only: the hook never imports typing
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

# classes that are members of a union and therefore need a tag when encoded
TAGGED: dict[str, type] = {"value": model.Value, "reference": model.Reference}
_TAG_OF = {cls: tag for tag, cls in TAGGED.items()}


class DecodeError(ValueError):
    """A JSON document does not have the shape of the model type it should hold."""


def encode(value: Any) -> Any:
    """Model value -> JSON-ready data."""
    if is_model(value) and not isinstance(value, type):
        data = {f.name: encode(getattr(value, f.name)) for f in fields(value)}
        tag = _TAG_OF.get(type(value))
        return {"type": tag, **data} if tag else data
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list | frozenset):
        return [encode(item) for item in value]
    if isinstance(value, dict):
        return {str(key): encode(item) for key, item in value.items()}
    if isinstance(value, bytes):
        raise TypeError("bytes are not part of any JSON document")
    return value


def decode(cls: type[T], data: Any) -> T:
    """JSON data -> a model value of `cls` (raises DecodeError on a shape mismatch)."""
    decoded: T = _decode(cls, data, cls.__name__)
    return decoded


def dumps(value: Any) -> str:
    """Compact, key-sorted JSON for notes and run files (one line)."""
    return json.dumps(encode(value), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


@cache
def _hints(cls: type) -> dict[str, Any]:
    import typing

    return typing.get_type_hints(cls, vars(model) | _extra_namespace())


def _extra_namespace() -> dict[str, Any]:
    from diylisis import state

    return dict(vars(state))


def _decode(tp: Any, data: Any, where: str) -> Any:
    return _decode_as(tp, _kind_of(tp), data, where)


def _decode_as(tp: Any, kind: tuple, data: Any, where: str) -> Any:
    """data as a value of tp, read the way kind (tp's `_classify` plan) says."""
    name = kind[0]
    if name == "value":
        if tp is float and isinstance(data, int | float) and not isinstance(data, bool):
            return float(data)
        if isinstance(tp, type) and isinstance(data, tp) and not (tp is int and isinstance(data, bool)):
            return data
        raise DecodeError(f"{where}: expected {getattr(tp, '__name__', tp)}, got {type(data).__name__}")
    if name == "model":
        if not isinstance(data, dict):
            raise DecodeError(f"{where}: expected an object for {tp.__name__}")
        kwargs = {}
        for field_name, hint, hint_kind, required, direct in _fields_plan(tp):
            if field_name in data:
                value = data[field_name]
                if type(value) in direct:  # what _decode_as would return unchanged
                    kwargs[field_name] = value
                else:
                    kwargs[field_name] = _decode_as(hint, hint_kind, value, f"{where}.{field_name}")
            elif required:
                raise DecodeError(f"{where}: missing field {field_name!r}")
        try:
            return tp(**kwargs)
        except (TypeError, ValueError) as error:
            raise DecodeError(f"{where}: {error}") from None
    if name == "union":
        options = kind[1]
        if data is None and type(None) in options:
            return None
        if isinstance(data, dict) and "type" in data:
            cls = TAGGED.get(data["type"])
            if cls in options:
                return _decode(cls, data, where)
        for option, option_kind in zip(options, kind[2], strict=True):
            if option is type(None):
                continue
            try:
                return _decode_as(option, option_kind, data, where)
            except DecodeError:
                continue
        raise DecodeError(f"{where}: {data!r} matches none of {tp}")
    if name == "tuple":
        if not isinstance(data, list):
            raise DecodeError(f"{where}: expected an array")
        args, arg_kinds, variadic = kind[1], kind[2], kind[3]
        if variadic:
            return tuple(_decode_as(args[0], arg_kinds[0], item, f"{where}[]") for item in data)
        return tuple(_decode_as(arg, arg_kind, item, f"{where}[]")
                     for arg, arg_kind, item in zip(args, arg_kinds, data, strict=True))
    if name == "dict":
        value_type, value_kind = kind[1], kind[2]
        if not isinstance(data, dict):
            raise DecodeError(f"{where}: expected an object")
        return {key: _decode_as(value_type, value_kind, item, where) for key, item in data.items()}
    if name == "enum":
        try:
            return tp(data)
        except ValueError:
            raise DecodeError(f"{where}: {data!r} is not a {tp.__name__}") from None
    return data  # "any"


def _kind_of(tp: Any) -> tuple:
    """How _decode reads values of tp, worked out once per type (verify decodes thousands of notes)."""
    try:
        return _kind_cached(tp)
    except TypeError:  # an unhashable annotation: classify it each time
        return _classify(tp)


@cache
def _kind_cached(tp: Any) -> tuple:
    return _classify(tp)


def _classify(tp: Any) -> tuple:
    """tp's decoding plan, with the plans of the types inside it (union options, items, fields)."""
    import typing

    origin = typing.get_origin(tp)
    if tp is typing.Any:
        return ("any",)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(tp)
        return ("union", options, tuple(_kind_of(option) for option in options))
    if origin is tuple:
        args = typing.get_args(tp)
        variadic = len(args) == 2 and args[1] is Ellipsis
        kinds = (_kind_of(args[0]),) if variadic else tuple(_kind_of(arg) for arg in args)
        return ("tuple", args, kinds, variadic)
    if origin is dict:
        _, value_type = typing.get_args(tp)
        return ("dict", value_type, _kind_of(value_type))
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return ("enum",)
    if isinstance(tp, type) and is_model(tp):
        return ("model",)  # its fields' plans come from _fields_plan, on first use
    return ("value",)


@cache
def _fields_plan(tp: type) -> tuple[tuple[str, Any, tuple, bool, tuple[type, ...]], ...]:
    """(name, type, plan, required, direct types) per field of a model. Built apart from
    _classify so a model whose fields refer back to it never recurses while its plan is made."""
    hints = _hints(tp)
    return tuple(
        (f.name, hints[f.name], _kind_of(hints[f.name]),
         f.default is MISSING and f.default_factory is MISSING,
         _direct_types(hints[f.name]))
        for f in fields(tp))


def _direct_types(tp: Any) -> tuple[type, ...]:
    """Exact JSON value types that _decode_as(tp, ...) returns as they are: a plain scalar class
    (str, int, bool, float), and for `T | None` also None, when T is the first option tried."""
    def plain(option: Any) -> bool:
        return (isinstance(option, type) and _kind_of(option) == ("value",)
                and option in (str, int, bool, float))

    kind = _kind_of(tp)
    if kind == ("value",):
        return (tp,) if plain(tp) else ()
    if kind[0] == "union":
        options = kind[1]
        direct: list[type] = [type(None)] if type(None) in options else []
        first = next((option for option in options if option is not type(None)), None)
        if plain(first):
            direct.append(first)
        return tuple(direct)
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
