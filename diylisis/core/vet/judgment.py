"""The per-claim gate's answer and the J ledger (Elenchus Phases 2 and 3), pure.

An answer is a free-text verdict plus at most one instruction: withdraw, revisit CONDITION or
handoff DEFICIT. The verdict is never parsed into an instruction ("withdraw this" alone is a
verdict with no instruction), and there is no default. Every answer names the antithesis index
it answers, so an answer written against an older challenge is refused rather than misapplied.
J is written only through `record`, which first appends the change to the history.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence

import msgspec
from msgspec import Struct

from diylisis.core.errors import BadInput

BATCH_SIZE = 4
REACH_NOTE = "Each answer covers this one claim, in its own slot, and nothing beyond it."


class InstructionKind(enum.Enum):
    """What an answer may ask vet to do besides recording the verdict."""

    WITHDRAW = "withdraw"
    REVISIT = "revisit"
    HANDOFF = "handoff"


# The instruction list exactly as the gate renders it, each with its effect; "nothing" is no instruction.
INSTRUCTIONS: tuple[tuple[str, str], ...] = (
    ("withdraw", "records that the source does not stand for this claim; vet edits nothing"),
    ("revisit CONDITION", "asks again in this run once CONDITION holds, or reports it as not carried out;"
                          " vet watches changed:PATH, gone:PATH, tracked:PATH, reachable:REV and ref:NAME,"
                          " and accepts other words without watching them"),
    ("handoff DEFICIT", "lists the claim at the end as handed to someone else, with DEFICIT"),
    ("nothing", "the source stands as it is"),
)


class Instruction(Struct, frozen=True, kw_only=True):
    """One instruction; withdraw carries no text, revisit its condition, handoff its deficit."""

    kind: InstructionKind
    text: str | None = None
    anchor: str | None = None  # a revisit condition's state at answer time (triggers.py); None: unwatched

    def __post_init__(self) -> None:
        if (self.kind is InstructionKind.WITHDRAW) != (self.text is None):
            raise ValueError("withdraw carries no text; revisit and handoff need one")


class Judged(Struct, frozen=True, kw_only=True):
    """The author's answer to one claim at one antithesis index (spec: Judged)."""

    audit: str
    antithesis: int
    verdict: str
    instruction: Instruction | None

    def __post_init__(self) -> None:
        if not self.verdict.strip():
            raise ValueError("a verdict is required")


def judged(audit: str, antithesis: int, verdict: str | None, *, withdraw: bool = False,
           revisit: str | None = None, handoff: str | None = None) -> Judged:
    """An answer from its slots; exit 2 for a missing verdict, an empty condition or deficit, or
    more than one instruction."""
    if verdict is None or not verdict.strip():
        raise BadInput(f"{audit}: a verdict is required (your own words on this claim)")
    given = [kind for kind, on in ((InstructionKind.WITHDRAW, withdraw), (InstructionKind.REVISIT, revisit is not None),
                                   (InstructionKind.HANDOFF, handoff is not None)) if on]
    if len(given) > 1:
        raise BadInput(f"{audit}: give at most one of withdraw, revisit and handoff")
    instruction = None
    if given:
        kind = given[0]
        text = revisit if kind is InstructionKind.REVISIT else handoff
        if kind is not InstructionKind.WITHDRAW and not (text and text.strip()):
            needed = "condition" if kind is InstructionKind.REVISIT else "deficit"
            raise BadInput(f"{audit}: {kind.value} needs a {needed}")
        kept = text.strip() if text and kind is not InstructionKind.WITHDRAW else None
        instruction = Instruction(kind=kind, text=kept)
    return Judged(audit=audit, antithesis=antithesis, verdict=verdict.strip(), instruction=instruction)


def check_index(answer: Judged, current: int) -> None:
    """Exit 2 when the answer names another antithesis than the one now open: the slot stays open."""
    if answer.antithesis != current:
        raise BadInput(f"{answer.audit}: the answer is for challenge {answer.antithesis}, but challenge {current}"
                       " is the one open; read it again and answer that one")


def batches(audit_ids_in_order: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """At most BATCH_SIZE claims per batch, in the given order (source, then line; never by hash)."""
    ids = tuple(audit_ids_in_order)
    return tuple(ids[start:start + BATCH_SIZE] for start in range(0, len(ids), BATCH_SIZE))


class Realization(enum.StrEnum):
    """Who answered a run's claims, as its note records it."""

    TERMINAL = "terminal"
    ANSWERS_FILE = "answers-file"
    PAUSE = "pause"  # answered with `git distill answer`, then resumed


class AssignedBy(enum.Enum):
    """Who settled a ledger entry."""

    USER = "user"
    CERTIFICATE = "certificate"


class LedgerEntry(Struct, frozen=True, kw_only=True):
    """J(r): the answer (or the certificate's assignment) and the claim it judged."""

    audit: str
    assigned_by: AssignedBy
    claim_judged: str
    judged: Judged | None  # None when the certificate assigned it
    basis: str | None  # the certificate's fit; None for a user's answer

    def __post_init__(self) -> None:
        if (self.assigned_by is AssignedBy.USER) != (self.judged is not None):
            raise ValueError("a user's entry holds a Judged, a certificate's entry none")
        if self.assigned_by is AssignedBy.CERTIFICATE and not self.basis:
            raise ValueError("a certificate's entry needs its basis")


class HistoryEntry(Struct, frozen=True, kw_only=True):
    """One change to J, appended before it is made: the audit, the antithesis index, the record (None: removed)."""

    audit: str
    antithesis: int | None
    record: LedgerEntry | None


class Ledger(Struct, frozen=True, kw_only=True):
    """J and its append-only history."""

    entries: tuple[LedgerEntry, ...] = ()
    history: tuple[HistoryEntry, ...] = ()

    def get(self, audit: str) -> LedgerEntry | None:
        """J(audit), or None when it is not judged."""
        return next((entry for entry in self.entries if entry.audit == audit), None)


def record(ledger: Ledger, entry: LedgerEntry) -> Ledger:
    """J[r] := entry, after appending the change to the history."""
    index = entry.judged.antithesis if entry.judged else None
    return Ledger(entries=tuple([*(e for e in ledger.entries if e.audit != entry.audit), entry]),
                  history=(*ledger.history, HistoryEntry(audit=entry.audit, antithesis=index, record=entry)))


def remove(ledger: Ledger, audit: str) -> Ledger:
    """Drop J[r] (a claim asked again), after appending the removal to the history."""
    return Ledger(entries=tuple(e for e in ledger.entries if e.audit != audit),
                  history=(*ledger.history, HistoryEntry(audit=audit, antithesis=None, record=None)))


def user_entry(answer: Judged, claim: str) -> LedgerEntry:
    """J(r) for the author's answer."""
    return LedgerEntry(audit=answer.audit, assigned_by=AssignedBy.USER, claim_judged=claim, judged=answer, basis=None)


def judged_json(answer: Judged) -> dict[str, object]:
    """The answer as JSON (the note, the run file), without the audit id its entry is keyed by."""
    data: dict[str, object] = msgspec.to_builtins(answer)
    del data["audit"]
    return data


def judged_from_json(audit: str, data: Mapping[str, object]) -> Judged:
    """The inverse of judged_json, for a run file vet wrote itself (exit 2 when it does not parse)."""
    try:
        return msgspec.convert({**data, "audit": audit}, Judged)
    except msgspec.ValidationError:
        raise BadInput(f"the saved answer for {audit} is damaged") from None
