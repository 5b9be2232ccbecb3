"""The preview substrate (diylisis.edges.probes) on real repositories and real processes:
private probe repositories leave the user's repository identical, whatever a probe does."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from diylisis.edges import confinement, probes, run_files
from tests.edges.user_state import dirty_repository, user_state

needs_namespaces = pytest.mark.skipif(not confinement.sandbox_available(),
                                      reason="no user namespaces on this machine")

# Finds the user's repository the way a hostile probe would (through its alternates file) and
# tries every way out it can think of.
HOSTILE = r"""
user_git=$(dirname "$(head -n 1 ../repo.git/objects/info/alternates)")
user=$(dirname "$user_git")
git config user.name probe && git config user.email probe@example.com
echo probe > probe.txt
git add probe.txt && git commit -q -m probe
echo more >> probe.txt && git stash -q
git tag evil
git config user.evil yes
mkdir -p ../repo.git/hooks && printf '#!/bin/sh\ntouch "$MARKS/PROBE-HOOK-RAN"\n' > ../repo.git/hooks/post-commit
echo evil > ../../probe-1/tree/from-sibling 2>/dev/null
echo evil > "$user/from-probe" 2>/dev/null
git -C "$user" tag from-probe 2>/dev/null
git -C "$user" config user.evil yes 2>/dev/null
git -C "$user" stash -q 2>/dev/null
echo "gitdir: $user_git" > .git
git commit -q --allow-empty -m escaped 2>/dev/null
setsid sh -c 'sleep 1; echo late > "$0/late-straggler"; mkdir -p "$1"; touch "$1/recreated"' "$MARKS" "$PWD" \
  >/dev/null 2>&1 &
git --git-dir=../repo.git config core.fsmonitor "touch $MARKS/FSMONITOR-RAN"
printf '* filter=evil\n' > .gitattributes
git --git-dir=../repo.git config filter.evil.clean "touch $MARKS/FILTER-RAN; cat"
echo done
"""


def unique(name: str) -> str:
    return f"{name}-{os.urandom(3).hex()}"


def start(repo: Path, run: str, directions: tuple[str, ...]) -> probes.Substrate:
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()
    substrate = probes.begin(repo, repo / ".git", base, run, {"candidates": list(directions)})
    for index, direction in enumerate(directions):
        probes.create_probe(substrate, index, direction, f"DISTILL-PLACEHOLDER-{run}")
    return substrate


def environments(directions: tuple[str, ...], marks: Path) -> dict[int, dict[str, str]]:
    return {index: {"DISTILL_PROBE": str(index), "DISTILL_CANDIDATE": direction, "MARKS": str(marks)}
            for index, direction in enumerate(directions)}


@needs_namespaces
def test_a_hostile_probe_leaves_the_user_repository_identical_and_nothing_running(
        repo: Path, tmp_path: Path) -> None:
    dirty_repository(repo)
    marks = tmp_path / "marks"
    marks.mkdir()
    before = user_state(repo)
    directions = ("one cache file", "a SQLite cache")
    run = unique("hostile")
    substrate = start(repo, run, directions)
    outcomes = probes.run_probes(substrate, {0: HOSTILE, 1: "echo fine > cache.py"},
                                 environments(directions, marks), timeout=20, confined=True)
    assert [o.status for o in outcomes] == ["populated", "populated"], outcomes
    hostile, benign = (probes.harvest_changes(substrate, k) for k in (0, 1))
    assert ("A", "probe.txt") in hostile.files and hostile.stamp_intact
    assert b"escaped" not in probes.git(["log", "--all", "--format=%s"], repo)
    assert [path for _, path in benign.files] == ["cache.py"]
    dispositions = probes.cleanup_verify(repo / ".git", run)
    assert [d.kind for d in dispositions] == ["FileDestroyed", "FileDestroyed"]
    time.sleep(1.5)
    assert user_state(repo) == before
    assert sorted(os.listdir(marks)) == []  # no fsmonitor, filter, hook or straggler ran
    assert not (repo.parent / "HOOK-RAN").exists()  # the user's post-checkout hook never ran
    assert not substrate.root.exists()
    assert confinement.tagged_processes(probes.probe_tag(run, 0)) == ()


@needs_namespaces
def test_three_parallel_probes_with_a_timeout_finish_in_about_the_timeout(repo: Path, tmp_path: Path) -> None:
    dirty_repository(repo)
    before = user_state(repo)
    directions = ("fast", "hangs", "fails")
    run = unique("timeouts")
    substrate = start(repo, run, directions)
    began = time.monotonic()
    outcomes = probes.run_probes(substrate, {0: "sleep 1; echo ok > a.txt", 1: "sleep 60 & sleep 60",
                                             2: "exit 7"},
                                 environments(directions, tmp_path), timeout=3, confined=True)
    took = time.monotonic() - began
    assert 2.5 < took < 5.5
    assert [(o.status, o.exit_status) for o in outcomes][0] == ("populated", 0)
    assert outcomes[1].status == "timed_out"
    assert (outcomes[2].status, outcomes[2].exit_status) == ("failed", 7)
    saved = probes.load_record(repo / ".git", run)["probes"]
    assert [entry["status"] for entry in saved] == ["populated", "timed_out", "failed"]
    for index in range(3):
        assert confinement.tagged_processes(probes.probe_tag(run, index)) == ()
    assert all(d.kind == "FileDestroyed" for d in probes.cleanup_verify(repo / ".git", run))
    assert user_state(repo) == before


KILLED_DRIVER = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from tests.edges.test_probes import environments, start
from diylisis.edges import probes
repo = Path(sys.argv[1])
directions = ("a", "b", "c")
substrate = start(repo, sys.argv[4], directions)
probes.run_probes(substrate, {k: "setsid sleep 60 & sleep 60" for k in range(3)},
                  environments(directions, repo.parent), timeout=60, confined=sys.argv[3] == "1")
"""


@pytest.mark.parametrize("confined", [pytest.param(True, marks=needs_namespaces), False],
                         ids=["confined", "unconfined"])
def test_a_preview_killed_while_probes_run_is_cleaned_up_completely(repo: Path, confined: bool) -> None:
    dirty_repository(repo)
    before = user_state(repo)
    worktree = Path(__file__).resolve().parents[2]
    run = unique("killed")
    driver = subprocess.Popen([sys.executable, "-c", KILLED_DRIVER, str(repo), str(worktree),
                               "1" if confined else "0", run])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            saved = json.loads(Path(run_files.run_file(repo / ".git", run)).read_text())
            if len(saved["probes"]) == 3 and all(entry.get("pid") for entry in saved["probes"]):
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    time.sleep(0.3)
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    assert any(confinement.tagged_processes(probes.probe_tag(run, k)) for k in range(3))
    dispositions = probes.cleanup_verify(repo / ".git", run)
    assert [d.kind for d in dispositions] == ["FileDestroyed"] * 3
    assert not probes.temp_root(run).exists()
    for index in range(3):
        assert confinement.tagged_processes(probes.probe_tag(run, index)) == ()
    assert user_state(repo) == before


def test_a_probe_registered_but_never_created_is_declared_absent(repo: Path) -> None:
    dirty_repository(repo)
    run = unique("partial")
    substrate = start(repo, run, ("a", "b"))

    def register_only(data: dict[str, object]) -> None:
        data["probes"].append({"index": 2, "direction": "c",  # type: ignore[attr-defined]
                               "artifact_ref": str(substrate.probe_dir(2)), "status": "registered"})

    probes.update_record(repo / ".git", run, register_only)
    dispositions = probes.cleanup_verify(repo / ".git", run)
    assert [d.kind for d in dispositions] == ["FileDestroyed"] * 3
    assert "interrupted" in dispositions[2].reason
    assert not substrate.root.exists()


def test_a_straggler_that_escapes_the_kill_is_declared_discard_failed_and_the_root_kept(
        repo: Path, tmp_path: Path) -> None:
    dirty_repository(repo)
    run = unique("stuck")
    substrate = start(repo, run, ("a", "b"))
    pid_file = tmp_path / "straggler.pid"
    # unconfined, a probe can drop the tag from its environment: nothing but a PID namespace ends it
    escape = (f"env -i setsid sh -c 'echo $$ > {pid_file}; while :; do mkdir -p \"$0\"; sleep 0.05; done' "
              "\"$PWD/again\" >/dev/null 2>&1 &"
              f" while [ ! -s {pid_file} ]; do sleep 0.05; done")  # the probe ends once the straggler runs
    probes.run_probes(substrate, {0: escape, 1: "true"}, environments(("a", "b"), tmp_path),
                      timeout=10, confined=False)
    try:
        dispositions = probes.cleanup_verify(repo / ".git", run)
        assert [d.kind for d in dispositions] == ["DiscardFailed", "FileDestroyed"]
        assert "still exists" in dispositions[0].reason
        assert substrate.root.exists()
        saved = probes.load_record(repo / ".git", run)
        assert saved["dispositions"][0]["disposition"] == "DiscardFailed" and saved["root_left"]
    finally:
        os.kill(int(pid_file.read_text()), signal.SIGKILL)
        time.sleep(0.2)
        confinement.remove_tree(substrate.root)


@needs_namespaces
def test_the_same_straggler_confined_dies_with_its_pid_namespace(repo: Path, tmp_path: Path) -> None:
    dirty_repository(repo)
    run = unique("contained")
    substrate = start(repo, run, ("a", "b"))
    escape = ("env -i setsid sh -c 'while :; do mkdir -p \"$0\"; sleep 0.05; done' \"$PWD/again\" "
              ">/dev/null 2>&1 &")
    probes.run_probes(substrate, {0: escape, 1: "true"}, environments(("a", "b"), tmp_path),
                      timeout=10, confined=True)
    assert [d.kind for d in probes.cleanup_verify(repo / ".git", run)] == ["FileDestroyed", "FileDestroyed"]
    assert not substrate.root.exists()
