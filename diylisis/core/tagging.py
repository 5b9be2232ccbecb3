"""Tagging (Elenchus Phase 1 Step 1): provenance with support integrity, freshness and leverage.

Pure: every function here reads text and facts that an edge measured from git
(`diylisis.edges.vet_facts`) and returns frozen values. Each tag carries its basis, the git
command that shows the fact, so a reader can re-run it. Shared by `vet` and certify's F3b.

Contradictions follow design/vet.md: the code side is `KEY = n`, `key: n`, or a TOML/INI key
under `[section]`; the record side is a sentence naming the key whose paragraph names the fact's
file, or which names the key scoped by its section ("the cache timeout" for `[cache].timeout`).
A match never spans a newline, and quantities are compared after unit normalization.
"""

from __future__ import annotations

import enum
import re

from msgspec import Struct

# --- quantities -------------------------------------------------------------------------------

_UNIT_SECONDS: dict[str, float] = {
    "ms": 0.001, "msec": 0.001, "millisecond": 0.001, "milliseconds": 0.001,
    "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
    "m": 60.0, "min": 60.0, "mins": 60.0, "minute": 60.0, "minutes": 60.0,
    "h": 3600.0, "hr": 3600.0, "hour": 3600.0, "hours": 3600.0,
    "d": 86400.0, "day": 86400.0, "days": 86400.0,
}
_UNITS = "|".join(sorted(_UNIT_SECONDS, key=len, reverse=True))
_QUANTITY = re.compile(rf"(?<![\w.])(\d+(?:\.\d+)?)[ \t]*({_UNITS})?(?![\w])")
_DURATION_KEY = re.compile(r"(timeout|ttl|delay|interval|wait|backoff|expiry|expires|deadline|period)", re.I)
_KEY_UNIT_SUFFIX = re.compile(r"_(ms|s|sec|secs|seconds|min|minutes|h|hours)$", re.I)


class QuantityKind(enum.Enum):
    """What a quantity measures: its kind decides which two values may be compared."""

    DURATION = "duration"
    NUMBER = "number"


class Quantity(Struct, frozen=True, kw_only=True):
    """A number as written (`30 s`, `60`, `1 min`) and its value in base units (seconds for durations)."""

    written: str
    value: float
    kind: QuantityKind

    def same_as(self, other: Quantity) -> bool:
        """True when both quantities have this kind and the same normalized value."""
        return self.kind is other.kind and abs(self.value - other.value) < 1e-9


def quantity(number: str, unit: str | None, key: str) -> Quantity:
    """The quantity `number unit` for KEY: a unit makes it a duration; a bare number is a duration
    in seconds when the key names one (`timeout`), in the key's unit suffix when it has one (`_ms`)."""
    written = number + (f" {unit}" if unit else "")
    amount = float(number)
    if unit:
        return Quantity(written=written, value=amount * _UNIT_SECONDS[unit.lower()], kind=QuantityKind.DURATION)
    suffix = _KEY_UNIT_SUFFIX.search(key)
    if suffix:
        return Quantity(written=written, value=amount * _UNIT_SECONDS[suffix.group(1).lower()],
                        kind=QuantityKind.DURATION)
    if _DURATION_KEY.search(key):
        return Quantity(written=written, value=amount, kind=QuantityKind.DURATION)
    return Quantity(written=written, value=amount, kind=QuantityKind.NUMBER)


def parse_value(text: str, key: str) -> Quantity | None:
    """The quantity a code or config value spells (`60`, `"60s"`, `1m`), or None when it is not one."""
    match = re.fullmatch(rf"[\"']?(\d+(?:\.\d+)?)[ \t]*({_UNITS})?[\"']?", text.strip(), re.I)
    if match is None:
        return None
    return quantity(match.group(1), match.group(2), key)


# --- the code and config side -----------------------------------------------------------------

class CodeFact(Struct, frozen=True, kw_only=True):
    """A value code or config holds for a scoped key: `src/cache.py:TIMEOUT` at line 1 is 60."""

    path: str
    line: int
    key: str  # as written in the file
    section: str | None  # the TOML/INI section, None for code
    text: str  # the whole line, verbatim
    value: Quantity

    @property
    def referent(self) -> str:
        """The normalized, scoped key: `src/cache.py:TIMEOUT`, `config/cache.toml:[cache].timeout`."""
        return f"{self.path}:[{self.section}].{self.key}" if self.section else f"{self.path}:{self.key}"


_ASSIGNMENT = re.compile(r"^[ \t]*(?:export[ \t]+|const[ \t]+|var[ \t]+|let[ \t]+)?"
                         r"([A-Za-z_][A-Za-z0-9_.]*)[ \t]*(?::[ \t]*[A-Za-z_][\w\[\], ]*)?[ \t]*(=|:)[ \t]*"
                         r"([^#\n;]*?)[ \t]*[,;]?[ \t]*(?:#.*)?$")
_SECTION = re.compile(r"^[ \t]*\[([^\]\n]+)\][ \t]*$")
SECTIONED_SUFFIXES = (".toml", ".ini", ".cfg", ".conf")


def code_facts(path: str, text: str, keys: frozenset[str]) -> tuple[CodeFact, ...]:
    """The numeric values PATH's text assigns to any of KEYS (compared case-insensitively), with
    the section each sits under in a TOML/INI file."""
    wanted = {key.lower() for key in keys}
    sectioned = path.endswith(SECTIONED_SUFFIXES)
    section: str | None = None
    found: list[CodeFact] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if sectioned and (header := _SECTION.match(line)):
            section = header.group(1).strip()
            continue
        match = _ASSIGNMENT.match(line)
        if match is None or match.group(1).lower() not in wanted:
            continue
        value = parse_value(match.group(3), match.group(1))
        if value is not None:
            found.append(CodeFact(path=path, line=number, key=match.group(1),
                                  section=section if sectioned else None, text=line, value=value))
    return tuple(found)


# --- the record side and contradictions --------------------------------------------------------

class ClaimLine(Struct, frozen=True, kw_only=True):
    """One line of a record as a claim: its locator, line number, verbatim text and its paragraph."""

    source: str  # the record's path
    line: int
    text: str
    paragraph: str  # the lines around it up to blank lines, verbatim


class Comparison(Struct, frozen=True, kw_only=True):
    """A record sentence and a code or config value that share a referent. One type for both
    outcomes: compare returns the contradictions (values that disagree) and the agreements apart,
    and the parameters and fields that hold them are named for which they are."""

    claim: ClaimLine
    claim_value: Quantity
    fact: CodeFact

    @property
    def basis(self) -> str:
        """The command that shows the code side."""
        return f"git grep -n -w {self.fact.key} -- {self.fact.path}"


def _names(text: str, term: str) -> bool:
    return re.search(rf"(?<![\w/.-]){re.escape(term)}(?![\w-])", text, re.I) is not None


def _scoped_in(claim: ClaimLine, fact: CodeFact) -> bool:
    """The claim's paragraph names the fact's file, or the claim names the key under its section."""
    if _names(claim.paragraph, fact.path):
        return True
    if fact.section is None:
        return False
    section_words = re.escape(fact.section.split(".")[-1])
    return (_names(claim.paragraph, f"[{fact.section}]")
            or re.search(rf"\b{section_words}[ \t]+{re.escape(fact.key)}\b", claim.text, re.I) is not None)


def claim_quantity(claim: ClaimLine, key: str) -> Quantity | None:
    """The quantity the claim's line gives KEY: the first number after the key's name on that
    line (never on another line)."""
    at = re.search(rf"(?<![\w]){re.escape(key)}(?![\w])", claim.text, re.I)
    if at is None:
        return None
    match = _QUANTITY.search(claim.text, at.end())
    if match is None:
        return None
    return quantity(match.group(1), match.group(2), key)


def compare(claim: ClaimLine, facts: tuple[CodeFact, ...]) -> tuple[tuple[Comparison, ...], tuple[Comparison, ...]]:
    """Pair the claim with each fact it is scoped to and whose key it names with a quantity of a
    compatible kind: a contradiction when the normalized values differ, an agreement otherwise."""
    contradictions: list[Comparison] = []
    agreements: list[Comparison] = []
    lowered = claim.text.lower()
    for fact in facts:
        if fact.key.lower() not in lowered or not _scoped_in(claim, fact):
            continue
        said = claim_quantity(claim, fact.key)
        if said is None or said.kind is not fact.value.kind:
            continue
        if said.same_as(fact.value):
            agreements.append(Comparison(claim=claim, claim_value=said, fact=fact))
        else:
            contradictions.append(Comparison(claim=claim, claim_value=said, fact=fact))
    return tuple(contradictions), tuple(agreements)


# --- the three tags --------------------------------------------------------------------------

class VerificationPath(enum.Enum):
    """How the claim's authority is established (spec: VerificationPath)."""

    DIRECT_OBSERVED = "DirectObserved"
    INFERRED_FROM_N = "InferredFromN"
    EXTERNAL_CITED = "ExternalCited"
    PROVISIONAL_ASSUMPTION = "ProvisionalAssumption"


# An ordinal table, not a measured probability: the rank of each path, highest first.
CONFIDENCE: dict[VerificationPath, float] = {
    VerificationPath.DIRECT_OBSERVED: 0.9,
    VerificationPath.EXTERNAL_CITED: 0.6,
    VerificationPath.INFERRED_FROM_N: 0.4,
    VerificationPath.PROVISIONAL_ASSUMPTION: 0.2,
}

UNOBSERVABLE_COUPLING = "enforcement coupling not observable from available tools"


class Enforcement(Struct, frozen=True, kw_only=True):
    """A test or CI line that names the claim's key: what ties the claim to behaviour."""

    path: str
    line: int
    text: str


class ProvenanceTag(Struct, frozen=True, kw_only=True):
    """The claim's verification path, with what supports it (spec: ProvenanceTag)."""

    evidence: VerificationPath
    confidence: float
    enforced: bool  # a test, CI step or codegen reads the key ("+enforced")
    enforcement: tuple[Enforcement, ...]
    support: str  # in plain words: what the path rests on
    basis: tuple[str, ...]  # the commands that show it


def provenance(*, agreements: tuple[Comparison, ...], contradictions: tuple[Comparison, ...],
               enforcement: tuple[Enforcement, ...], enforcement_basis: str,
               chain_hops: int = 0) -> ProvenanceTag:
    """DirectObserved only when the value is seen at the revision and agrees with no contradiction:
    a path that resolves does not thereby support the claim. The comparisons are passed by name:
    agreements and contradictions are of one type, so only the names keep them apart."""
    enforced = bool(enforcement)
    if agreements and not contradictions:
        path = VerificationPath.DIRECT_OBSERVED
        seen = ", ".join(f"{a.fact.path}:{a.fact.line}" for a in agreements)
        support = f"the value is seen at {seen} and agrees" + ("" if enforced else f"; {UNOBSERVABLE_COUPLING}")
    elif chain_hops:
        path = VerificationPath.INFERRED_FROM_N
        support = f"rests on {chain_hops} cited record(s) with no observation"
    else:
        path = VerificationPath.PROVISIONAL_ASSUMPTION
        support = ("the code disagrees" if contradictions else "no code or config value observed for it")
    basis = tuple(dict.fromkeys([*(c.basis for c in contradictions),
                                 *(a.basis for a in agreements),
                                 enforcement_basis]))
    return ProvenanceTag(evidence=path, confidence=CONFIDENCE[path], enforced=enforced,
                         enforcement=enforcement, support=support, basis=basis)


class LagCommit(Struct, frozen=True, kw_only=True):
    """A commit after the claim was written that touched a path the claim names, on a line
    holding a token it names."""

    commit: str
    path: str
    token: str
    subject: str


class FreshnessTag(Struct, frozen=True, kw_only=True):
    """Age from the claim line's blame, staleness from token-level lag (spec: FreshnessTag)."""

    written_by: str  # the blame commit of the claim's line
    observed_at: int  # its committer time, seconds since the epoch
    age: int  # the revision's committer time minus observed_at, seconds
    horizon: int  # seconds
    stale: bool
    lag: tuple[LagCommit, ...]
    basis: tuple[str, ...]


# Horizons per origin, in days (spec: tool output and user statements age faster than documents).
HORIZON_DAYS: dict[str, int] = {
    "UserStatement": 7, "ToolOutput": 7, "AIInference": 30,
    "DocumentRead": 180, "PastSession": 90, "ExternalAPI": 30,
}


def freshness(written_by: str, observed_at: int, revision_time: int, origin: str,
              lag: tuple[LagCommit, ...], basis: tuple[str, ...]) -> FreshnessTag:
    """Stale when a later commit touched what the claim names (lag), or past its origin's horizon;
    age is measured against the revision, never the wall clock."""
    horizon = HORIZON_DAYS.get(origin, 90) * 86400
    age = max(0, revision_time - observed_at)
    return FreshnessTag(written_by=written_by, observed_at=observed_at, age=age, horizon=horizon,
                        stale=bool(lag) or age > horizon, lag=lag, basis=basis)


class Citation(Struct, frozen=True, kw_only=True):
    """A file that names the source, at its first naming line."""

    path: str
    line: int
    text: str

    @property
    def locator(self) -> str:
        """`path:line`."""
        return f"{self.path}:{self.line}"


class LeverageTag(Struct, frozen=True, kw_only=True):
    """The distinct files that cite the source (spec: LeverageTag; a count, never a bool)."""

    downstream_count: int
    branches: tuple[Citation, ...]
    basis: str


def leverage(citations: tuple[Citation, ...], basis: str) -> LeverageTag:
    """One branch per distinct citing file, its first citing line, ordered by path."""
    first: dict[str, Citation] = {}
    for citation in sorted(citations, key=lambda c: (c.path, c.line)):
        first.setdefault(citation.path, citation)
    branches = tuple(first.values())
    return LeverageTag(downstream_count=len(branches), branches=branches, basis=basis)


# --- what a claim names --------------------------------------------------------------------------

_BACKTICKED = re.compile(r"`([^`\n]+)`")
_PATH_SHAPED = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)+[\w.-]+\.\w+"
                          r"|[\w-]+\.(?:py|toml|ini|cfg|yml|yaml|json|go|rs|js|ts|md))(?![\w/])")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")


def named_paths(text: str) -> tuple[str, ...]:
    """The repository paths a line names, in order, without repeats."""
    return tuple(dict.fromkeys(match.group(1) for match in _PATH_SHAPED.finditer(text)))


def named_tokens(text: str) -> tuple[str, ...]:
    """The code-shaped tokens a line names: identifiers in backticks, and ALL_CAPS words."""
    tokens = [m.group(1) for m in _BACKTICKED.finditer(text) if _IDENTIFIER.match(m.group(1))]
    tokens += [word for word in _WORD.findall(text) if word.isupper() and len(word) >= 4]
    return tuple(dict.fromkeys(tokens))


def candidate_keys(text: str) -> frozenset[str]:
    """Keys a line may give a value for (matched against code and config case-insensitively): the
    code tokens and plain words before its last number. A line with no number gives a value for
    nothing, so it names no key."""
    last = None
    for match in _QUANTITY.finditer(text):
        last = match
    if last is None:
        return frozenset()
    before = text[:last.start()]
    return frozenset(named_tokens(before)) | frozenset(word.lower() for word in _WORD.findall(before))


# --- support integrity for certify's F3b ---------------------------------------------------------

_HEADING_LINE = re.compile(r"^[ \t]*#")


def paragraph_at(lines: list[str], index: int) -> str:
    """The lines around LINES[INDEX] up to blank lines and headings, verbatim."""
    def inside(at: int) -> bool:
        return bool(lines[at].strip()) and not _HEADING_LINE.match(lines[at])

    start = end = index
    while start > 0 and inside(start - 1):
        start -= 1
    while end + 1 < len(lines) and inside(end + 1):
        end += 1
    return "\n".join(lines[start:end + 1])


def claim_line(path: str, text: str, line: int) -> ClaimLine:
    """Line LINE (1-based) of the record at PATH as a claim, with its paragraph."""
    lines = text.split("\n")
    index = min(max(line, 1), len(lines)) - 1
    return ClaimLine(source=path, line=index + 1, text=lines[index], paragraph=paragraph_at(lines, index))


class SupportFacts(Struct, frozen=True, kw_only=True):
    """What the repository holds at the certified revision for the keys a record's lines give
    values for, measured by an edge: the code and config values, and the test and CI lines that
    name those keys."""

    revision: str
    code: tuple[CodeFact, ...]
    enforcement: tuple[Enforcement, ...]
    enforcement_basis: str


class Support(Struct, frozen=True, kw_only=True):
    """The provenance a record line earns against the repository, and the disagreements behind it."""

    tag: ProvenanceTag
    contradictions: tuple[Comparison, ...]

    @property
    def direct(self) -> bool:
        """DirectObserved: the one path ObservedKeep accepts."""
        return self.tag.evidence is VerificationPath.DIRECT_OBSERVED

    def describe(self) -> str:
        """One line: the verification path and what it rests on, each disagreement quoted."""
        quoted = "; ".join(f"{c.claim.source}:{c.claim.line} says {c.claim_value.written} for {c.fact.key}, "
                           f"{c.fact.path}:{c.fact.line} holds `{c.fact.text.strip()}`" for c in self.contradictions)
        return f"{self.tag.evidence.value}: {quoted or self.tag.support}"


def reference_only(detail: str) -> ProvenanceTag:
    """The provenance of a pointer whose line gives no value the repository holds: its only claim
    is the reference itself, and resolves_at observed that at the revision."""
    return ProvenanceTag(evidence=VerificationPath.DIRECT_OBSERVED,
                         confidence=CONFIDENCE[VerificationPath.DIRECT_OBSERVED], enforced=False,
                         enforcement=(), support=f"the line claims no value of it; the reference is observed: {detail}",
                         basis=())


def support(claim: ClaimLine, facts: SupportFacts, detail: str) -> Support:
    """Support integrity of one record line (design/vet.md, Tagging): DirectObserved when the values
    it gives agree with what code and config hold, or when it gives none and the reference resolves
    (DETAIL says how); a contradicted value never is, whatever resolves."""
    contradictions, agreements = compare(claim, facts.code)
    if not contradictions and not agreements:
        return Support(tag=reference_only(detail), contradictions=())
    keys = {fact.key.lower() for fact in (*(c.fact for c in contradictions), *(a.fact for a in agreements))}
    enforcing = tuple(e for e in facts.enforcement
                      if any(re.search(rf"(?<!\w){re.escape(key)}(?!\w)", e.text, re.I) for key in keys))
    return Support(tag=provenance(agreements=agreements, contradictions=contradictions, enforcement=enforcing,
                                  enforcement_basis=facts.enforcement_basis),
                   contradictions=contradictions)
