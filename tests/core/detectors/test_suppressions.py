"""Inline suppressions cover exactly what docs/rules.md says: their own line (or the next one
for a comment alone on its line), a `distill: off` / `distill: on` range, and only the rules
they name; a comment naming an unknown rule id suppresses nothing and is reported (RD904)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import commit, distill, git

from diylisis.core.detectors import DetectSettings, detect_text
from diylisis.core.detectors.suppressions import ignored_lines


def _found(text: str) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    findings, suppressed = detect_text(text, None, DetectSettings())
    return sorted((f.rule_id, f.line) for f in findings), sorted((f.rule_id, f.line) for f in suppressed)


def test_an_ignore_for_one_rule_leaves_another_rules_finding_on_the_same_words() -> None:
    # UC703 (a ticked check) and UC701 (a pass claim) see overlapping words; suppressing UC703
    # used to take UC701's finding away too, unreported and unrecorded
    findings, suppressed = _found("Ship it\n\n<!-- distill: ignore UC703 -->\n- [x] Tests pass locally\n")
    assert (findings, suppressed) == ([("UC701", 4)], [("UC703", 4)])


def test_an_ignore_alone_on_its_line_covers_the_next_line_only() -> None:
    text = "Ship it\n\n<!-- distill: ignore UC701 -->\nAll tests pass.\nAll tests pass again.\n"
    assert _found(text) == ([("UC701", 5)], [("UC701", 4)])


def test_an_ignore_after_text_covers_its_own_line_only() -> None:
    text = "Ship it\n\nAll tests pass. <!-- distill: ignore UC701 -->\nAll tests pass again.\n"
    assert _found(text) == ([("UC701", 4)], [("UC701", 3)])


def test_an_unknown_rule_id_suppresses_nothing_and_is_reported() -> None:
    # a malformed id used to count as "no ids", which suppressed every rule on the line
    for comment in ("<!-- distill: ignore UC71 -->", "<!-- distill: ignore uc701 -->",
                    "<!-- distill: ignore pass-claim -->", "<!-- distill: ignroe UC701 -->"):
        findings, suppressed = _found(f"Ship it\n\nAll tests pass. {comment}\n")
        assert (findings, suppressed) == ([("RD904", 3), ("UC701", 3)], []), comment


def test_a_known_and_an_unknown_id_suppress_the_known_one_and_report_the_other() -> None:
    findings, suppressed = _found("Ship it\n\nAll tests pass. <!-- distill: ignore UC701, QQ123 -->\n")
    assert (findings, suppressed) == ([("RD904", 3)], [("UC701", 3)])


def test_off_and_on_cover_the_lines_between_them_and_their_own() -> None:
    text = ("Ship it\n\n"
            "<!-- distill: off -->\n"       # 3
            "All tests pass.\n"             # 4
            "Review round 3 is done.\n"     # 5
            "<!-- distill: on -->\n"        # 6
            "All tests pass.\n")            # 7
    assert _found(text) == ([("UC701", 7)], [("SI201", 5), ("UC701", 4)])


def test_off_with_ids_covers_only_those_rules_until_on() -> None:
    text = ("Ship it\n\n<!-- distill: off UC701 -->\nAll tests pass.\nReview round 3 is done.\n"
            "<!-- distill: on UC701 -->\nAll tests pass.\n")
    assert _found(text) == ([("SI201", 5), ("UC701", 7)], [("UC701", 4)])


def test_off_without_on_runs_to_the_end_and_bad_ids_inside_are_still_reported() -> None:
    text = "Ship it\n\n<!-- distill: off -->\nAll tests pass.\n<!-- distill: ignore QQ123 -->\n"
    assert _found(text) == ([("RD904", 5)], [("UC701", 4)])


def test_ignored_lines_merges_a_bare_ignore_with_a_named_one_as_every_rule() -> None:
    lines = ignored_lines("<!-- distill: ignore -->\na <!-- distill: ignore DX101 -->\n")
    assert lines == {2: frozenset()}  # the bare comment wins: every rule, whatever the order


def test_scan_and_certify_record_what_the_range_suppressed(repo: Path) -> None:
    notes = ("# Notes\n\n<!-- distill: off -->\nAll tests pass.\nReview round 3 fixed the parser.\n"
             "<!-- distill: on -->\nThe parser now rejects empty input.\n")
    commit(repo, "Add the parser notes\n\nThe notes say what the parser rejects.\n", {"notes.md": notes})
    done = distill(repo, "scan", "notes.md", "--format", "json")
    (record,) = json.loads(done.stdout)["records"]
    assert done.returncode == 0, done.stderr
    assert record["findings"] == []
    assert sorted((f["rule"], f["line"]) for f in record["suppressed"]) == [("SI201", 5), ("UC701", 4)]
    done = distill(repo, "certify", "notes.md", "--role", "reviewer", "--no-input")
    assert done.returncode == 0, done.stdout + done.stderr
    blob = git(repo, "rev-parse", "HEAD:notes.md").strip()
    certificate = json.loads(git(repo, "notes", "--ref=distill", "show", blob).splitlines()[0])
    assert sorted(certificate["suppressions"]) == ["SI201 at line 5", "UC701 at line 4"]


def test_a_comment_shown_as_code_is_an_example_not_a_suppression() -> None:
    in_a_span = "Document the comments\n\nAll tests pass. Write `<!-- distill: ignore UC71 -->` after it.\n"
    assert _found(in_a_span) == ([("UC701", 3)], [])  # neither a suppression nor an RD904
    in_a_fence = "Document the comments\n\n```\n<!-- distill: off -->\n```\n\nAll tests pass.\n"
    assert _found(in_a_fence) == ([("UC701", 7)], [])
