"""The run state Λ of one certification (spec: MODE STATE), session-side only.

Saved as `.git/distill/runs/<run-id>.json` after every pass and at every pause. Nothing
here that was dropped ever reaches a certificate, a note, the brief or the record: the
emitting phase (F7) projects from it explicitly.
"""

from __future__ import annotations

import enum

from msgspec import Struct

from diylisis.core.model import Answer, Contract, RouteJudgment, Target


class ItemOrigin(enum.Enum):
    TARGET = "target"  # found in the record by F1
    AUTHORED = "authored"  # text a repair wrote into the record (Rule 25)
    REFUTER = "refuter"  # an F5 finding no F1 item matched (spec: EvidencedFinding)
    LEG = "certification-leg"  # a measure leg's repair that could not be performed


class Grounding(enum.Enum):
    INLINE = "Inline"
    STABLE_POINTER = "StablePointer"
    ROUTED_RESIDUAL = "RoutedResidual"


class Provenance(enum.Enum):
    OBSERVED_KEEP = "ObservedKeep"
    UNKNOWN = "Unknown"


class DispositionKind(enum.Enum):
    KEEP = "KEEP"
    ROUTE = "ROUTE"
    DROP = "DROP"


class GateKind(enum.Enum):
    CONTRACT = "contract"  # F0 Confirm / Correct (Rule 29)
    RESIDUAL = "residual"  # Qd: Resolve / Route / Drop / Defer
    PREMISE = "premise"  # Qp: consumer profile and authority copy (Rule 32)


class RunStatus(enum.StrEnum):
    """Where a certification run stands; the run file and `--format json` carry the value."""

    RUNNING = "running"
    PAUSED = "paused"  # open questions wait for answers (`git distill answer`, `resume`)
    CERTIFIED = "certified"
    STOPPED = "stopped"  # RunState.stop_reason says why; a fresh certification is needed


class ItemKind(enum.StrEnum):
    """What an Item is: a residue category, a resolved pointer, the body, or a refuter's gap.

    The residue kinds are model.Category's values; the run file carries the value."""

    DEICTIC = "deictic"
    SESSION_ID = "session-id"
    BARE_ISSUE_REF = "bare-issue-ref"
    COINED_TERM = "coined-term"
    EPHEMERAL_REF = "ephemeral-ref"
    PROCESS_NARRATION = "process-narration"
    UNVERIFIABLE_CLAIM = "unverifiable-claim"
    RENDERING = "rendering"
    POINTER = "pointer"  # a reference F1 resolved (resolves_at held)
    CONTENT = "content"  # the record's body, grounded inline
    COMPREHENSION_GAP = "comprehension-gap"  # what the refuter could not understand (F5)

    @property
    def is_residue(self) -> bool:
        """The item is residue to dispose of: neither a resolved pointer nor the body itself."""
        return self not in (ItemKind.POINTER, ItemKind.CONTENT)


class DeltaKind(enum.StrEnum):
    """What a repair did to the record (Rule 12): the word the run file and EmittedDelta.kind carry."""

    RESOLUTION = "resolution"  # a stable form put in place of, or beside, the token
    EXCISION = "excision"  # text cut out on a Gate Drop


class LedgerReason(enum.StrEnum):
    """Why a residual is on the ledger (spec: ResidualLedger); the run file carries the value."""

    UNRESOLVED = "unresolved"
    UNKNOWN_PROVENANCE = "unknown-provenance"
    COMPREHENSION_GAP = "comprehension-gap"
    CERTIFICATION_LEG = "certification-leg"
    EXPOSURE = "exposure"
    RECURRENCE = "recurrence"


class FieldProvenance(enum.StrEnum):
    """Who stated a tracked contract field (Rule 29, spec: cp_record)."""

    USER_STATED = "user_stated"
    AI_AUTHORED = "ai_authored"


RESIDUAL_OPTIONS = ("resolve", "route", "drop", "defer")  # the answers a GateKind.RESIDUAL question offers


class Item(Struct, frozen=True, kw_only=True):
    """A ContextItem the run judges: a residue token, a pointer, a decision or the body."""

    id: str
    token: str
    line: int
    column: int
    kind: ItemKind
    origin: ItemOrigin
    rule_id: str | None = None
    why: str = ""
    fix: str = ""
    resolution: str | None = None  # mechanical stable form (a full URL for #123)
    locator: str | None = None  # for pointers: the locator that resolves
    checklist: int = 11


class Substitution(Struct, frozen=True, kw_only=True):
    """F1 row: surface token -> canonical reference (spec: Substitution)."""

    item_id: str
    surface_token: str
    canonical_ref: str | None
    confidence: float
    unresolved: bool


class DecisionRecord(Struct, frozen=True, kw_only=True):
    """Rule 33: a decision-shaped claim and the durable record of its rationale."""

    id: str
    claim: str
    line: int
    ledger_ref: str | None = None
    deferral: str | None = None


class GroundingMark(Struct, frozen=True, kw_only=True):
    """F2: how one item's content reaches the recipient, and the detail that shows it."""

    item_id: str
    grounding: Grounding
    detail: str


class ProvenanceMark(Struct, frozen=True, kw_only=True):
    """F3b: where one item's content came from."""

    item_id: str
    provenance: Provenance
    source: str


class Disposition(Struct, frozen=True, kw_only=True):
    """F3: KEEP, ROUTE or DROP for one item, with its value and basis (and whether a gate answered)."""

    item_id: str
    kind: DispositionKind
    value: str | None  # inline evidence (KEEP) or stable reference (ROUTE)
    basis: str
    by_gate: bool = False


class LedgerEntry(Struct, frozen=True, kw_only=True):
    """ResidualLedger entry; every one is surfaced at a gate before convergence."""

    item_id: str
    reason: LedgerReason
    detail: str
    surfaced: bool = False


class RepairDelta(Struct, frozen=True, kw_only=True):
    """A logged, claim-preserving change to the record (Rule 12)."""

    kind: DeltaKind
    item_id: str
    pass_n: int
    line: int
    before: str  # the segment as it was (session-side only)
    after: str  # the segment as it became
    added: str | None = None  # the text a resolution added, emitted in the certificate


class Question(Struct, frozen=True, kw_only=True):
    """An open gate item, as shown to the author and in the paused JSON."""

    id: str
    gate: GateKind
    token: str
    reason: str
    options: tuple[str, ...]
    line: int = 0


class HistoryEntry(Struct, frozen=True, kw_only=True):
    """A DROP a gate answer made, with its reason: the record of what left the record (session-side only)."""

    item_id: str
    token: str
    disposition: DispositionKind
    drop_reason: str | None = None


class FieldMark(Struct, frozen=True, kw_only=True):
    """Rule 29: a tracked contract field marked against the constituting utterance.

    provenance says who stated the field; confirmed says who ratified an ai_authored one
    (the user's F0 Confirm, or a committed configuration at a hook). A confirmed field
    stays ai_authored: confirmed by the user is not stated by the user (spec: cp_record).
    """

    field: str
    provenance: FieldProvenance
    confirmed: str | None = None


class Measure(Struct, frozen=True, kw_only=True):
    """F6 hygiene measure legs (spec: measure(Λ))."""

    unresolved_anchors: int = 0
    unmet_stop: int = 0
    unsurfaced_residual: int = 0
    leaked_drops: int = 0
    undisposed_authored: int = 0
    missing_bases: int = 0
    unresolvable_route_pointers: int = 0
    ledgerless_decisions: int = 0

    @property
    def total(self) -> int:
        return (self.unresolved_anchors + self.unmet_stop + self.unsurfaced_residual
                + self.leaked_drops + self.undisposed_authored + self.missing_bases
                + self.unresolvable_route_pointers + self.ledgerless_decisions)


class RunState(Struct, frozen=True, kw_only=True):
    """Λ: everything one certification run knows, advanced by msgspec.structs.replace."""

    run_id: str
    target: Target
    contract: Contract
    utterances: tuple[str, ...]
    contract_provenance: tuple[FieldMark, ...]
    status: RunStatus
    pass_n: int = 0
    items: tuple[Item, ...] = ()
    subst_table: tuple[Substitution, ...] = ()
    decisions: tuple[DecisionRecord, ...] = ()
    grounding: tuple[GroundingMark, ...] = ()
    provenance: tuple[ProvenanceMark, ...] = ()
    dispositions: tuple[Disposition, ...] = ()
    judgments: tuple[RouteJudgment, ...] = ()
    authored: tuple[str, ...] = ()  # item ids of repair-authored text awaiting disposition
    repair_deltas: tuple[RepairDelta, ...] = ()
    repaired_targets: tuple[tuple[str, str], ...] = ()  # (token, location), Rule 31
    premises: tuple[DecisionRecord, ...] = ()
    ledger: tuple[LedgerEntry, ...] = ()
    answers: tuple[Answer, ...] = ()
    history: tuple[HistoryEntry, ...] = ()
    open_questions: tuple[Question, ...] = ()
    measure: Measure = Measure()
    repair_commits: tuple[str, ...] = ()
    proposed_change: str | None = None  # a repair's diff shown and awaiting the author's confirmation
    stop_reason: str | None = None  # why a STOPPED run stopped; the run file keeps it (earlier versions' key too)
