"""F0: declare the certification contract and run its guards (spec Phase 0; Rules 27, 29)."""

from __future__ import annotations

import os
import re

from diylisis.config import ContractFields
from diylisis.errors import DistillError
from diylisis.model import DEFAULT_VERB, ActivationEdge, Contract, RecordKind, Target
from diylisis.state import FieldMark

TYPE_CHECKING = False  # true for type checkers only: the hook never imports typing
if TYPE_CHECKING:
    from pathlib import Path

TRACKED_FIELDS = ("activity", "scope", "stop", "allowed_sources")  # spec: ContractField
_WORD = re.compile(r"[^\W\d_]{4,}", re.UNICODE)
# activities whose outcome is a judgment the recipient must own (Rule 27); "implement" never trips
_JUDGMENT_VERBS = re.compile(r"\b(review|evaluate|assess|judge|audit|decide|choose|critique|approve)\w*",
                             re.IGNORECASE)
_METHOD_PRESCRIPTION = re.compile(r"\b(using|by running|with the|via|only with|exactly as)\b",
                                  re.IGNORECASE)


class ContractMisfit(DistillError):
    """An F0 guard stopped the run before F1: the contract must be re-declared (exit 2)."""


def declare(request: ContractFields, defaults: ContractFields) -> tuple[Contract, tuple[str, ...]]:
    """F0 declare: the fields stated on the command line over the config's; returns the contract and
    the tracked fields the command line stated (None or () means "not stated here")."""
    role = request.role or defaults.role
    if not role:
        raise ContractMisfit("no recipient role: pass --role (for example reviewer or implementer)")
    stated = tuple(
        name for name in TRACKED_FIELDS if getattr(request, name) not in (None, ())
    )
    contract = Contract(
        role=role,
        activity=request.activity or defaults.activity,
        allowed_sources=request.allowed_sources or defaults.allowed_sources,
        scope=request.scope or defaults.scope,
        verification=request.verification or defaults.verification,
        stop=request.stop or defaults.stop,
        certificate_target=request.certificate_target or defaults.certificate_target,
        activation_verb=request.activation_verb or defaults.activation_verb or DEFAULT_VERB,
    )
    return contract, stated


def field_text(contract: Contract, name: str) -> str:
    """The text of a tracked contract field, '' when unset."""
    value = getattr(contract, name)
    if isinstance(value, tuple):
        return "; ".join(value)
    return value or ""


def mark_provenance(contract: Contract, utterances: tuple[str, ...],
                    ratified_by: str | None = None) -> tuple[FieldMark, ...]:
    """Rule 29: mark each set tracked field user_stated or ai_authored against the utterance.

    A field is user_stated only when the constituting utterance carries its content words,
    however the field reached the contract (a flag may be typed by an agent); an empty
    utterance marks every field ai_authored (the conservative direction). ratified_by
    names who stands behind the ai_authored fields without a gate (a committed
    configuration at a hook): they stay ai_authored, marked confirmed.
    """
    spoken = {word.lower() for text in utterances for word in _WORD.findall(text)}
    marks = []
    for name in TRACKED_FIELDS:
        text = field_text(contract, name)
        if not text:
            continue
        words = {word.lower() for word in _WORD.findall(text)}
        traced = bool(words) and words <= spoken
        marks.append(FieldMark(field=name, provenance="user_stated" if traced else "ai_authored",
                               confirmed=None if traced else ratified_by))
    return tuple(marks)


def unconfirmed_fields(marks: tuple[FieldMark, ...]) -> tuple[str, ...]:
    """has_authored_delta: the ai_authored fields no one has confirmed yet (Rule 29)."""
    return tuple(mark.field for mark in marks if mark.provenance == "ai_authored" and not mark.confirmed)


def activation_edge(contract: Contract, target: Target) -> ActivationEdge:
    """Λ.activation_edge: the declared verb and the target by reference (spec: ActivationEdge)."""
    return ActivationEdge(verb=contract.activation_verb, locator=str(target))


def check_content_free(contract: Contract, item_tokens: tuple[str, ...]) -> None:
    """content_free(edge): the verb carries no discriminating token of the task content."""
    verb = contract.activation_verb.replace("{locator}", "").lower()
    activity_words = {w.lower() for w in _WORD.findall(contract.activity or "")}
    verb_words = {w.lower() for w in _WORD.findall(verb)}
    leaked = sorted(verb_words & activity_words - {"read", "execute"})
    leaked += sorted(t for t in item_tokens if len(t) > 3 and t.lower() in verb)
    if leaked:
        raise ContractMisfit(
            f"the activation verb repeats task content ({', '.join(leaked)}); keep it minimal, "
            f"for example --verb {DEFAULT_VERB!r}"
        )


def check_competence_substitution(contract: Contract) -> None:
    """Rule 27: a judgment-bearing activity must leave method to the recipient or name a verified artifact."""
    activity = contract.activity or ""
    if not _JUDGMENT_VERBS.search(activity):
        return
    prescription = " ".join(filter(None, (activity, contract.scope or "")))
    if not _METHOD_PRESCRIPTION.search(prescription):
        return
    if contract.verification:  # the contract names the operative artifact it relies on
        return
    raise ContractMisfit(
        f"the activity {activity!r} asks for a judgment but prescribes its method without naming a "
        "verified artifact; re-declare it so the recipient owns the method, for example "
        f"--activity {_judgment_only(activity)!r}, or name the artifact with --verify COMMAND"
    )


def _judgment_only(activity: str) -> str:
    match = _METHOD_PRESCRIPTION.search(activity)
    return activity[: match.start()].strip() if match else activity


def check_certificate_target(contract: Contract, target: Target, root: str | Path) -> None:
    """The certificate must not land inside the record it certifies (referent, not string)."""
    named = contract.certificate_target
    if not named or named in ("notes", "session"):
        return
    parent = os.path.dirname(os.path.join(root, named.split(":", 1)[-1])) or "."
    if not os.path.isdir(parent) or not os.access(parent, os.W_OK):
        raise ContractMisfit(f"certificate_target {named!r} cannot be written: {parent} is not a writable folder")
    if target.kind not in (RecordKind.FILE, RecordKind.MSGFILE, RecordKind.PRBODY):
        return
    if target.locator == "-":
        return
    if _same_file(root, named.split(":", 1)[-1], target.locator):
        raise ContractMisfit(
            f"certificate_target {named!r} is the record being certified; name another destination"
        )


def _same_file(root: str | Path, first: str, second: str) -> bool:
    one = os.path.realpath(os.path.join(root, first))
    two = os.path.realpath(os.path.join(root, second))
    if os.path.exists(one) and os.path.exists(two):
        return os.path.samefile(one, two)
    return os.path.normcase(one) == os.path.normcase(two)
