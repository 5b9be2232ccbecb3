"""The frozen values of a vet run (spec: elenchus-sublate TYPES, realized as design/vet.md says)."""

from __future__ import annotations

import enum
import hashlib
import json

from msgspec import Struct

from diylisis.core import tagging


class Origin(enum.Enum):
    """Where a source comes from (spec: Origin); assigned from git, never asked."""

    DOCUMENT_READ = "DocumentRead"
    PAST_SESSION = "PastSession"
    TOOL_OUTPUT = "ToolOutput"
    AI_INFERENCE = "AIInference"
    USER_STATEMENT = "UserStatement"
    EXTERNAL_API = "ExternalAPI"


class Pattern(enum.Enum):
    """The antithesis patterns (upstream SKILL.md, Patterns A-D)."""

    PROVENANCE_AUDIT = "A"
    COUNTERFACTUAL_GAP = "B"
    CROSS_SOURCE_CONSISTENCY = "C"
    INFERENCE_FALLACY_AUDIT = "D"


class Suspicion(enum.Enum):
    """The suspect predicate that makes a claim an audit candidate (positive_predicate.kind)."""

    CONTRADICTION = "contradiction"
    LAG = "lag"
    INFERENCE = "inference"
    UNENFORCED = "unenforced"
    ABSENT = "absent"


class Source(Struct, frozen=True, kw_only=True):
    """A record pinned by blob at the start of the run (spec: Source)."""

    locator: str  # as given, e.g. file:docs/design.md
    path: str
    blob: str
    origin: Origin
    text: str

    @property
    def id(self) -> str:
        """`<locator>@<blob>`: the source as vet read it."""
        return f"{self.locator}@{self.blob}"


class ClaimRef(Struct, frozen=True, kw_only=True):
    """One claim of a source (spec: ClaimRef), with its verbatim span."""

    referent: str  # a normalized key, e.g. src/cache.py:TIMEOUT, or the source path and line
    claim_kind: str
    scope: str
    text: str  # verbatim
    line: int
    column_start: int  # 1-based, inclusive
    column_end: int  # 1-based, inclusive

    def span(self, source: Source) -> str:
        """`path@blob:L3:c1-c76`: where the text sits, checkable as a byte substring."""
        return f"{source.path}@{source.blob}:L{self.line}:c{self.column_start}-{self.column_end}"

    def canonical(self) -> str:
        """The claim as canonical JSON (the audit id hashes it)."""
        return json.dumps({"referent": self.referent, "claim_kind": self.claim_kind, "scope": self.scope,
                           "text": self.text}, sort_keys=True, ensure_ascii=False)


def audit_id(source: Source, claim: ClaimRef) -> str:
    """`a-` + sha256(source id + canonical ClaimRef)[:10], fixed when the audit forms."""
    return "a-" + hashlib.sha256((source.id + claim.canonical()).encode()).hexdigest()[:10]


class ClaimFacts(Struct, frozen=True, kw_only=True):
    """What the edges measured about one claim line at the pinned revision."""

    claim: tagging.ClaimLine
    measured_at: str  # the commit the facts were read at
    contradictions: tuple[tagging.Comparison, ...]
    agreements: tuple[tagging.Comparison, ...]
    enforcement: tuple[tagging.Enforcement, ...]
    enforcement_basis: str
    freshness: tagging.FreshnessTag


class Stake(Struct, frozen=True, kw_only=True):
    """What the action reads of the claim, and what rests on it if it fails."""

    reads: tuple[str, ...]  # path:line of the action's lines that cite the source, or how it was named
    if_it_fails: tuple[str, ...]  # the leverage branches, the action's lines first


class Tags(Struct, frozen=True, kw_only=True):
    """The tag triple of one claim (spec: ProvenanceTag x FreshnessTag x LeverageTag)."""

    provenance: tagging.ProvenanceTag
    freshness: tagging.FreshnessTag
    leverage: tagging.LeverageTag


class Audit(Struct, frozen=True, kw_only=True):
    """A claim that met the criteria, with its tags, facts and stake (one entry of S_high)."""

    id: str
    source: Source
    claim: ClaimRef
    suspicions: tuple[Suspicion, ...]
    tags: Tags
    facts: ClaimFacts
    stake: Stake


class Antithesis(Struct, frozen=True, kw_only=True):
    """A challenge to one claim built from measured facts the thesis lacks (spec: Antithesis)."""

    audit: str
    index: int  # 1-based, per audit; append-only
    pattern: Pattern
    thesis: str  # the claim, verbatim
    antithesis: str  # the challenge, in plain words
    evidence: tuple[str, ...]  # each measured fact, quoted with its locator
    basis: tuple[str, ...]  # the commands that show the evidence
