"""Frozen values of the Diylisis protocol (spec: diylisis-distill.txt, TYPES).

Every class is immutable; phases return new values and never mutate their input.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import MISSING, FrozenInstanceError, dataclass, field, fields
from operator import attrgetter
from typing import Protocol

MODEL = dict(frozen=True, slots=True, kw_only=True)


def frozen_model(cls: type) -> type:
    """`@dataclass(frozen=True, slots=True, kw_only=True)` at a quarter of the creation cost.

    The commit-msg hook imports every model class on each commit. The stdlib compiles six
    functions per frozen class (about 1 ms each class); here only __init__ is generated, and
    __repr__, __eq__, __hash__, the frozen __setattr__/__delattr__ and the pickle state are
    shared functions over the field names. Behavior matches the stdlib decorator: keyword-only
    __init__ with defaults, default factories and __post_init__; FrozenInstanceError on
    assignment; equality and hashing over the compared fields; dataclasses.fields, replace
    and asdict work as before.
    """
    for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
        if name in cls.__dict__:
            raise TypeError(f"{cls.__qualname__} defines {name}; use @dataclass(**MODEL) for it")
    undocumented = not cls.__doc__
    if undocumented:
        # dataclasses would read the signature of object.__init__ from its text form (an
        # ast parse); the one set below reads the generated __init__, as dataclasses does
        cls.__doc__ = cls.__name__
    cls = dataclass(cls, slots=True, kw_only=True, init=False, repr=False, eq=False)
    every = fields(cls)
    _set_method(cls, "__init__", _init_for(cls, every))
    if undocumented:
        import inspect  # already loaded by dataclasses

        cls.__doc__ = cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    _set_method(cls, "__repr__", _repr_for(tuple(f.name for f in every if f.repr)))
    compared = tuple(f.name for f in every if f.compare)
    _set_method(cls, "__eq__", _eq_for(_values(compared)))
    _set_method(cls, "__hash__", _hash_for(_values(tuple(
        f.name for f in every if (f.compare if f.hash is None else f.hash)))))
    cls.__setattr__ = _frozen_setattr
    cls.__delattr__ = _frozen_delattr
    cls.__getstate__ = _getstate
    cls.__setstate__ = _setstate
    return cls


def _set_method(cls: type, name: str, function) -> None:
    function.__qualname__ = f"{cls.__qualname__}.{name}"
    setattr(cls, name, function)


def _values(names: tuple[str, ...]):
    """A function from an instance to the tuple of its values under names."""
    if not names:
        return lambda self: ()
    if len(names) == 1:
        single = attrgetter(names[0])
        return lambda self: (single(self),)
    return attrgetter(*names)


def _init_for(cls: type, every) -> object:
    namespace: dict[str, object] = {"__set": object.__setattr__, "MISSING": MISSING}
    params, body = [], []
    for f in every:
        if not f.init:
            continue
        if f.default is not MISSING:
            namespace[f"__d_{f.name}"] = f.default
            params.append(f"{f.name}=__d_{f.name}")
            body.append(f"    __set(self, {f.name!r}, {f.name})")
        elif f.default_factory is not MISSING:
            namespace[f"__f_{f.name}"] = f.default_factory
            params.append(f"{f.name}=MISSING")
            body.append(f"    __set(self, {f.name!r}, __f_{f.name}() if {f.name} is MISSING else {f.name})")
        else:
            params.append(f.name)
            body.append(f"    __set(self, {f.name!r}, {f.name})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    star = f"*, {', '.join(params)}" if params else ""
    source = f"def __init__(self{', ' if star else ''}{star}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, namespace)  # noqa: S102 - built from field names only, as dataclasses does
    return namespace["__init__"]


def _repr_for(names: tuple[str, ...]):
    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__qualname__}({inner})"

    return __repr__


def _eq_for(values):
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash_for(values):
    def __hash__(self) -> int:
        return hash(values(self))

    return __hash__


def _frozen_setattr(self, name: str, value) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self) -> list:
    return [getattr(self, f.name) for f in fields(self)]


def _setstate(self, state: list) -> None:
    for f, value in zip(fields(self), state, strict=True):
        object.__setattr__(self, f.name, value)


class RecordKind(enum.Enum):
    """The substrates a target can live in (DESIGN.md, target)."""

    COMMIT = "commit"
    FILE = "file"
    MSGFILE = "msgfile"
    PRBODY = "prbody"


@frozen_model
class Target:
    """The record under certification: a substrate kind and its locator (spec: StableRef target)."""

    kind: RecordKind
    locator: str  # the path, revision or '-' after the scheme, as declared
    revision: str | None = None  # for file:PATH@REV, the REV part

    def __str__(self) -> str:
        at = f"@{self.revision}" if self.revision else ""
        return f"{self.kind.value}:{self.locator}{at}"


def sha256_digest(data: bytes) -> str:
    """ContentDigest over the exact snapshot bytes (spec: target_identity)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


@frozen_model
class Snapshot:
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


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@frozen_model
class Finding:
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


# --- StableRef and verdicts (spec: StableRef, RouteJudgment) -------------------------------


class RefKind(enum.Enum):
    PATH = "path"
    URL = "url"
    ID = "id"
    COMMAND = "command"


@frozen_model
class StableRef:
    """A reference resolvable without the author session (spec: StableRef)."""

    kind: RefKind
    locator: str

    def __post_init__(self) -> None:
        if not self.locator.strip():
            raise ValueError("a StableRef needs a locator")


@frozen_model
class InlineEvidence:
    content: str


@frozen_model
class Value:
    """KEEP verdict: the content travels inline (Rule 30)."""

    evidence: InlineEvidence


@frozen_model
class Reference:
    """ROUTE verdict: the recipient dereferences a stable reference (Rule 30)."""

    ref: StableRef


Verdict = Value | Reference


@frozen_model
class RouteJudgment:
    """The certificate-level record per kept or routed item, with the basis F5 attacks."""

    item: str
    verdict: Verdict
    basis: str

    def __post_init__(self) -> None:
        if not self.basis.strip():
            raise ValueError(f"judgment for {self.item!r} has no basis (Rule 30)")


# --- contract and activation edge (spec: HandoffContract, ActivationEdge) -----------------

DEFAULT_VERB = "Read {locator} and execute it"


@frozen_model
class ActivationEdge:
    verb: str
    locator: str


@frozen_model
class Contract:
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


@frozen_model
class SweepRow:
    category: int
    status: str  # "clear" | "finding" | "not-applicable"
    checked: str

    def __post_init__(self) -> None:
        if self.category not in CHECKLIST:
            raise ValueError(f"sweep category {self.category} is not 1..11")
        if not self.checked.strip():
            raise ValueError(f"sweep row {self.category} says nothing about what was checked")


@frozen_model
class RefuterFinding:
    token: str
    location: str
    category: int
    why: str
    advisory: str  # Resolve | Route | Drop | Defer
    repair: str


@frozen_model
class ZeroMemoryVerdict:
    passed: bool
    realization: Realization
    sweep: tuple[SweepRow, ...]
    findings: tuple[RefuterFinding, ...] = ()

    def __post_init__(self) -> None:
        categories = sorted(row.category for row in self.sweep)
        if categories != sorted(CHECKLIST):
            raise ValueError("a verdict needs a sweep row for each of the eleven categories")


# --- certificate (issue 2, item 4) ---------------------------------------------------------

CERTIFICATE_SCHEMA = "diylisis.certificate/1"


@frozen_model
class TargetIdentity:
    digest: str  # sha256:<hex> over the snapshot boundary
    boundary: str
    revision: str | None = None


@frozen_model
class EmittedDelta:
    """What the certificate says of a repair: resolutions verbatim, excisions content-free."""

    kind: str  # "resolution" | "excision"
    location: str
    added: str | None = None  # the text a resolution added; None for an excision


@frozen_model
class ReceptionProcedure:
    role: str
    granted_sources: tuple[str, ...]
    verification: tuple[str, ...]
    scope: str | None
    stop: str | None
    dereference_steps: tuple[str, ...]
    premises: tuple[str, ...] = ()


@frozen_model
class Certificate:
    target: Target
    identity: TargetIdentity
    role: str
    activity: str | None
    activation_edge: ActivationEdge
    judgments: tuple[RouteJudgment, ...]
    outcome: str  # "already-portable" | "repaired"
    deltas: tuple[EmittedDelta, ...]
    reception: ReceptionProcedure
    realization: Realization
    sweep: tuple[SweepRow, ...]
    issued_at: str
    tool_version: str
    suppressions: tuple[str, ...] = field(default=())
    consumer_profile: str | None = None  # Qp (Rule 32), when it fired
    authority_copy: str | None = None  # Qp: where the authoritative copy lives

    def __post_init__(self) -> None:
        if self.outcome not in ("already-portable", "repaired"):
            raise ValueError(f"unknown outcome {self.outcome!r}")
        if (self.outcome == "repaired") != bool(self.deltas):
            raise ValueError("outcome is repaired exactly when deltas were emitted")
