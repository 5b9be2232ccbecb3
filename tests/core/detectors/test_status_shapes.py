"""The author's own status lines wherever they stand (a fence, a table, a ticked box, a callout),
told apart from output pasted from a tool; and command recipes, which are not claims."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from diylisis.core.detectors import DetectSettings, detect_text, is_blocking
from diylisis.core.detectors.lexicon import lexicon_for
from diylisis.core.detectors.text import prepare
from diylisis.edges.gitio.context import PygitContext
from tests.conftest import commit


def _blocking(text: str, *, markdown: bool = False) -> set[tuple[str, str]]:
    findings, _ = detect_text(text, None, DetectSettings(), markdown=markdown)
    return {(f.rule_id, f.token) for f in findings if is_blocking(f)}


def _rules(text: str, *, markdown: bool = False) -> set[str]:
    return {rule for rule, _ in _blocking(text, markdown=markdown)}


@pytest.mark.parametrize("markdown", [False, True])
@pytest.mark.parametrize(
    "fence",
    [
        "```\nWidget build: ✅ Passing\nSchema check: 0 errors\n```",
        "```text\nBuild successful\n- 14 pages generated\n- Bundle size: 212kB\n```",
        "```\n- Docs build: green\n- Export smoke run OK\n```",
    ],
)
def test_a_fence_of_the_authors_status_lines_is_read_for_claims(fence: str, markdown: bool) -> None:
    text = f"Rework the exporter\n\nState after the change:\n\n{fence}\n"
    assert "UC701" in _rules(text, markdown=markdown), _blocking(text, markdown=markdown)


@pytest.mark.parametrize("markdown", [False, True])
@pytest.mark.parametrize(
    "fence",
    [
        # a runner's own report: a timing, a path, a prompt, log levels, aligned columns
        "```\ntest result: ok. 41 passed; 0 failed; finished in 0.82s\n```",
        "```\nPASS src/export/widget.test.ts\nTests: 12 passed, 12 total\n```",
        "```\n$ make check\nAll checks passed\n```",
        "```\n[INFO] Build success\n```",
        "```\nBuild    OK\nLint     OK\n```",
        # a language or a shell named: code, not status
        "```json\n{\"build\": \"passed\"}\n```",
        "```console\nBuild: passed\n```",
        # a bare phrase with nothing of an author's hand
        "```\nall checks passed\n```",
    ],
)
def test_a_fence_of_tool_output_stays_quoted_evidence(fence: str, markdown: bool) -> None:
    text = f"Rework the exporter\n\nThe run:\n\n{fence}\n"
    assert "UC701" not in _rules(text, markdown=markdown), _blocking(text, markdown=markdown)


def test_status_fence_lines_are_kept_out_of_prose_and_are_no_evidence() -> None:
    text = "Rework the exporter\n\nAll tests pass.\n```\n- Type check: clean\n```\n"
    prepared = prepare(text, lexicon_for(None), DetectSettings())
    assert "Type check" in prepared.claims and "Type check" not in prepared.prose
    assert prepared.status_lines == frozenset({4, 5, 6}) and not prepared.output_lines
    # the claim above the fence is not evidenced by it
    assert ("UC701", "All tests pass") in _blocking(text)


@pytest.mark.parametrize(
    ("row", "token"),
    [("| Parser regression | 12/12 |", "12/12"), ("| **Lint** | 3/3 |", "3/3")],
)
def test_a_count_of_runs_in_a_table_cell_is_a_claim(row: str, token: str) -> None:
    text = f"Rework the parser\n\n| Check | Result |\n|---|---|\n{row}\n"
    assert ("UC701", token) in _blocking(text)


@pytest.mark.parametrize("row", ["| Pages | 4/9 |", "| Widgets | 3/3 |", "| Open items | 2/5 |"])
def test_other_fractions_in_a_table_are_not_claims(row: str) -> None:
    text = f"Rework the parser\n\n| Item | Count |\n|---|---|\n{row}\n"
    assert "UC701" not in _rules(text)


@pytest.mark.parametrize(
    "item",
    [
        "- [x] Verify the guide is picked up by the agents",
        "- [x] Confirm documentation links work correctly",
        "- [x] **Checked that** the table renders on mobile",
        "- [x] Smoke-tested the export on a large file",
    ],
)
def test_a_ticked_check_verb_is_a_claim(item: str) -> None:
    assert "UC703" in _rules(f"Restructure the docs\n\n## Test plan\n{item}\n")


@pytest.mark.parametrize(
    "item",
    [
        "- [ ] Verify the guide is picked up by the agents",  # not ticked: a to-do
        "- [x] Verify step added to the release workflow",  # a thing added
        "- [x] Move the guide under docs/",  # no check verb
        "- [x] Confirmation dialog for deletes",  # a noun, not the verb
    ],
)
def test_other_ticked_items_are_not_check_claims(item: str) -> None:
    assert "UC703" not in _rules(f"Restructure the docs\n\n## Changes\n{item}\n")


@pytest.mark.parametrize(
    "line",
    [
        "Tested: npm run lint; npx vitest run src/widget.test.ts",
        "Tested: git diff --check",
        "Verified: `make check` and `make docs`",
        "Tested: ./scripts/smoke.sh",
    ],
)
def test_a_check_label_naming_its_commands_is_a_recipe(line: str) -> None:
    text = f"Rework the exporter\n\nKeep the old flag as an alias.\n\n{line}\nNot-tested: the full suite.\n"
    assert "UC702" not in _rules(text), _blocking(text)


@pytest.mark.parametrize("line", ["Tested: works on my phone", "Verified against the live server."])
def test_a_check_label_without_commands_is_still_a_claim(line: str) -> None:
    assert "UC702" in _rules(f"Rework the exporter\n\n{line}\n")


@pytest.mark.parametrize(
    "opening",
    ["> **Superseded 2024-03-02 (after the rewrite):** this plan", "> [!NOTE]\n> This plan"],
)
def test_a_callout_block_quote_is_the_authors_prose(opening: str) -> None:
    text = f"# Handoff\n\n{opening} was worked through with Priya and is closed.\n"
    assert "NP602" in _rules(text, markdown=True)


def test_a_quote_of_someone_else_stays_quoted() -> None:
    text = "# Handoff\n\n> This plan was worked through with Priya and is closed.\n"
    assert "NP602" not in _rules(text, markdown=True)


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("Self-review follow-up: the blank value also passed.", "Self-review follow-up"),
        ("Analyzed feedback from two Codex sessions on the draft.", "feedback from two Codex sessions"),
    ],
)
def test_private_reviews_of_other_shapes(body: str, token: str) -> None:
    assert ("NP601", token) in _blocking(f"Reject a blank directory (#41)\n\n{body}\n")


def test_a_review_named_on_a_squashed_pull_request_is_its_public_review() -> None:
    text = "Reject a blank directory (#41)\n\nFollow-up from review: the blank value also passed.\n"
    assert "NP601" not in _rules(text)


@pytest.mark.parametrize(
    "body",
    [
        "3. On every push, Claude reviews the diff for bugs and posts a comment.",
        "The agent reviews each pull request before the merge queue picks it up.",
    ],
)
def test_an_agent_reviewing_in_the_present_tense_describes_a_workflow(body: str) -> None:
    assert "NP601" not in _rules(f"Add the review workflow\n\n{body}\n")


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("Codex reviews found two races in the pool.", "Codex reviews"),
        ("Two items from Gemini reviews are addressed here.", "Gemini reviews"),
        ("Claude reviews: both nits fixed.", "Claude reviews"),
    ],
)
def test_agent_reviews_as_a_noun_are_still_narration(body: str, token: str) -> None:
    assert ("NP601", token) in _blocking(f"Fix the pool\n\n{body}\n")


def _tree_blocking(repo: Path, message: str, text: str, *, markdown: bool = False,
                   path: str | None = None) -> set[tuple[str, str]]:
    commit(repo, "Add the tool", {"src/tool.js": "export const a = 1;\n", "README.md": "tool\n"})
    sha = commit(repo, message, {"src/tool.js": "export const a = 2;\n"})
    context = PygitContext(pygit2.Repository(str(repo)), sha)
    findings, _ = detect_text(text, context, DetectSettings(), markdown=markdown, path=path)
    return {(f.rule_id, f.token) for f in findings if is_blocking(f)}


@pytest.mark.parametrize(
    "body",
    [
        "Run it as `node dist/cli.js daily` after the build.",  # what the build writes
        "The binaries come from node_modules/.bin first.",  # what an install writes
        "Reject true/false/.inf as a priority.",  # literal values
        "Handle array/array.from in the matcher.",  # a name and its member
    ],
)
def test_generated_places_and_alternatives_are_not_untracked_paths(repo: Path, body: str) -> None:
    message = f"Rework the tool\n\n{body}\n"
    assert not {rule for rule, _ in _tree_blocking(repo, message, message)} & {"EP507"}


def test_a_task_file_names_the_files_it_plans_and_a_commit_message_names_what_it_changed(repo: Path) -> None:
    body = "Put the retry policy in src/net/retry.js and its tests in src/net/retry.test.js.\n"
    assert "EP507" not in {rule for rule, _ in _tree_blocking(repo, "Plan the retry\n", "# Retry\n\n" + body,
                                                              markdown=True, path="TASK.md")}


def test_the_same_planned_path_in_a_commit_message_is_untracked(repo: Path) -> None:
    body = "Put the retry policy in src/net/retry.js and its tests in src/net/retry.test.js.\n"
    message = "Rework the tool\n\n" + body
    assert ("EP507", "src/net/retry.js") in _tree_blocking(repo, message, message)


def test_a_file_a_plan_says_to_create_is_not_an_untracked_path(repo: Path) -> None:
    plan = "# Task 1\n\n**Files:**\n- Create: `lib/server/index.js`\n- Modify: `src/tool.js`\n"
    assert "EP507" not in {rule for rule, _ in _tree_blocking(repo, "Rework the tool\n", plan, markdown=True)}


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("Read plans/phase2.md before the next step.", "plans/phase2.md"),
        ("Settings live in config/.env on the box.", "config/.env"),
        ("- Update: `lib/server/index.js`", "lib/server/index.js"),
    ],
)
def test_places_only_the_author_had_are_still_untracked_paths(repo: Path, body: str, token: str) -> None:
    message = f"Rework the tool\n\n{body}\n"
    assert ("EP507", token) in _tree_blocking(repo, message, message)


@pytest.mark.parametrize(
    "body",
    [
        "Also updated my notes at docs/local/rules.md with the same rules (not committed to repo).",
        "The matching change to the plugin is prepared in that repo, uncommitted.",
        "Drafted the migration for the next release in my checkout (untracked).",
    ],
)
def test_an_aside_that_the_work_is_not_committed_is_an_untracked_note(body: str) -> None:
    assert "EP504" in _rules(f"Add the rules\n\n{body}\n")


@pytest.mark.parametrize(
    "body",
    [
        "The command now refuses to run with uncommitted changes in src/app.",
        "Show files in sub/dir that are untracked.",
        "The helper writes the list, uncommitted, to the index.",
        "Stash the work (uncommitted changes are lost otherwise).",
        "The tool stores a lock.toml in each of your (gitignored) cache folders.",  # not the clause's end
    ],
)
def test_untracked_states_the_code_handles_are_not_notes(body: str) -> None:
    assert "EP504" not in _rules(f"Fix the status\n\n{body}\n")


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("After a week of use, our tests found that the first layout read best.", "our tests found that"),
        ("The error dashboard shows ~3k failed logins a day.", "dashboard shows ~3k"),
        ("Grafana showed 40% fewer timeouts afterwards.", "Grafana showed 40%"),
    ],
)
def test_figures_read_off_a_private_run_or_dashboard_are_claims(body: str, token: str) -> None:
    assert ("UC701", token) in _blocking(f"Tune the guard\n\n{body}\n")


@pytest.mark.parametrize(
    "body",
    [
        "The new dashboard shows 3 panels per route.",  # what the change builds
        "The new test checks that the lock is released.",
    ],
)
def test_a_dashboard_or_test_the_change_describes_is_not_a_claim(body: str) -> None:
    assert "UC701" not in _rules(f"Add the panels\n\n{body}\n")


def test_an_after_line_in_the_authors_words_is_prose() -> None:
    text = (
        "Wrap the page writes\n\nBefore: the console logs \"This page requires a policy\"\n"
        "After: All page writes succeed without policy violations\n"
    )
    assert ("UC701", "All page writes succeed without policy violations") in _blocking(text)


@pytest.mark.parametrize(
    "pair",
    ["Before: 512 passed, 3 failed\nAfter: 515 passed", "Before: `render()` took 40ms\nAfter: `render()` takes 9ms"],
)
def test_a_before_and_after_pair_of_output_stays_quoted(pair: str) -> None:
    prepared = prepare(f"Speed up the render\n\n{pair}\n", lexicon_for(None), DetectSettings())
    assert "After" not in prepared.prose and prepared.indented_lines == frozenset({3, 4})


def test_a_summary_row_under_quoted_output_is_part_of_it() -> None:
    text = (
        "Add the slow flag\n\nExample output:\n  ✓  daemon is running\n  ✓  labels are set (2.0s)\n\n"
        "✓ 41 passed  ⚠ 2 warnings  ✖ 0 failed\n"
    )
    assert "UC701" not in _rules(text)


def test_a_summary_row_after_prose_is_still_a_claim() -> None:
    text = "Add the slow flag\n\nThe daemon starts on its own now.\n\n✓ 41 passed  ⚠ 2 warnings  ✖ 0 failed\n"
    assert ("UC701", "41 passed") in _blocking(text)


@pytest.mark.parametrize(
    "body",
    [
        # goals and imperatives
        "Make sure all tests run without errors on Python 3.13.",
        "Check that all pages load without errors.",
        "CI: verify all examples run without warnings.",
        "Ensure all the fixtures load without failures before tagging.",
        "Retry the upload until all chunks succeed without errors.",
        "All plugins should load without warnings after this.",
        # what the change makes the code do
        "All export jobs now succeed without errors when the disk is full, because we retry.",
        "All imports succeed without warnings if the cache is warm.",
    ],
)
def test_a_goal_or_new_behaviour_without_errors_is_not_a_claim(body: str) -> None:
    assert "UC701" not in _rules(f"Retry the exports\n\n{body}\n"), _blocking(f"Retry the exports\n\n{body}\n")


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("All cache writes succeed without lock warnings.", "All cache writes succeed without lock warnings"),
        ("Afterwards all nightly jobs ran without failures.", "all nightly jobs ran without failures"),
    ],
)
def test_a_run_without_errors_stated_as_a_result_is_still_a_claim(body: str, token: str) -> None:
    assert ("UC701", token) in _blocking(f"Retry the exports\n\n{body}\n")


@pytest.mark.parametrize(
    "body",
    [
        # what a dashboard or a test of the repository shows, described
        "Telemetry reports 5% sampled requests by default.",
        "The dashboard shows 5% of requests when sampling is on.",
        "Grafana shows 100% in the panel title now that the unit is fixed.",
        "Sentry reports 3 breadcrumbs per event.",
        "The tests found that the lexer dropped a token; see tests/test_lexer.py.",
        "These tests found that the cache leaked handles, see `tests/test_cache.py`.",
    ],
)
def test_a_described_dashboard_or_repository_test_is_not_a_reading(body: str) -> None:
    assert "UC701" not in _rules(f"Tune the sampler\n\n{body}\n"), _blocking(f"Tune the sampler\n\n{body}\n")


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("The status dashboard showed 12% more timeouts on Monday.", "dashboard showed 12%"),
        ("Datadog reported about 4k retries an hour.", "Datadog reported about 4k"),
        ("Telemetry shows 30% fewer cold starts.", "Telemetry shows 30%"),
        ("The test found that the second layout read best.", "The test found that"),
        ("Manual testing found that the dialog closes twice.", "Manual testing found that"),
    ],
)
def test_a_reading_off_a_private_dashboard_or_run_is_still_a_claim(body: str, token: str) -> None:
    assert ("UC701", token) in _blocking(f"Tune the sampler\n\n{body}\n")


@pytest.mark.parametrize(
    "line",
    [
        "Verified: make check, all green",
        "Tested: npm test, passes",
        "Tested: `cargo test` ok",
        "Verified: pytest -q ✅",
        "Validated: make lint; clean",
        "Tested: go test ./... succeeded",
    ],
)
def test_a_check_label_with_commands_and_a_result_is_a_claim(line: str) -> None:
    text = f"Rework the exporter\n\nKeep the old flag as an alias.\n\n{line}\n"
    assert "UC702" in _rules(text), _blocking(text)


@pytest.mark.parametrize(
    "line",
    [
        "Tested: make clean && make check",
        "Tested: `npm run test:ok-cases`",
        "Verified: git clean -fdx; make",
    ],
)
def test_a_result_word_inside_a_command_leaves_the_recipe(line: str) -> None:
    text = f"Rework the exporter\n\nKeep the old flag as an alias.\n\n{line}\n"
    assert "UC702" not in _rules(text), _blocking(text)


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("Two Codex reviews uncovered a race in the pool.", "Codex reviews"),
        ("The Claude reviews revealed a race in the pool.", "Claude reviews"),
        ("Earlier Gemini reviews missed the leak.", "Gemini reviews"),
    ],
)
def test_agent_reviews_followed_by_a_past_verb_are_narration(body: str, token: str) -> None:
    assert ("NP601", token) in _blocking(f"Fix the pool\n\n{body}\n")


@pytest.mark.parametrize(
    "body",
    [
        "Claude reviews every PR labelled needs-review.",
        "Codex reviews changes to the schema before they merge.",
        "The bot runs nightly; Claude reviews this diff and the next one.",
    ],
)
def test_an_agent_reviewing_an_object_describes_a_workflow(body: str) -> None:
    assert "NP601" not in _rules(f"Add the review workflow\n\n{body}\n"), _blocking(f"Add the workflow\n\n{body}\n")


@pytest.mark.parametrize("markdown", [False, True])
@pytest.mark.parametrize(
    "fence",
    [
        "```\n- Renamed: lib/util/x.py\n- Build: ✅ green\n```",
        "```\n✅ Moved: docs/old/guide.md\n```",
    ],
)
def test_a_path_in_a_status_fence_is_not_read_for_untracked_paths(repo: Path, fence: str, markdown: bool) -> None:
    message = f"Rework the tool\n\nState after the change:\n\n{fence}\n"
    blocking = _tree_blocking(repo, message, message, markdown=markdown)
    assert "EP507" not in {rule for rule, _ in blocking}, blocking


def test_the_same_path_outside_a_fence_is_still_untracked(repo: Path) -> None:
    message = "Rework the tool\n\n- Renamed: lib/util/x.py\n"
    assert ("EP507", "lib/util/x.py") in _tree_blocking(repo, message, message)


# Near misses for each shape above: a goal or an imperative, and a feature the change describes.
@pytest.mark.parametrize(
    ("text", "rule", "markdown"),
    [
        # a status fence of goals
        ("Rework the exporter\n\nTo do before the release:\n\n```\n- Make the docs build green\n"
         "- Get lint to pass\n```\n", "UC701", False),
        # a count of runs a table sets as a target
        ("Rework the parser\n\n| Check | Target |\n|---|---|\n| Parser regression | should be 12/12 |\n",
         "UC701", False),
        # a ticked item that adds a check, rather than one that ran
        ("Restructure the docs\n\n## Changes\n- [x] Add a job to verify the links resolve\n", "UC703", False),
        # a callout that asks the reader to act
        ("# Handoff\n\n> [!NOTE]\n> Run the migration before you deploy.\n", "NP602", True),
        # an aside the reader is asked to keep, and a state the tool handles
        ("Add the rules\n\nKeep the draft in your checkout (untracked) until it is reviewed.\n", "EP504", False),
        ("Add the rules\n\nThe tool lists files in the index, uncommitted, by default.\n", "EP504", False),
        # a summary row the run is meant to end with
        ("Add the slow flag\n\nThe run should end with ✓ 41 passed  ⚠ 2 warnings  ✖ 0 failed\n", "UC701", False),
        # an After line that states a goal
        ("Wrap the page writes\n\nBefore: the console logs \"This page requires a policy\"\n"
         "After: all page writes should succeed without policy violations\n", "UC701", False),
        # readings asked for
        ("Tune the sampler\n\nCheck that the dashboard showed 12% more timeouts before rolling back.\n",
         "UC701", False),
        ("Tune the sampler\n\nMake sure our tests found that regression before merging.\n", "UC701", False),
        # an agent asked to review, in a workflow
        ("Add the workflow\n\nLet Claude reviews the diff on every push.\n", "NP601", False),
        ("Add the review bot\n\nAsk for feedback from two Codex sessions before merging.\n", "NP601", False),
        ("Add the review bot\n\nThe bot collects comments from several Claude sessions and posts one summary.\n",
         "NP601", False),
    ],
)
def test_goals_and_described_features_are_near_misses_of_each_shape(text: str, rule: str, markdown: bool) -> None:
    assert rule not in _rules(text, markdown=markdown), _blocking(text, markdown=markdown)


@pytest.mark.parametrize(
    "line",
    [
        "Run: `node tools/verify/check.js .` — 142 pass, fail 0, warn 0",
        "검증: `node scripts/verify/run.js` — 31 pass, fail 0",
    ],
)
def test_a_goal_word_in_a_path_is_no_goal(line: str) -> None:
    assert "UC701" in _rules(f"Tighten the checks\n\n{line}\n")
