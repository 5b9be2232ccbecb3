"""SI204 against the repository: a plan phase only the commit's own change mentions is not defined."""

from __future__ import annotations

from pathlib import Path

import pygit2

from diylisis.core.detectors import DetectSettings, detect_text
from diylisis.edges.gitio.context import PygitContext
from tests.conftest import commit, git


def _phases(text: str, context: PygitContext) -> set[str]:
    findings, _ = detect_text(text, context, DetectSettings())
    return {f.token for f in findings if f.rule_id == "SI204"}


def _two_commits(tmp_path: Path, before: dict[str, str], change: dict[str, str]) -> PygitContext:
    git(tmp_path, "init", "-q", "-b", "main")
    commit(tmp_path, "Start the exporter", before)
    commit(tmp_path, "Stream the exporter's rows", change)
    return PygitContext(pygit2.Repository(str(tmp_path)), "HEAD")


_MESSAGE = "Stream rows in the exporter (Phase 3c)\n\nRows no longer wait for the whole table.\n"


def test_a_phase_only_the_change_names_is_still_undefined(tmp_path: Path) -> None:
    context = _two_commits(
        tmp_path,
        {"src/export.py": "def export(rows):\n    return list(rows)\n"},
        {"tests/test_export.py": "def test_phase_3c():\n    # Phase 3c: rows stream\n    assert True\n"},
    )
    assert context.mentions("Phase 3c") and not context.mentions_before("Phase 3c")
    assert "Phase 3c" in _phases(_MESSAGE, context)


def test_a_phase_the_repository_held_before_the_change_is_defined(tmp_path: Path) -> None:
    plan = "# Exporter plan\n\n## Phase 3c\n\nStream rows instead of building the table.\n"
    context = _two_commits(
        tmp_path,
        {"docs/plan.md": plan},
        {"docs/plan.md": plan + "\nPhase 3c is done.\n", "src/export.py": "def export(rows):\n    yield from rows\n"},
    )
    assert context.mentions_before("Phase 3c")
    assert "Phase 3c" not in _phases(_MESSAGE, context)


def test_a_phase_in_a_file_the_change_leaves_alone_is_defined(tmp_path: Path) -> None:
    context = _two_commits(
        tmp_path,
        {"docs/plan.md": "# Plan\n\n## Phase 3c\n\nStream rows.\n"},
        {"src/export.py": "def export(rows):\n    yield from rows\n"},
    )
    assert "Phase 3c" not in _phases(_MESSAGE, context)


def test_a_phase_the_change_defines_in_a_plan_the_record_cites_is_defined(tmp_path: Path) -> None:
    context = _two_commits(
        tmp_path,
        {"src/export.py": "def export(rows):\n    return list(rows)\n"},
        {"docs/exporter-plan.md": "# Plan\n\n## Phase 3c\n\nStream rows.\n"},
    )
    text = "Plan the exporter's streaming\n\nPhase 3c streams rows, as docs/exporter-plan.md lays out.\n"
    assert "Phase 3c" not in _phases(text, context)


def test_other_numbered_parts_of_a_plan_are_phases_too(tmp_path: Path) -> None:
    context = _two_commits(tmp_path, {"src/export.py": "def export(rows):\n    return list(rows)\n"},
                           {"src/export.py": "def export(rows):\n    yield from rows\n"})
    text = "Stream rows in the exporter\n\nThis closes Wave 2; Sprint 4 takes the importer.\n"
    assert _phases(text, context) == {"Wave 2", "Sprint 4"}


def test_a_plan_laid_out_in_the_record_defines_its_waves(tmp_path: Path) -> None:
    context = _two_commits(tmp_path, {"src/export.py": "def export(rows):\n    return list(rows)\n"},
                           {"src/export.py": "def export(rows):\n    yield from rows\n"})
    text = "Plan the exporter\n\nWave 1: stream rows\nWave 2: stream columns\n\nThis commit does Wave 1.\n"
    assert not _phases(text, context)
