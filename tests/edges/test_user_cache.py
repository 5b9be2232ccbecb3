"""The per-user cache (diylisis.edges.user_cache) and the lexicon tables kept in it: rebuilt, never stale."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from diylisis.core.detectors.lexicon import LEXICON_DIR, cache_key, derive
from diylisis.edges import user_cache


@pytest.fixture
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_value_is_read_back_only_under_its_key(cache_home: Path) -> None:
    assert user_cache.read("entry", "k1") is None
    user_cache.write("entry", "k1", {"a": [1, "b"]})
    assert user_cache.read("entry", "k1") == {"a": [1, "b"]}
    assert user_cache.read("entry", "k2") is None
    assert Path(user_cache.entry_path("entry")).parent == cache_home / "diylisis"


@pytest.mark.parametrize("content", [b"", b"{", b"[]", b'{"key": "k1"}', b"\xff\xfe"])
def test_a_broken_entry_reads_as_absent(cache_home: Path, content: bytes) -> None:
    path = Path(user_cache.entry_path("entry"))
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    assert user_cache.read("entry", "k1") is None


def test_an_unwritable_cache_costs_nothing_but_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    user_cache.write("entry", "k1", [1])  # no exception
    assert user_cache.read("entry", "k1") is None


def _copy_lexicons(tmp_path: Path) -> Path:
    directory = tmp_path / "lexicons"
    shutil.copytree(LEXICON_DIR, directory)
    return directory


def test_an_added_phrase_is_in_the_tables_without_a_command(tmp_path: Path) -> None:
    directory = _copy_lexicons(tmp_path)
    before = cache_key(directory)
    en = directory / "en.toml"
    text = en.read_text(encoding="utf-8")
    en.write_text(text.replace("session_deixis = [\n", 'session_deixis = [\n  "the zebra huddle",\n', 1),
                  encoding="utf-8")
    os.utime(en, ns=(os.stat(en).st_atime_ns, os.stat(en).st_mtime_ns + 1_000_000))
    assert cache_key(directory) != before  # the next run rebuilds the cached tables
    derived = derive(directory)
    assert "the zebra huddle" in derived.lexicons["en"][1]["session_deixis"]
    assert derived.literals["the zebra huddle"] == ("the zebra huddle",)


def test_a_comment_in_a_lexicon_file_changes_no_table(tmp_path: Path) -> None:
    directory = _copy_lexicons(tmp_path)
    en = directory / "en.toml"
    en.write_text(en.read_text(encoding="utf-8") + "\n# one more comment\n", encoding="utf-8")
    assert derive(directory) == derive(LEXICON_DIR)


def test_a_stale_or_corrupt_cache_entry_is_rebuilt_on_the_next_run(cache_home: Path) -> None:
    script = (
        "from diylisis.core.detectors import DetectSettings, detect_text\n"
        "found = detect_text('Fixed as discussed in this session.', None, DetectSettings())[0]\n"
        "print(sorted({f.rule_id for f in found}))\n"
    )
    env = dict(os.environ, XDG_CACHE_HOME=str(cache_home))
    first = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    path = Path(user_cache.entry_path("lexicons"))
    assert path.exists()
    path.write_text('{"key": "other", "value": {}}', encoding="utf-8")
    second = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    path.write_text('{"key": "', encoding="utf-8")  # cut short
    third = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert first.stdout == second.stdout == third.stdout
    assert "DX101" in first.stdout
