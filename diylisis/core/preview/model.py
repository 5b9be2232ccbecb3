"""The frozen values of the preview protocol (Proplasma), named by the spec's words."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from msgspec import Struct


class Tier(StrEnum):
    VIGNETTE = "vignette"
    MOCKUP = "mockup"


class Route(StrEnum):
    """Where an exposed unknown is handed on: a pre-commit check, or a factual question."""

    GAP = "Gap"
    INQUIRE = "Inquire"


class ProbeStatus(StrEnum):
    """Where a probe stands: registered in the run file, created, or how its command ended."""

    REGISTERED = "registered"
    CREATED = "created"
    POPULATED = "populated"
    FAILED = "failed"
    TIMED_OUT = "timed_out"


class ProbeDisposition(StrEnum):
    """The declared end of one probe: its files destroyed (verified), none to destroy, or left."""

    FILE_DESTROYED = "FileDestroyed"
    NO_FILE_ARTIFACT = "NoFileArtifact"
    DISCARD_FAILED = "DiscardFailed"


class Arm(StrEnum):
    """How a preview run ended."""

    DIRECTIONAL_CONTRAST = "DirectionalContrast"
    DISSOLUTION_EXIT = "DissolutionExit"
    EARLY_EXIT = "EarlyExit"
    MISDIAGNOSIS_EXIT = "MisdiagnosisExit"
    NOT_ACTIVATED = "NotActivated"
    REQUIRES_FAIL = "RequiresFail"

    @property
    def converged(self) -> bool:
        return self in (Arm.DIRECTIONAL_CONTRAST, Arm.DISSOLUTION_EXIT)


AxisSource = Literal["user", "deriver"]


class Axis(Struct, frozen=True, kw_only=True):
    """A divergence axis: a question on which the probes must commit different values."""

    id: str
    question: str
    proposed_by: AxisSource
    settled_at: str | None = None  # "qspec-<n>" once the user approved it


class AxisHint(Struct, frozen=True, kw_only=True):
    """Where one candidate's text differs from the others': a hint for the user, never an axis."""

    candidate: str
    distinctive: tuple[str, ...]


class PlaceholderPolicy(Struct, frozen=True, kw_only=True):
    marker: str  # DISTILL-PLACEHOLDER-<run>, put in every fake datum
    visible_synthesis: bool = True
    non_evidence_stamp: bool = True
    skeleton_data_split: bool = True

    def text(self) -> str:
        return (f"every fake datum carries the marker {self.marker}; each probe is stamped "
                "'evidence for no claim'; the structure follows the direction, the data values are fake")


class Spec(Struct, frozen=True, kw_only=True):
    """What the spec gate settles before anything is generated."""

    axes: tuple[Axis, ...]
    policy: PlaceholderPolicy
    tgt: tuple[str, ...]  # the probe target set
    tier: Tier


class ExposedUnknown(Struct, frozen=True, kw_only=True):
    text: str
    route: Route


class CellKind(StrEnum):
    """What one probe shows on one axis: a value it grounds in its files, one it does not, or none."""

    VALUE = "value"
    UNGROUNDED = "UNGROUNDED"
    UNDIFFERENTIATED = "UNDIFFERENTIATED"


class CommitmentKind(StrEnum):
    """How every probe made a decision alike: the same blob at a path, or the same declared value."""

    PATH = "path"
    DECLARED = "declared"


class Cell(Struct, frozen=True, kw_only=True):
    """One probe's future on one axis."""

    kind: CellKind
    value: str = ""
    paths: tuple[str, ...] = ()
    note: str = ""  # why a cell is not a value, or "divergence lives in fake data"


class ContrastRow(Struct, frozen=True, kw_only=True):
    axis: Axis
    cells: tuple[tuple[int, Cell], ...]  # (probe index, cell)
    flagged: bool  # every cell equal, or none grounded: this axis does not tell the futures apart


class CommonCommitment(Struct, frozen=True, kw_only=True):
    """A decision every probe made alike: a shared premise, not a divergence axis."""

    key: str  # a path (same blob everywhere) or a [commitments] key
    value: str
    kind: CommitmentKind


class ProbeEvidence(Struct, frozen=True, kw_only=True):
    """What one probe left, as the core needs it (read by the edges, never by the core)."""

    index: int
    direction: str
    status: ProbeStatus  # populated, failed or timed_out
    axis_values: tuple[tuple[str, str, tuple[str, ...]], ...] = ()  # (axis id, value, cited paths)
    commitments: tuple[tuple[str, str], ...] = ()
    unknowns: tuple[tuple[str, str], ...] = ()  # (text, route as written)
    walkthrough: str = ""
    changed: tuple[tuple[str, str], ...] = ()  # (path, blob id) of every changed, present path
    present_paths: frozenset[str] = frozenset()
    files: tuple[tuple[str, str], ...] = ()  # (status letter, path)
    stamp_intact: bool = True
    narrated: bool = False  # a vignette: its values stand on the narration, not on files


class Contrast(Struct, frozen=True, kw_only=True):
    rows: tuple[ContrastRow, ...]
    common: tuple[CommonCommitment, ...]
    unknowns: tuple[ExposedUnknown, ...]
    rejected_unknowns: tuple[str, ...]  # unknowns a probe wrote without a valid route
    raised_axes: tuple[tuple[int, str], ...]  # (probe, axis id) a probe raised that was never settled
    problems: tuple[str, ...] = ()  # a deleted stamp, a failed probe

    @property
    def insufficient(self) -> bool:
        return any(row.flagged for row in self.rows)


class DirectionKind(StrEnum):
    """How the direction was constituted: a probe selected, or the user's synthesis confirmed."""

    SELECT = "select"
    SYNTHESIZE = "synthesize"


class Direction(Struct, frozen=True, kw_only=True):
    """The constituted direction: a probed one (Select) or the user's synthesis (Confirm)."""

    kind: DirectionKind
    direction: str
    deciding: tuple[str, ...] = ()  # axis ids
    ground: str | None = None  # GroundTag: a familiar domain to validate the mapping against


class NotActivated(Struct, frozen=True, kw_only=True):
    """Phase 0 stood down: the relay says why and where the decision goes."""

    kind: Literal["requires_fail", "no_deficit", "route_away", "unfit"]
    relay: str
    row: str | None = None
    protocol: str | None = None


class DetectSignals(Struct, frozen=True, kw_only=True):
    """What the author says about the decision (flags); silence is the invocation's claim of row 4."""

    recognizable: bool = False
    familiar: bool = False
    needs_real_data: bool = False
    sibling: Literal["ideate", "frame", "elicit"] | None = None
    placeholders_distort: bool = False
    basis: str = ""


class ProbeSlot(Struct, frozen=True, kw_only=True):
    """A probe of the run: which direction, and on which fan it was made."""

    index: int
    direction: str
    fan: int


class FanKind(StrEnum):
    """Why a fan of probes was made: the first contrast, a re-fan on a Gap, or a synthesis materialized."""

    CONTRAST = "contrast"
    GAP = "Gap"
    MATERIALIZATION = "Materialization"


class Fan(Struct, frozen=True, kw_only=True):
    kind: FanKind
    tgt: tuple[str, ...]
