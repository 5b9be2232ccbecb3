"""`git distill hook files PATH...` (distill-files) without the framework: the index blob only."""

from __future__ import annotations

from pathlib import Path

import pytest
from hookutil import committed_repo, distill, ok, run, write

GOOD = "# Cache design\n\nEntries expire after ten minutes; the limit is in README.md.\n"
BAD = "# Cache design\n\nEntries expire after ten minutes.\nThe timings are in /tmp/run3.log.\n"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return committed_repo(tmp_path / "work")


def _notes(repo: Path, text: str) -> str:
    blob = ok(repo, "git", "hash-object", "--stdin", input=text).strip()
    shown = run(repo, "git", "notes", "--ref", "distill", "show", blob)
    return shown.stdout if shown.returncode == 0 else ""


def test_the_staged_content_is_certified_not_the_work_tree(work: Path) -> None:
    write(work, "docs/design/cache.md", GOOD)
    (work / "docs/design/cache.md").write_text(BAD, encoding="utf-8")
    done = distill(work, "hook", "files", "docs/design/cache.md")
    assert done.returncode == 0, done.stderr
    assert '"role":"reviewer"' in _notes(work, GOOD)
    assert _notes(work, BAD) == ""
    assert (work / "docs/design/cache.md").read_text(encoding="utf-8") == BAD


def test_a_refusal_points_at_certify_and_touches_nothing(work: Path) -> None:
    write(work, "docs/design/cache.md", BAD)
    status = ok(work, "git", "status", "--porcelain")
    done = distill(work, "hook", "files", "docs/design/cache.md")
    assert done.returncode == 1
    assert "/tmp/run3.log" in done.stderr
    assert "git distill certify docs/design/cache.md" in done.stderr
    assert ok(work, "git", "status", "--porcelain") == status
    assert (work / "docs/design/cache.md").read_text(encoding="utf-8") == BAD
    assert ok(work, "git", "log", "--oneline").count("\n") == 1  # no repair commit


def test_hooks_files_globs_narrow_the_files(work: Path) -> None:
    (work / ".distill.toml").write_text('[hooks]\nfiles = ["docs/design/*.md"]\n', encoding="utf-8")
    write(work, "TASKS.md", BAD)
    done = distill(work, "hook", "files", "-v", "TASKS.md")
    assert done.returncode == 0 and "outside [hooks] files" in done.stderr
    write(work, "docs/design/cache.md", BAD)
    assert distill(work, "hook", "files", "TASKS.md", "docs/design/cache.md").returncode == 1


def test_a_path_is_taken_relative_to_the_repository_and_kept_inside_it(tmp_path: Path) -> None:
    from diylisis.app.hooks.files import repo_path
    from diylisis.core.errors import BadInput

    root, sibling = tmp_path / "repo", tmp_path / "repo2"
    (root / "docs").mkdir(parents=True)
    sibling.mkdir()
    assert repo_path(str(root), root / "docs", "plan.md") == "docs/plan.md"
    assert repo_path(root, ".", str(root / "docs" / ".." / "a.md")) == "a.md"
    for path in (str(sibling / "a.md"), "../a.md"):  # a sibling folder sharing the name's start
        with pytest.raises(BadInput, match="outside the repository"):
            repo_path(str(root), root, path)
