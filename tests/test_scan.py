"""`git distill scan` and `git distill rules` on real repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diylisis.cli import main
from tests.conftest import commit, distill, git


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(list(args))
    out, err = capsys.readouterr()
    return int(done.value.code or 0), out, err


def test_head_message_with_residue_exits_1_with_one_line_per_finding(repo: Path, capsys) -> None:
    git(repo, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    cid = commit(repo, "Add parser\n\nAs discussed, the parser skips blank lines. Fixes #12.\n")
    code, out, _ = run(capsys, "scan")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == (
        f"commit:{cid[:12]}:3:1: DX102 deictic As discussed — refers to a discussion that is not in "
        "the record or the repository (state the conclusion of that discussion and its reason in the record)"
    )
    assert lines[1].startswith(f"commit:{cid[:12]}:3:51: RF301 bare-issue-ref #12 — ")
    assert lines[1].endswith(" [not blocking: resolvable]")
    assert "write https://github.com/acme/widgets/issues/12" in lines[1]
    assert lines[-1] == "scan: 2 finding(s), 1 blocking, 1 not blocking, in 1 record(s)"


def test_clean_message_and_resolvable_refs_exit_0(repo: Path, capsys) -> None:
    git(repo, "remote", "add", "origin", "git@github.com:acme/widgets.git")
    commit(repo, "Skip blank lines in the parser\n\nBlank lines ended the block early. Fixes #12.\n")
    code, out, _ = run(capsys, "scan", "HEAD")
    assert code == 0
    assert out.splitlines()[-1] == "scan: 1 finding(s), 0 blocking, 1 not blocking, in 1 record(s)"


def test_range_scans_each_commit_against_its_own_tree(repo: Path, capsys) -> None:
    base = commit(repo, "Base\n")
    early = commit(repo, "Describe the cache\n\nNotes are in docs/cache.md.\n", {"src/a.py": "a = 1\n"})
    commit(repo, "Add cache notes\n\nThe design is in docs/cache.md.\n", {"docs/cache.md": "# Cache\n"})
    git(repo, "checkout", "-q", "-b", "topic")
    commit(repo, "Topic work\n\nNothing special.\n", {"t.txt": "t\n"})
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "Merge topic in this session", "topic")
    code, out, _ = run(capsys, "scan", "--range", f"{base}..HEAD", "--format", "json")
    data = json.loads(out)
    assert code == 1
    assert data["summary"]["records"] == 3  # the merge is skipped without --merges
    flagged = {r["revision"]: [f["rule"] for f in r["findings"]] for r in data["records"]}
    assert flagged[early] == ["EP507"]  # docs/cache.md was not tracked yet at that commit
    assert sum(bool(v) for v in flagged.values()) == 1
    code, out, _ = run(capsys, "scan", "--range", f"{base}..HEAD", "--merges", "--format", "json")
    assert json.loads(out)["summary"]["records"] == 4


def test_file_target_config_and_inline_ignore(repo: Path, capsys) -> None:
    commit(
        repo,
        "Add notes",
        {
            "notes.md": "# Notes\n\nAll tests pass. <!-- distill: ignore UC701 -->\nReview round 3 fixed the parser.\n",
            ".distill.toml": '[detect]\nper_path = [{ glob = "notes.md", severity = { SI201 = "warning" } }]\n',
        },
    )
    code, out, _ = run(capsys, "scan", "notes.md", "--format", "json")
    (record,) = json.loads(out)["records"]
    assert code == 0  # the only remaining finding was re-levelled to a warning
    assert [(f["rule"], f["severity"]) for f in record["findings"]] == [("SI201", "warning")]
    assert [f["rule"] for f in record["suppressed"]] == ["UC701"]


def test_a_pr_body_is_scanned_as_markdown_as_certify_reads_it(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = repo / "body.md"
    # a lazy continuation line belongs to the block quote in Markdown: quoted, so not the author's claim
    body.write_text("Fix the parser.\n\n> quoted reply from the thread\nall tests pass here\n", encoding="utf-8")
    code, out, _ = run(capsys, "scan", f"prbody:{body}", "--format", "json")
    (record,) = json.loads(out)["records"]
    assert code == 0 and record["findings"] == []


def test_the_json_report_names_its_schema(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    commit(repo, "Add the parser\n\nIt reads the header first.\n")
    _, out, _ = run(capsys, "scan", "HEAD", "--format", "json")
    assert json.loads(out)["schema"] == "diylisis.scan/1"  # what consumers key on; not the module path


@pytest.mark.parametrize(
    "args",
    [("scan", "--range", "nope..HEAD"), ("scan", "HEAD", "--range", "HEAD"), ("scan", "commit:nope")],
)
def test_bad_input_exits_2(repo: Path, capsys, args: tuple[str, ...]) -> None:
    commit(repo, "Base\n")
    code, _, err = run(capsys, *args)
    assert code == 2 and err.startswith("git distill: ")


@pytest.mark.parametrize("command", ["scan", "verify"])
@pytest.mark.parametrize("order", [("HEAD", "--range", "HEAD~1..HEAD"), ("--range", "HEAD~1..HEAD", "HEAD")])
def test_targets_and_a_range_together_are_refused_in_either_order(repo: Path, capsys, command: str,
                                                                   order: tuple[str, ...]) -> None:
    commit(repo, "Base\n")
    commit(repo, "Next\n")
    code, out, err = run(capsys, command, *order)
    assert (code, out, err) == (2, "", "git distill: give targets or --range, not both\n")
    assert run(capsys, command, "--range", "HEAD~1..HEAD")[0] != 2 and run(capsys, command, "HEAD")[0] != 2


def test_a_bad_detect_table_is_named_before_a_bad_range(repo: Path, capsys) -> None:
    commit(repo, "Base\n", {".distill.toml": "[detect]\nbogus = 1\n"})
    code, _, err = run(capsys, "scan", "--range", "nope..HEAD")
    assert code == 2 and "bogus" in err and "nope" not in err


def test_rules_lists_and_explains(repo: Path, capsys) -> None:
    code, out, _ = run(capsys, "rules", "--format", "json")
    rows = json.loads(out)
    assert code == 0 and rows[0]["id"] == "DX101" and len(rows) == len({r["id"] for r in rows})
    code, out, _ = run(capsys, "rules", "SI201")
    assert code == 0 and out.startswith("SI201 review-round (session-id;") and "What it flags:" in out
    code, _, err = run(capsys, "rules", "QQ999")
    assert code == 2 and "no rule" in err


def test_range_scan_works_in_a_bare_clone(repo: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    commit(repo, "Base\n")
    commit(repo, "Fix it\n\nAll tests pass.\n", {"b.txt": "b\n"})
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    monkeypatch.chdir(bare)
    code, out, _ = run(capsys, "scan", "--range", "HEAD", "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["summary"] == {"records": 2, "findings": 1, "not_portable": 1, "skipped": 0}


def _fast_import_history(repo: Path, count: int) -> None:
    """count commits made by git fast-import; every seventh message carries residue, and paths come and go."""
    import subprocess

    stream = []
    for n in range(count):
        body = "As discussed, keep the old order." if n % 7 == 0 else f"Entry {n} keeps the checksum of its block."
        message = f"Change block {n}\n\n{body} See docs/block{n - 1}.md.\n".encode()
        stream.append(b"commit refs/heads/main\n")
        stream.append(f"committer Test <test@example.com> {1_600_000_000 + n} +0000\n".encode())
        stream.append(f"data {len(message)}\n".encode() + message)
        content = f"block {n}\n".encode()
        stream.append(f"M 100644 inline docs/block{n}.md\ndata {len(content)}\n".encode() + content + b"\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True)
    git(repo, "reset", "-q", "--hard", "main")


@pytest.mark.usefixtures("deadline")
def test_a_range_shared_among_worker_processes_gives_the_same_report(repo: Path, capsys) -> None:
    _fast_import_history(repo, 600)
    code_one, one, _ = run(capsys, "scan", "--range", "HEAD", "--jobs", "1", "--format", "json")
    code_two, two, _ = run(capsys, "scan", "--range", "HEAD", "--jobs", "2", "--format", "json")
    assert code_one == code_two == 1
    rules = [f["rule"] for record in json.loads(one)["records"] for f in record["findings"]]
    # every seventh message points at a discussion; only the first cites a path no tree holds
    assert sorted(set(rules)) == ["DX102", "EP507"]
    assert (rules.count("DX102"), rules.count("EP507")) == (86, 1)
    assert two == one


def test_a_scan_process_ends_with_its_whole_report_and_exit_code(repo: Path) -> None:
    _fast_import_history(repo, 600)
    done = distill(repo, "scan", "--range", "HEAD", "--format", "json")
    assert done.returncode == 1, done.stderr
    assert len(done.stdout) > 65_536  # more than a pipe holds, and it arrives whole
    assert json.loads(done.stdout)["summary"] == {"records": 600, "findings": 87, "not_portable": 86, "skipped": 0}


def test_the_jobs_help_names_the_range_length_each_command_starts_workers_from() -> None:
    from diylisis.app import scan, verification
    from diylisis.commands import scan as scan_command
    from diylisis.commands import verify as verify_command

    for command, threshold in ((scan_command.command, scan.PARALLEL_FROM),
                               (verify_command.command, verification.PARALLEL_FROM)):
        jobs = next(param for param in command.params if param.name == "jobs")
        assert f"one per CPU for {threshold} or more commits" in jobs.help


