"""The one JSON mapping for model values: certificates, run state, json output.

Frozen dataclasses become objects with their field names; enums become their values;
tuples become arrays. Members of a sum type (`Verdict = Value | Reference`) carry a
`"type"` tag so they decode to the right class. Decoding is typed by the dataclass's own
annotations, so a malformed document fails with a clear error instead of half-loading.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from functools import cache
from typing import Any, TypeVar

from diylisis import model

T = TypeVar("T")

# classes that are members of a union and therefore need a tag when encoded
TAGGED: dict[str, type] = {"value": model.Value, "reference": model.Reference}
_TAG_OF = {cls: tag for tag, cls in TAGGED.items()}


class DecodeError(ValueError):
    """A JSON document does not have the shape of the model type it should hold."""


def encode(value: Any) -> Any:
    """Model value -> JSON-ready data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        data = {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
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
    return typing.cast(T, _decode(cls, data, cls.__name__))


def dumps(value: Any) -> str:
    """Compact, key-sorted JSON for notes and run files (one line)."""
    return json.dumps(encode(value), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


@cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, vars(model) | _extra_namespace())


def _extra_namespace() -> dict[str, Any]:
    from diylisis import state

    return dict(vars(state))


def _decode(tp: Any, data: Any, where: str) -> Any:
    origin = typing.get_origin(tp)
    if tp is Any:
        return data
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(tp)
        if data is None and type(None) in options:
            return None
        if isinstance(data, dict) and "type" in data:
            cls = TAGGED.get(data["type"])
            if cls in options:
                return _decode(cls, data, where)
        for option in options:
            if option is type(None):
                continue
            try:
                return _decode(option, data, where)
            except DecodeError:
                continue
        raise DecodeError(f"{where}: {data!r} matches none of {tp}")
    if origin is tuple:
        args = typing.get_args(tp)
        if not isinstance(data, list):
            raise DecodeError(f"{where}: expected an array")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], item, f"{where}[]") for item in data)
        return tuple(_decode(arg, item, f"{where}[]") for arg, item in zip(args, data, strict=True))
    if origin is dict:
        key_type, value_type = typing.get_args(tp)
        if not isinstance(data, dict):
            raise DecodeError(f"{where}: expected an object")
        return {key: _decode(value_type, item, where) for key, item in data.items()}
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(data)
        except ValueError:
            raise DecodeError(f"{where}: {data!r} is not a {tp.__name__}") from None
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(data, dict):
            raise DecodeError(f"{where}: expected an object for {tp.__name__}")
        hints = _hints(tp)
        kwargs = {}
        for f in dataclasses.fields(tp):
            if f.name in data:
                kwargs[f.name] = _decode(hints[f.name], data[f.name], f"{where}.{f.name}")
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise DecodeError(f"{where}: missing field {f.name!r}")
        try:
            return tp(**kwargs)
        except (TypeError, ValueError) as error:
            raise DecodeError(f"{where}: {error}") from None
    if tp is float and isinstance(data, int | float) and not isinstance(data, bool):
        return float(data)
    if isinstance(tp, type) and isinstance(data, tp) and not (tp is int and isinstance(data, bool)):
        return data
    raise DecodeError(f"{where}: expected {getattr(tp, '__name__', tp)}, got {type(data).__name__}")


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
