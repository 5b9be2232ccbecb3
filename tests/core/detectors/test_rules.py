"""Every rule fires on its bad example and stays quiet on its good one (fixtures/rules/<ID>.toml)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from diylisis.core.detectors import RULES, DetectSettings, detect_text
from diylisis.edges.gitio.context import GitCommandContext, PygitContext
from tests.conftest import commit, git

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "rules"


def load_fixture(rule_id: str) -> dict:
    with (FIXTURES / f"{rule_id}.toml").open("rb") as handle:
        return tomllib.load(handle)


def contexts(fixture: dict, tmp_path: Path) -> list[object]:
    """No context for text-only fixtures; both repository contexts for fixtures with a [repo] table."""
    spec = fixture.get("repo")
    if spec is None:
        return [None]
    import pygit2

    path = tmp_path / "fixture-repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    if "origin" in spec:
        git(path, "remote", "add", "origin", spec["origin"])
    commit(path, "Add fixture files", spec.get("files") or {"README.md": "fixture\n"})
    return [PygitContext(pygit2.Repository(str(path)), "HEAD"), GitCommandContext(path, "HEAD")]


@pytest.mark.parametrize("rule", RULES, ids=[rule.id for rule in RULES])
def test_bad_example_fires_and_good_example_does_not(rule, tmp_path: Path) -> None:
    fixture = load_fixture(rule.id)
    settings = DetectSettings.from_mapping(fixture.get("settings", {}))
    for context in contexts(fixture, tmp_path):
        bad, _ = detect_text(fixture["bad"], context, settings)
        good, _ = detect_text(fixture["good"], context, settings)
        assert any(f.rule_id == rule.id for f in bad), (rule.id, type(context).__name__, bad)
        assert not [f for f in good if f.rule_id == rule.id], (rule.id, type(context).__name__, good)
        for finding in bad:
            assert finding.token in fixture["bad"]


def test_korean_particles_attach_without_word_boundaries() -> None:
    text = "세션 핸드오프 정리\n\n이번 세션에서 정한 방식을 따르고, 사용자 결정: 보류. 라운드3에서 고침."
    findings, _ = detect_text(text, None, DetectSettings())
    tokens = {(f.rule_id, f.token) for f in findings}
    assert ("DX101", "이번 세션") in tokens
    assert ("NP602", "사용자 결정") in tokens
    assert ("SI201", "라운드3") in tokens


def test_bare_ref_resolution_uses_the_origin_host(tmp_path: Path) -> None:
    fixture = load_fixture("RF301")
    context = contexts(fixture, tmp_path)[0]
    findings, _ = detect_text("Fixes #42 and PR #7; see acme/other#3.", context, DetectSettings())
    resolved = {f.token: f.resolution for f in findings if f.rule_id == "RF301"}
    assert resolved["#42"] == "https://github.com/acme/widgets/issues/42"
    assert resolved["PR #7"] == "https://github.com/acme/widgets/pull/7"
    assert resolved["acme/other#3"] == "https://github.com/acme/other/issues/3"


def test_bare_ref_without_origin_has_no_resolution() -> None:
    findings, _ = detect_text("Fixes #42.", None, DetectSettings())
    (finding,) = [f for f in findings if f.rule_id == "RF301"]
    assert finding.resolution is None


def test_tracker_key_resolves_through_configured_tracker() -> None:
    settings = DetectSettings.from_mapping({"trackers": {"QA": "https://tracker.example/browse/{key}"}})
    findings, _ = detect_text("Fixes QA-88.", None, settings)
    (finding,) = [f for f in findings if f.rule_id == "SI206"]
    assert finding.resolution == "https://tracker.example/browse/QA-88"


def test_a_prompt_for_the_next_session_may_say_this_session() -> None:
    prompt = "# Prompt for the next session\n\nIn this session, start with the parser tests.\n"
    assert [f for f in detect_text(prompt, None, DetectSettings())[0] if f.rule_id == "DX101"] == []
    handoff = "# Handoff\n\nThis session rewrote the parser.\n\n## Next session\n\nStart with the printer.\n"
    assert [f.token for f in detect_text(handoff, None, DetectSettings())[0] if f.rule_id == "DX101"] == [
        "This session"
    ]


def test_untracked_file_in_a_tracked_folder_is_only_a_warning(tmp_path: Path) -> None:
    fixture = {"repo": {"files": {"po/de.po": 'msgid ""\n'}}}
    for context in contexts(fixture, tmp_path):
        findings, _ = detect_text("Regenerate po/git.pot and plans/i18n.md.", context, DetectSettings())
        levels = {f.token: f.severity.value for f in findings if f.rule_id == "EP507"}
        assert levels == {"po/git.pot": "warning", "plans/i18n.md": "error"}, type(context).__name__


def test_trace_lines_and_public_discussions_are_not_residue() -> None:
    text = (
        "Fix a leak\n\nThe sanitizer reports:\n"
        "#1 0x7f2e8cb0fcaa in xstrdup /home/dev/src/proj/wrapper.c:39\n\n"
        "As discussed on the mailing list, free the copy before returning.\n"
    )
    assert detect_text(text, None, DetectSettings())[0] == ()


def test_ordinary_korean_and_template_phrases_stay_quiet() -> None:
    clean = (
        "캐시 수정\n\n테스트가 통과하도록 만료 시간 계산을 고쳤다. API 요청에 따라 응답을 캐시한다.\n"
        "검토 결과 기존 동작과 같다. 테스트 완료 후 배포한다.\n\n"
        "- [x] I have performed a self-review of my own code\n"
    )
    assert detect_text(clean, None, DetectSettings())[0] == ()
