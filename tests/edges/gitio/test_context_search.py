"""PygitContext's shortcuts give the answers of their plain definitions (real temporary repositories).

mentions() looks for ASCII terms in the blob's bytes with only ASCII letters lower-cased, and
commit_id() may list reachable commits with `git rev-list` when a commit-graph exists; both
are checked here against the definitions they stand for.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import sys
from pathlib import Path

import pygit2
import pytest

from diylisis.edges import gitio
from diylisis.edges.gitio import context as context_module
from diylisis.edges.gitio.context import PygitContext, word_pattern
from tests.conftest import commit, git

TEXTS = [
    b"The Fold-Flush mode batches writes.\n",
    b"See v2.4.1 and config.yaml; C# and F#, #55 and issue#7 (x.y) [z]\n",
    "\u00d6l\u00e7ek ve \u0130stanbul: Caf\u00e9-au-lait, na\u00efve \u03a3\u039f\u03a6\u039f\u03a3 end\n".encode(),
    "\u212a-means by Kelvin; \u0130d and \u0130\n".encode(),
    b"snake_case_name and __dunder__ -- em\xe2\x80\x94dash \xff\xfe invalid, then\xc3 bytes\n",
    "\uc791\uc5c5 #55 \ub05d; Task #63\n".encode(),
    b"multi  word\tterm and Multi Word Term\r\nCRLF line\r\n",
    b"",
    b"\x00binary fold-flush\x00",
]

TERMS = [
    "fold-flush", "fold", "FLUSH mode", "batch", "batches", "writes.", ".", "v2.4.1", "v2.4", "2.4",
    "config.yaml", "yaml", ".yaml", "c#", "f#", "#55", "55", "issue#7", "#7", "(x.y)", "[z]", "#",
    "caf\u00e9-au-lait", "caf\u00e9", "caf", "na\u00efve", "\u03c3\u03bf\u03c6\u03bf\u03c2",
    "\u03c3\u03bf\u03c6\u03bf\u03c3", "istanbul", "\u0130stanbul", "i\u0307stanbul", "stanbul", "i\u0307d",
    "id", "d", "k-means", "kelvin", "k", "-means", "\u212a", "snake_case_name", "snake", "__dunder__",
    "dunder", "--", "\u2014", "em", "dash", "then", "bytes", "\uc791\uc5c5 #55", "task #63", "multi word term",
    "multi  word", "crlf line", "term and", "\u00f6l\u00e7ek", "\u00d6L\u00c7EK", "l\u00e7ek", " end ",
]


def _root_commits(path: Path, texts: list[bytes]) -> list[str]:
    """One parentless commit per text, holding it as notes.txt."""
    repo = pygit2.Repository(str(path))
    signature = pygit2.Signature("Test Author", "author@example.com", 0, 0)
    ids = []
    for text in texts:
        builder = repo.TreeBuilder()
        builder.insert("notes.txt", repo.create_blob(text), pygit2.enums.FileMode.BLOB)
        ids.append(str(repo.create_commit(None, signature, signature, "text\n", builder.write(), [])))
    return ids


def _defined(path: Path, commit_id: str, term: str) -> bool:
    """mentions() as DESIGN.md defines it: the word pattern over the decoded, lower-cased text."""
    repo = pygit2.Repository(str(path))
    blob = repo[repo[commit_id].peel(pygit2.Commit).tree["notes.txt"].id]
    if blob.is_binary:
        return False
    return word_pattern(term.lower().strip()).search(blob.data.decode("utf-8", "replace").lower()) is not None


@pytest.mark.parametrize("cache", [256 * 1024 * 1024, 1])
def test_mentions_agrees_with_the_word_pattern(repo: Path, monkeypatch: pytest.MonkeyPatch, cache: int) -> None:
    monkeypatch.setattr(context_module, "_TEXT_CACHE", cache)  # 1: every read evicts the text before
    ids = _root_commits(repo, TEXTS)
    handle = pygit2.Repository(str(repo))
    found = 0
    for commit_id in ids:
        context = PygitContext(handle, commit_id)
        for term in TERMS:
            expected = _defined(repo, commit_id, term)
            assert context.mentions(term) is expected, (TEXTS[ids.index(commit_id)], term)
            found += expected
    assert found > 40  # the table exercises matches, not only misses


def test_mentions_through_characters_that_lower_to_ascii(repo: Path) -> None:
    kelvin, turkish, plain = _root_commits(repo, ["\u212a-means\n".encode(), "\u0130d\n".encode(), b"k-means\n"])
    handle = pygit2.Repository(str(repo))
    assert PygitContext(handle, kelvin).mentions("k-means")  # KELVIN SIGN lowers to k
    assert PygitContext(handle, turkish).mentions("i")  # U+0130 lowers to i and a combining dot
    assert not PygitContext(handle, turkish).mentions("id")
    assert PygitContext(handle, plain).mentions("\u212a-MEANS")  # the term lowers the same way


def test_the_characters_that_lower_to_ascii_are_all_listed() -> None:
    found = {
        chr(point).encode("utf-8")
        for point in range(0x80, sys.maxunicode + 1)
        if not 0xD800 <= point <= 0xDFFF and any(ch < "\x80" for ch in chr(point).lower())
    }
    assert found == set(context_module._ASCII_FROM_LOWER)


def test_mentions_skips_the_excluded_file_at_any_depth(repo: Path) -> None:
    commit(repo, "Add", {"a/b/plan.md": "zigzag-merge\n", "a/b/other.md": "plain\n", "a/c.md": "x\n"})
    handle = pygit2.Repository(str(repo))
    assert PygitContext(handle, "HEAD").mentions("zigzag-merge")
    assert not PygitContext(handle, "HEAD", exclude_path="a/b/plan.md").mentions("zigzag-merge")
    assert PygitContext(handle, "HEAD", exclude_path="a/b/plan.md").mentions("plain")
    commit(repo, "Copy", {"d/copy.md": "the zigzag-merge again\n"})
    assert PygitContext(handle, "HEAD", exclude_path="a/b/plan.md").mentions("zigzag-merge")


def test_mentions_asks_the_first_parent_only_when_the_commit_does_not_answer(repo: Path) -> None:
    commit(repo, "Add", {"old.md": "Fold-Flush\n"})
    git(repo, "rm", "-q", "old.md")
    commit(repo, "Replace", {"new.md": "WidgetCache\n"})
    context = PygitContext(pygit2.Repository(str(repo)), "HEAD")
    assert context.mentions("widgetcache") and context._parent_tree_id is None
    assert context.mentions("fold-flush") and context._parent_tree_id is not None
    assert not context.mentions("zigzag")


def _history(repo: Path) -> dict[str, str]:
    first = commit(repo, "First", {"a.md": "a\n"})
    commit(repo, "Second", {"b.md": "b\n"})
    git(repo, "checkout", "-q", "-b", "side")
    tagged = commit(repo, "Tagged side work", {"t.md": "t\n"})
    git(repo, "tag", "-a", "-m", "release", "v1")
    git(repo, "tag", "tree-tag", "HEAD^{tree}")  # a ref that peels to no commit
    pulled = commit(repo, "Pull request work", {"p.md": "p\n"})
    git(repo, "update-ref", "refs/pull/1/head", pulled)  # neither a branch nor a tag
    dangling = commit(repo, "Dangling side work", {"d.md": "d\n"})
    git(repo, "checkout", "-q", "main")
    git(repo, "branch", "-D", "side")
    return {"first": first, "tagged": tagged, "pulled": pulled, "dangling": dangling}


@pytest.mark.parametrize("graph", [False, True])
def test_commit_ids_with_and_without_a_commit_graph(repo: Path, graph: bool) -> None:
    ids = _history(repo)
    if graph:
        git(repo, "commit-graph", "write", "--reachable")
    handle = pygit2.Repository(str(repo))
    assert context_module._has_commit_graph(handle.path) is graph
    context = PygitContext(handle, "HEAD")
    assert context.commit_id(ids["first"][:7]) == ids["first"]
    assert context.commit_id(ids["tagged"][:9]) == ids["tagged"]  # reachable from an annotated tag only
    assert context_module._REACHABLE[handle.path].pending is None  # branches and tags answered: no other ref read
    assert context.commit_id(ids["pulled"]) == ids["pulled"]  # reachable from refs/pull/1/head only
    assert not context_module._REACHABLE[handle.path].pending
    assert context.commit_id(ids["dangling"]) is None  # present, but no ref reaches it
    assert context_module._REACHABLE[handle.path].known == set(git(repo, "rev-list", "--all").split())


def test_rev_list_ignores_an_object_store_named_by_the_environment(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    commit(repo, "First", {"a.md": "a\n"})
    git(repo, "commit-graph", "write", "--reachable")
    handle = pygit2.Repository(str(repo))
    tip = handle.references["refs/heads/main"].resolve().peel(pygit2.Commit).id
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "elsewhere"))
    assert context_module._listed(context_module._listing(handle.path, [tip], [])) == {str(tip)}


def test_a_range_scan_lists_reachable_commits_in_the_background(repo: Path) -> None:
    ids = _history(repo)
    handle = pygit2.Repository(str(repo))
    context = PygitContext(handle, "HEAD", origin=None, origin_known=True)
    state = context_module._REACHABLE[handle.path]
    assert state.known is None and state.listing is not None  # git rev-list runs; nothing asked yet
    assert context.commit_id(ids["tagged"][:9]) == ids["tagged"]
    assert state.listing is None and state.known == set(git(repo, "rev-list", "--branches", "--tags").split())
    assert context.commit_id(ids["pulled"]) == ids["pulled"] and context.commit_id(ids["dangling"]) is None


def _commit_id_in_this_process(path: str, prefix: str) -> tuple[str | None, bool]:
    """(commit_id(prefix), whether this process found a listing started by another)."""
    handle = pygit2.Repository(path)
    inherited = context_module._REACHABLE[handle.path].listing is not None
    return PygitContext(handle, "HEAD").commit_id(prefix), inherited


def test_a_forked_process_walks_by_itself_beside_its_parents_listing(repo: Path) -> None:
    ids = _history(repo)
    handle = pygit2.Repository(str(repo))
    context = PygitContext(handle, "HEAD", origin=None, origin_known=True)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_commit_id_in_this_process, (str(repo), ids["first"][:7])) == (ids["first"], True)
    assert context_module._REACHABLE[handle.path].listing is not None  # the parent's, still to be read
    assert context.commit_id(ids["first"][:7]) == ids["first"]


def test_no_listing_outlives_the_process_that_started_it(repo: Path) -> None:
    _history(repo)
    handle = pygit2.Repository(str(repo))
    PygitContext(handle, "HEAD", origin=None, origin_known=True)  # commit_id() is never asked
    listing = context_module._REACHABLE[handle.path].listing
    assert listing is not None and listing in gitio._BACKGROUND
    gitio._end_git()  # what runs at exit
    assert listing.process_id is not None
    with pytest.raises(ChildProcessError):
        os.waitpid(listing.process_id, os.WNOHANG)  # ended and reaped
    assert not gitio._BACKGROUND and not gitio._CAT_FILES


def test_a_dangling_commit_walks_the_other_refs_too(repo: Path) -> None:
    ids = _history(repo)
    context = PygitContext(pygit2.Repository(str(repo)), "HEAD")
    assert context.commit_id(ids["dangling"]) is None
    assert context.commit_id(ids["pulled"]) == ids["pulled"]


def test_rev_list_and_the_pygit2_walk_list_the_same_commits(repo: Path) -> None:
    _history(repo)
    git(repo, "commit-graph", "write", "--reachable")
    handle = pygit2.Repository(str(repo))
    main, v1, pull = (handle.references[name].resolve().peel(pygit2.Commit).id
                      for name in ("refs/heads/main", "refs/tags/v1", "refs/pull/1/head"))
    for tips, hidden in (([main, v1], []), ([pull], [main, v1]), ([main, v1, pull], [])):
        listed = context_module._listed(context_module._listing(handle.path, tips, hidden))
        walker = handle.walk(tips[0], pygit2.enums.SortMode.NONE)
        for tip in tips[1:]:
            walker.push(tip)
        for tip in hidden:
            walker.hide(tip)
        assert listed == {str(c.id) for c in walker}
        assert listed == set(git(repo, "rev-list", *map(str, tips), *(f"^{tip}" for tip in hidden)).split())
    assert len(context_module._listed(context_module._listing(handle.path, [pull], [main, v1])) or ()) == 1


def test_a_linked_worktree_finds_the_commit_graph_of_its_repository(repo: Path, tmp_path: Path) -> None:
    commit(repo, "First", {"a.md": "a\n"})
    git(repo, "commit-graph", "write", "--reachable")
    git(repo, "worktree", "add", "-q", "-b", "other", str(tmp_path / "other"))
    handle = pygit2.Repository(str(tmp_path / "other"))
    assert "worktrees" in handle.path
    assert context_module._has_commit_graph(handle.path)


BINARY_TABLE = [
    b"", b"a", b"plain text\n", b"\x00", b"text then a NUL\x00", b"x" * 8000 + b"\x00 after the first 8000 bytes",
    b"\xfe\xff\x00a", b"\xff\xfea\x00", b"\xff\xfe", b"\xfe\xffplain", b"\xff\xfeplain", b"\x00\x00\xfe\xff",
    b"\xff\xfe\x00\x00", b"\xef\xbb\xbfplain", b"\xef\xbb\xbf" + b"\x01" + b"y" * 127,
    b"\xef\xbb" + b"\x01" + b"y" * 127,
    b"\x01" + b"y" * 127, b"\x01" + b"y" * 128, b"\x01\x02" + b"y" * 255, b"\x01\x02" + b"y" * 256,
    b"\x7f" + b"y" * 100, b"\x08\x1b\x0c escape, backspace and form feed are printable\n",
    b"\t\n\v\r" * 50 + b"\x01", b"\t\n\v\r" * 50 + b"\x01" + b"y" * 128, bytes(range(1, 32)) * 5,
    bytes(range(128, 256)) * 3, "\uc791\uc5c5 and caf\u00e9\n".encode(), b"y" * 7999 + b"\x01" * 5,
    b"y" * 8000 + b"\x01" * 500, b"\x1a\x1c\x1f" + b"y" * 500,
]


def _near_the_threshold(rng: random.Random) -> bytes:
    """Random bytes around is_binary's edges: one control per ~128 others, BOMs, the 8000-byte head."""
    size = rng.choice([1, 2, 3, 4, 130, 300, 7990, 8000, 8010, 9000])
    alphabet = [rng.randrange(32, 256) for _ in range(8)] + list(b"\t\n\v\r\x08\x0c\x1b")
    data = bytearray(rng.choices(alphabet, k=size))
    controls = context_module._CONTROLS + (b"\0" if rng.random() < 0.05 else b"")
    for _ in range(rng.choice([0, 1, 2, size // 129, size // 127, size // 100])):
        data[rng.randrange(size)] = rng.choice(controls)
    prefix = rng.choice([b"", b"", b"\xef\xbb\xbf", b"\xfe\xff", b"\xff\xfe", b"\xff\xfe\x00\x00", b"\xef\xbb"])
    return prefix + bytes(data)


def test_is_binary_answers_as_pygit2_does(repo: Path) -> None:
    handle = pygit2.Repository(str(repo))
    rng = random.Random(7)
    table = BINARY_TABLE + [_near_the_threshold(rng) for _ in range(400)]
    for data in table:
        assert context_module._is_binary(data) is handle[handle.create_blob(data)].is_binary, data[:20]
    answers = [context_module._is_binary(data) for data in table]
    assert 100 < sum(answers) < 300  # both answers are well exercised


def test_mentions_reads_through_git_and_through_pygit2_alike(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                            tmp_path: Path) -> None:
    monkeypatch.setattr(context_module, "_CAT_FILE_FROM", 1)  # these trees are small: read every one through git
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    ids = _root_commits(bare, TEXTS)
    assert _root_commits(repo, TEXTS) == ids  # the same objects in both
    through_git = [[PygitContext(pygit2.Repository(str(bare)), i).mentions(t) for t in TERMS] for i in ids]
    pipe = gitio._CAT_FILES["store"]
    assert pipe.where == pygit2.Repository(str(bare)).path and pipe.pid == os.getpid()
    monkeypatch.setenv("PATH", str(tmp_path / "no-such-bin"))  # git cannot be started: pygit2 reads
    handle = pygit2.Repository(str(repo))
    through_pygit2 = [[PygitContext(handle, i).mentions(t) for t in TERMS] for i in ids]
    assert not gitio._CAT_FILES and (os.getpid(), "store", handle.path) in gitio._CAT_FILE_FAILED
    assert through_git == through_pygit2
    assert sum(map(sum, through_git)) > 40


def test_mentions_reads_the_objects_pygit2_sees_whatever_the_environment_says(
        repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(context_module, "_CAT_FILE_FROM", 1)
    commit(repo, "Add", {"doc.md": "The Fold-Flush mode.\n"})
    elsewhere = tmp_path / "elsewhere"
    git(tmp_path, "init", "-q", str(elsewhere))
    monkeypatch.setenv("GIT_DIR", str(elsewhere / ".git"))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(elsewhere / ".git" / "objects"))
    assert PygitContext(pygit2.Repository(str(repo)), "HEAD").mentions("fold-flush")
    assert gitio._CAT_FILES  # read by git, not by the pygit2 fallback


def test_mentions_reads_through_git_in_a_linked_worktree(repo: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(context_module, "_CAT_FILE_FROM", 1)
    commit(repo, "Add", {"doc.md": "The Fold-Flush mode.\n"})
    git(repo, "worktree", "add", "-q", "-b", "other", str(tmp_path / "other"))
    handle = pygit2.Repository(str(tmp_path / "other"))
    assert "worktrees" in handle.path
    assert PygitContext(handle, "HEAD").mentions("fold-flush")
    assert gitio._CAT_FILES["store"].where == handle.path  # git found the objects from there
    assert not PygitContext(handle, "HEAD").mentions("zigzag-merge")


def test_a_blob_missing_from_the_store_mentions_nothing(repo: Path) -> None:
    commit(repo, "Add", {"doc.md": "The Fold-Flush mode.\n"})
    absent = "0123456789abcdef0123456789abcdef01234567"
    tree = git(repo, "mktree", "--missing", input=f"100644 blob {absent}\tgone.md\n".encode()).strip()
    tree = git(repo, "mktree", "--missing", input=(git(repo, "ls-tree", "HEAD").encode()
                                                   + f"040000 tree {tree}\tpartial\n".encode())).strip()
    head = git(repo, "commit-tree", tree, "-m", "partial", input=b"").strip()
    context = PygitContext(pygit2.Repository(str(repo)), head)
    assert not context.mentions("anything-at-all")
    assert context.mentions("fold-flush")


def test_a_tree_of_missing_blobs_too_many_for_pygit2_mentions_nothing(repo: Path) -> None:
    commit(repo, "Add", {"doc.md": "The Fold-Flush mode.\n"})
    count = context_module._CAT_FILE_FROM + 6  # enough that the blobs would be asked of git's pipe
    listing = "".join(f"100644 blob {n:040x}\tgone{n}.md\n" for n in range(1, count + 1))
    tree = git(repo, "mktree", "--missing", input=listing.encode()).strip()
    head = git(repo, "commit-tree", tree, "-m", "partial", input=b"").strip()
    assert not PygitContext(pygit2.Repository(str(repo)), head).mentions("anything-at-all")


def test_a_term_found_in_a_blob_already_read_reads_no_other(repo: Path) -> None:
    commit(repo, "Add", {"a.md": "The Fold-Flush mode.\n"})
    handle = pygit2.Repository(str(repo))
    assert PygitContext(handle, "HEAD").mentions("fold-flush")
    commit(repo, "More", {"b/new.md": "Unrelated words.\n", "c.md": "More words.\n"})
    texts = context_module._index(handle)._texts
    before = len(texts)
    assert PygitContext(handle, "HEAD").mentions("fold-flush")  # a.md answers: b/new.md and c.md stay unread
    assert len(texts) == before
    assert not PygitContext(handle, "HEAD").mentions("zigzag-merge")  # every blob is read, in one request
    assert len(texts) == before + 2


def _mentions_in_this_process(path: str, commit_id: str, term: str) -> tuple[bool, int, int]:
    """(mentions(term), the process owning the cat-file used, that git's process id)."""
    found = PygitContext(pygit2.Repository(path), commit_id).mentions(term)
    pipe = gitio._CAT_FILES["store"]
    return found, pipe.pid, pipe.process_id


def test_a_forked_process_reads_through_its_own_git(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(context_module, "_CAT_FILE_FROM", 1)
    commit(repo, "Add", {"a.md": "The Fold-Flush mode.\n"})
    handle = pygit2.Repository(str(repo))
    assert not PygitContext(handle, "HEAD").mentions("widget-cache")
    parent_pipe = gitio._CAT_FILES["store"]
    commit(repo, "More", {"b.md": "The Widget-Cache layer.\n"})
    head = git(repo, "rev-parse", "HEAD").strip()
    with multiprocessing.get_context("fork").Pool(1) as pool:
        found, owner, git_pid = pool.apply(_mentions_in_this_process, (str(repo), head, "widget-cache"))
    assert found and owner != os.getpid() and git_pid != parent_pipe.process_id
    assert gitio._CAT_FILES["store"] is parent_pipe  # the parent's is untouched and still answers
    assert PygitContext(handle, head).mentions("widget-cache")


def test_many_blobs_read_in_one_request_each_get_their_own_text(repo: Path) -> None:
    files = {f"dir{n % 7}/file{n}.md": f"Entry {n}: the Step-{n}-Marker.\n" * (n % 5 + 1) for n in range(200)}
    files["big.md"] = "x" * (3 * 1024 * 1024) + " The Late-Marker.\n"  # larger than the pipe git writes into
    commit(repo, "Add", files)
    handle = pygit2.Repository(str(repo))
    context = PygitContext(handle, "HEAD")
    assert not context.mentions("absent-marker")  # reads every blob, in batches
    texts = context_module._index(handle)._texts
    tree = handle.revparse_single("HEAD").peel(pygit2.Commit).tree
    for path, content in files.items():
        assert texts[tree[path].id] == content.lower().encode()
    assert context.mentions("step-199-marker") and context.mentions("late-marker")


def test_a_few_blobs_are_read_through_pygit2_and_many_through_git(repo: Path) -> None:
    commit(repo, "Add", {"a.md": "The Fold-Flush mode.\n", "b.md": "Other words.\n"})
    handle = pygit2.Repository(str(repo))
    gitio.close_cat_files()
    assert not PygitContext(handle, "HEAD").mentions("zigzag-merge")  # two blobs: no git process for them
    assert not gitio._CAT_FILES
    commit(repo, "More", {f"docs/page{n}.md": f"Page {n}.\n" for n in range(context_module._CAT_FILE_FROM)})
    assert not PygitContext(handle, "HEAD").mentions("zigzag-merge")
    assert gitio._CAT_FILES and gitio._CAT_FILES["store"].where == handle.path


def test_the_blobs_judged_before_the_others_are_read_are_not_read_again(repo: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    commit(repo, "Add", {f"docs/old{n}.md": f"Old page {n}, with more words to make it long.\n" * 2 for n in range(10)})
    handle = pygit2.Repository(str(repo))
    assert not PygitContext(handle, "HEAD").mentions("zigzag-merge")  # the ten texts are kept
    commit(repo, "More", {f"docs/new{n}.md": f"New page {n}.\n" for n in range(context_module._CAT_FILE_FROM)})
    monkeypatch.setattr(context_module, "_TEXT_CACHE", 1200)  # the new texts push some old ones out
    index = context_module._index(handle)
    one_by_one: list[pygit2.Oid] = []
    read_one = index._read_one
    monkeypatch.setattr(index, "_read_one", lambda oid: one_by_one.append(oid) or read_one(oid))
    assert not PygitContext(handle, "HEAD", first_parent=False).mentions("other-term")
    assert index._text_bytes <= 1200 and len(index._texts) < 10 + context_module._CAT_FILE_FROM
    # the old texts were judged before the new ones beside them were read, in one request
    assert one_by_one == []
    assert PygitContext(handle, "HEAD").mentions("page")
