"""RepoContext implementations on real temporary repositories (resolves_at)."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from diylisis.core.errors import GitError
from diylisis.edges.gitio.context import GitCommandContext, HostContext, PygitContext, parse_remote_url
from tests.conftest import commit, git


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://github.com/acme/widgets.git", ("github.com", "acme", "widgets")),
        ("https://user@gitlab.com/group/sub/tool", ("gitlab.com", "group/sub", "tool")),
        ("ssh://git@codeberg.org:2222/acme/widgets.git", ("codeberg.org", "acme", "widgets")),
        ("git@github.com:acme/widgets.git", ("github.com", "acme", "widgets")),
        ("/srv/git/widgets.git", None),
        ("../widgets", None),
        ("https://example.org/justone", None),
    ],
)
def test_parse_remote_url(url: str, expected: tuple[str, str, str] | None) -> None:
    assert parse_remote_url(url) == expected


@pytest.fixture
def history(repo: Path) -> dict[str, str]:
    first = commit(repo, "Add docs", {"docs/guide.md": "# Guide\n\nThe Fold-Flush mode batches writes.\n"})
    second = commit(repo, "Add code", {"src/app.py": "print('hi')\n"})
    git(repo, "checkout", "-q", "-b", "side")
    dangling = commit(repo, "Side work", {"side.txt": "x\n"})
    git(repo, "checkout", "-q", "main")
    git(repo, "branch", "-D", "side")
    git(repo, "remote", "add", "origin", "git@github.com:acme/widgets.git")
    return {"first": first, "second": second, "dangling": dangling}


def contexts(repo: Path) -> list[object]:
    return [PygitContext(pygit2.Repository(str(repo)), "HEAD"), GitCommandContext(repo, "HEAD")]


def test_tracked_paths_directories_anchors_and_suffixes(repo: Path, history: dict[str, str]) -> None:
    for context in contexts(repo):
        assert context.tracked("docs/guide.md")
        assert context.tracked("docs/guide.md:3")
        assert context.tracked("./docs/guide.md#L2-L4")
        assert context.tracked("docs/")
        assert context.tracked("guide.md")  # relative to a folder
        assert context.tracked("docs/*.md")
        assert not context.tracked("docs/missing.md")
        assert not context.tracked("side.txt")


def test_commit_ids_need_presence_and_reachability(repo: Path, history: dict[str, str]) -> None:
    for context in contexts(repo):
        assert context.commit_id(history["first"][:8]) == history["first"]
        assert context.commit_id(history["second"]) == history["second"]
        assert context.commit_id(history["dangling"][:10]) is None  # present, but no ref reaches it
        assert context.commit_id("0123456789ab") is None
        assert context.commit_id("not-hex") is None


def test_origin_and_mentions(repo: Path, history: dict[str, str]) -> None:
    for context in contexts(repo):
        assert context.origin() == ("github.com", "acme", "widgets")
        assert context.mentions("fold-flush")
        assert context.mentions("FOLD-FLUSH mode")
        assert not context.mentions("batch")  # whole words only: "batches" does not define "batch"
        assert not context.mentions("declare-and-converge")


def test_parent_tree_counts_for_paths_removed_by_the_commit(repo: Path) -> None:
    commit(repo, "Add old", {"old/notes.md": "x\n"})
    git(repo, "rm", "-q", "old/notes.md")
    git(repo, "commit", "-q", "-m", "Remove old notes")
    context = PygitContext(pygit2.Repository(str(repo)), "HEAD")
    assert context.tracked("old/notes.md")


def test_index_context_for_the_commit_msg_hook(repo: Path, history: dict[str, str]) -> None:
    (repo / "new.md").write_text("Staged words\n", encoding="utf-8")
    git(repo, "add", "new.md")
    context = GitCommandContext(repo)
    assert context.tracked("new.md")
    assert context.mentions("staged words")


def test_unknown_revision_is_a_git_error(repo: Path, history: dict[str, str]) -> None:
    with pytest.raises(GitError, match="unknown revision"):
        PygitContext(pygit2.Repository(str(repo)), "nope")


def test_host_context_knows_only_the_origin() -> None:
    context = HostContext("GitHub.com", "acme", "widgets")
    assert context.origin() == ("github.com", "acme", "widgets")
    assert not context.has_tree
    assert not context.tracked("README.md") and context.commit_id("abc1234") is None


def test_the_record_itself_does_not_define_its_terms(repo: Path) -> None:
    commit(repo, "Add notes", {"notes/plan.md": "Use the zigzag-merge trick.\n", "README.md": "widgets\n"})
    for context in (
        PygitContext(pygit2.Repository(str(repo)), "HEAD", exclude_path="notes/plan.md"),
        GitCommandContext(repo, "HEAD", exclude_path="notes/plan.md"),
    ):
        assert not context.mentions("zigzag-merge")
        assert context.mentions("widgets")
    assert PygitContext(pygit2.Repository(str(repo)), "HEAD").mentions("zigzag-merge")
    assert GitCommandContext(repo, "HEAD").mentions("zigzag-merge")


def test_git_command_context_batches_mentions(repo: Path) -> None:
    commit(repo, "Add", {"doc.md": "The Fold-Flush mode and the WidgetCache.\n"})
    context = GitCommandContext(repo, "HEAD")
    context.prefetch_mentions(["fold-flush", "WidgetCache", "zigzag-merge"])
    assert context._mentions == {"fold-flush": True, "widgetcache": True, "zigzag-merge": False}
    assert context.mentions("FOLD-FLUSH") and not context.mentions("zigzag-merge")
