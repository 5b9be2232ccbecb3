"""A week of real use in one test, both ways of installing the hooks: every step exits 0.

Install the hooks (plain scripts, or the real pre-commit framework), commit, commit a task
file with residue that the message names, certify it from an answers file (its repairs
become commits of their own), `git push` through the pre-push hook, `sync --push`, then in a
fresh clone do what the CI job of docs/ci.md does: fetch the certificates, `verify --range`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import RETRY_ANSWERS, RETRY_DOCS, RETRY_TASK
from hookutil import CHECKOUT, CLEAN, bare, checkout_head, distill, new_repo, ok, run, write

HOOK_IDS = ("distill-commit-msg", "distill-post-commit", "distill-files", "distill-verify")


def _install(work: Path, how: str) -> dict[str, str]:
    """Install the hooks; the environment a commit of a task file with residue needs."""
    if how == "plain":
        installed = distill(work, "install-hooks")
        assert installed.returncode == 0, installed.stderr
        return {}
    listed = "".join(f"  - id: {hook}\n" for hook in HOOK_IDS)
    write(work, ".pre-commit-config.yaml", f"repos:\n- repo: {CHECKOUT}\n  rev: {checkout_head()}\n  hooks:\n{listed}")
    ok(work, "pre-commit", "install", "--hook-type", "commit-msg", "--hook-type", "post-commit",
       "--hook-type", "pre-push", "--hook-type", "pre-commit")
    ok(work, "pre-commit", "install-hooks")
    # distill-files refuses a staged record with residue, as it should; the framework's SKIP
    # lets the task file in so that certify can repair it as committed
    return {"SKIP": "distill-files"}


def _step(done, what: str) -> None:  # type: ignore[no-untyped-def]
    assert done.returncode == 0, f"{what} -> {done.returncode}\n{done.stdout}\n{done.stderr}"


@pytest.mark.parametrize("how", ["plain", pytest.param("framework", marks=pytest.mark.slow)])
def test_a_week_of_real_use_exits_0_at_every_step(tmp_path: Path, how: str) -> None:
    work = new_repo(tmp_path / "work")
    task_env = _install(work, how)
    write(work, "README.md", "widget\n")
    _step(run(work, "git", "commit", "-q", "-m", CLEAN), "the first commit")
    for name, text in {**RETRY_DOCS, ".distill.toml": '[detect]\nseverity = { CT801 = "error" }\n'}.items():
        write(work, name, text)
    _step(run(work, "git", "commit", "-q", "-m", "Add the retry documentation and the upload module\n\n"
              "docs/retries.md says how many attempts an upload gets.\n"), "a second commit")

    write(work, "TASK.md", RETRY_TASK.read_text(encoding="utf-8"))
    _step(run(work, "git", "commit", "-q", "-m", "Add TASK.md for the upload retry work\n\n"
              "TASK.md describes how failed uploads are retried.\n", extra=task_env), "committing the task file")
    answers = tmp_path / "answers.toml"
    answers.write_text(RETRY_ANSWERS, encoding="utf-8")
    certified = distill(work, "certify", "TASK.md", "--role", "reviewer", "--yes", "--answers", str(answers),
                        "--format", "json")
    _step(certified, "certify TASK.md from answers")
    assert json.loads(certified.stdout)["evidence"]["repair_commits"]

    remote = bare(tmp_path / "remote.git")
    ok(work, "git", "remote", "add", "origin", str(remote))
    _step(run(work, "git", "push", "-q", "origin", "main"), "git push through the pre-push hook")
    _step(distill(work, "sync", "--push"), "sync --push with the pre-push hook installed")

    clone = tmp_path / "ci"
    ok(tmp_path, "git", "clone", "-q", str(remote), str(clone))
    ok(clone, "git", "fetch", "--no-tags", "origin", "+refs/notes/distill:refs/notes/distill",
       "+refs/distill/snapshots:refs/distill/snapshots")
    root = ok(clone, "git", "rev-list", "--max-parents=0", "HEAD").strip()
    verified = distill(clone, "verify", "--range", f"{root}..HEAD")
    _step(verified, "verify --range in CI")
    _step(distill(clone, "verify", "TASK.md", "--role", "reviewer"), "verify the task file in CI")
