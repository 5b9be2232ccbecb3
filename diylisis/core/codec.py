"""The one JSON mapping for model values: certificates, run state, json output.

Frozen models become objects with their field names; enums become their values;
tuples become arrays. Members of a sum type (`Verdict = Value | Reference`) carry a
`"type"` tag so they decode to the right class. Both ways are msgspec's: to_builtins, and
convert typed by the model's own annotations, so a malformed document fails with an error
naming the path to the bad value instead of half-loading.
"""

from __future__ import annotations

import msgspec

from diylisis.core import model

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")


class DecodeError(ValueError):
    """A JSON document does not have the shape of the model type it should hold."""


def encode(value: Any) -> Any:
    """Model value -> JSON-ready data (a tuple stays a tuple, which json writes as an array).

    Bytes are left as they are, so dumps refuses them: no JSON document of ours holds raw bytes, and
    msgspec would otherwise write them as base64 text."""
    return msgspec.to_builtins(value, str_keys=True, builtin_types=(bytes,))


def decode(cls: type[T], data: Any) -> T:
    """JSON data -> a model value of `cls`; a shape mismatch, or a value the class's own checks
    refuse, is a DecodeError that names where: `Certificate.sweep[0].category: Expected `int`, got `str``."""
    try:
        return msgspec.convert(data, cls)
    except msgspec.ValidationError as error:
        message, _, where = str(error).partition(" - at `$")
        raise DecodeError(f"{cls.__name__}{where.removesuffix('`')}: {message}") from None


def dumps(value: Any) -> str:
    """Compact, key-sorted JSON for notes and run files (one line)."""
    import json  # not at the top: the commit-msg hook serializes nothing through here

    return json.dumps(encode(value), ensure_ascii=False, sort_keys=True, separators=(",", ":"))


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
