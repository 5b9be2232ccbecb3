"""Installing, removing and skipping the plain hooks; verify in a bare mirror and in a fresh clone."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hookutil import BIN, CLEAN, RESIDUE, bare, distill, new_repo, ok, run, write


def _installed(path: Path) -> Path:
    repo = new_repo(path)
    done = distill(repo, "install-hooks", "-q")
    assert done.returncode == 0, done.stderr
    return repo


def _without_venv() -> dict[str, str]:
    """PATH as a shell has it once the virtual environment is deactivated: no git-distill on it."""
    kept = [part for part in os.environ.get("PATH", "").split(os.pathsep) if part and Path(part) != BIN]
    return {"PATH": os.pathsep.join(kept), "VIRTUAL_ENV": ""}


def _plain(cwd: Path, *cmd: str, extra: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    import subprocess

    return subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, check=False,
                          env={**os.environ, **_without_venv(), **(extra or {})})


def test_hooks_run_with_the_interpreter_they_were_installed_with(tmp_path: Path) -> None:
    repo = _installed(tmp_path / "work")
    write(repo, "README.md", "widget\n")
    committed = _plain(repo, "git", "commit", "-q", "-m", CLEAN)
    assert committed.returncode == 0, committed.stderr
    assert distill(repo, "verify", "HEAD").returncode == 0  # post-commit stored the certificate
    refused = _plain(repo, "git", "commit", "-q", "--allow-empty", "-m", RESIDUE)
    assert refused.returncode != 0 and "discussed above" in refused.stderr


def test_uninstall_removes_ours_and_restores_only_what_install_saved(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "work")
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "commit-msg").write_text("#!/bin/sh\necho mine\n", encoding="utf-8")
    (hooks / "commit-msg").chmod(0o755)
    assert distill(repo, "install-hooks", "-q", "--chain").returncode == 0
    (hooks / "post-commit.local").write_text("#!/bin/sh\necho never saved by install-hooks\n", encoding="utf-8")
    done = distill(repo, "uninstall-hooks")
    assert done.returncode == 0, done.stderr
    assert (hooks / "commit-msg").read_text(encoding="utf-8") == "#!/bin/sh\necho mine\n"
    assert not (hooks / "commit-msg.local").exists()
    assert not (hooks / "pre-push").exists()
    assert not (hooks / "post-commit").exists()
    assert (hooks / "post-commit.local").exists()  # not ours to put in place
    assert "restored from commit-msg.local" in done.stdout

    (hooks / "pre-push").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    again = distill(repo, "uninstall-hooks")
    assert again.returncode == 0 and "left (not written by git distill)" in again.stdout
    assert (hooks / "pre-push").read_text(encoding="utf-8") == "#!/bin/sh\nexit 0\n"


def test_a_reinstall_keeps_the_record_of_the_saved_hook(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "work")
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "pre-push").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    assert distill(repo, "install-hooks", "-q", "--force").returncode == 0
    assert distill(repo, "install-hooks", "-q").returncode == 0
    assert distill(repo, "uninstall-hooks", "-q").returncode == 0
    assert (hooks / "pre-push").read_text(encoding="utf-8") == "#!/bin/sh\nexit 0\n"


def test_distill_skip_skips_one_hook_or_one_rule_for_one_commit(tmp_path: Path) -> None:
    repo = _installed(tmp_path / "work")
    write(repo, "README.md", "widget\n")
    ok(repo, "git", "commit", "-q", "-m", CLEAN)
    skipped = run(repo, "git", "commit", "-q", "--allow-empty", "-m", RESIDUE, extra={"DISTILL_SKIP": "commit-msg"})
    assert skipped.returncode == 0 and "skipped" in skipped.stderr
    assert distill(repo, "verify", "HEAD").returncode == 1

    rule = json.loads(distill(repo, "scan", "HEAD", "--format", "json").stdout)["records"][0]["findings"][0]["rule"]
    by_rule = run(repo, "git", "commit", "-q", "--allow-empty", "-m", RESIDUE + " again",
                  extra={"DISTILL_SKIP": rule})
    assert by_rule.returncode == 0, by_rule.stderr
    assert rule in by_rule.stderr and "not certified" in by_rule.stderr

    typo = run(repo, "git", "commit", "-q", "--allow-empty", "-m", RESIDUE, extra={"DISTILL_SKIP": "comit-msg"})
    assert typo.returncode != 0 and "'comit-msg'" in typo.stderr

    ok(repo, "git", "remote", "add", "origin", str(bare(tmp_path / "remote.git")))
    assert run(repo, "git", "push", "-q", "origin", "main").returncode != 0
    pushed = run(repo, "git", "push", "-q", "origin", "main", extra={"SKIP": "distill-verify"})
    assert pushed.returncode == 0, pushed.stderr


def test_verify_runs_in_a_bare_mirror_and_hints_at_unfetched_notes(tmp_path: Path) -> None:
    repo = _installed(tmp_path / "work")
    write(repo, "README.md", "widget\n")
    ok(repo, "git", "commit", "-q", "-m", CLEAN)
    write(repo, "src/upload.py", "MAX_ATTEMPTS = 5\n")
    ok(repo, "git", "commit", "-q", "-m", CLEAN.replace("five times", "five times at most"))
    remote = bare(tmp_path / "remote.git")
    ok(repo, "git", "remote", "add", "origin", str(remote))
    ok(repo, "git", "push", "-q", "origin", "main")
    root = ok(repo, "git", "rev-list", "--max-parents=0", "HEAD").strip()

    mirror = tmp_path / "mirror.git"
    ok(tmp_path, "git", "clone", "-q", "--mirror", str(remote), str(mirror))
    in_mirror = distill(mirror, "verify", "--range", f"{root}~0..HEAD")
    assert in_mirror.returncode == 0, in_mirror.stdout + in_mirror.stderr

    clone = tmp_path / "clone"
    ok(tmp_path, "git", "clone", "-q", str(remote), str(clone))
    unfetched = distill(clone, "verify", "--range", f"{root}..HEAD")
    assert unfetched.returncode == 1 and "missing" in unfetched.stdout
    assert "never fetched" in unfetched.stderr and "git distill sync --fetch origin" in unfetched.stderr
    assert distill(clone, "sync", "--fetch").returncode == 0
    fetched = distill(clone, "verify", "--range", f"{root}..HEAD")
    assert fetched.returncode == 0 and "never fetched" not in fetched.stderr
