"""Quoted output in commit-message conventions, and where a token ends (paths, issue refs, CJK)."""

from __future__ import annotations

import pytest

from diylisis.core.detectors import DetectSettings, detect_text, is_blocking
from diylisis.edges.gitio.context import HostContext

HOST = HostContext("github.com", "acme", "widgets")


def findings(text: str) -> list[tuple[str, str]]:
    found, _ = detect_text(text, HOST, DetectSettings())
    return [(f.rule_id, f.token) for f in found]


def blocking(text: str) -> list[tuple[str, str]]:
    found, _ = detect_text(text, HOST, DetectSettings())
    return [(f.rule_id, f.token) for f in found if is_blocking(f)]


TWO_SPACE_TRANSCRIPT = """Make truncation keep the file mode

The shell's redirection and the helper differ; compare their output:

  $ echo hello >/tmp/hello; ls -l /tmp/hello
  -rw-r--r-- 1 someone users 6 Nov 10 17:25 /tmp/hello

  $ ./helper truncate /tmp/hello 0

Both now leave the mode alone.
"""


def test_a_transcript_indented_by_two_spaces_after_a_colon_is_quoted_output() -> None:
    assert findings(TWO_SPACE_TRANSCRIPT) == []


def test_prose_indented_under_a_plain_heading_is_still_read() -> None:
    text = "Tidy the parser\n\nWhy this shape\n\n  The log is in /tmp/run3.log for now.\n"
    assert ("EP505", "/tmp/run3.log") in findings(text)


@pytest.mark.parametrize(
    "block",
    [
        "$ cat /tmp/out.txt\nerror: no such file",
        "diff --git a/x b/x\n@@ -1 +1 @@\n-/tmp/old\n+/tmp/new",
        'Traceback (most recent call last):\n  File "/home/someone/app.py", line 3\nValueError',
    ],
)
def test_prompts_diffs_and_tracebacks_are_quoted_output(block: str) -> None:
    text = f"Fix the loader\n\nBefore this change:\n\n{block}\n\nNow it loads.\n"
    assert findings(text) == []


def test_a_path_does_not_keep_the_period_that_ends_its_sentence() -> None:
    assert findings("Fix x\n\nThe full log is in /tmp/run3.log.") == [("EP505", "/tmp/run3.log")]


def test_a_path_ends_at_cjk_punctuation_and_text() -> None:
    assert findings("修复加载\n\n日志在/tmp/run.log。然后重新运行") == [("EP505", "/tmp/run.log")]
    assert findings("修复加载\n\n代码在/home/alice/src，然后重新运行") == [("EP506", "/home/alice/src")]


def test_a_sentence_before_an_issue_reference_is_no_project_name() -> None:
    assert blocking("Move the tests\n\nThey now live in a sub-directory.\n\nPR #1505") == []
    assert blocking("Clean up after the merge\n\nThis is the post-PR #46 cleanup.") == []


def test_an_issue_reference_touching_chinese_text_is_found() -> None:
    assert findings("修复PR #12中的问题") == [("RF301", "PR #12")]


def test_an_imperative_to_read_a_temporary_file_is_flagged() -> None:
    assert findings("Fix x\n\nRead /tmp/run.log before starting.") == [("EP505", "/tmp/run.log")]
    assert findings("Fix x\n\n- Open /tmp/run.log first") == [("EP505", "/tmp/run.log")]
    # saying what the code does with the path is still not a pointer
    assert findings("Fix x\n\nThe tool now reads /tmp/run.log on start.") == []


def test_a_declared_self_hosted_forge_resolves_bare_issue_numbers() -> None:
    from diylisis.core.detectors.settings import DetectSettings as Settings

    text = "Stop the retry storm\n\nFixes #12, follows up on MR #9."
    own = HostContext("git.example.org", "team", "widgets")
    undeclared, _ = detect_text(text, own, Settings())
    assert [f.token for f in undeclared if is_blocking(f)] == ["#12", "MR #9"]
    declared, _ = detect_text(text, own, Settings.from_mapping({"hosts": {"Git.Example.org": "gitlab"}}))
    assert [f for f in declared if is_blocking(f)] == []
    assert [f.resolution for f in declared] == [
        "https://git.example.org/team/widgets/-/issues/12",
        "https://git.example.org/team/widgets/-/merge_requests/9",
    ]


@pytest.mark.parametrize("hosts", [{"git.example.org": "sourcehut"}, ["git.example.org"], {"": "gitea"}])
def test_hosts_must_name_a_known_forge(hosts: object) -> None:
    from diylisis.core.detectors.settings import DetectSettings as Settings
    from diylisis.core.errors import ConfigError

    with pytest.raises(ConfigError, match=r"\[detect\] hosts"):
        Settings.from_mapping({"hosts": hosts})


def test_scan_reads_hosts_from_the_repository_configuration(repo) -> None:
    from tests.conftest import commit, distill, git

    git(repo, "remote", "add", "origin", "https://git.example.org/team/widgets.git")
    commit(repo, "Stop the retry storm\n\nFixes #12.\n")
    assert distill(repo, "scan", "HEAD").returncode == 1
    config = '[detect]\nhosts = { "git.example.org" = "gitea" }\n'
    commit(repo, "Declare the forge\n\nThe origin runs Gitea.\n", {".distill.toml": config})
    done = distill(repo, "scan", "HEAD~1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "https://git.example.org/team/widgets/issues/12" in done.stdout


def test_a_replacement_character_is_a_warning_without_re_encoding_advice() -> None:
    found, _ = detect_text("Fix the caf\ufffd menu\n\nThe name was garbled.", HOST, DetectSettings())
    assert [(f.rule_id, f.severity.value) for f in found] == [("RD901", "warning")]
    assert "UTF-8" not in found[0].fix and "stores replacement characters" in found[0].why
    garbled, _ = detect_text("Fix the cafÃ© menu", HOST, DetectSettings())
    assert [(f.rule_id, f.severity.value, f.fix) for f in garbled] == [("RD901", "error", "re-enter the text as UTF-8")]


@pytest.mark.parametrize(
    "text",
    [
        "Parse with strcspn\n\nThis is safe, as discussed in\n1a2b3c4d5e (parse: stop at the newline, 2023-01-19).",
        "Explain push\n\nIt is complex, as discussed in the previous commit.",
        "Move on after a choice\n\nThe keys y and n mark the current hunk as decided.",
        "Keep cookies in Session objects\n\nCookies set in Session are sent again; that Session keeps them.",
    ],
)
def test_named_discussions_states_and_class_names_are_not_deixis(text: str) -> None:
    assert findings(text) == []


def test_an_unnamed_discussion_and_a_sitting_are_still_deixis() -> None:
    assert findings("Rework the retry logic as discussed") == [("DX102", "as discussed")]
    assert findings("Fix x\n\nIn this session we chose the lock.")[0][0] == "DX101"


def test_rules_below_the_precision_bar_warn_by_default() -> None:
    from diylisis.core.detectors import RULES, evidence

    for rule in RULES:
        measured = evidence.precision(rule.id)
        if measured is not None and measured < evidence.PRECISION_FOR_ERROR:
            assert rule.severity.value == "warning", rule.id
    assert {"DX104", "EP502"} <= {rule.id for rule in RULES if rule.severity.value == "warning"}


SIGNED = "Signed-off-by: A U Thor <author@example.org>"


def test_trailers_other_than_credits_are_read() -> None:
    session = f"Fix the pager\n\nThe last page was lost.\n\nCopilot-Session: 3f2a9c1e-8b7d-4e21\n{SIGNED}"
    assert [rule for rule, _ in findings(session)] == ["EP503"]
    claim = f"Fix the pager\n\nThe last page was lost.\n\nTest-Result: all tests pass\n{SIGNED}"
    assert findings(claim) == [("UC701", "all tests pass")]


def test_credit_trailers_stay_masked_as_git_reads_the_block() -> None:
    credits = (
        "Fix the pager\n\nThe last page was lost.\n\n"
        "Co-authored-by: Claude <noreply@example.org>\nReviewed-by: Codex Reviewer\n  <reviewer@example.org>\n"
        f"{SIGNED}"
    )
    assert findings(credits) == []
    # git also takes a paragraph with a line it writes and a quarter of trailers: a note line stays prose
    mixed = f"Fix the pager\n\nThe last page was lost.\n\nAll tests pass on my machine.\n{SIGNED}"
    assert ("UC701", "All tests pass") in findings(mixed)
