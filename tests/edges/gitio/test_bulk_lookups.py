"""Bulk term lookups over a tree (PygitContext.prefetch_mentions, _TreeIndex.mentioned) on real repositories.

A record's terms are answered in one walk over the commit's tree, then its first parent's for
the terms left unfound; the answers must be those of asking each term alone, and of the word
pattern DESIGN.md defines, while the memos stay within their bounds.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pygit2
import pytest
from conftest import commit, git

from diylisis.edges.gitio import context as context_module
from diylisis.edges.gitio.context import PygitContext, word_pattern

FILES = {
    "README.md": "The Widget-Cache keeps a Fold-Flush buffer.\n",
    "docs/guide.md": "Run git-gc-auto after the cold-start-path; see SlabAllocator.\n",
    "docs/deep/more/notes.txt": "snake_case-name and x-ray-vision, café-au-lait\n",
    "src/slab.c": "/* slab_allocator: the ring-buffer-v2 */\nint hot_path(void);\n",
    "src/bin.dat": b"\x00\x01 binary widget-cache \x00",
}

TERMS = ["widget-cache", "fold-flush", "git-gc", "gc-auto", "git-gc-auto", "cold-start", "start-path",
         "slaballocator", "snake_case-name", "case-name", "x-ray", "ray-vision", "ring-buffer-v2", "buffer-v2",
         "hot_path", "hot", "path", "café-au-lait", "au-lait", "absent-term", "binary", "widget"]


def _tree_text_holds(handle: pygit2.Repository, tree: pygit2.Tree, term: str) -> bool:
    """The definition: the word pattern over some text blob's decoded, lower-cased content."""
    for entry in tree:
        obj = handle[entry.id]
        if isinstance(obj, pygit2.Tree):
            if _tree_text_holds(handle, obj, term):
                return True
        elif isinstance(obj, pygit2.Blob) and not obj.is_binary:
            if word_pattern(term).search(obj.data.decode("utf-8", "replace").lower()):
                return True
    return False


def test_a_batch_answers_as_each_term_alone_and_as_the_word_pattern(repo: Path) -> None:
    commit(repo, "Add", FILES)
    handle = pygit2.Repository(str(repo))
    tree = handle.revparse_single("HEAD").peel(pygit2.Commit).tree
    batch = PygitContext(handle, "HEAD")
    batch.prefetch_mentions(TERMS)
    alone = {term: PygitContext(pygit2.Repository(str(repo)), "HEAD").mentions(term) for term in TERMS}
    expected = {term: _tree_text_holds(handle, tree, term) for term in TERMS}
    assert {term: batch.mentions(term) for term in TERMS} == alone == expected
    assert sum(expected.values()) >= 15 and not expected["absent-term"] and not expected["binary"]


def test_the_first_parent_answers_only_what_the_commit_leaves_unfound(repo: Path) -> None:
    commit(repo, "Add", {"old.md": "The Fold-Flush path.\n", "keep.md": "Widget-Cache\n"})
    git(repo, "rm", "-q", "old.md")
    commit(repo, "Remove", {"new.md": "Slab-Ring\n"})
    context = PygitContext(pygit2.Repository(str(repo)), "HEAD")
    context.prefetch_mentions(["widget-cache", "slab-ring"])
    assert context._parent_tree_id is None  # the commit's tree answered both: the parent is not read
    context.prefetch_mentions(["fold-flush", "slab-ring", "zigzag-merge"])
    assert context._parent_tree_id is not None
    assert context.mentions("fold-flush") and context.mentions("slab-ring") and not context.mentions("zigzag-merge")


def test_a_batch_over_a_history_matches_the_definition_commit_by_commit(repo: Path) -> None:
    rng = random.Random(7)
    words = ["alpha-beta", "beta-gamma", "gamma", "delta_x", "epsilon-zeta-eta", "theta", "iota-kappa"]
    ids = []
    for number in range(12):
        files = {f"d{rng.randrange(3)}/f{rng.randrange(4)}.md": " ".join(rng.sample(words, 3)) + f" n{number}\n"
                 for _ in range(3)}
        ids.append(commit(repo, f"Change {number}", files))
        if number % 4 == 3:
            git(repo, "rm", "-q", "-r", "--ignore-unmatch", f"d{number % 3}")
            ids.append(commit(repo, f"Drop {number}", {"top.md": f"top {number}\n"}))
    handle = pygit2.Repository(str(repo))
    terms = [*words, "alpha", "zeta-eta", "eta", "kappa", "n3", "n11", "missing-word"]
    for commit_id in reversed(ids):  # newest first, as a range scan walks
        context = PygitContext(handle, commit_id, walked=True)
        context.prefetch_mentions(terms)
        current = handle[commit_id].peel(pygit2.Commit)
        trees = [current.tree] + [handle[p].peel(pygit2.Commit).tree for p in current.parent_ids[:1]]
        for term in terms:
            assert context.mentions(term) is any(_tree_text_holds(handle, t, term) for t in trees), (commit_id, term)


def test_the_memos_stay_within_their_bounds(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(context_module, "_TERMS_KEPT", 8)
    monkeypatch.setattr(context_module, "_FOLDER_ENTRIES_KEPT", 6)
    monkeypatch.setattr(context_module, "_TEXT_CACHE", 64)
    commit(repo, "Add", {f"dir{n}/file{n}.md": f"Term-{n} and more words to fill the text up.\n" for n in range(10)})
    handle = pygit2.Repository(str(repo))
    context = PygitContext(handle, "HEAD")
    terms = [f"term-{n}" for n in range(20)]
    context.prefetch_mentions(terms)
    assert [context.mentions(term) for term in terms] == [n < 10 for n in range(20)]
    index = context_module._index(handle)
    assert len(index._terms) <= 8
    assert index._folder_entries <= 6 or len(index._folders) == 1
    assert index._text_bytes <= 64 or len(index._texts) == 1
    assert sum(len(folder.entries) for folder in index._folders.values()) == index._folder_entries


@pytest.mark.parametrize("seed", range(3))
def test_the_word_search_agrees_with_the_word_pattern(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = "ab-_ .#9\u00e9"
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 14))).lower().encode()
        term = "".join(rng.choice("ab-_.9") for _ in range(rng.randrange(1, 4)))
        expected = re.search(rb"(?<![a-z0-9_])" + re.escape(term.encode()) + rb"(?![a-z0-9_])", text) is not None
        assert context_module._holds_word(text, term.encode()) is expected, (text, term)
