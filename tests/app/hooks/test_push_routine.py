"""One push routine for `sync` and the pre-push hook: every certificate ref, one retry rule, no nesting."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from hookutil import CLEAN, bare, distill, env, new_repo, ok, run, write

from diylisis.edges import store


def _work(tmp_path: Path) -> tuple[Path, Path]:
    """A repository with our hooks, one certified commit pushed to a bare origin."""
    remote = bare(tmp_path / "remote.git")
    work = new_repo(tmp_path / "work")
    assert distill(work, "install-hooks", "-q").returncode == 0
    write(work, "README.md", "widget\n")
    ok(work, "git", "commit", "-q", "-m", CLEAN)
    ok(work, "git", "remote", "add", "origin", str(remote))
    ok(work, "git", "push", "-q", "origin", "main")
    return work, remote


def _clone(remote: Path, where: Path) -> Path:
    ok(remote.parent, "git", "clone", "-q", str(remote), str(where))
    return where


def _remote_refs(remote: Path) -> set[str]:
    return {line.split("\t")[1] for line in ok(remote, "git", "for-each-ref", "--format=%(objectname)\t%(refname)")
            .splitlines()}


def test_sync_push_succeeds_with_the_pre_push_hook_installed(tmp_path: Path) -> None:
    work, remote = _work(tmp_path)
    store.put(work, [b"another record\n"], {"role": "reviewer"})
    pushed = distill(work, "sync", "--push")
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert "pushed refs/notes/distill, refs/distill/snapshots" in pushed.stdout
    assert ok(work, "git", "rev-parse", "refs/notes/distill") == ok(remote, "git", "rev-parse", "refs/notes/distill")


def test_every_distill_notes_ref_travels_with_sync_and_push(tmp_path: Path) -> None:
    work, remote = _work(tmp_path)
    head = ok(work, "git", "rev-parse", "HEAD").strip()
    ok(work, "git", "notes", "--ref", "refs/notes/distill-vet", "add", "-m", '{"vet": 1}', head)
    ok(work, "git", "notes", "--ref", "refs/notes/other-tool", "add", "-m", "not ours", head)
    write(work, "src/upload.py", "MAX_ATTEMPTS = 5\n")
    ok(work, "git", "commit", "-q", "-m", CLEAN.replace("five times", "five times at most"))
    ok(work, "git", "push", "-q", "origin", "main")  # the pre-push hook pushes the certificate refs
    refs = _remote_refs(remote)
    assert {"refs/notes/distill", "refs/notes/distill-vet", "refs/distill/snapshots"} <= refs
    assert "refs/notes/other-tool" not in refs

    clone = _clone(remote, tmp_path / "clone")
    ok(clone, "git", "notes", "--ref", "refs/notes/distill-preview", "add", "-m", '{"preview": 1}', head)
    assert distill(clone, "sync").returncode == 0
    assert ok(clone, "git", "notes", "--ref", "refs/notes/distill-vet", "show", head).strip() == '{"vet": 1}'
    assert "refs/notes/distill-preview" in _remote_refs(remote)


def test_racing_syncs_from_two_clones_all_succeed(tmp_path: Path) -> None:
    _, remote = _work(tmp_path)
    clones = [_clone(remote, tmp_path / name) for name in ("a", "b")]
    for round_number in range(4):
        for index, clone in enumerate(clones):
            store.put(clone, [f"record {round_number} of clone {index}\n".encode()], {"role": "reviewer"})
        racing = [subprocess.Popen([sys.executable, "-m", "diylisis", "sync"], cwd=clone, env=env(),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                  for clone in clones]
        for process in racing:
            out, err = process.communicate(timeout=120)
            assert process.returncode == 0, out + err
    checker = _clone(remote, tmp_path / "checker")
    assert distill(checker, "sync", "--fetch").returncode == 0
    for round_number in range(4):
        for index in range(2):
            assert store.get(checker, f"record {round_number} of clone {index}\n".encode()) == [{"role": "reviewer"}]


def test_git_push_runs_the_hook_without_click(tmp_path: Path) -> None:
    work, remote = _work(tmp_path)
    head = ok(work, "git", "rev-parse", "HEAD").strip()
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "diylisis", "hook", "pre-push", "origin",
                           str(remote)], cwd=work, input=f"refs/heads/main {head} refs/heads/main {'0' * 40}\n",
                          capture_output=True, text=True, check=False,
                          env={**env(), "PYTHONDONTWRITEBYTECODE": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \| *(\S+)\s*$", done.stderr, re.MULTILINE))
    assert "diylisis.app.hooks.pre_push" in loaded
    assert not {name for name in loaded if name == "click" or name.startswith(("click.", "diylisis.commands"))}


def test_push_only_sync_still_refuses_when_the_remote_moved(tmp_path: Path) -> None:
    work, remote = _work(tmp_path)
    other = _clone(remote, tmp_path / "other")
    store.put(other, [b"theirs\n"], {"role": "reviewer"})
    assert distill(other, "sync").returncode == 0
    store.put(work, [b"ours\n"], {"role": "reviewer"})
    refused = distill(work, "sync", "--push")
    assert refused.returncode == 2
    assert "fetch and merge" in refused.stderr and os.linesep not in refused.stderr.strip()
    assert run(work, "git", "rev-parse", "--verify", "-q", "refs/notes/distill").returncode == 0
