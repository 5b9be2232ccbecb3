"""Shapes of residue that recur across sources the rules were not written on: measured results,
evidence nouns, chat venues, hearsay, private environments, agent slash commands, cited keys."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from diylisis.core.detectors import DetectSettings, detect_text, is_blocking
from diylisis.edges.gitio.context import PygitContext
from tests.conftest import commit, git


def _blocking(text: str, context: object | None = None) -> set[tuple[str, str]]:
    findings, _ = detect_text(text, context, DetectSettings())
    return {(f.rule_id, f.token) for f in findings if is_blocking(f)}


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("On my laptop this gives a ~35% improvement in startup time.", "~35% improvement"),
        ("The index loads about 3x faster locally.", "about 3x faster"),
        ("In my tests, the rewrite cut memory use by 40%.", "cut memory use by 40%"),
    ],
)
def test_a_ratio_measured_on_the_authors_machine_is_a_claim(body: str, token: str) -> None:
    assert ("UC701", token) in _blocking(f"Rework the loader\n\n{body}\n")


@pytest.mark.parametrize(
    "body",
    [
        # no machine of the author's: careful histories state such ratios with a rerunnable setup
        "This drops the time to load a large index by 12%.",
        # a goal, an estimate, a condition
        "On my laptop it should be about 3x faster once the cache lands.",
        "Estimates a 30% improvement locally from dropping the polling loop.",
        # introduced by the benchmark that measured it
        "Benchmark (one thread, my laptop, the kernel tree):\n- cold: ~16% faster\n- warm: ~31% faster",
        # a design, not a measurement
        "Grow the buffer by 50% each time it fills on my machine.",
    ],
)
def test_ratios_that_are_not_private_measurements_are_left_alone(body: str) -> None:
    found = _blocking(f"Rework the loader\n\n{body}\n")
    assert not {rule for rule, _ in found} & {"UC701"}, found


@pytest.mark.parametrize(
    ("body", "rule", "token"),
    [
        ("Production data showed two rows per call.", "UC701", "Production data showed"),
        ("- Load testing shows no change in latency", "UC701", "Load testing shows"),
        ("The importer itself works flawlessly.", "UC701", "works flawlessly"),
        ("Renamed after discussions on Matrix.", "NP602", "discussions on Matrix"),
        ("This was reported on IRC last week.", "NP602", "was reported on IRC"),
        ("We have heard complaints about the slow start.", "NP602", "We have heard complaints about"),
        ("I restarted the workers on staging servers to drain the queue.", "NP601",
         "restarted the workers on staging servers"),
        ("Checked against the style guide via /lint-docs before sending.", "NP601", "via /lint-docs"),
        ("The rewritten index gives noticeably better responsiveness.", "UC701",
         "gives noticeably better responsiveness"),
        ("- Manual test on a Pixel emulator (API 31).", "UC701", "Manual test on"),
        ("Checked the totals against local billing logs.", "UC701", "against local billing logs"),
        ("The regenerated changelog looks perfect.", "UC701", "looks perfect"),
        ("This should address the concerns about the lock order.", "DX102", "address the concerns"),
        ("Found while running `/sweep --all` on the docs.", "NP601", "running `/sweep"),
        ("Agreed on the wording (Claude + /style-check).", "NP601", "(Claude + /style-check"),
        ("Review of the cache rewrite turned up two races.", "NP601", "Review of the cache rewrite turned up"),
        ("- User approved the new layout", "NP602", "- User approved"),
        ("The sync worker is now fully operational.", "UC701", "is now fully operational"),
        ("Four known failures remain in the UI suite.", "UC701", "Four known failures"),
    ],
)
def test_private_results_and_narration_are_found_by_their_shape(body: str, rule: str, token: str) -> None:
    assert (rule, token) in _blocking(f"Tidy the importer\n\n{body}\n")


@pytest.mark.parametrize(
    "body",
    [
        "The data shows up in the side panel again.",
        "After a discussion on IRC and in several issues, the old helper goes.",
        "This follows a chat on Slack. For the details, see the pull request.",
        "Read the limits via /proc and write logs via /dev/null.",
        "Show a running/pending badge and build with `/usr/bin/env`.",
        "Tested on staging: see https://ci.example.org/runs/42 for the run.",
        "This addresses the comments on the pull request about the lock order.",
    ],
)
def test_public_or_described_things_are_not_narration(body: str) -> None:
    found = _blocking(f"Tidy the importer\n\n{body}\n")
    assert not {rule for rule, _ in found} & {"UC701", "NP601", "NP602", "DX102"}, found


def _context_of_change(tmp_path: Path, files: dict[str, str]) -> PygitContext:
    git(tmp_path, "init", "-q", "-b", "main")
    commit(tmp_path, "Add the slots", {"src/slots.py": "SLOTS = ()\n"})
    commit(tmp_path, "Name the slots", files)
    return PygitContext(pygit2.Repository(str(tmp_path)), "HEAD")


def test_a_key_the_change_cites_in_a_code_comment_is_still_a_key(tmp_path: Path) -> None:
    context = _context_of_change(tmp_path, {"src/slots.py": "# slot names for agents (qz-k4vw9)\nSLOTS = ('a',)\n"})
    found = _blocking("Name the agent slots (qz-k4vw9)\n\nEach agent gets one slot.\n", context)
    assert ("SI206", "qz-k4vw9") in found, found


def test_a_key_a_committed_tracker_export_holds_is_defined(tmp_path: Path) -> None:
    export = '{"id":"qz-k4vw9","title":"Name the agent slots"}\n'
    context = _context_of_change(
        tmp_path,
        {"src/slots.py": "# slot names for agents (qz-k4vw9)\nSLOTS = ('a',)\n", ".tracker/issues.jsonl": export},
    )
    found = _blocking("Name the agent slots (qz-k4vw9)\n\nEach agent gets one slot.\n", context)
    assert "SI206" not in {rule for rule, _ in found}, found


def test_review_talk_in_a_squash_merged_pull_request_is_its_public_review() -> None:
    public = _blocking("Sort the catalog (#812)\n\nDrop the unused field flagged during review.\n")
    assert "NP601" not in {rule for rule, _ in public}, public
    private = _blocking("Sort the catalog (#812)\n\nDrop the unused field flagged during the agent review.\n")
    assert "NP601" in {rule for rule, _ in private}, private
    unmerged = _blocking("Sort the catalog\n\nDrop the unused field flagged during the codex review.\n")
    assert "NP601" in {rule for rule, _ in unmerged}, unmerged


def test_a_review_in_a_box_still_to_tick_is_a_to_do() -> None:
    todo = _blocking("Release steps\n\n- [ ] Independent review has no open findings.\n")
    assert "NP601" not in {rule for rule, _ in todo}, todo
    done = _blocking("Release steps\n\n- [x] Independent review has no open findings.\n")
    assert "NP601" in {rule for rule, _ in done}, done


@pytest.mark.parametrize(
    "body",
    [
        "The stray guard slipped in while debugging, and it was not caught in review.",
        "A separate audit to prove the counter can go would make a good clean-up.",
        "Fix two stale rows found during an audit of the option table.",
    ],
)
def test_a_review_negated_proposed_or_given_its_object_is_no_account(body: str) -> None:
    found = _blocking(f"Tidy the option table\n\n{body}\n")
    assert "NP601" not in {rule for rule, _ in found}, found


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("Fix two stale rows found during an audit.", "found during an audit"),
        ("Fix two stale rows found during a codex audit of the option table.", "found during a codex audit"),
        ("Layout per cross-vendor consult: keep the table, would be simpler.", "cross-vendor consult"),
    ],
)
def test_a_private_or_unrepeatable_review_is_still_narration(body: str, token: str) -> None:
    assert ("NP601", token) in _blocking(f"Tidy the option table\n\n{body}\n")


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("- Swap the tokenizer for a 12x speedup on long files", "12x speedup"),
        ("- Use the new parser for 7x faster loading (2.1s → 0.3s)", "7x faster"),
        ("Matching accuracy improved from 71.5% to 93.2% on the sample set.", "improved from 71.5% to 93.2%"),
    ],
)
def test_a_compared_ratio_with_no_recipe_beside_it_is_a_claim(body: str, token: str) -> None:
    assert ("UC701", token) in _blocking(f"Rework the loader\n\n{body}\n")


@pytest.mark.parametrize(
    "body",
    [
        # a command on the line: the reader reruns it
        "- `make bench-load` shows a 12x speedup on long files",
        # a benchmark named on the line before
        "Timing the loader with the bundled bench script:\nthe new parser is 7x faster on long files.",
        # a cost owned up to, not a boast
        "This makes lookups about 6% slower, which the smaller index pays for.",
        # a goal
        "The cache should give a 12x speedup once it is warm.",
    ],
)
def test_a_compared_ratio_beside_its_recipe_or_as_a_cost_is_left_alone(body: str) -> None:
    found = _blocking(f"Rework the loader\n\n{body}\n")
    assert not {rule for rule, _ in found} & {"UC701"}, found


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("The retry path (verified live) now waits for the lease.", "verified live"),
        ("Both exporters (tested manually) write the new header.", "tested manually"),
    ],
)
def test_a_parenthesized_check_with_nothing_it_was_checked_by_is_a_claim(body: str, token: str) -> None:
    assert ("UC701", token) in _blocking(f"Rework the loader\n\n{body}\n")


@pytest.mark.parametrize(
    "body",
    [
        # the test that checks it is named
        "The retry path (verified in t5512) now waits for the lease.",
        # a hedge
        "The retry path (not yet tested live) now waits for the lease.",
    ],
)
def test_a_parenthesized_check_that_names_its_test_or_hedges_is_left_alone(body: str) -> None:
    found = _blocking(f"Rework the loader\n\n{body}\n")
    assert not {rule for rule, _ in found} & {"UC701"}, found
