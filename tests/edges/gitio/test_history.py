"""walk_messages: one pygit2 pass over a range, exact message bytes, clear errors."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pygit2
import pytest

from diylisis.core.errors import GitError
from diylisis.edges.gitio import history
from diylisis.edges.gitio.history import start_walk, walk_messages
from tests.conftest import commit, git


def test_range_yields_exact_bytes_newest_first_without_merges(repo: Path) -> None:
    base = commit(repo, "Base\n")
    git(repo, "checkout", "-q", "-b", "topic")
    topic = commit(repo, "Topic  \n\n\nbody with trailing spaces   \n", {"t.txt": "t\n"})
    git(repo, "checkout", "-q", "main")
    main = commit(repo, "Main\n", {"m.txt": "m\n"})
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge topic", "topic")
    repository = pygit2.Repository(str(repo))
    walked = list(walk_messages(repository, f"{base}..HEAD"))
    assert {cid for cid, _ in walked} == {topic, main}
    assert dict(walked)[topic] == b"Topic  \n\n\nbody with trailing spaces   \n"
    with_merges = list(walk_messages(repository, f"{base}..HEAD", include_merges=True))
    assert len(with_merges) == 3
    for cid, message in with_merges:
        raw = subprocess.run(["git", "cat-file", "commit", cid], cwd=repo, capture_output=True, check=True)
        assert raw.stdout.partition(b"\n\n")[2] == message
    assert [cid for cid, _ in walk_messages(repository, "HEAD")][-1] == base


@pytest.mark.parametrize("spec", ["", "-p", "a...b", "nope..HEAD", "HEAD..nope"])
def test_bad_ranges_are_git_errors(repo: Path, spec: str) -> None:
    commit(repo, "One\n")
    with pytest.raises(GitError, match="range"):
        list(walk_messages(pygit2.Repository(str(repo)), spec))


def test_shallow_boundary_is_named(repo: Path, tmp_path: Path) -> None:
    first = commit(repo, "One\n")
    commit(repo, "Two\n", {"b": "b\n"})
    commit(repo, "Three\n", {"c": "c\n"})
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    repository = pygit2.Repository(str(clone))
    assert [msg for _, msg in walk_messages(repository, "HEAD")] == [b"Three\n"]
    with pytest.raises(GitError, match="shallow"):
        list(walk_messages(repository, f"{first}..HEAD"))


def test_while_sorting_reads_the_tip_line_and_leaves_the_walk_as_it_was(repo: Path) -> None:
    base = commit(repo, "Base\n")
    git(repo, "checkout", "-q", "-b", "topic")
    commit(repo, "Topic\n", {"t.txt": "t\n"})
    git(repo, "checkout", "-q", "main")
    for n in range(30):
        commit(repo, f"Main {n}\n", {"m.txt": f"{n}\n"})
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge topic", "topic")
    repository = pygit2.Repository(str(repo))
    first_parents = git(repo, "rev-list", "--first-parent", "--no-merges", f"{base}..HEAD").split()
    for merges in (False, True):
        seen: list[tuple[str, bytes]] = []
        walked = list(start_walk(repository, f"{base}..HEAD", merges).messages(seen.extend))
        assert walked == list(walk_messages(repository, f"{base}..HEAD", merges))
        # the line ends whenever the sort does: what it gave is a start of the first-parent line
        line = first_parents if not merges else [git(repo, "rev-parse", "HEAD").strip(), *first_parents]
        assert [cid for cid, _ in seen] == line[: len(seen)]
        assert all(dict(walked)[cid] == message for cid, message in seen)


def test_a_started_walk_names_a_bad_range_at_once_and_reads_its_messages_later(repo: Path) -> None:
    commit(repo, "One\n")
    commit(repo, "Two\n", {"b": "b\n"})
    repository = pygit2.Repository(str(repo))
    with pytest.raises(GitError, match="range"):
        start_walk(repository, "nope..HEAD")  # not only once its messages are read
    walk = start_walk(repository, "HEAD")
    assert [message for _, message in walk.messages()] == [b"Two\n", b"One\n"]


def test_an_error_while_sorting_ends_only_the_head_start(repo: Path) -> None:
    commit(repo, "One\n")
    commit(repo, "Two\n", {"b": "b\n"})
    repository = pygit2.Repository(str(repo))

    def judge_and_fail(tip_line: object) -> None:
        raise ValueError("a record the range may not hold")

    assert list(start_walk(repository, "HEAD").messages(judge_and_fail)) == list(walk_messages(repository, "HEAD"))


def _libgit2_order(repository: pygit2.Repository, spec: str, merges: bool) -> list[str]:
    """The range in libgit2's own topological order, the order walk_messages promises."""
    base, _, tip = spec.rpartition("..")
    walker = repository.walk(repository.revparse_single(tip).id, pygit2.enums.SortMode.TOPOLOGICAL)
    if base:
        walker.hide(repository.revparse_single(base).id)
    return [str(c.id) for c in walker if merges or len(c.parent_ids) <= 1]


def test_every_shape_of_range_comes_in_libgit2s_topological_order(repo: Path) -> None:
    root = commit(repo, "Root\n")
    git(repo, "checkout", "-q", "-b", "side")
    side = [commit(repo, f"Side {n}\n", {"s.txt": f"{n}\n"}) for n in range(3)]
    git(repo, "checkout", "-q", "main")
    for n in range(5):
        commit(repo, f"Main {n}\n", {"m.txt": f"{n}\n"})
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge side", "side")
    merge = git(repo, "rev-parse", "HEAD").strip()
    line = [commit(repo, f"Line {n}\n", {"l.txt": f"{n}\n"}) for n in range(40)]
    repository = pygit2.Repository(str(repo))
    specs = [
        "HEAD",  # a line, then a merge far below the tip
        f"{line[5]}..HEAD",  # the base on the line
        f"{merge}..HEAD",  # the base right under the line
        f"{side[1]}..HEAD",  # the base on a merged branch, off the line
        f"{root}..{line[3]}",
        f"{side[2]}..{side[0]}",  # nothing: the tip is an ancestor of the base
        f"{line[10]}..{line[10]}",
        "side",
        f"{line[2]}..{side[2]}",  # the base is not an ancestor of the tip
    ]
    for spec in specs:
        for merges in (False, True):
            walked = [cid for cid, _ in walk_messages(repository, spec, merges)]
            assert walked == _libgit2_order(repository, spec, merges), (spec, merges)
    git(repo, "checkout", "-q", "-b", "tip-merge", merge)
    assert [cid for cid, _ in walk_messages(repository, "tip-merge", True)] == _libgit2_order(
        repository, "tip-merge", True)


def test_a_walk_keeps_libgit2s_object_cache_small(repo: Path) -> None:
    for n in range(40):
        commit(repo, f"Change {n}\n", {f"dir{n % 4}/file{n}.txt": f"{n}\n" * 2000})
    before = pygit2.settings.cached_memory[1]
    try:
        pygit2.settings.cache_max_size(256 * 1024 * 1024)
        repository = pygit2.Repository(str(repo))
        walk = start_walk(repository, "HEAD")
        assert pygit2.settings.cached_memory[1] == history.OBJECT_CACHE
        for commit_id, _ in walk.messages():
            repository[commit_id].peel(pygit2.Commit).tree.diff_to_tree()  # parse trees and blobs too
        assert pygit2.settings.cached_memory[0] <= history.OBJECT_CACHE
        pygit2.settings.cache_max_size(1024 * 1024)
        start_walk(repository, "HEAD")
        assert pygit2.settings.cached_memory[1] == 1024 * 1024  # a smaller cache set by the caller stays
    finally:
        pygit2.settings.cache_max_size(before)
