"""The precomputed lexicon tables (lexicons/derived.json): current, used, and ignored when stale."""

from __future__ import annotations

import shutil
from pathlib import Path

from diylisis.detectors.lexicon import (
    CACHE_PATH,
    LEXICON_DIR,
    _derived,
    _parse_lexicon,
    cache_text,
    fragment_literals,
    read_cache,
    required_literals,
    source_digest,
    write_cache,
)

LANGUAGES = tuple(sorted(path.stem for path in Path(LEXICON_DIR).glob("*.toml")))


def test_committed_cache_is_up_to_date() -> None:
    current = Path(CACHE_PATH).read_text(encoding="utf-8")
    assert current == cache_text(), (
        "diylisis/detectors/lexicons/derived.json is stale: python -m diylisis.detectors.lexicon --write-cache"
    )


def test_the_shipped_cache_is_the_one_loaded() -> None:
    derived = _derived()
    assert derived is not None
    assert set(derived.lexicons) == set(LANGUAGES)


def test_loaded_tables_equal_the_computed_ones() -> None:
    derived = read_cache(CACHE_PATH, source_digest())
    assert derived is not None
    fragments = 0
    for language in LANGUAGES:
        boundary, terms = _parse_lexicon(language)
        assert derived.lexicons[language] == (boundary, terms)
        for fragment in (fragment for entries in terms.values() for fragment in entries):
            fragments += 1
            computed = required_literals(fragment)
            stored = fragment_literals(fragment)
            assert (None if stored is None else frozenset(stored)) == computed, fragment
    assert fragments > 100


def _copy_lexicons(tmp_path: Path) -> Path:
    directory = tmp_path / "lexicons"
    shutil.copytree(LEXICON_DIR, directory)
    return directory


def test_an_edited_lexicon_makes_the_cache_unused(tmp_path: Path) -> None:
    directory = _copy_lexicons(tmp_path)
    assert read_cache(directory / "derived.json", source_digest(directory)) is not None
    en = directory / "en.toml"
    en.write_text(en.read_text(encoding="utf-8") + "\n# one more line\n", encoding="utf-8")
    assert source_digest(directory) != source_digest()
    assert read_cache(directory / "derived.json", source_digest(directory)) is None


def test_an_added_lexicon_makes_the_cache_unused(tmp_path: Path) -> None:
    directory = _copy_lexicons(tmp_path)
    (directory / "fr.toml").write_text('[terms]\nsession_deixis = ["comme convenu"]\n', encoding="utf-8")
    assert read_cache(directory / "derived.json", source_digest(directory)) is None


def test_a_missing_or_broken_cache_is_unused(tmp_path: Path) -> None:
    digest = source_digest()
    assert read_cache(tmp_path / "absent.json", digest) is None
    broken = tmp_path / "broken.json"
    broken.write_text(Path(CACHE_PATH).read_text(encoding="utf-8")[:500], encoding="utf-8")
    assert read_cache(broken, digest) is None
    wrong_shape = tmp_path / "shape.json"
    wrong_shape.write_text(f'{{"digest": "{digest}", "lexicons": [], "literals": {{}}}}', encoding="utf-8")
    assert read_cache(wrong_shape, digest) is None


def test_write_cache_writes_what_read_cache_loads(tmp_path: Path) -> None:
    target = tmp_path / "derived.json"
    write_cache(target)
    assert target.read_text(encoding="utf-8") == cache_text()
    derived = read_cache(target, source_digest())
    assert derived is not None
    assert derived.literals == read_cache(CACHE_PATH, source_digest()).literals


def test_crlf_line_ends_give_the_same_digest(tmp_path: Path) -> None:
    directory = _copy_lexicons(tmp_path)
    for path in directory.glob("*.toml"):
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert source_digest(directory) == source_digest()
