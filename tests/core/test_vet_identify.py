"""identify and Patterns A-D on the vet fixture, through the use case that measures from git."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diylisis.app import vet
from diylisis.core.errors import BadInput, GitError
from diylisis.core.vet import patterns
from diylisis.core.vet.model import Antithesis, Pattern, Suspicion
from tests.conftest import distill, git
from tests.vet_fixture import BOTTLENECK_CLAIM, TIMEOUT_CLAIM, build, commit_at

MERGE = vet.VetRequest(action="merge feature/retry", range="main..feature/retry")


def _by_thesis(formed: vet.Formed) -> dict[str, Antithesis]:
    return {a.thesis: a for a in formed.antitheses}


def test_the_fixture_surfaces_a_pattern_c_challenge_with_both_lines_leverage_and_commit(repo: Path) -> None:
    fixture = build(repo)
    assert fixture.raised is not None
    formed = vet.form(repo, MERGE)
    # the range's one commit message, pinned by the commit's id, and the doc its line cites
    assert [s.path for s in formed.sources] == [f"commit:{fixture.tip}", "docs/design.md"]
    timeout = _by_thesis(formed)[TIMEOUT_CLAIM.strip()]
    assert timeout.pattern is Pattern.CROSS_SOURCE_CONSISTENCY
    assert "src/cache.py:1 TIMEOUT = 60" in timeout.antithesis
    assert "config/cache.toml:2 timeout = 60" in timeout.antithesis
    assert "5 files rest on docs/design.md" in timeout.antithesis
    assert fixture.raised[:7] in timeout.antithesis
    assert timeout.evidence[0] == f'docs/design.md:3 "{TIMEOUT_CLAIM}"'
    assert any(e.startswith(f'commit {fixture.raised[:7]} "Raise the cache timeout') for e in timeout.evidence)
    assert any(b.startswith("git log -GTIMEOUT") for b in timeout.basis)
    audit = next(a for a in formed.audits if a.id == timeout.audit)
    assert audit.stake.reads == ("src/retry.py:3",)
    assert audit.tags.leverage.downstream_count == 5
    assert audit.claim.referent in {"src/cache.py:TIMEOUT", "config/cache.toml:[cache].timeout"}
    # the span is a byte substring of the pinned blob at the named line and columns
    line = audit.source.text.split("\n")[audit.claim.line - 1].encode()
    assert line[audit.claim.column_start - 1:audit.claim.column_end].decode() == audit.claim.text
    # no "4 ms" evidence on the timeout audit
    assert not any("4 ms" in e for e in timeout.evidence)


def test_the_range_commit_messages_are_sources_read_by_the_action(repo: Path) -> None:
    fixture = build(repo)
    commit_at(repo, "2024-03-08", "Retry twice\n\nThe retry budget never exceeds the TIMEOUT in src/cache.py.",
              {"src/retry.py": "BUDGET = 2\n"})
    tip = git(repo, "rev-parse", "HEAD").strip()
    formed = vet.form(repo, MERGE)
    messages = [s for s in formed.sources if s.path.startswith("commit:")]
    assert [(s.locator, s.blob) for s in messages] == [(f"commit:{c}", c) for c in sorted((tip, fixture.tip))]
    newest = next(s for s in messages if s.blob == tip)
    assert newest.text == "Retry twice\n\nThe retry budget never exceeds the TIMEOUT in src/cache.py.\n"
    assert newest.id == f"commit:{tip}@{tip}" and newest.origin.value == "PastSession"
    # its claim is read by the merge and measured from the commit itself: a standing rule, no lag
    audit = next(a for a in formed.audits if a.source.blob == tip)
    assert audit.claim.line == 3 and audit.stake.reads == ("a commit of the range main..feature/retry",)
    assert Suspicion.INFERENCE in audit.suspicions
    assert audit.tags.freshness.written_by == tip and audit.tags.freshness.lag == ()
    assert audit.tags.freshness.basis[0] == f"git show -s {tip[:12]}"


def test_a_later_change_to_what_a_message_names_is_its_lag(repo: Path) -> None:
    fixture = build(repo)
    said = commit_at(repo, "2024-03-08", "Keep the timeout\n\nTIMEOUT in src/cache.py stays where it is.",
                     {"src/retry.py": "BUDGET = 2\n"})
    raised = commit_at(repo, "2024-03-09", "Raise it again", {"src/cache.py": "TIMEOUT = 90\n"})
    formed = vet.form(repo, vet.VetRequest(action="merge", range=f"{fixture.tip}..HEAD"))
    audit = next(a for a in formed.audits if a.source.blob == said)
    assert [(c.commit, c.path, c.token) for c in audit.tags.freshness.lag] == [(raised, "src/cache.py", "TIMEOUT")]


def test_a_commit_message_can_be_named_as_a_source(repo: Path) -> None:
    fixture = build(repo)
    pinned = vet.pin_all(repo, vet.VetRequest(action="hand off", sources=("commit:HEAD",)))
    assert [s.locator for s in pinned.sources] == [f"commit:{fixture.tip}"]
    assert pinned.reads == ((f"commit:{fixture.tip}", (f"named with --source commit:{fixture.tip}",)),)
    with pytest.raises(GitError, match="no such revision"):
        vet.pin_all(repo, vet.VetRequest(action="hand off", sources=(f"commit:{fixture.tip}:src/retry.py",)))


def test_a_record_is_read_where_it_names_a_path_the_range_changes(repo: Path) -> None:
    build(repo)
    commit_at(repo, "2024-03-08", "Write the ops notes",
              {"docs/ops.md": "# Ops\n\nRetries in src/retry.py never exceed two.\n\nThe cache is always warm.\n"})
    formed = vet.form(repo, MERGE)
    ops = [a for a in formed.audits if a.source.path == "docs/ops.md"]
    assert [(a.claim.line, a.stake.reads) for a in ops] == [(3, ("the range changes src/retry.py",))]
    _, settled = vet.formation(repo, vet.pin_all(repo, MERGE))
    unread = next(c for c in settled if c.source.path == "docs/ops.md")
    assert unread.claim.line == 5 and unread.basis == "none: the action does not read docs/ops.md"


def test_a_source_has_at_most_four_claims_asked_and_the_rest_say_why(repo: Path) -> None:
    build(repo)
    lines = [f"Step {n} in src/retry.py never retries more than {n} times." for n in range(1, 7)]
    commit_at(repo, "2024-03-08", "Write the retry steps", {"docs/steps.md": "\n\n".join(lines) + "\n"})
    audits, settled = vet.formation(repo, vet.pin_all(repo, MERGE))
    asked = [a.claim.line for a in audits if a.source.path == "docs/steps.md"]
    beyond = [c for c in settled if c.source.path == "docs/steps.md"]
    assert asked == [1, 3, 5, 7] and [c.claim.line for c in beyond] == [9, 11]
    assert beyond[0].basis == ("several claims standing: the action reads 6 suspect claims of docs/steps.md;"
                               " vet asks the 4 strongest of a source, and this one is not among them")
    # the paused JSON states the cap beside the open items
    done = distill(repo, "vet", "--action", "merge", "--range", "main..feature/retry", "--no-input", "--format", "json")
    assert done.returncode == 3, done.stderr
    paused = json.loads(done.stdout)
    # (the first batch of four: the design doc's two claims, then the first two steps)
    assert [i["line"] for i in paused["items"] if i["source"] == "docs/steps.md"] == [1, 3]
    assert f"unattributable: docs/steps.md:9: {beyond[0].basis}" in paused["messages"]


def test_a_source_pinned_at_a_longer_revision_is_measured_where_it_has_lines(repo: Path) -> None:
    build(repo)
    longer = git(repo, "show", "HEAD:docs/design.md") + "\nRetries never exceed the TIMEOUT in src/cache.py.\n"
    added = commit_at(repo, "2024-03-08", "Add a retry rule", {"docs/design.md": longer})
    formed = vet.form(repo, vet.VetRequest(action="hand off", sources=("docs/design.md@HEAD",), at="HEAD~1"))
    rule = next(a for a in formed.audits if a.claim.text.startswith("Retries never"))
    # the line is not there at the vetted commit: its age is that commit's, not a blame's
    assert rule.tags.freshness.written_by != added and rule.source.blob == git(repo, "rev-parse",
                                                                              "HEAD:docs/design.md").strip()


def test_the_bottleneck_claim_gets_pattern_d(repo: Path) -> None:
    build(repo)
    bottleneck = _by_thesis(vet.form(repo, MERGE))[BOTTLENECK_CLAIM]
    assert bottleneck.pattern is Pattern.INFERENCE_FALLACY_AUDIT
    assert "5 files cite docs/design.md" in bottleneck.evidence[0]


def test_a_sixth_citing_file_moves_the_count_to_six(repo: Path) -> None:
    build(repo, extra_citing=1)
    timeout = _by_thesis(vet.form(repo, MERGE))[TIMEOUT_CLAIM]
    assert "6 files rest on docs/design.md" in timeout.antithesis


def test_code_at_thirty_turns_the_challenge_to_pattern_a(repo: Path) -> None:
    fixture = build(repo)
    assert fixture.raised is not None
    git(repo, "revert", "--no-edit", fixture.raised)
    formed = vet.form(repo, MERGE)
    timeout = _by_thesis(formed)[TIMEOUT_CLAIM]
    assert timeout.pattern is Pattern.PROVENANCE_AUDIT
    assert "No test or CI step names `TIMEOUT`" in timeout.antithesis
    audit = next(a for a in formed.audits if a.id == timeout.audit)
    assert audit.suspicions == (Suspicion.UNENFORCED,)  # no lag, no pair
    assert audit.tags.freshness.lag == ()


def test_built_without_the_raise_there_is_no_lag_and_no_pair(repo: Path) -> None:
    build(repo, raise_timeout=False)
    formed = vet.form(repo, MERGE)
    audit = next(a for a in formed.audits if a.claim.text == TIMEOUT_CLAIM)
    assert audit.facts.contradictions == () and audit.tags.freshness.lag == ()


def test_a_source_the_action_does_not_read_forms_no_audit(repo: Path) -> None:
    build(repo)
    commit_at(repo, "2024-03-08", "Add an unrelated doc", {"docs/other.md": "Nothing here names the cache.\n"})
    formed = vet.form(repo, vet.VetRequest(action="merge", range="main..feature/retry", sources=()))
    assert {a.source.path for a in formed.audits} == {"docs/design.md"}


def test_missing_action_and_a_dirty_source_are_refused(repo: Path) -> None:
    build(repo)
    with pytest.raises(BadInput, match="--action"):
        vet.form(repo, vet.VetRequest(action=" ", range="main..feature/retry"))
    (repo / "docs" / "design.md").write_text("edited\n", encoding="utf-8")
    with pytest.raises(BadInput, match="uncommitted changes"):
        vet.form(repo, vet.VetRequest(action="deploy", sources=("docs/design.md",)))


def test_the_validator_refuses_a_canned_question() -> None:
    canned = Antithesis(audit="a-0", index=1, pattern=Pattern.PROVENANCE_AUDIT, thesis="X holds.",
                        antithesis="Have you checked X?", evidence=("src/x.py:1 X = 1",), basis=("git grep X",))
    with pytest.raises(patterns.InvalidAntithesis):
        patterns.validate(canned)
    factless = Antithesis(audit="a-0", index=1, pattern=Pattern.PROVENANCE_AUDIT, thesis="X holds.",
                          antithesis="Is X right?", evidence=('docs/x.md:1 "X holds."',), basis=("git grep X",))
    with pytest.raises(patterns.InvalidAntithesis):
        patterns.validate(factless)
