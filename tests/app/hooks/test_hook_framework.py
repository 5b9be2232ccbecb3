"""The hooks under the REAL pre-commit framework (.venv/bin/pre-commit), on real repositories.

The framework installs this checkout's HEAD commit into PRE_COMMIT_HOME (set per test
session by tests/conftest.py), so the hook files must be committed for these tests to
see them. The first environment build takes a while; the module-scoped install is
reused by the full-flow tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hookutil import CHECKOUT, RESIDUE, bare, checkout_head, exercise, new_repo, ok, run, write

pytestmark = pytest.mark.slow

PRE_COMMIT = "pre-commit"  # resolved on PATH, which hookutil.env puts the venv's bin first on


def _config(hooks: tuple[str, ...]) -> str:
    listed = "".join(f"  - id: {hook}\n" for hook in hooks)
    return f"repos:\n- repo: {CHECKOUT}\n  rev: {checkout_head()}\n  hooks:\n{listed}"


@pytest.fixture(scope="module")
def framework(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository with our hooks installed by `pre-commit install` and one certified commit."""
    work = new_repo(tmp_path_factory.mktemp("framework") / "work")
    write(work, ".pre-commit-config.yaml",
          _config(("distill-commit-msg", "distill-post-commit", "distill-files", "distill-verify")))
    ok(work, PRE_COMMIT, "install", "--hook-type", "commit-msg", "--hook-type", "post-commit",
       "--hook-type", "pre-push", "--hook-type", "pre-commit")
    ok(work, PRE_COMMIT, "install-hooks")
    ok(work, "git", "commit", "-q", "-m", "Add the pre-commit configuration that runs git distill")
    return work


def test_try_repo_refuses_a_residue_message(tmp_path: Path) -> None:
    # one try-repo run: each builds its environment afresh in a temporary store; the
    # passing side is covered by the installed framework below
    work = new_repo(tmp_path / "work")
    write(work, "README.md", "widget\n")
    ok(work, "git", "commit", "-q", "--no-verify", "-m", "Start the widget repository")
    message = tmp_path / "MSG"
    message.write_text(RESIDUE + "\n", encoding="utf-8")
    refused = run(work, PRE_COMMIT, "try-repo", str(CHECKOUT), "distill-commit-msg",
                  "--hook-stage", "commit-msg", "--commit-msg-filename", str(message))
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "discussed above" in refused.stdout and "line 1" in refused.stdout
    assert f"git commit -e -F {message}" in refused.stdout
    assert message.read_text(encoding="utf-8") == RESIDUE + "\n"
    assert run(work, "git", "notes", "--ref", "distill", "list").stdout == ""


def test_full_flow_under_the_framework(framework: Path, tmp_path: Path) -> None:
    exercise(framework, bare(tmp_path / "remote.git"), tmp_path)


def test_distill_files_certifies_the_staged_content_and_never_edits(framework: Path) -> None:
    write(framework, "docs/design/cache.md",
          "# Cache design\n\nEntries expire after ten minutes; the limit is in README.md.\n")
    write(framework, "README.md", "widget\n")
    (framework / "docs/design/cache.md").write_text(
        "# Cache design\n\nThe timings are in /tmp/run3.log.\n", encoding="utf-8")
    done = run(framework, "git", "commit", "-q", "-m", "Describe how long cache entries live")
    assert done.returncode == 0, done.stdout + done.stderr
    committed = ok(framework, "git", "show", "HEAD:docs/design/cache.md")
    verify = run(framework, "python", "-m", "diylisis", "verify", "file:docs/design/cache.md@HEAD")
    assert "ten minutes" in committed
    assert verify.returncode == 0, verify.stdout + verify.stderr
    # the unstaged work-tree edit survives the framework's stash and restore untouched
    assert "/tmp/run3.log" in (framework / "docs/design/cache.md").read_text(encoding="utf-8")

    ok(framework, "git", "add", "docs/design/cache.md")
    refused = run(framework, "git", "commit", "-q", "-m", "Shorten the cache design note")
    said = refused.stdout + refused.stderr
    assert refused.returncode != 0
    assert "/tmp/run3.log" in said and "git distill certify docs/design/cache.md" in said
    assert "/tmp/run3.log" in (framework / "docs/design/cache.md").read_text(encoding="utf-8")
    ok(framework, "git", "reset", "-q", "HEAD", "--", "docs/design/cache.md")
