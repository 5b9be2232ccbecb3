"""Meta-tests over the rule registry (STYLE.md, Tests: meta-tests)."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from diylisis.core.detectors import RULES, rule_by_key
from diylisis.core.detectors.docs import rules_markdown
from diylisis.core.detectors.lexicon import COMMON, LEXICON_DIR, keys_of
from diylisis.core.detectors.rule import DOC_SECTIONS, RULE_ID, check_registry, rule_problems
from diylisis.core.model import Category

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "fixtures" / "rules"
LEXICON_LANGUAGES = sorted(path.stem for path in Path(LEXICON_DIR).glob("*.toml"))


def test_ids_and_names_are_unique_and_well_formed() -> None:
    assert len({r.id for r in RULES}) == len(RULES)
    assert len({r.name for r in RULES}) == len(RULES)
    for rule in RULES:
        assert RULE_ID.match(rule.id), rule.id
        assert not rule.id.startswith("X"), "X is reserved for user rules"
        assert rule_problems(rule, user=False) == ()


def test_registry_rejects_bad_ids_reserved_prefix_and_duplicates() -> None:
    template = RULES[0]
    with pytest.raises(ValueError, match="family letters"):
        msgspec.structs.replace(template, id="D1")
    with pytest.raises(ValueError, match="reserved for user rules"):
        msgspec.structs.replace(template, id="XY101")
    with pytest.raises(ValueError, match="kebab-case"):
        msgspec.structs.replace(template, name="Not_Kebab")
    with pytest.raises(ValueError, match="duplicate rule id"):
        check_registry((template, template))
    with pytest.raises(ValueError, match="requires public_key_prefix, a lexicon key read whole"):
        check_registry((msgspec.structs.replace(template, requires=("public_key_prefix",)),))
    user_rule = msgspec.structs.replace(template)
    msgspec.structs.force_setattr(user_rule, "id", "XA100")  # past __post_init__, which refuses X ids
    assert rule_problems(user_rule, user=True) == ()


def test_every_doc_has_its_sections_and_one_line_summary() -> None:
    for rule in RULES:
        for section in DOC_SECTIONS:
            assert f"{section}:" in rule.doc, (rule.id, section)
        assert "\n" not in rule.summary


def test_every_category_is_covered() -> None:
    assert {rule.category for rule in RULES} == set(Category)


def test_every_rule_has_a_bad_and_a_good_fixture() -> None:
    import tomllib

    for rule in RULES:
        path = FIXTURES / f"{rule.id}.toml"
        assert path.is_file(), f"missing fixture {path}"
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        assert data.get("bad", "").strip() and data.get("good", "").strip(), rule.id
    known = {rule.id for rule in RULES}
    assert {p.stem for p in FIXTURES.glob("*.toml")} <= known, "fixture for a rule that does not exist"


def test_every_lexicon_key_is_used_and_every_used_key_exists() -> None:
    used = {key for rule in RULES for key in rule.lexicon_keys}
    for language in LEXICON_LANGUAGES:
        unused = keys_of(language) - used
        assert not unused, f"lexicons/{language}.toml keys no rule reads: {sorted(unused)}"
    defined = set().union(*(keys_of(lang) for lang in LEXICON_LANGUAGES))
    assert used <= defined


def test_rule_languages_match_the_lexicons_that_define_their_keys() -> None:
    for rule in RULES:
        if not rule.lexicon_keys or rule.languages == ("any",):
            if rule.languages == ("any",) and rule.lexicon_keys:
                assert all(k in keys_of(COMMON) for k in rule.lexicon_keys), rule.id
            continue
        having = {lang for lang in LEXICON_LANGUAGES if keys_of(lang) & set(rule.lexicon_keys)}
        assert set(rule.languages) == having - {COMMON}, rule.id


def test_lookup_by_id_and_name() -> None:
    assert rule_by_key("DX101") is RULES[0]
    assert rule_by_key("dx101") is RULES[0]
    assert rule_by_key(RULES[0].name) is RULES[0]
    assert rule_by_key("ZZ999") is None


def test_docs_rules_md_is_up_to_date() -> None:
    current = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert current == rules_markdown(), "docs/rules.md is stale: python -m diylisis.core.detectors.docs > docs/rules.md"


def test_importing_detectors_loads_no_heavy_modules() -> None:
    import subprocess
    import sys

    code = (
        "import sys, diylisis.core.detectors as d; "
        "bad = [m for m in ('pygit2', 'click', 'rich') if m in sys.modules]; "
        "print(','.join(bad))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_every_lexicon_entry_compiles_alone_and_merged() -> None:
    import re

    from diylisis.core.detectors.lexicon import Lexicon, _load

    for language in LEXICON_LANGUAGES:
        _, terms = _load(language)
        for key, fragments in terms.items():
            for fragment in fragments:
                re.compile(fragment)  # a bad fragment fails here with its own text in the error
            assert Lexicon(languages=(language,)).pattern(key) is not None, (language, key)
