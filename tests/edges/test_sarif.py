"""`scan --format sarif` validates against the OASIS SARIF 2.1.0 schema and maps findings faithfully."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from diylisis.cli import main
from diylisis.core.detectors import RULES
from tests.conftest import commit, sarif_schema


def sarif_of(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    with pytest.raises(SystemExit) as done:
        main(["scan", *args, "--format", "sarif"])
    return int(done.value.code or 0), json.loads(capsys.readouterr().out)


@pytest.fixture
def log(repo: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict, str]:
    cid = commit(repo, "Fix import\n\nAll tests pass, see /tmp/run.log.\n", {"app.py": "import os\n"})
    commit(
        repo,
        "Add notes",
        {"notes.md": "# Notes\n\nThe user decided to keep it.\nReview round 2 done. <!-- distill: ignore SI201 -->\n"},
    )
    code, data = sarif_of(capsys, f"commit:{cid}", "notes.md")
    return code, data, cid


def test_validates_against_the_sarif_2_1_0_schema(log: tuple[int, dict, str]) -> None:
    _, data, _ = log
    schema = sarif_schema()
    jsonschema.Draft4Validator.check_schema(schema)
    jsonschema.Draft4Validator(schema).validate(data)
    assert data["version"] == "2.1.0" and len(data["runs"]) == 1


def test_a_broken_log_fails_the_schema(log: tuple[int, dict, str]) -> None:
    _, data, _ = log
    schema = sarif_schema()
    data["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(schema).validate(data)


def test_results_map_findings_rules_locations_and_suppressions(log: tuple[int, dict, str]) -> None:
    code, data, cid = log
    run = data["runs"][0]
    assert code == 1
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [rule.id for rule in RULES]
    results = run["results"]
    by_rule = {r["ruleId"]: r for r in results}
    assert set(by_rule) == {"UC701", "EP505", "NP602", "SI201"}
    claim = by_rule["UC701"]
    assert run["tool"]["driver"]["rules"][claim["ruleIndex"]]["id"] == "UC701"
    location = claim["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == f"commit-message/{cid}"
    assert location["physicalLocation"]["region"]["startLine"] == 3
    assert location["logicalLocations"][0]["fullyQualifiedName"] == f"commit:{cid}"
    note = by_rule["NP602"]["locations"][0]["physicalLocation"]
    assert note["artifactLocation"] == {"uri": "notes.md", "uriBaseId": "%SRCROOT%"}
    assert note["region"]["startLine"] == 3
    assert by_rule["SI201"]["suppressions"][0]["kind"] == "inSource"
    assert "suppressions" not in claim
