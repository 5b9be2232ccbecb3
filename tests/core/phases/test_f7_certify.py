"""F7 certify (spec Phase 7): the identity re-check, the certificate assemble builds over the
repaired record, and the reception procedure (brief) a recipient carries downstream."""

from __future__ import annotations

from diylisis import __version__
from diylisis.core.model import (
    CHECKLIST,
    ActivationEdge,
    Contract,
    InlineEvidence,
    Realization,
    RecordKind,
    Reference,
    RefKind,
    RouteJudgment,
    Snapshot,
    StableRef,
    SweepRow,
    Target,
    Value,
    ZeroMemoryVerdict,
)
from diylisis.core.phases.f7_certify import (
    UNSIGNED_AUTHOR,
    assemble,
    author,
    brief_lines,
    brief_text,
    emit_deltas,
    identity_holds,
    premise_text,
    rigor_words,
)
from diylisis.core.state import DecisionRecord, DeltaKind, RepairDelta

TARGET = Target(kind=RecordKind.FILE, locator="TASK.md")
SNAPSHOT = Snapshot(target=TARGET, data=b"# Task\n\nAdd a --json flag.\n", boundary="file bytes",
                    revision="a" * 40, tree_revision="a" * 40, path="TASK.md")
CONTRACT = Contract(role="implementer", activity="implement the --json flag", allowed_sources=("docs/cli.md",),
                    verification=("make test",), stop="the flag prints JSON")
VERDICT = ZeroMemoryVerdict(passed=True, realization=Realization.LINT_FALLBACK,
                            sweep=tuple(SweepRow(category=category, status="clear", checked="the record")
                                        for category in CHECKLIST))
JUDGMENTS = (
    RouteJudgment(item="body", verdict=Value(evidence=InlineEvidence(content="Add a --json flag.")),
                  basis="observed: the record's text"),
    RouteJudgment(item="ptr", verdict=Reference(ref=StableRef(kind=RefKind.PATH, locator="docs/cli.md")),
                  basis="resolves_at(docs/cli.md) held at F1"),
    RouteJudgment(item="again", verdict=Reference(ref=StableRef(kind=RefKind.PATH, locator="docs/cli.md")),
                  basis="resolves_at(docs/cli.md) held at F1"),
)
ISSUE = "https://example.org/acme/tool/issues/12"
RESOLUTION = RepairDelta(kind=DeltaKind.RESOLUTION, item_id="i1", pass_n=1, line=3, before="see #12",
                         after=f"see {ISSUE}", added=ISSUE)
EXCISION = RepairDelta(kind=DeltaKind.EXCISION, item_id="i2", pass_n=2, line=5, before="as we said", after="")


def _certificate(deltas: tuple[RepairDelta, ...] = (), premises: tuple[DecisionRecord, ...] = ()):
    return assemble(snapshot=SNAPSHOT, contract=CONTRACT,
                    edge=ActivationEdge(verb="read {locator}", locator="TASK.md"), judgments=JUDGMENTS, deltas=deltas,
                    premises=premises, verdict=VERDICT,
                    issued_at="2026-01-02T03:04:05Z")


def test_identity_holds_only_for_the_reviewed_bytes() -> None:
    assert identity_holds(SNAPSHOT, SNAPSHOT.digest) is True
    assert identity_holds(SNAPSHOT, "sha256:" + "0" * 64) is False
    changed = Snapshot(target=TARGET, data=SNAPSHOT.data + b"more\n", boundary="file bytes")
    assert identity_holds(changed, SNAPSHOT.digest) is False


def test_assemble_certifies_the_current_bytes_with_one_step_per_distinct_reference() -> None:
    certificate = _certificate()
    assert certificate.identity.digest == SNAPSHOT.digest
    assert certificate.identity.revision == "a" * 40
    assert certificate.outcome == "already-portable"
    assert certificate.judgments == JUDGMENTS
    assert certificate.reception.dereference_steps == (
        "git distill verify file:TASK.md --role implementer  # identity re-check first",
        f"git show {'a' * 40}:docs/cli.md",
    )
    assert certificate.reception.granted_sources == ("docs/cli.md",)
    assert certificate.tool_version == __version__
    assert certificate.realization is Realization.LINT_FALLBACK
    assert certificate.coverage == ()  # ASCII text: every language the detectors read


def test_a_repaired_record_emits_resolutions_in_full_and_excisions_as_marks() -> None:
    certificate = _certificate(deltas=(RESOLUTION, EXCISION))
    assert certificate.outcome == "repaired"
    resolution, excision = emit_deltas((RESOLUTION, EXCISION))
    assert (resolution.location, resolution.added) == ("line 3, pass 1", ISSUE)
    assert (excision.location, excision.added) == ("line 5, pass 2", None)
    assert certificate.deltas == (resolution, excision)
    assert "as we said" not in repr(certificate)  # an excised segment never reaches the certificate


def test_premise_text_carries_its_record_and_deferral() -> None:
    assert premise_text(DecisionRecord(id="p", claim="We keep SQLite", line=2)) == "We keep SQLite"
    assert premise_text(DecisionRecord(id="p", claim="We keep SQLite", line=2, ledger_ref="docs/adr/3.md",
                                       deferral="the load test")) == (
        "We keep SQLite (record: docs/adr/3.md) [deferred until: the load test]")


def test_the_brief_quotes_the_certificate_under_its_author() -> None:
    premise = DecisionRecord(id="p", claim="We keep SQLite", line=2)
    lines = brief_lines(_certificate(deltas=(RESOLUTION,), premises=(premise,)))
    assert lines[0] == "Reception procedure for file:TASK.md (role: implementer)"
    assert lines[1].startswith(f"Written by {UNSIGNED_AUTHOR}:")
    assert "Activation: read file:TASK.md" in lines
    assert "  - make test" in lines
    assert "Stop when: the flag prints JSON" in lines
    assert f"  2. git show {'a' * 40}:docs/cli.md" in lines
    assert "  - We keep SQLite" in lines
    assert lines[-1] == "This record was repaired in place (1 change(s)) before certification."


def test_brief_text_escapes_control_characters_from_the_note() -> None:
    hostile = Contract(role="implementer", stop="done\x1b[2J\nrm -rf now")
    certificate = assemble(snapshot=SNAPSHOT, contract=hostile, edge=ActivationEdge(verb="read", locator="TASK.md"),
                           judgments=(), deltas=(), premises=(), verdict=VERDICT, issued_at="2026-01-02T03:04:05Z")
    text = brief_text(certificate)
    assert "\x1b" not in text
    assert "\nrm -rf now" not in text
    assert text.endswith("\n")


def test_author_and_rigor_words_say_what_stands_behind_a_certificate() -> None:
    assert author(None) == UNSIGNED_AUTHOR
    assert author("unsigned") == UNSIGNED_AUTHOR
    assert author("signed by a trusted key") == "the certificate's author (signed by a trusted key)"
    assert rigor_words("lint-fallback").startswith("checked by the built-in deterministic lint")
    assert rigor_words("something-else") == "unknown realization"
