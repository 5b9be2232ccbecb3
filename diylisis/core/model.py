"""Frozen values of the Diylisis protocol (spec: diylisis-distill.txt, TYPES).

Every class is immutable; phases return new values and never mutate their input.
"""

from __future__ import annotations

import enum

from msgspec import Struct

from diylisis.core.digests import sha256

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from typing import Protocol
else:
    Protocol = object  # a protocol only types: nothing checks isinstance against it


class RecordKind(enum.Enum):
    """The substrates a target can live in (DESIGN.md, target)."""

    COMMIT = "commit"
    FILE = "file"
    MSGFILE = "msgfile"
    PRBODY = "prbody"


class Target(Struct, frozen=True, kw_only=True):
    """The record under certification: a substrate kind and its locator (spec: StableRef target)."""

    kind: RecordKind
    locator: str  # the path, revision or '-' after the scheme, as declared
    revision: str | None = None  # for file:PATH@REV, the REV part

    def __str__(self) -> str:
        at = f"@{self.revision}" if self.revision else ""
        return f"{self.kind.value}:{self.locator}{at}"


def sha256_digest(data: bytes) -> str:
    """ContentDigest over the exact snapshot bytes (spec: target_identity)."""
    digest: str = sha256(data).hexdigest()
    return "sha256:" + digest


class Snapshot(Struct, frozen=True, kw_only=True):
    """The exact bytes of a record, the boundary they were cut at, and its identity (F0 Detect).

    `revision` is RevisionFixed when the substrate has one (a commit id, or the commit of
    file:PATH@REV). `tree_revision` is the commit whose tree resolves paths and ids for
    this record (the certified revision). `alternates` are other byte strings the same
    record may be stored as (a commit-msg file before git picks its cleanup mode); the
    certificate is keyed under each of them as well.
    """

    target: Target
    data: bytes
    boundary: str
    revision: str | None = None
    tree_revision: str | None = None
    path: str | None = None  # repository-relative path for file targets
    alternates: tuple[bytes, ...] = ()

    @property
    def digest(self) -> str:
        return sha256_digest(self.data)

    @property
    def text(self) -> str:
        return self.data.decode("utf-8")


class Outcome(enum.StrEnum):
    """What a certificate says happened to the record (spec: outcome)."""

    ALREADY_PORTABLE = "already-portable"
    REPAIRED = "repaired"


class SweepStatus(enum.StrEnum):
    """A refuter's answer for one checklist category in its sweep table."""

    CLEAR = "clear"
    FINDING = "finding"
    NOT_APPLICABLE = "not-applicable"


class Category(enum.Enum):
    """Residue categories a detector reports (issue 4; corpus README)."""

    DEICTIC = "deictic"
    SESSION_ID = "session-id"
    BARE_ISSUE_REF = "bare-issue-ref"
    COINED_TERM = "coined-term"
    EPHEMERAL_REF = "ephemeral-ref"
    PROCESS_NARRATION = "process-narration"
    UNVERIFIABLE_CLAIM = "unverifiable-claim"
    RENDERING = "rendering"

    @property
    def checklist(self) -> int:
        """The F5 checklist category (1..11) this residue is swept under."""
        return _CHECKLIST_OF[self]


_CHECKLIST_OF = {
    Category.COINED_TERM: 1,
    Category.SESSION_ID: 2,
    Category.DEICTIC: 3,
    Category.BARE_ISSUE_REF: 4,
    Category.EPHEMERAL_REF: 4,
    Category.RENDERING: 5,
    Category.PROCESS_NARRATION: 7,
    Category.UNVERIFIABLE_CLAIM: 7,
}

CHECKLIST: dict[int, str] = {
    1: "coined names without in-target definition",
    2: "session identifiers",
    3: "deictic anchors",
    4: "unresolvable references",
    5: "rendering accidents",
    6: "reception-procedure sufficiency",
    7: "inference presented as evidence",
    8: "activation edge defects",
    9: "operative procedure",
    10: "contract-provenance misfit",
    11: "emergent",
}
_CATEGORIES = sorted(CHECKLIST)


def _one_row_per_category(sweep: tuple[SweepRow, ...]) -> bool:
    """The sweep has exactly one row for each checklist category."""
    return sorted(row.category for row in sweep) == _CATEGORIES


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Finding(Struct, frozen=True, kw_only=True):
    """One residue token a rule found, complete with its location (STYLE: no line patching)."""

    rule_id: str
    category: Category
    token: str
    line: int  # 1-based line in the snapshot text
    column: int  # 1-based column of the token's first character
    why: str  # why a fresh reader cannot resolve it
    fix: str  # what would fix it
    severity: Severity = Severity.ERROR
    resolution: str | None = None  # a full stable form when the repair is mechanical (#12 -> URL)

    def __post_init__(self) -> None:
        if not self.token:
            raise ValueError("a finding needs its token")
        if self.line < 1 or self.column < 1:
            raise ValueError("line and column are 1-based")


class RepoContext(Protocol):
    """What resolves_at may ask of the repository at the certified revision (DESIGN.md, resolves_at)."""

    def tracked(self, path: str) -> bool:
        """The path (a file or a directory) is tracked in the tree of the certified revision."""

    def commit_id(self, prefix: str) -> str | None:
        """Full id of a commit present and reachable from a ref whose id starts with prefix."""

    def origin(self) -> tuple[str, str, str] | None:
        """(host, owner, name) of the origin remote, when it names one."""

    def mentions(self, term: str) -> bool:
        """The term occurs (case-insensitively) in the tracked tree: it is defined in the repository."""

    def uses_identifier(self, name: str) -> bool:
        """The tracked tree's code uses name as an identifier (`class Session`, `session.get(`): the
        repository's own vocabulary, not a word about the author's work."""

    def in_change(self, text: str) -> bool:
        """The certified revision's own change (against its first parent; the staged change for a
        commit being written) adds or removes a line or path holding text: the change's subject.
        Asked of commit messages; for a file record the answer is False."""


# --- StableRef and verdicts (spec: StableRef, RouteJudgment) -------------------------------


class RefKind(enum.Enum):
    PATH = "path"
    URL = "url"
    ID = "id"
    COMMAND = "command"


class StableRef(Struct, frozen=True, kw_only=True):
    """A reference resolvable without the author session (spec: StableRef)."""

    kind: RefKind
    locator: str

    def __post_init__(self) -> None:
        if not self.locator.strip():
            raise ValueError("a StableRef needs a locator")


class InlineEvidence(Struct, frozen=True, kw_only=True):
    """The content a KEEP verdict carries inline, as the record states it."""

    content: str


class Value(Struct, frozen=True, kw_only=True, tag_field="type", tag="value"):
    """KEEP verdict: the content travels inline (Rule 30)."""

    evidence: InlineEvidence


class Reference(Struct, frozen=True, kw_only=True, tag_field="type", tag="reference"):
    """ROUTE verdict: the recipient dereferences a stable reference (Rule 30)."""

    ref: StableRef


Verdict = Value | Reference


class RouteJudgment(Struct, frozen=True, kw_only=True):
    """The certificate-level record per kept or routed item, with the basis F5 attacks."""

    item: str
    verdict: Verdict
    basis: str

    def __post_init__(self) -> None:
        if not self.basis.strip():
            raise ValueError(f"judgment for {self.item!r} has no basis (Rule 30)")


# --- contract and activation edge (spec: HandoffContract, ActivationEdge) -----------------

DEFAULT_VERB = "Read {locator} and execute it"


class ActivationEdge(Struct, frozen=True, kw_only=True):
    """How the recipient is told to act on the record: a verb with {locator}, and the locator."""

    verb: str
    locator: str


class Contract(Struct, frozen=True, kw_only=True):
    """F0 certification contract (spec: HandoffContract)."""

    role: str
    activity: str | None = None
    allowed_sources: tuple[str, ...] = ()
    scope: str | None = None
    verification: tuple[str, ...] = ()
    stop: str | None = None
    certificate_target: str | None = None
    activation_verb: str = DEFAULT_VERB

    def __post_init__(self) -> None:
        if not self.role.strip():
            raise ValueError("a contract needs a recipient role")


# --- refuter verdict (spec: ZeroMemoryVerdict) --------------------------------------------


class Realization(enum.Enum):
    """Who produced a verdict, weakest first (issue 6: never claim more rigor than ran)."""

    LINT_FALLBACK = "lint-fallback"
    GENERIC_SUBAGENT = "generic-subagent"
    REFUTER_SUBAGENT = "refuter-subagent"

    @property
    def rank(self) -> int:
        return list(Realization).index(self)


class SweepRow(Struct, frozen=True, kw_only=True):
    """One row of a refuter's sweep table: a checklist category, its status and what was checked."""

    category: int
    status: SweepStatus
    checked: str

    def __post_init__(self) -> None:
        if self.category not in CHECKLIST:
            raise ValueError(f"sweep category {self.category} is not 1..11")
        if not self.checked.strip():
            raise ValueError(f"sweep row {self.category} says nothing about what was checked")


class RefuterFinding(Struct, frozen=True, kw_only=True):
    """One residue token a refuter reports, where it is, why it fails the reader, and its advice."""

    token: str
    location: str
    category: int
    why: str
    advisory: str  # Resolve | Route | Drop | Defer
    repair: str


class ZeroMemoryVerdict(Struct, frozen=True, kw_only=True):
    """F5: a refuter's verdict on the record, with a sweep row for each checklist category."""

    passed: bool
    realization: Realization
    sweep: tuple[SweepRow, ...]
    findings: tuple[RefuterFinding, ...] = ()

    def __post_init__(self) -> None:
        if not _one_row_per_category(self.sweep):
            raise ValueError("a verdict needs a sweep row for each of the eleven categories")


# --- Qp answer (spec: AuthorityCopy, Rule 32) -----------------------------------------------


class Derived(Struct, frozen=True, kw_only=True):
    """The carried copy is derived: the record itself stays the authoritative copy."""


class AuthoritativeAt(Struct, frozen=True, kw_only=True):
    """The authoritative copy lives at a location, which must pass resolves_at."""

    location: str

    def __post_init__(self) -> None:
        if not self.location.strip():
            raise ValueError("AuthoritativeAt needs a location")


AuthorityCopy = Derived | AuthoritativeAt


# --- gate answers (spec: Gate Qd; diylisis.core.gate describes both shapes) ------------------


class Answer(Struct, frozen=True, kw_only=True):
    """The author's answer to one gate item, in any kind of run (diylisis.core.gate, its two shapes)."""

    item_id: str
    option: str
    value: str | None = None
    flag: str | None = None
    flag_value: str | None = None
    details: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (name, words) of a choice answer


# --- certificate (issue 2, item 4) ---------------------------------------------------------

CERTIFICATE_SCHEMA = "diylisis.certificate/1"


class TargetIdentity(Struct, frozen=True, kw_only=True):
    """Which bytes a certificate holds for: their digest, the boundary they were cut at, the revision."""

    digest: str  # sha256:<hex> over the snapshot boundary
    boundary: str
    revision: str | None = None


class EmittedDelta(Struct, frozen=True, kw_only=True):
    """What the certificate says of a repair: resolutions verbatim, excisions content-free."""

    kind: str  # "resolution" | "excision"
    location: str
    added: str | None = None  # the text a resolution added; None for an excision


class ReceptionProcedure(Struct, frozen=True, kw_only=True):
    """What the recipient is granted and runs on receipt: sources, checks, scope, stop, dereference steps."""

    role: str
    granted_sources: tuple[str, ...]
    verification: tuple[str, ...]
    scope: str | None
    stop: str | None
    dereference_steps: tuple[str, ...]
    premises: tuple[str, ...] = ()


class Certificate(Struct, frozen=True, kw_only=True):
    """F7: the portability certificate of one record for a recipient role (spec: Certificate)."""

    target: Target
    identity: TargetIdentity
    role: str
    activity: str | None
    activation_edge: ActivationEdge
    judgments: tuple[RouteJudgment, ...]
    outcome: Outcome
    deltas: tuple[EmittedDelta, ...]
    reception: ReceptionProcedure
    realization: Realization
    sweep: tuple[SweepRow, ...]
    issued_at: str
    tool_version: str
    suppressions: tuple[str, ...] = ()
    consumer_profile: str | None = None  # Qp (Rule 32), when it fired
    authority_copy: str | None = None  # Qp: where the authoritative copy lives
    # rules that could not run ("language zh: only language-neutral rules ran")
    coverage: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.outcome not in tuple(Outcome):
            raise ValueError(f"unknown outcome {self.outcome!r}")
        if not _one_row_per_category(self.sweep):
            raise ValueError("a certificate needs one sweep row for each of the eleven categories")
        if (self.outcome == Outcome.REPAIRED) != bool(self.deltas):
            raise ValueError("outcome is repaired exactly when deltas were emitted")
