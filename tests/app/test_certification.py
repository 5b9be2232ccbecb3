"""certify / verify / show / brief end to end on real repositories (the backbone path)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import commit, distill, git

CLEAN = """Retry failed uploads with exponential backoff

Uploads that fail with a 5xx response are retried up to five times.
The limit is in src/upload.py.
"""


def _blob_of_message(repo: Path) -> str:
    message = git(repo, "cat-file", "commit", "HEAD").split("\n\n", 1)[1]
    return git(repo, "hash-object", "--stdin", input=message.encode()).strip()


def test_clean_commit_certifies_and_verifies_until_edited(repo: Path) -> None:
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    done = distill(repo, "certify", "HEAD", "--role", "reviewer")
    assert done.returncode == 0, done.stdout + done.stderr
    note = git(repo, "notes", "--ref=distill", "show", _blob_of_message(repo))
    certificate = json.loads(note.splitlines()[0])
    assert certificate["schema"] == "diylisis.certificate/1"
    assert certificate["role"] == "reviewer"
    assert certificate["outcome"] == "already-portable"
    assert certificate["realization"] == "lint-fallback"
    assert sorted(row["category"] for row in certificate["sweep"]) == list(range(1, 12))
    assert all(row["checked"] for row in certificate["sweep"])
    assert distill(repo, "verify", "HEAD", "--role", "reviewer").returncode == 0

    git(repo, "commit", "-q", "--amend", "-m", CLEAN.replace("five times", "six times"))
    failed = distill(repo, "verify", "HEAD", "--role", "reviewer")
    assert failed.returncode == 1
    assert "missing" in failed.stdout

    git(repo, "commit", "-q", "--amend", "-F", "-", input=CLEAN.encode())
    assert distill(repo, "verify", "HEAD", "--role", "reviewer").returncode == 0


def test_certifying_twice_replaces_the_role_line(repo: Path) -> None:
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    for _ in range(2):
        assert distill(repo, "certify", "HEAD", "--role", "reviewer").returncode == 0
    assert distill(repo, "certify", "HEAD", "--role", "implementer").returncode == 0
    lines = git(repo, "notes", "--ref=distill", "show", _blob_of_message(repo)).splitlines()
    assert sorted(json.loads(line)["role"] for line in lines) == ["implementer", "reviewer"]


def test_file_with_residue_is_not_portable_and_names_both(repo: Path) -> None:
    commit(repo, "Add notes", {"NOTES.md": "See the earlier approach.\nLogs: /tmp/run.log\n"})
    done = distill(repo, "certify", "NOTES.md", "--role", "reviewer", "--check")
    assert done.returncode == 1
    assert "the earlier approach" in done.stdout
    assert "/tmp/run.log" in done.stdout
    assert git(repo, "notes", "--ref=distill", "list") == ""


def test_residue_without_answers_pauses_with_commands(repo: Path) -> None:
    commit(repo, "Add notes", {"NOTES.md": "See the earlier approach.\nLogs: /tmp/run.log\n"})
    done = distill(repo, "certify", "NOTES.md", "--role", "reviewer", "--no-input", "--format", "json")
    assert done.returncode == 3
    paused = json.loads(done.stdout)
    tokens = {item["token"] for item in paused["items"]}
    assert any("earlier approach" in token for token in tokens)
    assert any("/tmp/run.log" in token for token in tokens)
    for item in paused["items"]:  # the residue, then the recipient questions a repair will need
        assert item["gate"] == "residual" or item["id"] in ("qp-consumer", "qp-authority")
        assert item["gate"] != "residual" or set(item["options"]) <= {"resolve", "route", "drop", "defer"}
    assert (repo / ".git" / "distill" / "runs" / f"{paused['run']}.json").is_file()


def test_show_and_brief(repo: Path) -> None:
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "show", "HEAD").returncode == 1
    assert distill(repo, "certify", "HEAD", "--role", "reviewer").returncode == 0
    shown = distill(repo, "show", "HEAD", "--format", "json")
    assert json.loads(shown.stdout)["certificates"][0]["role"] == "reviewer"
    brief = distill(repo, "brief", "HEAD", "--role", "reviewer")
    assert brief.returncode == 0
    assert "git distill verify" in brief.stdout.splitlines()[7] or "identity re-check" in brief.stdout
    assert "lint-fallback" in brief.stdout
    assert distill(repo, "brief", "HEAD", "--role", "implementer").returncode == 1


def test_bad_inputs_exit_2_and_write_nothing(repo: Path) -> None:
    empty = distill(repo, "certify", "HEAD", "--role", "reviewer")
    assert empty.returncode == 2
    assert len(empty.stderr.strip().splitlines()) == 1
    commit(repo, CLEAN, {"bin.dat": b"\x00\x01binary", "latin.txt": b"caf\xe9\n"})
    for target in ("bin.dat", "latin.txt", "commit:no-such-rev", "file:../outside.md"):
        done = distill(repo, "certify", target, "--role", "reviewer")
        assert done.returncode == 2, (target, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1
    assert "offset 3" in distill(repo, "certify", "latin.txt", "--role", "reviewer").stderr
    assert git(repo, "notes", "--ref=distill", "list") == ""
    assert not (repo / ".git" / "distill").exists()


def test_verify_range_names_each_failure(repo: Path) -> None:
    first = commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer").returncode == 0
    commit(repo, "Document the retry limit\n\nThe limit lives in src/upload.py.\n",
           {"docs/a.md": "x\n"})
    done = distill(repo, "verify", "--range", f"{first}~0..HEAD", "--role", "reviewer",
                   "--format", "json")
    report = json.loads(done.stdout)
    assert done.returncode == 1
    assert [r["ok"] for r in report["records"]] == [False]
    assert distill(repo, "certify", "HEAD", "--role", "reviewer").returncode == 0
    assert distill(repo, "verify", "--range", f"{first}..HEAD", "--role", "reviewer").returncode == 0


def test_certify_in_one_clone_sync_and_verify_in_another(tmp_path: Path, repo: Path) -> None:
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(remote))
    clone_a, clone_b = tmp_path / "a", tmp_path / "b"
    git(tmp_path, "clone", "-q", str(remote), str(clone_a))
    assert distill(clone_a, "certify", "HEAD", "--role", "reviewer").returncode == 0
    pushed = distill(clone_a, "sync", "--push")
    assert pushed.returncode == 0, pushed.stderr
    git(tmp_path, "clone", "-q", str(remote), str(clone_b))
    assert distill(clone_b, "verify", "HEAD", "--role", "reviewer").returncode == 1  # notes not fetched yet
    fetched = distill(clone_b, "sync", "--fetch")
    assert fetched.returncode == 0, fetched.stderr
    assert distill(clone_b, "verify", "--range", "HEAD", "--role", "reviewer").returncode == 0


def test_a_corrupt_note_is_a_one_line_error_not_a_verdict(repo: Path) -> None:
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer").returncode == 0
    git(repo, "notes", "--ref=distill", "add", "-f", "-m", "{not json", _blob_of_message(repo))
    for args in (("verify", "HEAD"), ("show", "HEAD"), ("verify", "--range", "HEAD")):
        done = distill(repo, *args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and "corrupt" in done.stderr.lower()


def test_a_missing_dependency_is_a_setup_error_not_a_bug(repo: Path) -> None:
    import subprocess
    import sys

    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    blocked = "import sys; sys.modules['pygit2'] = None; from diylisis.cli import main; main()"
    done = subprocess.run([sys.executable, "-c", blocked, "verify", "--range", "HEAD"], cwd=repo,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [done.stderr.strip()]
    assert "pygit2 is not installed" in done.stderr and "bug" not in done.stderr


def test_check_writes_no_run_file(repo: Path) -> None:
    commit(repo, "Add notes", {"NOTES.md": "See the earlier approach.\n"})
    done = distill(repo, "certify", "NOTES.md", "--role", "reviewer", "--check")
    assert done.returncode == 1, done.stdout + done.stderr
    runs = repo / ".git" / "distill" / "runs"
    assert not runs.exists() or not any(runs.iterdir())
