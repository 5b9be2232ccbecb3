"""The prefilter (diylisis.core.detectors.prefilter) never loses a match of the full rules.

Its literals come from reading each pattern with a reader of its own, not the interpreter's
private parser, and are found with one Aho-Corasick pass; these tests check, on generated
text, that whatever the full patterns flag the prefilter lets through.
"""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diylisis.core.detectors import RULES, DetectSettings, _plan
from diylisis.core.detectors.lexicon import _load, _parts, lexicon_for
from diylisis.core.detectors.prefilter import fold, further_literals, prefilter, required_literals
from diylisis.core.detectors.text import prepare

LEXICON = lexicon_for(None)
FRAGMENTS = sorted(
    {fragment for language in LEXICON.languages for entries in _load(language)[1].values() for fragment in entries}
)
RULE_PATTERNS = sorted({need.pattern for rule in RULES for need in rule.requires if not isinstance(need, str)})
KEYS = sorted({key for language in LEXICON.languages for key in _load(language)[1]})


def _cased_characters() -> str:
    return "".join(
        chr(code)
        for code in range(sys.maxunicode + 1)
        if not 0xD800 <= code < 0xE000 and (chr(code).lower() != chr(code) or chr(code).upper() != chr(code))
    )


def test_fold_merges_every_pair_of_characters_ignorecase_merges() -> None:
    # every cased character against the running interpreter's own re: a Unicode update that adds
    # a case-insensitive pair the fold table lacks fails here
    cased = _cased_characters()
    merged = 0
    for char in cased:
        for other in re.compile(re.escape(char), re.IGNORECASE).findall(cased):
            assert fold(other) == fold(char), (hex(ord(char)), hex(ord(other)))
            merged += other != char
    assert merged > 2000


@pytest.mark.parametrize(
    ("pattern", "literals"),
    [
        ("(?:cross|adversarial)[- ]?reviews?",
         {f"{word}{joint}review" for word in ("cross", "adversarial") for joint in ("", "-", " ")}),
        ("reviews?", {"review"}),
        ("as discussed", {"as discussed"}),
        ("tests  pass", {"tests"}),  # two spaces: a masked stretch of a view could make them
        (r"\d+/\d+", {"/"}),
        (r"\w+", None),
        (r"(?:(?<=visit )|(?<=open ))(?:localhost|127\.0\.0\.1):\d+", {"localhost:", "127.0.0.1:"}),
        (r"(?P<name>Ab)c{2}", {"ab"}),
        ("a{}b", {"a{}b"}),  # not a repetition: literal braces, as re reads them
        (r"(?x) a b", None),  # verbose syntax is not read: no literal is claimed
        (r"(a)\1", {"a"}),
        (r"[^\s]tmp", {"tmp"}),
        ("ſession", {"session"}),
    ],
)
def test_required_literals_are_folded_and_cut_where_a_view_could_differ(
    pattern: str, literals: set[str] | None
) -> None:
    assert required_literals(pattern) == (None if literals is None else frozenset(literals))


def test_further_literal_sets_name_what_else_every_match_needs() -> None:
    # a check word then a tick or ": ok": the word lets the fragment through, the tick must follow
    sets = further_literals(r"(?:tests?|lint)\b[^\n]{0,30}?(?:[✅✔]|: ?ok\b)")
    assert any({"✅", "✔"} <= pieces for pieces in sets)
    assert further_literals(r"\w+") == ()


def test_the_reader_follows_every_shipped_pattern() -> None:
    # a fragment the reader gives up on always runs: correct, but it should be rare
    unread = [fragment for fragment in FRAGMENTS + RULE_PATTERNS if required_literals(fragment) is None]
    assert len(unread) <= 0.1 * len(FRAGMENTS + RULE_PATTERNS), unread


def test_the_matcher_finds_each_literal_wherever_it_stands() -> None:
    found = prefilter([("ab", 1), ("b c", 2), ("ab", 4), ("", 8)])
    assert found.present("xxaby") == 5
    assert found.present("ab c") == 7
    assert found.present("a b") == 0
    assert prefilter([]).present("anything") == 0



@settings(max_examples=200, deadline=None, derandomize=True)
@given(text=st.text(alphabet="ab c", max_size=12))
def test_the_substring_form_finds_what_the_automaton_finds(text: str) -> None:
    pairs = [("ab", 1), ("b c", 2), ("ab", 4), ("c", 8), ("bb", 16), ("", 32)]
    assert prefilter(pairs, native=False).present(text) == prefilter(pairs).present(text)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(texts=st.lists(st.text(alphabet="ab cé文", max_size=12), min_size=1, max_size=4))
def test_ascii_and_other_texts_find_every_literal_that_occurs(texts: list[str]) -> None:
    """One Prefilter answers ASCII texts from its ASCII literals and other texts from all of them,
    in any order of asking, as the substring tests do."""
    pairs = [("ab", 1), ("é", 2), ("b é", 4), ("文", 8), ("c", 16), ("a文", 32), ("ab", 64)]
    native, substring = prefilter(pairs), prefilter(pairs, native=False)
    for text in texts:
        assert native.present(text) == substring.present(text) == sum(
            mask for literal, mask in pairs if literal in text)
    only_other = prefilter([("é", 1), ("文", 2)])
    assert only_other.present("plain ascii") == 0 and only_other.present("café") == 1


def test_detection_runs_on_an_interpreter_without_pyahocorasick() -> None:
    import subprocess
    import sys

    program = ("import sys; sys.modules['ahocorasick'] = None\n"
               "from diylisis.core.detectors import detect_text\n"
               "from diylisis.core.detectors.settings import DetectSettings\n"
               "found, _ = detect_text('Implement the retry as above (Task #4).\\n', None, DetectSettings())\n"
               "print(len(found))\n")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) >= 1

@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
@pytest.mark.parametrize("pattern", FRAGMENTS + RULE_PATTERNS, ids=lambda p: p[:30])
def test_every_string_a_pattern_matches_holds_one_of_its_literals(pattern: str, data: st.DataObject) -> None:
    literals = required_literals(pattern)
    if literals is None:
        return
    try:
        compiled = re.compile(pattern, re.IGNORECASE)
        strategy = st.from_regex(compiled)
    except (re.error, NotImplementedError):  # pragma: no cover - every shipped pattern compiles
        pytest.fail(pattern)
    try:
        text = data.draw(strategy)
    except Exception:  # hypothesis cannot build strings for some look-arounds; nothing to check then
        return
    if compiled.search(text):
        folded = fold(text)
        for pieces in (literals, *further_literals(pattern)):
            assert any(literal in folded for literal in pieces), (pattern, text, pieces)


def _words() -> list[str]:
    words: set[str] = set()
    for text in [rule.doc for rule in RULES]:
        words.update(text.split())
    for literals in map(required_literals, FRAGMENTS):
        for literal in literals or ():
            words.update(literal.split())
    return sorted(words)


WORDS = _words()
PIECES = [" ", " ", "\n", "\n\n", "    ", "`", "```\n", "> ", "- ", "#", "/", "-", ".", ":", "12", "İ", "ſ", "K",
          "(", ")", "[x](https://example.invalid/a)", '"', "세션", "테스트", "통과"]
TEXTS = st.lists(
    st.one_of(st.sampled_from(WORDS), st.sampled_from(PIECES), st.text(max_size=3)), max_size=40
).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(text=TEXTS)
def test_the_prefilter_lets_through_every_fragment_and_rule_that_matches(text: str) -> None:
    detect_settings = DetectSettings()
    doc = prepare(text, LEXICON, detect_settings)
    for key in KEYS:
        full = LEXICON.pattern(key)
        if full is None:
            continue
        reduced = doc.pattern(key)
        for view in (doc.prose, doc.claims, doc.locators, doc.text):
            expected = [m.span() for m in full.finditer(view)]
            got = [m.span() for m in reduced.finditer(view)] if reduced else []
            assert got == expected, (key, text)
    folded = fold(text)
    runs = {rule.id for rule, _ in _plan(detect_settings, None).runs(LEXICON.triggers_in(folded), folded, text)}
    for rule in RULES:
        if not rule.needs_tree and list(rule.detect(doc)):
            assert rule.id in runs, (rule.id, text)


def test_each_fragment_has_its_own_bit() -> None:
    seen = 0
    for key in KEYS:
        bits = LEXICON.key_bits(key)
        if bits:
            assert bits.bit_count() == len(_parts(LEXICON.languages, key))
            assert not seen & bits
            seen |= bits
