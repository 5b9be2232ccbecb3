"""Reference shapes that recur across repositories: ids of other trackers and Gitee issue ids."""

from __future__ import annotations

import pytest

from diylisis.core.detectors import DetectSettings, detect_text, is_blocking
from diylisis.edges.gitio.context import HostContext


def _findings(text: str, context: object | None, settings: DetectSettings | None = None) -> dict[str, tuple]:
    findings, _ = detect_text(text, context, settings or DetectSettings())
    return {f.token: (f.rule_id, f.severity.value, f.resolution, is_blocking(f)) for f in findings}


def _github() -> HostContext:
    return HostContext("github.com", "acme", "widgets")


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("Fix the typo in the certificate names; bz#3120 has the report.", "bz#3120"),
        ("Backport the parser fix from lp#204311.", "lp#204311"),
        ("Keep the old config directory readable (see #4821932).", "#4821932"),
    ],
)
def test_an_id_of_another_tracker_blocks(body: str, token: str) -> None:
    found = _findings(f"Tidy the parser\n\n{body}\n", _github())
    assert found[token][0] == "RF301" and found[token][3], found


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("Fix the leak in the cache (#4821).", "#4821"),
        ("Carry the fix from widgets#12 over.", "widgets#12"),
    ],
)
def test_an_own_issue_number_resolves_on_the_host(body: str, token: str) -> None:
    rule, _, resolution, blocking = _findings(f"Tidy the parser\n\n{body}\n", _github())[token]
    assert (rule, blocking) == ("RF301", False) and resolution is not None and resolution.startswith("https://")


def test_a_gitee_issue_id_resolves_on_a_gitee_origin() -> None:
    found = _findings("Map the enum values again; close #I7QW2K\n", HostContext("gitee.com", "acme", "widgets"))
    assert found["#I7QW2K"] == ("RF301", "error", "https://gitee.com/acme/widgets/issues/I7QW2K", False), found


def test_a_gitee_issue_id_on_a_declared_self_hosted_gitee_resolves_there() -> None:
    settings = DetectSettings.from_mapping({"hosts": {"code.example.org": "gitee"}})
    context = HostContext("code.example.org", "acme", "widgets")
    found = _findings("Map the enum values again; close #I7QW2K, see !31\n", context, settings)
    assert found["#I7QW2K"][2] == "https://code.example.org/acme/widgets/issues/I7QW2K", found
    assert found["!31"][2] == "https://code.example.org/acme/widgets/pulls/31", found


def test_a_gitee_issue_id_elsewhere_is_a_warning_and_a_word_is_no_id() -> None:
    found = _findings("Map the enum values again; close #I7QW2K\n\nTag it #IGNORE.\n", _github())
    assert found["#I7QW2K"][:2] == ("RF301", "warning"), found
    assert "#IGNORE" not in found, found


@pytest.mark.parametrize(
    ("subject", "key"),
    [("Remove dead code in the loader (qx-vurpo)", "qx-vurpo"), ("Drop the stale cache flag (zq-tarnel)", "zq-tarnel")],
)
def test_a_key_tagging_the_subject_is_a_key(subject: str, key: str) -> None:
    found = _findings(f"{subject}\n\nThe flag had no readers left.\n", None)
    assert found[key][:2] == ("SI206", "error"), found


@pytest.mark.parametrize(
    "subject",
    ["Support the dark theme (dark-mode)", "Fix the build (gcc-rs)", "Keep the key (qx-vurpo) out of the docs"],
)
def test_a_hyphen_word_in_parentheses_is_no_key(subject: str) -> None:
    assert not [t for t, f in _findings(f"{subject}\n\nThe flag had no readers left.\n", None).items()
                if f[0] == "SI206"]


@pytest.mark.parametrize(
    ("text", "rule", "token"),
    [
        ("設定の読み込みを直した\n\n監査F11の指摘どおり、空の値を拒否する。\n", "SI202", "監査F11"),
        ("설정 읽기 수정\n\n지적T3에서 나온 빈 값 처리를 고침.\n", "SI202", "지적T3"),
    ],
)
def test_a_code_touching_cjk_text_is_still_a_code(text: str, rule: str, token: str) -> None:
    assert _findings(text, None)[token][0] == rule


def test_a_size_touching_korean_text_is_no_code() -> None:
    assert not _findings("인쇄 설정 수정\n\nA4용지 크기로 맞춤. 리뷰에서 나온 여백 문제도 고침.\n", None)


def test_a_size_touching_chinese_or_japanese_text_is_no_code() -> None:
    assert not _findings("修正打印设置\n\n按A4纸张调整边距，评审中提出的问题也已修复。\n", None)
