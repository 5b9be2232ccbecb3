"""Result claims and review narration by their shape: a clause wrapped over two lines, a result
given as "without errors", a run claimed on CI, an audit that "revealed";
and what only looks like one: a program's output quoted, a button's label, a recipe to run."""

from __future__ import annotations

import pytest

from diylisis.core.detectors import DetectSettings, detect_text, is_blocking


def _blocking(text: str, *, markdown: bool = False) -> set[tuple[str, str]]:
    findings, _ = detect_text(text, None, DetectSettings(), markdown=markdown)
    return {(f.rule_id, f.token) for f in findings if is_blocking(f)}


def _rules(text: str, *, markdown: bool = False) -> set[str]:
    return {rule for rule, _ in _blocking(text, markdown=markdown)}


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("Moved the retry into the pool; the 18 pool tests\npass.", "tests\npass"),
        ("The new exporter and every parser test\npasses on the sample files.", "test\npasses"),
        ("The widget module compiles without errors.", "compiles without errors"),
        ("Docs build without any warnings now.", "build without any warnings"),
        ("- Dark mode checks pass at the 1024 px width", "checks pass"),
    ],
)
def test_a_result_clause_is_found_wrapped_or_worded_as_without(body: str, token: str) -> None:
    assert ("UC701", token) in _blocking(f"Rework the pool\n\n{body}\n")


@pytest.mark.parametrize(
    "body",
    [
        # a goal asked for, over a wrapped line
        "Now and then I need to verify that the nightly test suite\npasses for branches nobody pushed.",
        # a sentence that ends before the line the result word opens
        "Rework the parser tests.\nPasses through the flag to the linker.",
        # a list item does not wrap into the next one
        "- Rework the parser tests\n- pass the flag through to the linker",
        # a goal with "without"
        "Make sure the module compiles without errors on older compilers.",
        # a note of what was verified, not a goal: found by the rule, so no example here
    ],
)
def test_goals_and_separate_lines_are_no_result_claims(body: str) -> None:
    found = _blocking(f"Rework the pool\n\n{body}\n")
    assert "UC701" not in {rule for rule, _ in found}, found


def test_a_bare_verify_note_still_reports_the_checks() -> None:
    assert ("UC701", "checks pass") in _blocking("Bump the version\n\nverify 41 static checks pass (no warn/fail)\n")


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("I tested the change on the project's CI.", "I tested the change on the project's CI"),
        ("We verified the fix in CI before tagging.", "We verified the fix in CI"),
    ],
)
def test_a_run_on_ci_with_no_link_is_a_claim(body: str, token: str) -> None:
    assert ("UC701", token) in _blocking(f"Bump the runner image\n\n{body}\n")


@pytest.mark.parametrize(
    "body",
    [
        "I tested the change on CI: https://ci.example.org/runs/77",  # the run, linked
        "The trailer is also checked via CI.",  # what CI does
        "The parser is tested on CI with every push.",  # how the project tests, not a run
        "Now also tested in CI on every platform.",  # coverage the change adds
    ],
)
def test_ci_runs_linked_or_described_are_not_claims(body: str) -> None:
    assert "UC701" not in _rules(f"Bump the runner image\n\n{body}\n")


def test_a_check_that_points_at_its_evidence_on_the_host_is_backed() -> None:
    text = ("Fix the cache cycle\n\nWeak references break the cycle. Also confirmed with a profiler, see the\n"
            "screenshots attached to #88.\n")
    assert "UC702" not in _rules(text), _blocking(text)


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("A full audit revealed two more callers with the same bug.", "audit revealed"),
        ("Second-pass review of the patch caught a leaked handle.", "review of the patch caught"),
    ],
)
def test_a_review_or_audit_that_found_something_is_narrated(body: str, token: str) -> None:
    assert ("NP601", token) in _blocking(f"Close the handle on error\n\n{body}\n")


def test_a_check_verified_empirically_is_a_claim() -> None:
    text = "Order the flags\n\nThe parser keeps the last flag (verified empirically against version 2.3).\n"
    assert ("UC701", "verified empirically") in _blocking(text)


@pytest.mark.parametrize("markdown", [False, True])
@pytest.mark.parametrize(
    "intro",
    ["The command now prints a summary like this:", "Example output:", "With the flag the report reads like:"],
)
def test_a_status_fence_introduced_as_the_programs_output_is_quoted(intro: str, markdown: bool) -> None:
    text = f"Add a summary to the doctor command\n\n{intro}\n\n```\nCache: ✅ healthy\n- Index: 3/3 shards\n```\n"
    assert "UC701" not in _rules(text, markdown=markdown), _blocking(text, markdown=markdown)


@pytest.mark.parametrize("markdown", [False, True])
def test_a_status_fence_introduced_as_the_state_after_the_change_is_a_claim(markdown: bool) -> None:
    text = "Add a summary to the doctor command\n\nState after the change:\n\n```\nBuild: ✅ passing\n```\n"
    assert "UC701" in _rules(text, markdown=markdown)


@pytest.mark.parametrize(
    "body",
    [
        "The reporter ends with `✓ 12 passed` when every case holds.",
        "On success it prints `All checks passed` and exits 0.",
    ],
)
def test_a_pass_phrase_quoted_as_what_the_program_prints_is_no_claim(body: str) -> None:
    assert "UC701" not in _rules(f"Add a summary line\n\n{body}\n")


@pytest.mark.parametrize(
    "body",
    [
        "The runner says `31 passed` on my laptop.",
        "The whole suite shows `all 140 tests passed` now.",
        "The log ends with `All 25 tests passed` on my machine.",
    ],
)
def test_a_pass_phrase_the_author_saw_in_their_own_run_is_still_a_claim(body: str) -> None:
    assert "UC701" in _rules(f"Add a summary line\n\n{body}\n")


@pytest.mark.parametrize(
    "link", ["http://10.0.0.7/report", "https://gist.github.com/someone/0a1b2c"]
)
def test_a_link_after_see_is_no_evidence_unless_it_is_a_ci_link(link: str) -> None:
    assert "UC701" in _rules(f"Fix the cache cycle\n\nAll tests pass, see {link} for details.\n")


def test_a_pass_phrase_in_code_without_an_output_verb_is_still_a_claim() -> None:
    assert "UC701" in _rules("Add a summary line\n\nRan the suite: `12 passed`.\n")


@pytest.mark.parametrize(
    "item",
    ["- [x] Verify button on the settings page", "- [x] Confirm dialog before deleting a project"],
)
def test_a_ticked_ui_label_is_no_check(item: str) -> None:
    assert "UC703" not in _rules(f"Add the account page\n\n## Changes\n{item}\n", markdown=True)


def test_a_ticked_check_of_a_button_is_still_a_check() -> None:
    assert "UC703" in _rules("Add the account page\n\n## Test plan\n- [x] Verify the button saves the form\n")


@pytest.mark.parametrize("line", ["Tested: run `make check` before pushing.", "Verified: use `npm test -- --ci`."])
def test_a_check_label_giving_a_command_to_run_is_an_instruction(line: str) -> None:
    assert "UC702" not in _rules(f"Add a pre-push note\n\n{line}\n")


def test_a_check_label_with_a_result_after_its_command_is_a_claim() -> None:
    assert "UC702" in _rules("Add a pre-push note\n\nTested: run `make check`, all green.\n")


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("Compiled the shim for the release job (Codex + /frame checker).", "(Codex + /frame"),
        ("Checked the wording via /ground before sending.", "via /ground"),
    ],
)
def test_an_agents_slash_command_is_a_private_tool_run(body: str, token: str) -> None:
    assert ("NP601", token) in _blocking(f"Reword the guide\n\n{body}\n")


@pytest.mark.parametrize("flag", ["`/O2`", "`/utf-8`", "`/W4`"])
def test_a_compiler_flag_after_with_is_no_slash_command(flag: str) -> None:
    assert "NP601" not in _rules(f"Build the shim on Windows\n\nCompile it with {flag} under MSVC.\n")


def test_a_check_done_in_a_later_commit_of_the_series_names_where() -> None:
    assert "UC702" not in _rules("Add the flag parser\n\nTested in a following commit.\n")


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("Reworded the guide after a discussion with Ana.", "a discussion with Ana"),
        ("We discussed this in standup and kept the flag.", "discussed this in standup"),
        ("Discussed with the team on Slack; the flag stays.", "Discussed with the team on Slack"),
        ("Per Claude's suggestion, the cache is keyed by user.", "Claude's suggestion"),
        ("After reviewing with Codex, the pool uses a queue.", "reviewing with Codex"),
        ("Addressed the comments from the review agents.", "Addressed the comments from the review agents"),
        ("Three parallel agents reviewed the patch.", "Three parallel agents reviewed"),
        ("The fix was verified in production last night.", "verified in production"),
    ],
)
def test_narration_of_chats_agents_and_environments(body: str, token: str) -> None:
    found = _blocking(f"Keep the flag\n\n{body}\n")
    assert any(token == found_token for _, found_token in found), found


@pytest.mark.parametrize(
    "body",
    [
        "After a discussion with Ana on the list, the option is renamed.",  # public: the list
        "Re-sync with Git 2.51 and keep the old name.",  # a version, not a talk
        "Add support for Copilot's suggestion panel.",  # a feature named
        "Check that the Claude Code review workflow runs on forks.",  # a workflow named
        "Comments from the review agent are now threaded.",  # what the product does
        "The review agent finds stale imports and posts them.",  # present tense: behaviour
    ],
)
def test_public_talks_and_features_are_no_narration(body: str) -> None:
    found = _blocking(f"Keep the flag\n\n{body}\n")
    assert not {rule for rule, _ in found} & {"NP601", "NP602"}, found


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("All green on my machine.", "green on my machine"),
        ("It works as expected in my testing.", "works as expected in my testing"),
        ("Ran the full suite: everything passes.", "suite: everything passes"),
        ("Lint and typecheck are clean.", "typecheck are clean"),
        ("Coverage is now 94%.", "Coverage is now 94%"),
        ("No TypeScript errors.", "No TypeScript errors"),
    ],
)
def test_more_result_claims_by_shape(body: str, token: str) -> None:
    found = _blocking(f"Fix the dialog\n\n{body}\n")
    assert any(token == found_token for _, found_token in found), found


@pytest.mark.parametrize(
    "body",
    [
        "No errors are reported when the file is missing.",
        "The suite passes the config to each test.",
        "The cache works fine in our tests only because entries never expire.",
        "If the build fails, no warnings are shown.",
    ],
)
def test_descriptions_of_behaviour_are_no_result_claims(body: str) -> None:
    assert "UC701" not in _rules(f"Fix the dialog\n\n{body}\n")


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("As we talked about, the flag stays.", "As we talked about"),
        ("Per your suggestion, the flag stays.", "Per your suggestion"),
        ("Following up on yesterday's conversation, the flag stays.", "Following up on yesterday's conversation"),
    ],
)
def test_pointers_to_a_conversation(body: str, token: str) -> None:
    assert ("DX102", token) in _blocking(f"Keep the flag\n\n{body}\n")
