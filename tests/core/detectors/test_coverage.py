"""Records in a language without a lexicon: scan, certify and the certificate say which rules ran."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diylisis.core.detectors.coverage import coverage_notes, main_language
from tests.conftest import commit, distill

CHINESE = "修复分页计数\n\n最后一页在总数为十的倍数时被跳过，现在不会了。\n"
JAPANESE = "ページ数の計算を修正\n\n件数が十の倍数のとき最後のページが抜けていた。\n"
KOREAN = "페이지 계산 수정\n\n개수가 10의 배수일 때 마지막 페이지가 빠지던 문제를 고쳤다.\n"
ENGLISH = "Fix the page counter\n\nThe last page was skipped on a multiple of ten.\n"
RUSSIAN = "Исправить счётчик страниц\n\nПоследняя страница пропускалась, когда число записей кратно десяти.\n"
GREEK = "Διόρθωση μετρητή σελίδων\n\nΗ τελευταία σελίδα χανόταν όταν το πλήθος ήταν πολλαπλάσιο του δέκα.\n"
THAI = "แก้ตัวนับหน้า\n\nหน้าสุดท้ายหายไปเมื่อจำนวนเป็นพหุคูณของสิบ\n"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        (CHINESE, "zh"),
        (JAPANESE, "ja"),
        (KOREAN, "ko"),
        (ENGLISH, None),
        (RUSSIAN, "und-Cyrl"),
        (GREEK, "el"),
        (THAI, "th"),
        ("Fix the page counter for the docs\n\nThe 文档 page lost its last entry on every tenth count.\n", None),
        ("Fix the page counter for the docs\n\nThe Счётчик page lost its last entry on every count.\n", None),
    ],
)
def test_the_main_language_is_told_by_script(text: str, language: str | None) -> None:
    assert main_language(text) == language


def test_chinese_japanese_and_korean_are_covered_by_their_lexicons() -> None:
    assert coverage_notes(CHINESE) == ()
    assert coverage_notes(JAPANESE) == ()
    assert coverage_notes(KOREAN) == ()
    assert coverage_notes(ENGLISH) == ()


def test_only_languages_without_a_lexicon_get_a_note() -> None:
    assert coverage_notes(RUSSIAN) == ("language und-Cyrl: only language-neutral rules ran",)
    assert coverage_notes(THAI) == ("language th: only language-neutral rules ran",)
    assert coverage_notes(KOREAN, ("en",)) == ("language ko: only language-neutral rules ran",)
    assert coverage_notes(CHINESE, ("en", "ko")) == ("language zh: only language-neutral rules ran",)


def test_scan_says_which_records_only_language_neutral_rules_judged(repo: Path) -> None:
    commit(repo, ENGLISH)
    commit(repo, RUSSIAN)
    commit(repo, CHINESE)
    done = distill(repo, "scan", "--range", "HEAD")
    assert done.returncode == 0, done.stderr
    notes = [line for line in done.stdout.splitlines() if "only language-neutral" in line]
    assert len(notes) == 1 and notes[0].endswith(": language und-Cyrl: only language-neutral rules ran")
    records = json.loads(distill(repo, "scan", "--range", "HEAD", "--format", "json").stdout)["records"]
    assert [r["coverage"] for r in records] == [[], ["language und-Cyrl: only language-neutral rules ran"], []]


def test_scan_follows_the_configured_languages(repo: Path) -> None:
    commit(repo, CHINESE, {".distill.toml": '[detect]\nlanguages = ["en"]\n'})
    records = json.loads(distill(repo, "scan", "--range", "HEAD", "--format", "json").stdout)["records"]
    assert [r["coverage"] for r in records] == [["language zh: only language-neutral rules ran"]]


def test_certify_and_the_certificate_record_the_coverage(repo: Path) -> None:
    commit(repo, RUSSIAN)
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Note: language und-Cyrl: only language-neutral rules ran." in done.stdout
    shown = json.loads(distill(repo, "show", "HEAD", "--format", "json").stdout)
    certificates = shown if isinstance(shown, list) else shown.get("certificates", [shown])
    assert [c["coverage"] for c in certificates] == [["language und-Cyrl: only language-neutral rules ran"]]
    assert distill(repo, "verify", "HEAD", "--role", "reviewer").returncode == 0


def test_a_covered_record_certifies_without_a_coverage_note(repo: Path) -> None:
    commit(repo, CHINESE)
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "only language-neutral" not in done.stdout


def test_certify_follows_the_configured_languages(repo: Path) -> None:
    commit(repo, CHINESE, {".distill.toml": '[detect]\nlanguages = ["en"]\n'})
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Note: language zh: only language-neutral rules ran." in done.stdout
