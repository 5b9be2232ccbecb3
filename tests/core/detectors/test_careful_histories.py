"""Precision on careful human histories (issue 16): what such records say that is not residue."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from diylisis.core.detectors import DetectSettings, detect_text, is_blocking
from diylisis.core.detectors.lexicon import lexicon_for
from diylisis.core.detectors.text import prepare, quoted_output_near
from diylisis.edges.gitio.context import PygitContext
from tests.conftest import commit, git


def _blocking(text: str, context: object | None = None) -> list[tuple[str, str]]:
    findings, _ = detect_text(text, context, DetectSettings())
    return [(f.rule_id, f.token) for f in findings if is_blocking(f)]


def _doc(text: str):
    settings = DetectSettings()
    return prepare(text, lexicon_for(settings.languages), settings)


BENCHMARK_THEN_TABLE = """\
cache: keep the decoded index between lookups

Benchmarked on a 40k-file checkout (best of 7 runs,
warm cache):

Lookups that decode the index each time:

  Command          before   after
  status           812ms    455ms
  diff --stat      640ms    402ms
"""

PROFILE_THEN_FIGURES = """\
walk: stop early once every queued entry is stale

Profiling shows the walk spends 60% of its time in the stale check,
which this change turns into a pointer comparison:

  Before: 910ms / 720ms
  After:  402ms / 388ms
"""

TABLE_THEN_CAPTION = """\
perf: build the fixture repository with fast-import

Setup time (mean of 3 runs):
            Setup    Test
  Before:   41.2s    9.1s
   After:   12.7s    9.0s

Measured on a 4-core laptop running Debian 12.
"""


@pytest.mark.parametrize("text", [BENCHMARK_THEN_TABLE, PROFILE_THEN_FIGURES, TABLE_THEN_CAPTION])
def test_a_claim_with_its_output_beside_it_is_evidenced(text: str) -> None:
    assert _blocking(text) == []


def test_a_claim_whose_sentence_ends_before_the_colon_is_not_evidenced_by_what_follows() -> None:
    text = "index: skip the rebuild\n\nAll tests pass. The timings were:\n\n  before 4.1s\n  after 2.0s\n"
    assert ("UC701", "All tests pass") in _blocking(text)


def test_a_caption_needs_figures_above_it_and_a_measurement_word() -> None:
    figures_missing = "perf: reuse the buffer\n\nRun it as:\n\n  make perf\n\nMeasured on a 4-core laptop.\n"
    assert [rule for rule, _ in _blocking(figures_missing)] == ["UC702"]
    not_a_caption = "perf: reuse the buffer\n\nTimes:\n\n  before 41s\n  after 12s\n\nAll tests pass.\n"
    assert ("UC701", "All tests pass") in _blocking(not_a_caption)


def test_an_indented_table_right_under_its_colon_line_is_quoted_output() -> None:
    doc = _doc(TABLE_THEN_CAPTION)
    assert doc.indented_lines == frozenset({4, 5, 6})  # the colon line (3) stays prose
    assert "41.2s" not in doc.prose
    listed = _doc("fix: two things\n\nChanges:\n  - one\n  - two\n")
    assert listed.indented_lines == frozenset()


def test_quoted_output_near_reads_the_claims_own_sentence() -> None:
    doc = _doc(PROFILE_THEN_FIGURES)
    assert quoted_output_near(doc, doc.text.index("Profiling shows"))
    assert not quoted_output_near(doc, doc.text.index("walk: stop"))


@pytest.mark.parametrize(
    "body",
    [
        "It documents the steps to install the demo app so that all tests pass.",
        "Get the tests passing again",
        "The helper may be missing on some systems, even though\ntests still pass there.",
        "Each header lists what it needs to\ncompile successfully.",
        "The option --no-color-lint passed to the runner is now ignored.",
        "We die() before any lookup, so the performance impact is negligible.",
        "ci: rerun the workflow for a second validation pass",
        "An empty body, while useless, should still compile successfully.",
        "- `bot merge` will merge this request once it is approved and\n  your CI passes on it",
        "Calling `close` after successful `try_recv` panics.",
        "The old target does not build the plugins in the same pass.",
        "Run the regression tests in a single pass.",
        "When the warning count exceeds the limit and all tests pass, exit with code 6.",
        "Nothing covers the helper: if the call to it is removed, all tests still pass.",
        "Pin the plugin back in the hope that at least the integration tests pass.",
        "It fixes the case where a test passing but failing in teardown was counted twice.",
    ],
)
def test_a_pass_phrase_framed_as_goal_concession_name_or_noun_is_no_claim(body: str) -> None:
    assert _blocking(f"Adjust the runner\n\n{body}\n") == []


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("- see the guide for the steps\n- all tests are passing with `make test`", "all tests are passing"),
        ("Rework the parser. All tests pass.", "All tests pass"),
        ("The lint pass found nothing; tests pass now.", "tests pass now"),
        ("- Checked with a successful `npm run build`.", "successful `npm run build`"),
    ],
)
def test_a_pass_claim_in_its_own_clause_still_blocks(body: str, token: str) -> None:
    assert ("UC701", token) in _blocking(f"Adjust the runner\n\n{body}\n")


@pytest.mark.parametrize(
    "body",
    [
        "I forgot to drop the debug flag before sending it, and it was not caught in review.",
        "Fix two stale rows found during an audit of the bit allocation table.",
        "An independent audit to show that the counter can go would make a good follow-up.",
    ],
)
def test_the_projects_own_review_and_an_authors_reading_are_not_private_narration(body: str) -> None:
    assert _blocking(f"Tidy the table\n\n{body}\n") == []


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("Two races were caught in the adversarial review.", "caught in the adversarial review"),
        ("This was found during a codex review of the branch.", "found during a codex review"),
        ("An independent audit found three more stale rows.", "independent audit"),
    ],
)
def test_private_reviews_still_block(body: str, token: str) -> None:
    assert ("NP601", token) in _blocking(f"Tidy the table\n\n{body}\n")


def test_a_credit_line_above_the_body_is_not_read_as_a_tracker_key() -> None:
    text = (
        "tests: skip the symlink case on Windows\n\n"
        "Signed-off-by: QRX-7 <QRX-7@users.noreply.example.org>\n\n"
        "Windows checkouts have no symlinks, so the case cannot run there.\n"
    )
    assert _blocking(text) == []
    named_in_prose = text.replace("Signed-off-by: QRX-7 <QRX-7@users.noreply.example.org>", "Tracks QRX-7.")
    assert ("SI206", "QRX-7") in _blocking(named_in_prose)


def test_a_drawing_is_a_picture_not_prose() -> None:
    text = (
        "pool: hand out the first jobs first\n\n"
        "Jobs went to the workers in    ┃ W1 ┃ W2 ┃ W7 ┃ W9 ┃\n"
        "a round-robin order:           ┗━━━━┻━━━━┻━━━━┻━━━━┛\n"
    )
    doc = _doc(text)
    assert "W7" not in doc.prose and "round-robin order:" in doc.prose
    assert _blocking(text) == []


def test_as_before_alone_is_the_code_before_the_change() -> None:
    assert _blocking("Keep an empty digest, as before\n") == []
    assert ("DX103", "as mentioned before") in _blocking("Apply the limit as mentioned before\n")


@pytest.fixture
def tool_repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    commit(
        tmp_path,
        "Add the state cache",
        {"src/state.py": 'import os\n\n\ndef path(root, key):\n    return os.path.join(root, "statecache", key)\n'},
    )
    return tmp_path


def test_a_glob_over_a_folder_the_code_names_is_the_programs_own_files(tool_repo: Path) -> None:
    context = PygitContext(pygit2.Repository(str(tool_repo)), "HEAD")
    assert _blocking("Refactor the cache\n\nMove the lookup of `statecache/*.json` into one helper.\n", context) == []
    assert ("EP507", "dumps/run_*.json") in _blocking("Refactor the cache\n\nRead `dumps/run_*.json` first.\n", context)


def test_a_misnamed_path_to_a_file_the_change_edits_is_its_subject(tool_repo: Path) -> None:
    commit(tool_repo, "Add the template", {".forge/TEMPLATE/settings.yml": "blank: false\n"})
    context = PygitContext(pygit2.Repository(str(tool_repo)), "HEAD")
    assert _blocking("Add `about` to TEMPLATES/settings.yml\n", context) == []
    assert ("EP507", "TEMPLATES/other.yml") in _blocking("Add `about` to TEMPLATES/other.yml\n", context)


def test_a_header_resolves_against_the_include_path_and_a_protocol_is_no_path(tool_repo: Path) -> None:
    context = PygitContext(pygit2.Repository(str(tool_repo)), "HEAD")
    text = "Include sys/types.h before sys/event.h, which is not standalone; see lzma/*.h and HTTP/1.x.\n"
    assert _blocking(text, context) == []
    assert ("EP507", "plans/event.md") in _blocking("Include sys/event.h as plans/event.md says.\n", context)


def test_fences_follow_one_rule_in_commit_messages_and_markdown() -> None:
    text = "Fix the loader\n\n```bash title\n$ make\nok\n```\n\n```\nerror: no loader\n```python\nmore\n```\n\nAfter.\n"
    settings = DetectSettings()
    as_message = prepare(text, lexicon_for(settings.languages), settings)
    as_markdown = prepare(text, lexicon_for(settings.languages), settings, markdown=True)
    # a shell fence quotes commands; "```python" inside a plain fence is content, not its close
    assert as_message.output_lines == as_markdown.output_lines == frozenset({9, 10, 11})
    assert "more" not in as_message.prose and "After." in as_message.prose


def test_a_tested_subject_titles_the_tests_its_change_adds(tool_repo: Path) -> None:
    commit(tool_repo, "Tested the cache timeout", {"tests/test_cache.py": "def test_timeout():\n    assert True\n"})
    context = PygitContext(pygit2.Repository(str(tool_repo)), "HEAD")
    assert _blocking("Tested the cache timeout\n", context) == []
    assert ("UC702", "Tested on Windows and Linux") in _blocking(
        "Add the cache timeout\n\nTested on Windows and Linux.\n", context
    )
    commit(tool_repo, "Tested on Windows", {"src/cache.py": "TIMEOUT = 5\n"})
    code_only = PygitContext(pygit2.Repository(str(tool_repo)), "HEAD")
    assert ("UC702", "Tested on Windows") in _blocking("Tested on Windows\n", code_only)


@pytest.mark.parametrize(
    "body",
    [
        "Verified by test 4127",
        "Verified in test4127: the second handle reuses the proxy",
        "Confirmed with the new regression test.",
        "- test 812/905: clarify the names\n- test1402/1403: drop duplicates",
    ],
)
def test_a_check_that_names_its_test_or_a_pair_of_test_numbers_is_no_bare_claim(body: str) -> None:
    assert _blocking(f"urlparse: keep empty fragments\n\n{body}\n") == []


@pytest.mark.parametrize(
    ("body", "rule"),
    [("Verified by running the suite twice.", "UC702"), ("Parser tests 12/12.", "UC701")],
)
def test_a_check_with_no_named_test_still_blocks(body: str, rule: str) -> None:
    assert rule in [found for found, _ in _blocking(f"urlparse: keep empty fragments\n\n{body}\n")]


@pytest.mark.parametrize(
    "line",
    [
        "/opt/cross/bin/ld: /home/builder/out/libz.a(inflate.o): undefined reference",
        "/Users/ci/work/_temp/step.sh: line 10: nproc: command not found",
        "configure:9022: /home/builder/out/bin/cc -o conftest conftest.c",
        "SUMMARY: AddressSanitizer: heap-use-after-free /home/dev/src/app/cache.c:329:26 in put",
    ],
)
def test_a_tools_own_output_line_at_the_margin_quotes_the_machine(line: str) -> None:
    assert _blocking(f"build: link zlib statically\n\nThe static build failed with:\n\n{line}\n") == []


def test_a_double_quoted_phrase_that_wraps_once_is_still_a_mention() -> None:
    text = (
        'Read claims in context\n\nIt now reads "Profiling shows\n... in the hot loop:" and its figures as one claim.\n'
    )
    doc = _doc(text)
    assert "Profiling" not in doc.prose and "its figures" in doc.prose
    assert _blocking(text) == []
    assert ("UC701", "Profiling shows") in _blocking("Read claims in context\n\nProfiling shows\nit is faster.\n")


def test_a_file_of_a_forges_configuration_folder_is_a_convention(tool_repo: Path) -> None:
    context = PygitContext(pygit2.Repository(str(tool_repo)), "HEAD")
    assert _blocking("Describe the forms\n\nThe forge reads .github/ISSUE_TEMPLATE/config.yml.\n", context) == []
    assert ("EP507", "forms/ISSUE/config.yml") in _blocking(
        "Describe the forms\n\nSee forms/ISSUE/config.yml.\n", context
    )


@pytest.mark.parametrize(
    "body",
    [
        "Before: 611 passed, 40 skipped\nAfter: 614 passed, 37 skipped",
        "suite after: DONE: 1210 tests out of 1210 reported OK\nsuite before: DONE: 1207 tests out of 1210 reported OK",
        "Growing the set from each size gives:\n\nSize  Result\n2     801 tests out of 1210 reported OK\n"
        "8     1209 tests out of 1210 reported OK",
    ],
)
def test_output_compared_before_and_after_or_tabled_under_a_colon_is_quoted(body: str) -> None:
    assert _blocking(f"sets: grow the string storage lazily\n\n{body}\n") == []


def test_prose_with_two_spaces_after_its_stops_is_no_table() -> None:
    text = "sets: grow lazily\n\nThis gives:\n\nFewer allocations.  All tests pass.  And less memory.\nNothing else.\n"
    assert ("UC701", "All tests pass") in _blocking(text)
