"""Languages are data: lexicons per language, selectable in [detect] languages; German as the third."""

from __future__ import annotations

import pytest

from diylisis.core.detectors import DetectSettings, detect_text
from diylisis.core.detectors.lexicon import available_languages
from diylisis.core.errors import ConfigError


def test_shipped_languages() -> None:
    assert {"en", "ko", "de"} <= set(available_languages())


def test_german_lexicon_flags_german_residue() -> None:
    bad = "Übergabe\n\nDie vorherige Session hat den Parser umgebaut, wie besprochen. Alle Tests bestanden."
    good = "Übergabe\n\nDer Parser liest jetzt leere Dateien als leere Liste; der neue Test deckt das ab."
    found = {f.rule_id for f in detect_text(bad, None, DetectSettings())[0]}
    assert {"DX101", "DX102", "UC701"} <= found
    assert detect_text(good, None, DetectSettings())[0] == ()


def test_languages_setting_limits_the_lexicons() -> None:
    text = "정리\n\n이번 세션에서 정한 대로 고쳤다. Fixed in this session."
    only_en = DetectSettings.from_mapping({"languages": ["en"]})
    tokens = {f.token for f in detect_text(text, None, only_en)[0]}
    assert "this session" in tokens and "이번 세션" not in tokens
    both = {f.token for f in detect_text(text, None, DetectSettings())[0]}
    assert "이번 세션" in both


def test_unknown_language_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="no lexicon for xx"):
        detect_text("text", None, DetectSettings.from_mapping({"languages": ["xx"]}))
