"""F0: declare the certification contract and run its guards (spec Phase 0; Rules 27, 29)."""

from __future__ import annotations

import re

from msgspec import Struct

from diylisis.core.errors import DistillError
from diylisis.core.lazy_pattern import LazyPattern
from diylisis.core.model import DEFAULT_VERB, ActivationEdge, Contract, Target
from diylisis.core.state import FieldMark, FieldProvenance

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Callable

TRACKED_FIELDS = ("activity", "scope", "stop", "allowed_sources")  # spec: ContractField
_WORD = re.compile(r"[^\W\d_]{4,}", re.UNICODE)
# activities whose outcome is a judgment the recipient must own (Rule 27); "implement" never trips;
# spec judgment_bearing: choosing, creating, adapting, debugging or deploying a mechanism, and judging
_JUDGMENT_BEARING = (r"\b(review|evaluat|assess|judg|audit|decid|choos|critiqu|approv|creat|design|adapt|debug"
                     r"|deploy|migrat)\w*")
_ARTIFACT = r"(?<![\w/.-])((?:\.?/)?(?:[\w.-]+/)*[\w-]+\.[A-Za-z0-9]{1,8})(?![\w/])"  # a file a method names
_METHOD_PRESCRIPTION = LazyPattern(r"\b(using|by running|with the|via|only with|exactly as)\b",
                                   re.IGNORECASE)


class ContractMisfit(DistillError):
    """An F0 guard stopped the run before F1: the contract must be re-declared (exit 2)."""


class ContractFields(Struct, frozen=True, kw_only=True):
    """Contract fields as one source states them (the config file, or the command line); None or ()
    means not stated there. F0 declares the contract from them (declare)."""

    role: str | None = None
    activity: str | None = None
    allowed_sources: tuple[str, ...] = ()
    scope: str | None = None
    verification: tuple[str, ...] = ()
    stop: str | None = None
    certificate_target: str | None = None
    activation_verb: str | None = None


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
        activation_verb=request.activation_verb or defaults.activation_verb or default_verb(role),
    )
    return contract, stated


_ROLE_VERBS = {"reviewer": "Read {locator} and review it"}  # a reviewer does not execute a record


def default_verb(role: str) -> str:
    """The activation verb when none is declared: what the role does with a record."""
    return _ROLE_VERBS.get(role.strip().lower(), DEFAULT_VERB)


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
        marks.append(FieldMark(field=name, provenance=FieldProvenance.USER_STATED if traced
                               else FieldProvenance.AI_AUTHORED,
                               confirmed=None if traced else ratified_by))
    return tuple(marks)


def unconfirmed_fields(marks: tuple[FieldMark, ...]) -> tuple[str, ...]:
    """has_authored_delta: the ai_authored fields no one has confirmed yet (Rule 29)."""
    return tuple(mark.field for mark in marks if mark.provenance is FieldProvenance.AI_AUTHORED and not mark.confirmed)


def activation_edge(contract: Contract, target: Target) -> ActivationEdge:
    """Λ.activation_edge: the declared verb and the target by reference (spec: ActivationEdge)."""
    return ActivationEdge(verb=contract.activation_verb, locator=str(target))


def check_content_free(contract: Contract, item_tokens: tuple[str, ...]) -> None:
    """content_free(edge): the verb carries no discriminating token of the task content."""
    verb = contract.activation_verb.replace("{locator}", "").lower()
    activity_words = {w.lower() for w in _WORD.findall(contract.activity or "")}
    verb_words = {w.lower() for w in _WORD.findall(verb)}
    leaked = sorted(verb_words & activity_words - {"read", "execute", "review"})
    leaked += sorted(t for t in item_tokens if len(t) > 3 and t.lower() in verb)
    if leaked:
        raise ContractMisfit(
            f"the activation verb repeats task content ({', '.join(leaked)}); keep it minimal, "
            f"for example --verb {DEFAULT_VERB!r}"
        )


# words any minimal activation verb may use: they name the act of taking the record up, not its task
_MINIMAL_VERB_WORDS = frozenset({
    "read", "execute", "follow", "carry", "perform", "apply", "complete", "start", "continue", "open",
    "review", "implement", "check", "verify", "work", "handle", "then", "with", "from", "this", "that",
    "them", "what", "says", "task", "record", "file", "instructions", "steps", "there", "here", "through",
})


def check_verb_against_target(contract: Contract, target_text: str) -> None:
    """content_free(edge) against the target's items: the verb repeats none of the record's words."""
    verb = contract.activation_verb.replace("{locator}", " ")
    record_words = {word.lower() for word in _WORD.findall(target_text)}
    leaked = sorted(({word.lower() for word in _WORD.findall(verb)} - _MINIMAL_VERB_WORDS) & record_words)
    if leaked:
        raise ContractMisfit(
            f"the activation verb repeats the record's own content ({', '.join(leaked)}); keep it minimal, "
            f"for example --verb {DEFAULT_VERB!r}"
        )


def check_competence_substitution(contract: Contract, resolves: Callable[[str], bool] | None = None) -> None:
    """Rule 27: a judgment-bearing activity must leave method to the recipient or name a verified artifact."""
    witness = competence_substitution(contract, resolves or (lambda locator: False))
    if witness is None:
        return
    activity = contract.activity or ""
    raise ContractMisfit(
        f"the activity {activity!r} asks for a judgment but {witness}; re-declare it so the recipient "
        f"owns the method, for example --activity {_judgment_only(activity)!r}, or grant the operative "
        "artifact with --source PATH and replay it with a --verify command that runs it"
    )


def judgment_bearing(activity: str) -> bool:
    """judgment_bearing(t): the task needs choosing, creating, adapting, debugging or deploying a mechanism."""
    # compiled on use: a hook's contract rarely declares an activity
    return bool(activity) and re.search(_JUDGMENT_BEARING, activity, re.IGNORECASE) is not None


def competence_substitution(contract: Contract, resolves: Callable[[str], bool]) -> str | None:
    """The F0 leg of competence_substitution (Rule 27): the misfit witness, or None.

    It trips when a judgment-bearing activity prescribes its method (the recipient does
    not own it) and no operative artifact satisfies contract_names_verified_operative: a
    file the prescription names, granted in allowed_sources, resolving at the certified
    revision, and replayed by a verification command. A bare --verify does not do.
    """
    activity = contract.activity or ""
    if not judgment_bearing(activity):
        return None
    prescription = " ".join(filter(None, (activity, contract.scope or "")))
    method = _METHOD_PRESCRIPTION.search(prescription)
    if method is None:
        return None
    named = re.findall(_ARTIFACT, prescription[method.start():])
    if not named:
        return "it prescribes its method without naming an operative artifact"
    granted = {source.removeprefix("./") for source in contract.allowed_sources}
    for artifact in named:
        path = artifact.removeprefix("./")
        if (path in granted and resolves(path)
                and any(path in command or path.rsplit("/", 1)[-1] in command for command in contract.verification)):
            return None
    missing = next((a for a in named if not resolves(a.removeprefix("./"))), None)
    if missing is not None:
        return f"the method it prescribes names {missing}, which does not resolve in the repository"
    return (f"the method it prescribes names {named[0]}, which the contract neither grants as a source "
            "nor replays with a verification command")


def _judgment_only(activity: str) -> str:
    match = _METHOD_PRESCRIPTION.search(activity)
    return activity[: match.start()].strip() if match else activity
