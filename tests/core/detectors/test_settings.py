"""DetectSettings.from_mapping reads the [detect] table; bad values are ConfigError."""

from __future__ import annotations

import pytest

from diylisis.core.detectors import DetectSettings, detect_text
from diylisis.core.detectors.settings import PathRule
from diylisis.core.errors import ConfigError
from diylisis.core.model import Severity


def test_from_mapping_reads_every_key() -> None:
    settings = DetectSettings.from_mapping(
        {
            "glossary": ["Fold-Flush"],
            "reject": ["v2 shim"],
            "disable": ["DX104"],
            "severity": {"UC701": "warning"},
            "per_path": [{"glob": "docs/*.md", "disable": ["SI201"], "severity": {"DX101": "info"}}],
            "trackers": {"qa": "https://tracker.example/browse/{key}"},
            "languages": ["en"],
        }
    )
    assert settings.glossary == frozenset({"fold-flush"})
    assert settings.reject == ("v2 shim",)
    assert settings.disable == frozenset({"DX104"})
    assert settings.severity == (("UC701", Severity.WARNING),)
    assert settings.per_path == (
        PathRule(glob="docs/*.md", disable=frozenset({"SI201"}), severity=(("DX101", Severity.INFO),)),
    )
    assert settings.tracker_url("QA-7") == "https://tracker.example/browse/QA-7"
    assert settings.languages == ("en",)
    assert settings.disabled_for("docs/a.md") == {"DX104", "SI201"}
    assert settings.disabled_for("src/a.py") == {"DX104"}
    assert settings.level_for("DX101", Severity.ERROR, "docs/a.md") is Severity.INFO
    assert settings.level_for("DX101", Severity.ERROR, None) is Severity.ERROR


@pytest.mark.parametrize(
    "table",
    [
        {"unknown": 1},
        {"glossary": "word"},
        {"disable": [1]},
        {"severity": {"DX101": "fatal"}},
        {"per_path": [{"disable": ["DX101"]}]},
        {"per_path": [{"glob": "*", "extra": 1}]},
        {"trackers": {"QA": "https://tracker.example/"}},
        {"languages": "en"},
    ],
)
def test_bad_tables_are_config_errors(table: dict) -> None:
    with pytest.raises(ConfigError):
        DetectSettings.from_mapping(table)


def test_disable_severity_and_per_path_apply_to_findings() -> None:
    text = "All tests pass in this session."
    plain = {f.rule_id: f.severity for f in detect_text(text, None, DetectSettings())[0]}
    assert plain == {"UC701": Severity.ERROR, "DX101": Severity.ERROR}
    settings = DetectSettings.from_mapping(
        {"disable": ["DX101"], "per_path": [{"glob": "notes/*", "severity": {"UC701": "info"}}]}
    )
    in_notes = detect_text(text, None, settings, path="notes/today.md")[0]
    assert [(f.rule_id, f.severity) for f in in_notes] == [("UC701", Severity.INFO)]
    elsewhere = detect_text(text, None, settings, path="src/x.md")[0]
    assert [(f.rule_id, f.severity) for f in elsewhere] == [("UC701", Severity.ERROR)]


def test_glossary_accepts_and_reject_flags() -> None:
    text = "Fixes QA-88 through the v2 shim."
    assert {f.rule_id for f in detect_text(text, None, DetectSettings())[0]} == {"SI206"}
    settings = DetectSettings.from_mapping({"glossary": ["QA-88"], "reject": ["v2 shim"]})
    assert [(f.rule_id, f.token) for f in detect_text(text, None, settings)[0]] == [("CT802", "v2 shim")]
