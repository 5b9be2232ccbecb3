"""Term lookups along a walk over history (what `scan --range` asks) against git grep, commit by commit.

A range scan asks mentions() of commit after commit through one repository handle, newest
first, with the blob texts held in a cache bounded in bytes; the answers must be those git
grep gives at each commit and its first parent, whatever the cache had to drop on the way.
"""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from conftest import commit, git

from diylisis.edges.gitio import context as context_module
from diylisis.edges.gitio.context import PygitContext

TERMS = ("fold-flush", "drain-step", "buffer", "ring-slot", "widget", "never-written", "filler")


def _grep_holds(repo: Path, revision: str, term: str) -> bool:
    """The straightforward answer: git grep finds the term as a whole word, ignoring case, in the revision's texts."""
    done = git(repo, "grep", "-I", "-i", "-w", "-F", "-l", "-e", term, revision, "--", check=False)
    return bool(done.strip())


def _history(repo: Path) -> list[str]:
    """A term that appears, is moved to another file, renamed in place, then removed; others stay."""
    filler = {f"pad/f{n}.txt": f"filler text {n} " * 40 + "\n" for n in range(12)}
    ids = [commit(repo, "Add the buffer notes", {**filler, "docs/a.md": "The Fold-Flush buffer.\n",
                                                  "src/w.c": "int widget;\n"})]
    (repo / "notes").mkdir()
    git(repo, "mv", "docs/a.md", "notes/b.md")
    ids.append(commit(repo, "Move the notes", {}))
    ids.append(commit(repo, "Rename the step", {"notes/b.md": "The Drain-Step buffer.\n"}))
    ids.append(commit(repo, "Add a slot", {"src/ring.h": "/* ring-slot */\n"}))
    git(repo, "rm", "-q", "notes/b.md")
    ids.append(commit(repo, "Drop the notes", {"src/w.c": "int widget; /* buffer */\n"}))
    ids.append(commit(repo, "Touch the filler", {"pad/f3.txt": "filler again\n"}))
    return ids


def test_walk_answers_as_git_grep_at_each_commit_and_its_parent(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _history(repo)
    monkeypatch.setattr(context_module, "_TEXT_CACHE", 600)  # a few texts at a time: the walk must evict
    handle = pygit2.Repository(str(repo))
    for number, commit_id in enumerate(reversed(ids)):  # newest first, as a range scan walks
        context = PygitContext(handle, commit_id, origin=None, origin_known=True, walked=True)
        terms = TERMS[number % len(TERMS):] + TERMS[:number % len(TERMS)]  # a new order each time
        context.prefetch_mentions(list(terms[:3]))
        got = {term: context.mentions(term) for term in terms}
        revisions = [commit_id] + ([f"{commit_id}^"] if commit_id != ids[0] else [])
        expected = {term: any(_grep_holds(repo, rev, term) for rev in revisions) for term in terms}
        assert got == expected, commit_id
    # the history does what its messages say: the answers change along it
    first = PygitContext(handle, ids[0], walked=True)
    last = PygitContext(handle, ids[-1], walked=True)
    assert first.mentions("fold-flush") and not first.mentions("drain-step")
    assert not last.mentions("fold-flush") and not last.mentions("drain-step") and last.mentions("ring-slot")
    assert PygitContext(handle, ids[2], walked=True).mentions("fold-flush")  # its parent held the old name
