"""`git distill install-hooks` and the plain hook scripts, on real repositories."""

from __future__ import annotations

import os
from pathlib import Path

from hookutil import CHECKOUT, bare, distill, exercise, new_repo, ok, run, write

from diylisis.app.hooks.scripts import HOOK_ID, hook_script


def test_shipped_scripts_are_the_generated_ones() -> None:
    for name in ("commit-msg", "post-commit", "pre-push"):
        shipped = CHECKOUT / "hooks" / name
        assert shipped.read_text(encoding="utf-8") == hook_script(name)
        assert os.access(shipped, os.X_OK)
        assert HOOK_ID in shipped.read_text(encoding="utf-8")


def test_full_flow_with_install_hooks(tmp_path: Path) -> None:
    work = new_repo(tmp_path / "work")
    done = distill(work, "install-hooks")
    assert done.returncode == 0, done.stderr
    assert "installed" in done.stdout
    write(work, "README.md", "widget\n")
    ok(work, "git", "commit", "-q", "-m", "Start the widget repository with a README")
    assert distill(work, "verify", "HEAD").returncode == 0
    exercise(work, bare(tmp_path / "remote.git"), tmp_path)


def test_install_honors_core_hooks_path(tmp_path: Path) -> None:
    work = new_repo(tmp_path / "work")
    ok(work, "git", "config", "core.hooksPath", "githooks")
    assert distill(work, "install-hooks").returncode == 0
    assert HOOK_ID in (work / "githooks" / "commit-msg").read_text(encoding="utf-8")
    assert not (work / ".git" / "hooks" / "commit-msg").exists()
    doctor = distill(work, "doctor", "--format", "json")
    assert '"commit-msg": "ours"' in doctor.stdout


def test_a_foreign_hook_is_kept_unless_asked(tmp_path: Path) -> None:
    work = new_repo(tmp_path / "work")
    hook = work / ".git" / "hooks" / "commit-msg"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text("#!/bin/sh\necho foreign >> \"$(git rev-parse --git-dir)/foreign-ran\"\n",
                    encoding="utf-8")
    hook.chmod(0o755)
    before = hook.read_text(encoding="utf-8")

    refused = distill(work, "install-hooks")
    assert refused.returncode == 2
    assert "--chain" in refused.stderr and "--force" in refused.stderr
    assert hook.read_text(encoding="utf-8") == before
    assert not (work / ".git" / "hooks" / "pre-push").exists()  # nothing written at all

    chained = distill(work, "install-hooks", "--chain")
    assert chained.returncode == 0, chained.stderr
    assert (work / ".git" / "hooks" / "commit-msg.local").read_text(encoding="utf-8") == before
    write(work, "README.md", "widget\n")
    ok(work, "git", "commit", "-q", "-m", "Start the widget repository with a README")
    assert (work / ".git" / "foreign-ran").read_text(encoding="utf-8") == "foreign\n"
    assert distill(work, "verify", "HEAD").returncode == 0  # our hook ran after it
    assert '"commit-msg": "chained"' in distill(work, "doctor", "--format", "json").stdout

    again = distill(work, "install-hooks")
    assert again.returncode == 0 and "unchanged" in again.stdout


def test_force_replaces_a_foreign_hook_and_keeps_a_copy(tmp_path: Path) -> None:
    work = new_repo(tmp_path / "work")
    hook = work / ".git" / "hooks" / "pre-push"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    done = distill(work, "install-hooks", "--force")
    assert done.returncode == 0, done.stderr
    assert HOOK_ID in hook.read_text(encoding="utf-8")
    assert (work / ".git" / "hooks" / "pre-push.distill-backup").read_text() == "#!/bin/sh\nexit 0\n"


def test_chained_hook_failure_stops_the_commit(tmp_path: Path) -> None:
    work = new_repo(tmp_path / "work")
    hook = work / ".git" / "hooks" / "commit-msg"
    hook.parent.mkdir(parents=True, exist_ok=True)
    hook.write_text("#!/bin/sh\necho 'local policy refuses' >&2\nexit 7\n", encoding="utf-8")
    hook.chmod(0o755)
    assert distill(work, "install-hooks", "--chain").returncode == 0
    write(work, "README.md", "widget\n")
    done = run(work, "git", "commit", "-q", "-m", "Start the widget repository with a README")
    assert done.returncode != 0 and "local policy refuses" in done.stderr
    assert run(work, "git", "rev-parse", "-q", "--verify", "HEAD").returncode != 0


def test_the_scripts_fall_back_to_python3_and_say_when_neither_is_there(tmp_path: Path) -> None:
    import shutil
    import sys

    work = new_repo(tmp_path / "work")
    assert distill(work, "install-hooks", "-q").returncode == 0
    for name in ("commit-msg", "post-commit", "pre-push"):  # the shipped scripts name no interpreter
        (work / ".git" / "hooks" / name).write_text(hook_script(name), encoding="utf-8")
    system = os.pathsep.join(str(Path(shutil.which(tool, path="/usr/bin:/bin")).parent)
                             for tool in ("git", "sh"))
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "python3").write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    (shim / "python3").chmod(0o755)
    write(work, "README.md", "widget\n")
    fallback = run(work, "git", "commit", "-q", "-m", "Fix the bug as discussed above",
                   extra={"PATH": f"{shim}{os.pathsep}{system}"})
    assert fallback.returncode != 0 and "discussed above" in fallback.stderr  # our hook ran

    missing = run(work, "git", "commit", "-q", "-m", "Start the widget repository",
                  extra={"PATH": system, "PYTHONPATH": ""})
    assert missing.returncode != 0
    assert "git distill is not installed" in missing.stderr and "--no-verify" in missing.stderr
