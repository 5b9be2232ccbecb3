"""vet_facts' batched reads on the vet fixture: each equals the one-at-a-time git answer."""

from __future__ import annotations

from pathlib import Path

from diylisis.core import tagging
from diylisis.edges import vet_facts
from tests.conftest import git
from tests.vet_fixture import build, commit_at


def test_one_batch_reads_blobs_and_commit_messages_and_names_nothing_for_the_rest(repo: Path) -> None:
    fixture = build(repo)
    names = [f"{fixture.tip}:docs/design.md", f"{fixture.tip}:./src/cache.py", fixture.tip,
             f"{fixture.tip}:absent.md", f"{fixture.tip}:../outside.md", f"{fixture.tip}:src"]
    found = vet_facts.read_objects(repo, names)
    design = found[names[0]]
    assert design is not None and design.type == "blob"
    assert design.id == git(repo, "rev-parse", f"{fixture.tip}:docs/design.md").strip()
    assert vet_facts.object_text(design) == git(repo, "show", f"{fixture.tip}:docs/design.md")
    cache = found[names[1]]
    assert cache is not None and cache.data.startswith(b"TIMEOUT = 60\n")
    message = found[fixture.tip]
    assert message is not None and message.type == "commit"
    assert vet_facts.object_text(message) == git(repo, "log", "-1", "--format=%B", fixture.tip)[:-1]
    assert found[names[3]] is None and found[names[4]] is None
    tree = found[names[5]]
    assert tree is not None and tree.type == "tree"


def test_blame_of_some_lines_agrees_with_the_whole_blame(repo: Path) -> None:
    fixture = build(repo)
    commit_at(repo, "2024-03-08", "Reword line 4", {"docs/design.md": git(repo, "show", "HEAD:docs/design.md")
                                                   .replace("LRU", "least-recently-used")})
    whole = vet_facts.blame_lines(repo, "HEAD", "docs/design.md")
    some = vet_facts.blames(repo, "HEAD", {"docs/design.md": [3, 4], "src/cache.py": [1], "src/retry.py": []})
    assert some["docs/design.md"] == {3: whole[3], 4: whole[4]}
    assert whole[3][0] == fixture.written and whole[4][0] != fixture.written
    assert some["src/cache.py"][1][0] == fixture.raised and "src/retry.py" not in some


def test_lines_past_the_end_give_what_the_file_has(repo: Path) -> None:
    fixture = build(repo)
    some = vet_facts.blames(repo, fixture.tip, {"src/cache.py": [1, 40]})
    assert set(some["src/cache.py"]) == set(vet_facts.blame_lines(repo, fixture.tip, "src/cache.py"))


def test_citations_of_several_sources_equal_each_alone(repo: Path) -> None:
    fixture = build(repo)
    tracked = vet_facts.tracked_paths(repo, fixture.tip)
    together = vet_facts.citations_of(repo, fixture.tip, ["docs/design.md", "src/cache.py"], tracked)
    for source in ("docs/design.md", "src/cache.py"):
        alone = vet_facts.citations_of(repo, fixture.tip, [source], tracked)[source]
        assert together[source] == alone
    assert together["docs/design.md"].downstream_count == 5


def test_dirty_paths_names_only_the_changed_ones(repo: Path) -> None:
    build(repo)
    (repo / "src" / "cache.py").write_text("TIMEOUT = 61\n", encoding="utf-8")
    assert vet_facts.dirty_paths(repo, ["src/cache.py", "docs/design.md"]) == frozenset({"src/cache.py"})


def test_code_facts_find_what_parsing_every_file_finds(repo: Path) -> None:
    files = {
        "src/cache.go": "package cache\n\nconst Timeout = 60\nvar retries = 3 // per call\n",
        "config/app.toml": "[cache]\ntimeout = 30\n[db]\ntimeout = \"5s\"\nname = \"x\"\n",
        "deploy/values.yaml": "cache:\n  timeout: 45s\n  size: 100\nlabel: v1\n",
        "src/limits.py": "MAX_RETRIES: int = 4\nTIMEOUT_MS = 250  # lookup\nretries = compute()\n",
        "src/wide.py": "timeout = \u0665\u0660\n",  # Arabic-Indic digits: a number to Python
        "docs/notes.md": "timeout = 10\n",  # a record, not code
    }
    commit_at(repo, "2024-01-02", "Add the files", files)
    keys = frozenset({"timeout", "Timeout", "retries", "MAX_RETRIES", "TIMEOUT_MS", "size"})
    found = vet_facts.code_facts(repo, "HEAD", keys)
    expected = [fact for path, text in files.items() if not path.endswith(vet_facts.RECORD_SUFFIXES)
                for fact in tagging.code_facts(path, text, keys)]
    def order(fact: tagging.CodeFact) -> tuple[str, int, str]:
        return fact.path, fact.line, fact.key

    assert sorted(found, key=order) == sorted(expected, key=order)
    assert {(f.path, f.line) for f in found} >= {("src/cache.go", 3), ("config/app.toml", 2), ("src/wide.py", 1)}
