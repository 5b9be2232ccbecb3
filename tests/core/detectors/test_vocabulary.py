"""The repository's own vocabulary and quoted output are not residue (issue 16, clean histories).

Each case runs against a real temporary repository: its tree, and the commit's own change.
"""

from __future__ import annotations

from pathlib import Path

import pygit2

from diylisis.core.detectors import DetectSettings, detect_text, is_blocking
from diylisis.edges.gitio.context import GitCommandContext, HostContext, PygitContext
from tests.conftest import commit, git

HOST = HostContext("github.com", "acme", "widgets")


def blocking_at(repo: Path, revision: str, text: str) -> list[tuple[str, str]]:
    context = PygitContext(pygit2.Repository(str(repo)), revision, origin=("github.com", "acme", "widgets"))
    found, _ = detect_text(text, context, DetectSettings())
    return [(f.rule_id, f.token) for f in found if is_blocking(f)]


def blocking_on_host(text: str) -> list[tuple[str, str]]:
    found, _ = detect_text(text, HOST, DetectSettings())
    return [(f.rule_id, f.token) for f in found if is_blocking(f)]


def test_that_session_is_the_codes_own_word_where_the_code_has_a_session(repo: Path) -> None:
    message = "Test the cookie\n\nAdd another session cookie test.\n"
    plain = commit(repo, "Add the app", {"app.py": "def handler(request):\n    return request.body\n"})
    assert ("DX101", "another session") in blocking_at(repo, plain, message)
    with_session = commit(repo, "Add sessions", {"app.py": "from store import session\n\nsession.get('k')\n"})
    assert blocking_at(repo, with_session, message) == []


def test_a_path_the_commit_removes_is_its_subject(repo: Path) -> None:
    commit(repo, "Add the loader", {"load.py": "ROOT = '/home/dana/data/cache'\n"})
    removed = commit(repo, "Drop the hard-coded root", {"load.py": "ROOT = None\n"})
    text = "Drop the hard-coded root\n\n/home/dana/data/cache only existed on one machine.\n"
    assert blocking_at(repo, removed, text) == []
    unrelated = commit(repo, "Tidy", {"other.py": "x = 1\n"})
    assert ("EP506", "/home/dana/data/cache") in blocking_at(repo, unrelated, text)


def test_the_hooks_context_reads_the_staged_change_and_the_index(repo: Path) -> None:
    commit(repo, "Start", {"store.py": "class Store:\n    pass\n"})
    (repo / "store.py").write_text("class Session:\n    scratch = '/tmp/widgets/scratch.db'\n", encoding="utf-8")
    git(repo, "add", "store.py")
    context = GitCommandContext(repo)
    assert context.in_change("/tmp/widgets/scratch.db") and not context.in_change("/tmp/elsewhere")
    assert context.uses_identifier("Session") and not context.uses_identifier("Widget")
    assert not HOST.in_change("/tmp/widgets/scratch.db") and not HOST.uses_identifier("Session")


def test_relative_paths_from_a_build_directory_and_repository_names(repo: Path) -> None:
    head = commit(repo, "Docs", {"Documentation/gen-list.sh": "echo\n", "tool--lib.sh": "echo\n"})
    text = (
        "Fix the docs build\n\nThe build printed\n"
        "../../Documentation/gen-list.sh: line 15: ../tool--lib.sh: No such file\n"
        "when run from build/, so copy the policy from acme/.github instead.\n"
    )
    assert blocking_at(repo, head, text) == []
    assert ("EP507", "plans/cache-design.md") in blocking_at(repo, head, "Plan\n\nSee plans/cache-design.md.\n")


def test_a_temporary_directory_itself_names_no_file() -> None:
    assert blocking_on_host("Switch away from /tmp for Windows users\n") == []
    assert blocking_on_host("Fix the tutorial's use of /tmp/\n") == []
    assert ("EP505", "/tmp/run3.log") in blocking_on_host("Fix x\n\nThe log is in /tmp/run3.log.\n")


def test_where_the_code_looks_in_a_home_directory_is_no_machine() -> None:
    text = "Look for the global ignore in ~/.config/tool, not ~/tool\n\nThe code looked at ~/tool/ignore.\n"
    assert blocking_on_host(text) == []
    assert ("EP506", "~/src/app") in blocking_on_host("Build\n\nThe checkout is in ~/src/app.\n")


def test_git_style_transcripts_indented_by_two_spaces_after_any_sentence() -> None:
    text = (
        "Speed up the receive\n\nThe benchmark pushes one object into a repository with many refs.\n\n"
        "  Summary\n    receive . </tmp/input ran 1.6 times faster\n\n"
        "(some lines removed)\n\n  warning: templates not found in /home/dana/share/templates\n\n"
        "Most of the time now goes to the connectivity check.\n"
    )
    assert blocking_on_host(text) == []


def test_an_indented_message_is_prose_and_a_heading_keeps_its_section() -> None:
    everything_indented = "Tidy\n\n  The log is in /tmp/run3.log.\n\n  More later.\n"
    assert ("EP505", "/tmp/run3.log") in blocking_on_host(everything_indented)


def test_benchmark_reports_fenced_output_and_tables_quote_machine_paths() -> None:
    hyperfine = (
        "Use the faster allocator\n\nBenchmark #1: ./find-old '[0-9]\\.jpg$' /home/dana\n"
        "  Time (mean ± σ):     246.8 ms ±   3.4 ms\n\nSummary\n"
        "  './find-new' /home/dana' ran\n    1.23 ± 0.03 times faster\n"
    )
    assert blocking_on_host(hyperfine) == []
    fenced = "Show the caller\n\nIt printed:\n\n```\n/home/dana/venv/lib/x.py:71: Warning: old\n```\n"
    assert blocking_on_host(fenced) == []
    command = "Build\n\n```\ncd /home/dana/src/app && make\n```\n"
    assert ("EP506", "/home/dana/src/app") in blocking_on_host(command)
    table = "Speed up\n\n| Command | Mean |\n|:---|---:|\n| `~/tool-old --files` | 445 |\n"
    assert blocking_on_host(table) == []


def test_a_regex_flag_group_is_no_drive_letter_and_dotfile_lists_are_no_path() -> None:
    assert blocking_on_host("Fix -w\n\nWe use `(?m:^|\\W)(re)(?m:\\W|$)` for it.\n") == []
    assert blocking_on_host("Add the flag\n\nAll .gitignore/.toolignore/.ignore files match.\n") == []
    assert blocking_on_host("Show files\n\nUsers ask for states such as tracked/untracked, staged.\n") == []


def test_gitlab_merge_requests_resolve_on_a_gitlab_origin_only() -> None:
    text = "Fix the export\n\nFollows !42 and tools/cli!7; x != 3.\n"
    gitlab = HostContext("gitlab.com", "acme", "widgets")
    found, _ = detect_text(text, gitlab, DetectSettings())
    assert [(f.token, f.resolution) for f in found] == [
        ("!42", "https://gitlab.com/acme/widgets/-/merge_requests/42"),
        ("tools/cli!7", "https://gitlab.com/tools/cli/-/merge_requests/7"),
    ]
    assert not any(is_blocking(f) for f in found)
    declared = DetectSettings.from_mapping({"hosts": {"git.example.org": "gitlab"}})
    own, _ = detect_text(text, HostContext("git.example.org", "acme", "widgets"), declared)
    assert own[0].resolution == "https://git.example.org/acme/widgets/-/merge_requests/42"
    assert detect_text(text, HOST, DetectSettings())[0] == ()


def test_hyphenated_idioms_of_frequent_words_are_not_coined_terms(repo: Path) -> None:
    head = commit(repo, "Start", {"README.md": "A parser.\n"})
    text = (
        "Fix the pager\n\nFix the off-by-one and the worst-of-both-worlds default; keep fold-and-flush mode\n"
        "and the gate-integrity-rule check.\n"
    )
    context = PygitContext(pygit2.Repository(str(repo)), head)
    coined = [f.token for f in detect_text(text, context, DetectSettings())[0] if f.rule_id == "CT801"]
    assert coined == ["fold-and-flush", "gate-integrity-rule"]


def test_a_placeholder_the_record_talks_about_or_the_repository_ships_is_not_unfilled(repo: Path) -> None:
    talk = "Document the {{GUIDE}} placeholder\n\nEvery docs template holds {{GUIDE}}; say what it becomes.\n"
    assert blocking_on_host(talk) == []
    left = "Release notes\n\nThis release fixes {{ summary }}.\n"
    assert ("RD902", "{{ summary }}") in blocking_on_host(left)
    shipped = commit(repo, "Templates", {"templates/page.html": "<h1>{{ site_title }}</h1>\n"})
    assert blocking_at(repo, shipped, "Fix the header\n\nThe header now shows {{ site_title }} in bold.\n") == []


def markdown_blocking(text: str) -> list[tuple[str, str]]:
    found, _ = detect_text(text, HOST, DetectSettings(), markdown=True)
    return [(f.rule_id, f.token) for f in found if is_blocking(f)]


def test_markdown_is_read_by_its_parser_a_list_items_paragraph_is_prose() -> None:
    text = "## Steps\n\n1. Rebuild the index\n\n    Read /tmp/run3.log before starting.\n"
    assert ("EP505", "/tmp/run3.log") in markdown_blocking(text)
    assert ("EP505", "/tmp/run3.log") not in blocking_on_host(text)  # as a commit message: indented code


def test_markdown_fences_in_lists_lazy_quotes_comments_and_tables_are_quoted() -> None:
    text = (
        "## Notes\n\n- Output:\n\n    ```text\n    /home/dana/app/x.py:3: Warning\n    ```\n\n"
        "> The reply was that this is fixed\nas discussed, nothing else\n\n<!--\nas discussed\n-->\n\n"
        "| Command | Mean |\n|---|---|\n| ~/tool-old | 445 |\n"
    )
    assert markdown_blocking(text) == []
    assert ("DX102", "as discussed") in blocking_on_host(text)  # git's conventions know no lazy quote line


def test_a_markdown_path_or_a_pull_request_body_is_read_as_markdown(repo: Path) -> None:
    from diylisis.core.detectors import detect_with_suppressions, is_markdown_path
    from diylisis.core.model import RecordKind, Snapshot, Target

    assert is_markdown_path("docs/Plan.MD") and not is_markdown_path("COMMIT_EDITMSG") and not is_markdown_path(None)
    data = b"## Steps\n\n1. Rebuild\n\n    Read /tmp/run3.log before starting.\n"
    body = Snapshot(target=Target(kind=RecordKind.PRBODY, locator="-"), data=data, boundary="pull-request body")
    found, _ = detect_with_suppressions(body, HOST, DetectSettings())
    assert ("EP505", "/tmp/run3.log") in [(f.rule_id, f.token) for f in found]


def test_a_file_record_has_no_change_for_its_subject(repo: Path) -> None:
    (repo / "TASK.md").write_text("The failing run is in /tmp/run3.log.\n", encoding="utf-8")
    git(repo, "add", "TASK.md")
    assert not GitCommandContext(repo, exclude_path="TASK.md").in_change("/tmp/run3.log")
    assert GitCommandContext(repo).in_change("/tmp/run3.log")
    head = commit(repo, "Add notes", {"notes.txt": "see /tmp/run3.log\n"})
    pygit = pygit2.Repository(str(repo))
    assert not PygitContext(pygit, head, exclude_path="TASK.md").in_change("/tmp/run3.log")
    assert PygitContext(pygit, head).in_change("/tmp/run3.log")
