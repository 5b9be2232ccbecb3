"""Run files and `git distill runs`: finished runs leave none, interrupted repairs are listed,
resumed or aborted, and certifiers of different files in one repository wait for each other."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import RETRY_ANSWERS, RETRY_DOCS, RETRY_TASK, commit, distill, git

FIXTURE, DOCS, ANSWERS = RETRY_TASK, RETRY_DOCS, RETRY_ANSWERS
RUNS = Path(".git") / "distill" / "runs"


def _run_files(repo: Path) -> list[str]:
    folder = repo / RUNS
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def _answers(tmp_path: Path) -> Path:
    path = tmp_path / "answers.toml"
    path.write_text(ANSWERS)
    return path


def _task_repo(repo: Path, names: tuple[str, ...] = ("TASK.md",)) -> None:
    commit(repo, "Add the retry tasks\n", {**DOCS, **{name: FIXTURE.read_text() for name in names}})


def test_a_certified_repair_leaves_no_run_file(repo: Path, tmp_path: Path) -> None:
    _task_repo(repo)
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--yes", "--answers", str(_answers(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    assert _run_files(repo) == []
    assert git(repo, "status", "--porcelain") == ""
    assert not list((repo / ".git" / "distill" / "tmp").iterdir())
    assert not [p for p in os.listdir(repo) if ".distill-" in p]  # no temporary file in the work tree


def test_check_writes_no_run_file(repo: Path) -> None:
    _task_repo(repo)
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--check")
    assert done.returncode == 1, done.stdout + done.stderr
    assert _run_files(repo) == []


def test_a_certify_that_fails_after_its_first_pass_leaves_no_run_file(repo: Path) -> None:
    commit(repo, "Add task\n", {**DOCS, "TASK.md": "Implement the retry policy in docs/retries.md.\n"})
    blob = git(repo, "hash-object", "-w", "--stdin", input=b"not a notes tree\n").strip()
    git(repo, "update-ref", "refs/notes/distill", blob)  # the certificate cannot be stored
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input")
    assert done.returncode not in (0, 1, 3), done.stdout + done.stderr
    assert _run_files(repo) == []


def test_a_certify_against_a_corrupt_note_leaves_no_run_file(repo: Path) -> None:
    commit(repo, "Add task\n", {**DOCS, "TASK.md": "Implement the retry policy in docs/retries.md.\n"})
    blob = git(repo, "hash-object", "TASK.md").strip()
    git(repo, "notes", "--ref=distill", "add", "-f", "-m", "{not json", blob)
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input")
    assert done.returncode == 2, done.stdout + done.stderr
    assert _run_files(repo) == []


def test_runs_lists_shows_and_aborts_a_paused_run(repo: Path) -> None:
    _task_repo(repo)
    assert "no runs" in distill(repo, "runs").stdout
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input", "--format", "json")
    assert paused.returncode == 3
    run = json.loads(paused.stdout)["run"]

    listed = distill(repo, "runs")
    assert listed.returncode == 0, listed.stderr
    assert run in listed.stdout and "paused" in listed.stdout and "file:TASK.md" in listed.stdout
    rows = json.loads(distill(repo, "runs", "list", "--format", "json").stdout)["runs"]
    assert [(r["run"], r["status"], r["record"]) for r in rows] == [(run, "paused", "file:TASK.md")]
    assert rows[0]["age_seconds"] >= 0 and rows[0]["open_items"]

    shown = distill(repo, "runs", "show", run)
    assert shown.returncode == 0 and f"git distill resume {run}" in shown.stdout
    assert "waiting for answers" in shown.stdout

    aborted = distill(repo, "runs", "abort", run)
    assert aborted.returncode == 0 and f"removed run {run}" in aborted.stdout
    assert _run_files(repo) == []
    gone = distill(repo, "resume", run)
    assert gone.returncode == 2 and "no run" in gone.stderr
    unknown = distill(repo, "runs", "show", "no-such-run")
    assert unknown.returncode == 2 and len(unknown.stderr.strip().splitlines()) == 1


def _crash_at(repo: Path, point: str, answers: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "diylisis", "certify", "TASK.md", "--role", "implementer",
                           "--yes", "--answers", str(answers)], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, "DIYLISIS_CRASH_AT": point}, check=False)


def test_a_repair_killed_before_its_commit_is_pointed_at_then_aborted(repo: Path, tmp_path: Path) -> None:
    _task_repo(repo)
    original = (repo / "TASK.md").read_bytes()
    head = git(repo, "rev-parse", "HEAD")
    killed = _crash_at(repo, "repair-written", _answers(tmp_path))
    assert killed.returncode == -9
    assert (repo / "TASK.md").read_bytes() != original  # the repair is written, not committed
    again = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input")
    assert again.returncode == 2
    assert "git distill resume" in again.stderr and "git distill runs abort" in again.stderr
    [row] = json.loads(distill(repo, "runs", "--format", "json").stdout)["runs"]
    assert row["status"] == "in-repair" and row["repair_in_flight"]["committed"] is None
    aborted = distill(repo, "runs", "abort", row["run"])
    assert aborted.returncode == 0 and "restored TASK.md" in aborted.stdout
    assert (repo / "TASK.md").read_bytes() == original
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "status", "--porcelain") == ""
    assert _run_files(repo) == []


def test_a_repair_killed_after_its_commit_resumes_to_a_certificate(repo: Path, tmp_path: Path) -> None:
    _task_repo(repo)
    answers = _answers(tmp_path)
    killed = _crash_at(repo, "repair-ref-updated", answers)
    assert killed.returncode == -9
    [row] = json.loads(distill(repo, "runs", "--format", "json").stdout)["runs"]
    assert row["status"] == "in-repair" and row["repair_in_flight"]["committed"]
    resumed = distill(repo, "resume", row["run"], "--yes", "--answers", str(answers), "--format", "json")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    commits = json.loads(resumed.stdout)["evidence"]["repair_commits"]
    assert row["repair_in_flight"]["committed"] in commits
    assert len(git(repo, "log", "--format=%H", f"--grep=^Distill-Run: {row['run']}$").split()) == len(commits)
    assert git(repo, "status", "--porcelain") == ""
    assert _run_files(repo) == []
    assert distill(repo, "verify", "TASK.md", "--role", "implementer").returncode == 0


def test_concurrent_certifiers_of_different_files_all_commit_their_repair_once(repo: Path, tmp_path: Path) -> None:
    names = tuple(f"TASK-{n}.md" for n in range(8))
    _task_repo(repo, names)
    answers = _answers(tmp_path)
    started = [subprocess.Popen([sys.executable, "-m", "diylisis", "certify", name, "--role", "implementer",
                                 "--yes", "--answers", str(answers), "--format", "json"], cwd=repo,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in names]
    results = [(process.communicate(timeout=180), process.returncode) for process in started]
    for (out, err), code in results:
        assert code == 0, out + err
    runs = {json.loads(out)["run"]: json.loads(out) for (out, _), _ in results}
    assert len(runs) == 8
    for run, result in runs.items():
        made = git(repo, "log", "--format=%H", f"--grep=^Distill-Run: {run}$").split()
        assert sorted(made) == sorted(result["evidence"]["repair_commits"]) and made
        passes = [git(repo, "show", "-s", "--format=%(trailers:key=Distill-Pass,valueonly)", sha).strip()
                  for sha in made]
        assert len(passes) == len(set(passes))  # each pass's repair is committed exactly once
    for name in names:
        assert git(repo, "show", f"HEAD:{name}") == (repo / name).read_text()
        assert (repo / name).read_text() != FIXTURE.read_text()
    assert git(repo, "status", "--porcelain") == ""
    assert not (repo / ".git" / "index.lock").exists()
    assert _run_files(repo) == []


def test_a_damaged_run_file_is_listed_and_can_be_aborted(repo: Path) -> None:
    _task_repo(repo)
    (repo / RUNS).mkdir(parents=True)
    (repo / RUNS / "20260101-000000-abcdef.json").write_text("{not json")
    listed = distill(repo, "runs")
    assert listed.returncode == 0 and "damaged" in listed.stdout, listed.stderr
    aborted = distill(repo, "runs", "abort", "20260101-000000-abcdef")
    assert aborted.returncode == 0 and "removed" in aborted.stdout
    assert _run_files(repo) == []
    assert git(repo, "status", "--porcelain") == ""


def test_a_clean_file_with_a_journaled_repair_is_refused_until_that_run_is_settled(
        repo: Path, tmp_path: Path) -> None:
    _task_repo(repo)
    answers = _answers(tmp_path)
    killed = _crash_at(repo, "repair-journaled", answers)
    assert killed.returncode == -9
    assert git(repo, "status", "--porcelain") == ""  # journaled, the file not touched yet
    [row] = json.loads(distill(repo, "runs", "--format", "json").stdout)["runs"]
    again = distill(repo, "certify", "TASK.md", "--role", "implementer", "--yes", "--answers", str(answers))
    assert again.returncode == 2, again.stdout + again.stderr
    assert f"git distill runs abort {row['run']}" in again.stderr and "git distill runs" in again.stderr
    assert not git(repo, "log", "--format=%H", "--grep=^Distill-Run: ").split()  # nothing committed
    aborted = distill(repo, "runs", "abort", row["run"])
    assert aborted.returncode == 0, aborted.stderr
    assert distill(repo, "certify", "TASK.md", "--role", "implementer", "--yes", "--answers",
                   str(answers)).returncode == 0


def _commit_the_journaled_repair_by_hand(repo: Path, run: str) -> str:
    data = json.loads((repo / RUNS / f"{run}.json").read_text())["pending_repair"]
    (repo / "TASK.md").write_bytes(subprocess.run(["git", "cat-file", "blob", data["repaired_blob"]], cwd=repo,
                                                  capture_output=True, check=True).stdout)
    git(repo, "commit", "-q", "-am", "Repair the task by hand")
    return git(repo, "rev-parse", "HEAD").strip()


def test_abort_of_a_repair_someone_else_committed_leaves_that_commit_in_the_file(
        repo: Path, tmp_path: Path) -> None:
    _task_repo(repo)
    killed = _crash_at(repo, "repair-journaled", _answers(tmp_path))
    assert killed.returncode == -9
    [row] = json.loads(distill(repo, "runs", "--format", "json").stdout)["runs"]
    head = _commit_the_journaled_repair_by_hand(repo, row["run"])
    committed = (repo / "TASK.md").read_bytes()
    aborted = distill(repo, "runs", "abort", row["run"])
    assert aborted.returncode == 0, aborted.stderr
    assert "restored" not in aborted.stdout and "superseded" in aborted.stdout
    assert (repo / "TASK.md").read_bytes() == committed
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "rev-parse", "HEAD").strip() == head
    assert _run_files(repo) == []


def test_resume_of_a_repair_someone_else_committed_changes_nothing(repo: Path, tmp_path: Path) -> None:
    _task_repo(repo)
    answers = _answers(tmp_path)
    killed = _crash_at(repo, "repair-journaled", answers)
    assert killed.returncode == -9
    [row] = json.loads(distill(repo, "runs", "--format", "json").stdout)["runs"]
    head = _commit_the_journaled_repair_by_hand(repo, row["run"])
    committed = (repo / "TASK.md").read_bytes()
    resumed = distill(repo, "resume", row["run"], "--yes", "--answers", str(answers))
    assert resumed.returncode == 2, resumed.stdout + resumed.stderr
    assert "superseded" in resumed.stderr and f"git distill runs abort {row['run']}" in resumed.stderr
    assert (repo / "TASK.md").read_bytes() == committed
    assert git(repo, "rev-parse", "HEAD").strip() == head
    assert git(repo, "status", "--porcelain") == ""


def test_a_deeply_nested_run_file_is_damaged_not_a_crash(repo: Path) -> None:
    _task_repo(repo)
    (repo / RUNS).mkdir(parents=True)
    (repo / RUNS / "20990101-000000-aaaaaa.json").write_text("[" * 100000 + "\n")
    listed = distill(repo, "runs")
    assert listed.returncode == 0 and "damaged" in listed.stdout, listed.stdout + listed.stderr
    shown = distill(repo, "runs", "show", "20990101-000000-aaaaaa")
    assert shown.returncode == 2 and "damaged" in shown.stderr, shown.stderr
    assert len(shown.stderr.strip().splitlines()) == 1
    checked = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input")
    assert checked.returncode == 3, checked.stdout + checked.stderr  # paused for answers, not exit 70
    aborted = distill(repo, "runs", "abort", "20990101-000000-aaaaaa")
    assert aborted.returncode == 0 and "could not be read" in aborted.stdout, aborted.stdout + aborted.stderr
    assert "20990101-000000-aaaaaa.json" not in _run_files(repo)


def _journaled(repo: Path) -> bool:
    """A run file holds a repair in flight (read as certify may replace or remove it meanwhile)."""
    for path in (repo / RUNS).glob("*.json"):
        try:
            if "pending_repair" in path.read_text():
                return True
        except OSError:
            continue
    return False


@pytest.mark.parametrize("lock", ["index.lock", "HEAD.lock"])
def test_a_repair_waits_for_a_lock_another_git_holds_and_then_commits(repo: Path, tmp_path: Path, lock: str) -> None:
    _task_repo(repo)
    held = repo / ".git" / lock
    held.write_bytes(b"")
    started = subprocess.Popen([sys.executable, "-m", "diylisis", "certify", "TASK.md", "--role", "implementer",
                                "--yes", "--answers", str(_answers(tmp_path))], cwd=repo, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not _journaled(repo) and started.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # the repair is journaled; its index refresh or HEAD update now finds the lock
    assert started.poll() is None, started.communicate()
    held.unlink()
    out, err = started.communicate(timeout=60)
    assert started.returncode == 0, out + err
    assert git(repo, "log", "--format=%H", "--grep=^Distill-Run: ").split()
    assert git(repo, "status", "--porcelain") == ""
    assert _run_files(repo) == []


def test_repair_commits_are_signed_when_git_config_asks_every_commit_to_be(repo: Path, tmp_path: Path) -> None:
    _task_repo(repo)
    key = tmp_path / "signing-key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "repairs", "-f", str(key)], check=True)
    git(repo, "config", "gpg.format", "ssh")
    git(repo, "config", "user.signingKey", str(key))
    git(repo, "config", "commit.gpgSign", "true")
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--yes", "--answers", str(_answers(tmp_path)))
    assert done.returncode == 0, done.stdout + done.stderr
    made = git(repo, "log", "--format=%H", "--grep=^Distill-Run: ").split()
    assert made
    for sha in made:
        assert "\ngpgsig -----BEGIN SSH SIGNATURE-----" in git(repo, "cat-file", "commit", sha)
    git(repo, "config", "commit.gpgSign", "false")
    (repo / "TASK.md").write_text(FIXTURE.read_text())
    git(repo, "commit", "-q", "-am", "Bring the residue back")
    again = distill(repo, "certify", "TASK.md", "--role", "implementer", "--yes", "--answers", str(_answers(tmp_path)))
    assert again.returncode == 0, again.stdout + again.stderr
    latest = git(repo, "log", "-1", "--format=%H", "--grep=^Distill-Run: ").strip()
    assert latest not in made and "gpgsig" not in git(repo, "cat-file", "commit", latest)
