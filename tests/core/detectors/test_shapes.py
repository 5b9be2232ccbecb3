"""Residue found by its shape, not by a listed phrase: result claims, narration, session words, keys, phases."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from diylisis.core.detectors import DetectSettings, detect_text, is_blocking
from diylisis.edges.gitio.context import PygitContext
from tests.conftest import commit, git


def _rules(text: str, context: object | None = None) -> set[tuple[str, str]]:
    findings, _ = detect_text(text, context, DetectSettings())
    return {(f.rule_id, f.token) for f in findings}


def _blocking(text: str, context: object | None = None) -> list[str]:
    findings, _ = detect_text(text, context, DetectSettings())
    return [f.rule_id for f in findings if is_blocking(f)]


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("Swift compilation: ✅ Passing", "compilation: ✅"),
        ("Schema migration regression OK.", "regression OK"),
        ("Unit and e2e tests passed.", "e2e tests passed"),
        ("Release build successful.", "build successful"),
        ("Style check passed (0 issues).", "Style check passed"),
        ("The crate now builds with zero warnings.", "builds with zero warnings"),
        ("Integration tests now pass successfully.", "tests now pass"),
        ("8/8 exporter regression", "8/8 exporter regression"),
        ("Nightly sweep 27/30.", "27/30"),
        ("Dry run 14/14.", "14/14"),
        ("- ✅ Importer validation", "✅ Importer validation"),
        ("- Offline install verified", "Offline install verified"),
        ("- Config migration confirmed.", "Config migration confirmed"),
        ("Shortcuts respond again (retry fix verified).", "retry fix verified"),
        ("- Ran `make check` for the CLI.", "Ran `make check`"),
    ],
)
def test_result_claims_are_found_by_their_shape(body: str, token: str) -> None:
    found = _rules(f"Rework the exporter\n\n{body}\n")
    assert ("UC701", token) in found, found


@pytest.mark.parametrize(
    "body",
    [
        "Make the tests pass on Windows.",
        "CI stays red until the tests pass.",
        "The fixture no longer passes.",
        "The test passes a NULL pointer to the callback.",
        "Every time I ran it the test passed, but the live site still crashed.",
        "Add netrc tests for http 401/403.",
        "All 12/12 tasks of the milestone are merged.",
        "Cut the budget to 1/2 and finish 3/4 of the queue.",
        "The `is_dir` check passes, and the loop goes on.",
        "The test result (success/failure) goes to the summary step.",
        "It reads check nouns (tests, build, CI) and result words (passed, OK).",
        "The fallback path was tested on Linux.",
        "Only lightly tested.",
        "Not yet verified.",
        "So that the parser works correctly, strip the marker.",
        "The loader ran into a wall when `make` ran twice.",
    ],
)
def test_goals_conditions_objects_and_stories_are_not_result_claims(body: str) -> None:
    found = _rules(f"Rework the exporter\n\n{body}\n")
    assert not {rule for rule, _ in found if rule == "UC701"}, found


def test_a_result_claim_with_output_after_it_is_evidenced() -> None:
    text = "Rework the exporter\n\nExporter regression OK:\n\n```\nok 1 - export\nok 2 - import\n```\n"
    assert "UC701" not in {rule for rule, _ in _rules(text)}


@pytest.mark.parametrize(
    ("body", "rule", "token"),
    [
        ("User requested swapping the parser for a streaming one.", "NP602", "User requested"),
        ("- User asked: can the cache be shared?", "NP602", "- User asked"),
        ("Keep the flag. User wanted it for one more release.", "NP602", "User wanted"),
        ("This came up in the call yesterday.", "NP602", "came up in the call"),
        ("The retry policy was worked through with Dana.", "NP602", "worked through with Dana"),
        ("Settled by a 4-agent review of the storage layer.", "NP601", "4-agent review"),
        ("An AI cross-check agreed with the fix.", "NP601", "AI cross-check"),
        ("Both agreed (Claude + Gemini) on the lock order.", "NP601", "(Claude + Gemini"),
        ("Folds in the team review feedback.", "NP601", "team review feedback"),
        ("Also covers the codex findings on timeouts.", "NP601", "codex findings"),
        ("Let me run the parser once more.", "NP601", "Let me run"),
        ("Subagent verification: each probe maps to a fixture.", "NP601", "Subagent verification"),
        ("Adds the retry budget with oracle review fixes.", "NP601", "oracle review fixes"),
        ("Self-review follow-ups on the lock order.", "NP601", "Self-review follow-ups"),
        ("Rename the flag\n[Request interrupted by user]\nKeep the old one.", "NP602", "[Request interrupted by user]"),
        ("ユーザー依頼: 一覧の並び順を直してほしい", "NP602", "ユーザー依頼:"),
        ("Applies the changes you've outlined.", "DX102", "the changes you've outlined"),
    ],
)
def test_narration_is_found_by_its_shape(body: str, rule: str, token: str) -> None:
    found = _rules(f"Tighten the cache\n\n{body}\n")
    assert (rule, token) in found, found


@pytest.mark.parametrize(
    "body",
    [
        "Return the bytes the user requested.",
        "When the user asked for help, print the usage.",
        "Several users reported a crash on start-up.",
        "From user feedback: the example was confusing.",
        "The subagent now reports its exit code to the parent.",
        "Document how to self-review a patch before sending it.",
        "Print [Request cancelled] when the user presses Ctrl-C.",
        "ユーザーの一覧を表示する",
        "This follows a discussion on IRC with the maintainers, summed up in issue 412.",
    ],
)
def test_program_behaviour_and_public_feedback_are_not_narration(body: str) -> None:
    found = _rules(f"Tighten the cache\n\n{body}\n")
    assert not {rule for rule, _ in found if rule in ("NP601", "NP602")}, found


@pytest.mark.parametrize(
    ("body", "rule", "token"),
    [
        ("Picks up what the prior session left open.", "DX101", "the prior session"),
        ("End-of-session cleanup of the scratch files.", "DX101", "End-of-session"),
        ("Drafted in a late-night session.", "DX101", "late-night session"),
        ("Drafted in an overnight cache-tuning session.", "DX101", "overnight cache-tuning session"),
        ("See ~/.codex/work/memory/locks.md for the details.", "EP503", "~/.codex/work/memory/locks.md"),
        ("Follows [[feedback_lock_order]].", "EP503", "[[feedback_lock_order]]"),
        ("Rules in memory_lock_order_notes.md apply.", "EP503", "memory_lock_order_notes.md"),
        ("Grounded in `feedback_lock_order_hazard.md`.", "EP503", "feedback_lock_order_hazard.md"),
    ],
)
def test_session_words_and_memory_pointers(body: str, rule: str, token: str) -> None:
    found = _rules(f"Order the locks\n\n{body}\n")
    assert (rule, token) in found, found


def test_an_agent_tool_directory_named_as_vocabulary_is_not_a_memory_pointer() -> None:
    found = _rules("Read usage logs\n\nParse the JSONL files under ~/.claude/projects/ for token counts.\n")
    assert "EP503" not in {rule for rule, _ in found}, found


def test_tracker_keys_of_other_shapes_block_and_versions_do_not() -> None:
    text = "Split the importer\n\nCloses qx-k3m9.4 and tracks flow-pz7qa.\n"
    found = _rules(text)
    assert ("SI206", "qx-k3m9.4") in found and ("SI206", "flow-pz7qa") in found, found
    assert "SI206" in _blocking(text)
    quiet = _rules("Pass -fno-common\n\nWhen ld -v reports ld-1167 or newer, and for gcc-rs too.\n")
    assert "SI206" not in {rule for rule, _ in quiet}, quiet
    public = _rules("Add task metadata\n\nStores the field that SEP-1686 and KEP-2340 describe.\n")
    assert "SI206" not in {rule for rule, _ in public}, public


@pytest.fixture
def repo_context(tmp_path: Path) -> PygitContext:
    git(tmp_path, "init", "-q", "-b", "main")
    commit(tmp_path, "Add the exporter", {"src/export.py": "def export():\n    return 1\n"})
    return PygitContext(pygit2.Repository(str(tmp_path)), "HEAD")


def test_letters_only_after_a_four_letter_word_are_no_tracker_key(repo_context: PygitContext) -> None:
    quiet = _rules("Run the formatter\n\nUse rust-fmt here, and tikv-xxx stands for any crate.\n", repo_context)
    assert "SI206" not in {rule for rule, _ in quiet}, quiet
    found = _rules("Split the importer\n\nTracks flow-pz7qa and qx-kzt.\n", repo_context)
    assert ("SI206", "flow-pz7qa") in found and ("SI206", "qx-kzt") in found, found


def test_a_lone_phase_subject_defines_nothing(repo_context: PygitContext) -> None:
    found = _rules("Phase 3b: stream the rows\n\nWrite rows as they come.\n", repo_context)
    assert ("SI204", "Phase 3b") in found, found


def test_a_record_that_lays_out_its_phases_defines_them(repo_context: PygitContext) -> None:
    text = "Plan the exporter\n\nPhase 1: read rows\nPhase 2: stream rows\n\nThis commit does Phase 1.\n"
    assert "SI204" not in {rule for rule, _ in _rules(text, repo_context)}


SIGNED = "Signed-off-by: A U Thor <author@example.org>"


def test_a_private_key_in_a_reference_trailer_is_read() -> None:
    text = f"Split the importer\n\nRows are read lazily now.\n\nCloses: qx-k3m9a\n{SIGNED}\n"
    assert ("SI206", "qx-k3m9a") in _rules(text)


def test_a_host_issue_in_a_reference_trailer_does_not_block() -> None:
    text = f"Split the importer\n\nRows are read lazily now.\n\nFixes: #12\n{SIGNED}\n"
    assert _blocking(text, _host()) == []


def test_credit_trailers_stay_masked() -> None:
    text = f"Split the importer\n\nRows are read lazily now.\n\nCo-authored-by: Codex <codex@example.org>\n{SIGNED}\n"
    assert _rules(text) == set()


def _host() -> object:
    from diylisis.edges.gitio.context import HostContext

    return HostContext("github.com", "example", "importer")


def test_x_of_y_compounds_are_established_english(repo_context: PygitContext) -> None:
    found = _rules("Cache by hour\n\nKey the cache by time-of-day and drop out-of-date rows.\n", repo_context)
    assert "CT801" not in {rule for rule, _ in found}, found


def test_a_named_agent_re_review_is_narration_and_a_generic_one_is_not() -> None:
    assert ("NP601", "gemini re-review") in _rules("Guard the cache\n\nA gemini re-review flagged the race.\n")
    assert "NP601" not in {r for r, _ in _rules("Guard the cache\n\nThe rule reads an agent's re-review.\n")}



def test_another_projects_issue_by_number_alone_is_a_bare_reference() -> None:
    text = "Relax the cache key\n\nThe same crash as uvloop issue 4821 describes.\n"
    assert ("RF301", "uvloop issue 4821") in _rules(text) and "RF301" in _blocking(text)
    near = _rules("Tidy the docs\n\nThis issue 4821 and the known issue 12 were fixed while reading issue 300.\n")
    assert "RF301" not in {rule for rule, _ in near}, near
