"""The literal prefilter (prefilter.required_literals, Doc.pattern, Rule.requires) never changes a match."""

from __future__ import annotations

import re

import pytest

from diylisis.core.detectors import RULES, DetectSettings, _plan, detect_text
from diylisis.core.detectors.lexicon import _load, lexicon_for
from diylisis.core.detectors.prefilter import fold, required_literals
from diylisis.core.detectors.text import prepare
from diylisis.edges.gitio.context import PygitContext
from tests.conftest import commit, git

TEXTS = (
    "Fix the parser as discussed in this session.\n\nAll 12 tests pass locally; CI is green.",
    "Refactor: round 3 of the codex review found F11 and F12.\n\n- [x] Tests pass\n- [ ] docs",
    "이번 세션에서 논의한 대로 테스트 통과 확인함. 라운드 2 리뷰 결과 반영.",
    "Der Nutzer hat entschieden: alle Tests sind grün (siehe Sitzung).",
    "See `npm test` (pass) and https://example.invalid/actions/runs/1 for the build.\n\n    $ make\n    ok",
    "Per the user's request, Task #4 moved to Phase 2; option B from above is out.",
    "SESSION notes: ſession and İtem are folded like the regex engine folds them.",
    'The "as discussed" phrase is quoted; [the plan](https://example.invalid/p) is linked.',
    "Reviewed with Claude; the sub-agents flagged it. Notes in /tmp/scratch.txt and ~/work/x.md.",
    "Move the cache to a new module.\n\nIt keeps the tree index per object id, so a walk reuses subtrees.",
    "> quoted: as discussed\n```\nall tests pass\n```\nSigned-off-by: A U Thor <a@example.invalid>",
    "Merge review-loop convergence: reviewer agreement reached after the 2nd review round.",
)


def _keys() -> list[str]:
    lexicon = lexicon_for(None)
    return sorted({key for language in lexicon.languages for key in _load(language)[1]})


@pytest.mark.parametrize("text", TEXTS)
def test_reduced_patterns_match_exactly_what_the_full_patterns_match(text: str) -> None:
    lexicon = lexicon_for(None)
    doc = prepare(text, lexicon, DetectSettings())
    for key in _keys():
        full = lexicon.pattern(key)
        reduced = doc.pattern(key)
        for view in ("prose", "claims", "locators", "text"):
            expected = [m.span() for m in full.finditer(getattr(doc, view))] if full else []
            got = [m.span() for m in reduced.finditer(getattr(doc, view))] if reduced else []
            assert got == expected, (key, view)


def test_the_prefilter_skips_keys_whose_literals_are_absent() -> None:
    doc = prepare("Move the cache to a new module.", lexicon_for(None), DetectSettings())
    assert doc.pattern("session_deixis") is None
    assert doc.pattern("pass_claim") is None


def test_required_literals_are_folded_and_cut_where_a_view_could_differ() -> None:
    # an optional item spells out its choices; a literal holding another one says no more
    assert required_literals("(?:cross|adversarial)[- ]?reviews?") == frozenset(
        {f"{word}{joint}review" for word in ("cross", "adversarial") for joint in ("", "-", " ")})
    assert required_literals("reviews?") == frozenset({"review"})
    assert required_literals("as discussed") == frozenset({"as discussed"})
    assert required_literals("tests  pass") == frozenset({"tests"})  # two spaces: a mask could make them
    assert required_literals(r"\d+/\d+") == frozenset({"/"})
    assert required_literals(r"\w+") is None


def test_fold_merges_what_ignorecase_merges() -> None:
    for pattern, text in (("session", "ſession"), ("item", "İtem"), ("ΣΑΣ", "σας")):
        assert re.search(pattern, text, re.IGNORECASE)
        assert fold(pattern) in fold(text)


def test_a_finding_code_with_non_ascii_digits_passes_the_code_pre_check() -> None:
    # CODE's \d matches any decimal digit, so its cheap pre-check must too
    found = detect_text("Fixed what audit F\u0661\u0661 found in the parser.", None, DetectSettings())[0]
    assert [f.rule_id for f in found] == ["SI202"]


def test_a_rule_is_skipped_only_when_none_of_its_requirements_occurs() -> None:
    settings = DetectSettings(languages=("en",))
    assert detect_text("Logs are in /tmp/run.log.", None, settings)[0]
    assert not detect_text("Logs are in the build folder.", None, settings)[0]


@pytest.fixture(scope="module")
def tree_context(tmp_path_factory: pytest.TempPathFactory) -> PygitContext:
    """A context whose tree has one file: the rules that need a tree run, and most terms are unknown to it."""
    import pygit2

    path = tmp_path_factory.mktemp("tree")
    git(path, "init", "-q", "-b", "main")
    commit(path, "Add a readme", {"README.md": "A readme.\n"})
    return PygitContext(pygit2.Repository(str(path)), "HEAD")


def _never_skipped(text: str, settings: DetectSettings, context: PygitContext) -> None:
    lexicon = lexicon_for(settings.languages)
    doc = prepare(text, lexicon, settings, context)
    folded = fold(text)
    runs = {rule.id for rule, _ in _plan(settings, None).runs(lexicon.triggers_in(folded), folded, text)}
    for rule in RULES:
        if list(rule.detect(doc)):
            assert rule.id in runs, (rule.id, text)


# Each rule's own documentation quotes what it flags and what it leaves alone.
@pytest.mark.parametrize("text", TEXTS + tuple(rule.doc for rule in RULES), ids=lambda t: t[:24])
def test_a_rule_that_finds_something_is_never_skipped(text: str, tree_context: PygitContext) -> None:
    _never_skipped(text, DetectSettings(), tree_context)
    _never_skipped(text, DetectSettings(reject=("parser", "session", "tests")), tree_context)


def test_a_term_in_a_masked_view_still_lets_the_coined_term_rule_run(tree_context: PygitContext) -> None:
    # CT801 requires a hyphen or a lower-upper pair in the text: masking a view never adds one
    import random

    pieces = ["fooBar", "FooBarBaz", "QuxQuux", "x-ray-tube", "sub-agent", "`", "``", "/", "(", "=", ".", '"', "'",
              "https://", "www.", " ", " ", "\n", "\n    ", "\n> ", "Word", "word", "-", "é", "Ä", "#", "@"]
    generator = random.Random(17)
    settings = DetectSettings()
    for _ in range(1500):
        text = "".join(generator.choice(pieces) for _ in range(generator.randint(1, 30)))
        _never_skipped(text, settings, tree_context)


def test_a_compound_spelled_in_capitals_after_its_lower_case_form_is_no_coined_term(
    tree_context: PygitContext,
) -> None:
    # the lower-case "foo-bar" is an ordinary two-part compound; "Foo-Bar" later is the same word
    for text in ("Use the foo-bar thing. Then Foo-Bar breaks.", "Fix the fold-flush path; the Fold-Flush path breaks."):
        assert not [f for f in detect_text(text, tree_context, DetectSettings())[0] if f.rule_id == "CT801"]
    assert [f.token for f in detect_text("Then Foo-Bar breaks.", tree_context, DetectSettings())[0]] == ["Foo-Bar"]


def test_a_rule_with_nothing_to_do_under_the_settings_does_not_run() -> None:
    text = "Rename the widget."
    folded = fold(text)
    triggers = lexicon_for(None).triggers_in(folded)
    assert "CT802" not in {rule.id for rule, _ in _plan(DetectSettings(), None).runs(triggers, folded, text)}
    rejecting = DetectSettings(reject=("widget",))
    assert "CT802" in {rule.id for rule, _ in _plan(rejecting, None).runs(triggers, folded, text)}
    assert [f.rule_id for f in detect_text(text, None, rejecting)[0]] == ["CT802"]


def test_hyphen_joined_finds_exactly_what_finditer_finds() -> None:
    import random

    from diylisis.core.detectors._match import hyphen_joined
    from diylisis.core.detectors.session import _LOWER_HINT, _UPPER_HINT, LOWER_KEY, UPPER_KEY
    from diylisis.core.detectors.terms import HYPHENATED

    pieces = ["a", "ab", "abc", "Ab", "ABC", "X1", "R2", "9", "12", "-", "-", "--", ".", "/", "@", "#", "_",
              " ", " ", "\n", "é", "`", "'", "=", "(", "$", "bd", "a1b2", "ĸ", "x.y"]
    generator = random.Random(7)
    texts = ["".join(generator.choice(pieces) for _ in range(generator.randint(1, 40))) for _ in range(4000)]
    texts += [text for text in TEXTS] + ["ABC-123 and bd-a1b2 in fold-and-flush-step", "a-b-c-d-e-f", "-x-", "Q-1-2"]
    for pattern in (UPPER_KEY, LOWER_KEY, HYPHENATED):
        for text in texts:
            assert [m.span() for m in hyphen_joined(pattern, text)] == [m.span() for m in pattern.finditer(text)], (
                pattern.pattern,
                text,
            )
    # tracker_keys looks for each key's hint first: every match of the key holds it
    for pattern, hint in ((UPPER_KEY, _UPPER_HINT), (LOWER_KEY, _LOWER_HINT)):
        for text in texts + ["修复ABC-12的问题", "关闭bd-a1b2。"]:
            for match in pattern.finditer(text):
                assert hint.search(match.group()), (pattern.pattern, text)


def test_patterns_with_a_late_look_behind_match_what_their_plain_forms_match() -> None:
    import random

    from diylisis.core.detectors.references import HEX
    from diylisis.core.detectors.terms import _CAMEL_HINT, CAMEL

    plain = {
        HEX: re.compile(r"(?<![\w/#.@:-])[0-9a-f]{7,40}(?![\w/.@-])"),
        CAMEL: re.compile(r"(?<![\w/.@#$`-])[A-Z][a-z]+(?:[A-Z][a-z0-9]+){1,4}(?![\w/.(=-])"),
    }
    pieces = ["a", "f", "Ab", "Foo", "Bar", "X", "1a2b3c4", "deadbeef", "0", "9", "g", "-", ".", "/", "@", "#",
              ":", "_", " ", "\n", "é", "`", "$", "(", "=", "cafe", "B2"]
    generator = random.Random(11)
    texts = ["".join(generator.choice(pieces) for _ in range(generator.randint(1, 40))) for _ in range(4000)]
    for pattern, reference in plain.items():
        for text in texts + list(TEXTS):
            assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in reference.finditer(text)], (
                pattern.pattern,
                text,
            )
    for text in texts:
        assert bool(_CAMEL_HINT.search(text)) == bool(re.search("[a-z][A-Z]", text))


def test_the_block_pre_check_holds_wherever_a_block_can_start() -> None:
    import random

    from diylisis.core.detectors.text import _BLOCK_START, _may_open_block

    pieces = ["a", " ", "  ", "    ", "\t", "\n", "\n\n", ">", "```", "~~~", "`", "~", "x y", "- item"]
    generator = random.Random(3)
    texts = ["".join(generator.choice(pieces) for _ in range(generator.randint(0, 20))) for _ in range(4000)]
    for text in texts + list(TEXTS):
        if _BLOCK_START.search(text):
            assert _may_open_block(text), text


def test_url_matches_finds_exactly_what_finditer_finds() -> None:
    import random

    from diylisis.core.detectors.text import URL, _url_matches

    pieces = ["http", "https", "git+ssh", "://", "www.", "w", "a", "Z", "1", ".", "-", "+", "/", " ", "\n", "`", '"',
              "'", ")", "]", "<", ",", "?", "x.y", "é", "_", ":", "//"]
    generator = random.Random(5)
    texts = ["".join(generator.choice(pieces) for _ in range(generator.randint(1, 30))) for _ in range(5000)]
    for text in texts + list(TEXTS):
        assert [m.span() for m in _url_matches(text)] == [m.span() for m in URL.finditer(text)], text


def test_quoted_mention_matches_what_its_plain_form_matches() -> None:
    import random

    from diylisis.core.detectors.text import QUOTED_MENTION

    plain = re.compile(
        r"(?<![\w\"'])\"[^\"\n]{2,80}(?:\n[^\"\n]{1,80})?\"(?![\w\"'])|“[^”\n]{2,80}(?:\n[^”\n]{1,80})?”"
        r"|(?<![\w'])'[^'\n]{2,60}'(?![\w'])"
    )
    pieces = ['"', "'", "“", "”", "a", "ab", " ", "\n", "é", "_", "x y", "don't", "1"]
    generator = random.Random(9)
    texts = ["".join(generator.choice(pieces) for _ in range(generator.randint(1, 30))) for _ in range(5000)]
    for text in texts + list(TEXTS):
        assert [m.span() for m in QUOTED_MENTION.finditer(text)] == [m.span() for m in plain.finditer(text)], text


def test_temp_path_matches_what_its_plain_form_matches() -> None:
    import random

    from diylisis.core.detectors.places import TEMP_PATH

    plain = re.compile(
        r"(?<![\w.~/-])(?:/tmp|/var/tmp|/private/tmp|/private/var/folders|/var/folders|/dev/shm|%TEMP%|%TMP%|\$TMPDIR"
        r"|[Cc]:\\(?:Windows\\)?Temp)"
        r"(?:[/\\][^\s`'\"),;\]]*)?"
    )
    pieces = ["/tmp", "/var", "/private", "/folders", "/dev/shm", "/", "tmp", "%TEMP%", "%TMP%", "$TMPDIR", "C:\\Temp",
              "c:\\Windows\\Temp", "C", "\\", "a", ".", "~", "-", " ", "\n", "`", ",", "x.log", "_"]
    generator = random.Random(17)
    texts = ["".join(generator.choice(pieces) for _ in range(generator.randint(1, 20))) for _ in range(5000)]
    for text in texts + list(TEXTS):
        assert [m.span() for m in TEMP_PATH.finditer(text)] == [m.span() for m in plain.finditer(text)], text


def test_claim_openings_match_what_their_plain_form_matches() -> None:
    import random

    from diylisis.core.detectors.claims import _opening

    words = lexicon_for(None).words("claim_opening")
    alternation = "|".join(re.escape(word) for word in words)
    plain = re.compile(
        rf"(?im)(?:^[ \t]*(?:[-*+]|\d+[.)])?[ \t]*|(?<=[.!?;:])[ \t]+)(?P<claim>(?:{alternation})(?![\w-])[^.\n]*)"
    )
    pieces = [" ", "  ", "\t", "\n", "-", "*", "+", "1", "12.", "3)", ".", "!", ";", ":", "a", "x y", "Verified",
              "tested", "Measured-", "smoke-tested", "é", "_", "verifiedly"]
    generator = random.Random(23)
    texts = ["".join(generator.choice(pieces) for _ in range(generator.randint(1, 30))) for _ in range(5000)]
    found = 0
    for text in texts + list(TEXTS):
        spans = [m.span("claim") for m in _opening(words).finditer(text)]
        assert spans == [m.span("claim") for m in plain.finditer(text)], text
        found += len(spans)
    assert found > 500  # the texts open many claims, after line starts, list marks and punctuation


def test_a_rule_requiring_a_token_shape_runs_only_when_a_token_has_it() -> None:
    settings = DetectSettings()
    lexicon = lexicon_for(None)

    def runs(text: str) -> set[str]:
        folded = fold(text)
        return {rule.id for rule, _ in _plan(settings, None).runs(lexicon.triggers_in(folded), folded, text)}

    assert {"RF302", "SI202"} <= runs("Revert 1a2b3c4d, which audit F11 flagged.")
    assert not {"RF302", "SI202"} & runs("Revert the cache change, which the audit flagged.")
    assert "RF302" in runs("Revert DEADBEEF1 as well.")  # folded, an upper-case id has the shape too


def test_token_shapes_hold_wherever_the_rules_requiring_them_can_match() -> None:
    import random

    from diylisis.core.detectors.lexicon import SHAPES
    from diylisis.core.detectors.references import HEX
    from diylisis.core.detectors.session import _CODE_HINT

    pieces = ["a", "f", "g", "Z", "F", "1a2b3c4", "deadbeef", "0", "9", "\u0661", "-", ".", "/", " ", "\n",
              "é", "`", "K", "ſ", "12ab", "cafe"]
    generator = random.Random(5)
    texts = ["".join(generator.choice(pieces) for _ in range(generator.randint(1, 40))) for _ in range(4000)]
    checked = 0
    for text in texts + list(TEXTS):
        tokens = fold(text).split()
        for pattern, shape in ((HEX, "shape:hex_run"), (_CODE_HINT, "shape:letter_digit")):
            if pattern.search(text):
                assert any(SHAPES[shape].search(token) for token in tokens), (shape, text)
                checked += 1
    assert checked > 500


def test_every_measured_ratio_holds_the_hint_the_claims_rule_looks_for_first() -> None:
    import random

    from diylisis.core.detectors.claims import _MEASURED, _RATIO_HINT

    pieces = ["2", "10", "3.5", "40", " ", " ", "\t", "\n", "%", "x", "X", "×", "times", "TIMES", "-", "–", "~",
              "about ", "faster", " slower", "improvement", "cut ", "reduced ", "memory ", "time ", "by ", "from ",
              " to ", "latency", "the ", "ſ", "ı", ".", "less memory", "dropped ", "went "]
    generator = random.Random(11)
    texts = ["".join(generator.choice(pieces) for _ in range(generator.randint(1, 25))) for _ in range(6000)]
    texts += ["about 10x faster", "cut memory use by 40%", "improved from 88.89% to 96.67%", "2.8-4.4x speedup"]
    matched = 0
    for text in texts:
        for match in _MEASURED.finditer(text):
            matched += 1
            assert _RATIO_HINT.search(match.group()), (text, match.group())
    assert matched > 20  # the generator makes ratios, so the check above ran
