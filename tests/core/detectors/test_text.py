"""Precision controls: code, quotes and trailers judged apart from prose; inline ignores recorded."""

from __future__ import annotations

from diylisis.core.detectors import DetectSettings, detect_text
from diylisis.core.detectors.lexicon import lexicon_for
from diylisis.core.detectors.suppressions import ignored_lines
from diylisis.core.detectors.text import prepare


def doc(text: str):
    return prepare(text, lexicon_for(None), DetectSettings())


def test_views_keep_offsets_and_mask_code_quotes_trailers() -> None:
    text = (
        "Subject line\n\nProse `code span` here.\n```\nfenced /tmp/x\n```\n> quoted /tmp/y\n\n"
        "Signed-off-by: A U Thor <a@example.com>\n"
    )
    d = doc(text)
    assert len(d.prose) == len(d.claims) == len(d.locators) == len(text)
    assert "code span" not in d.prose and "code span" in d.claims
    assert "fenced" not in d.prose and "fenced" not in d.claims and "fenced" in d.locators
    assert "quoted" not in d.locators
    assert "Signed-off-by" not in d.prose and "Signed-off-by" in d.locators
    assert d.position(text.index("Prose")) == (3, 1)


def test_code_quotes_and_trailers_are_not_prose() -> None:
    text = (
        "Fix the retry\n\nThe helper `as_discussed()` keeps state.\n\n"
        "```\n$ make test\nAll tests pass\n```\n\n"
        "> In this session the server returned 500.\n\n"
        "Co-authored-by: Someone <s@example.com>\n"
    )
    assert detect_text(text, None, DetectSettings())[0] == ()


def test_linked_issue_numbers_are_not_bare() -> None:
    text = "See [#12](https://github.com/acme/widgets/issues/12) for the report."
    assert [f for f in detect_text(text, None, DetectSettings())[0] if f.rule_id == "RF301"] == []


def test_inline_ignore_suppresses_one_line_and_records_it() -> None:
    text = (
        "# Notes\n\nAll tests pass. <!-- distill: ignore UC701 -->\n"
        "<!-- distill: ignore -->\nCross-reviewed with codex.\n"
        "All tests pass again.\n"
    )
    findings, suppressed = detect_text(text, None, DetectSettings())
    assert {(f.rule_id, f.line) for f in suppressed} == {("UC701", 3), ("NP601", 5)}
    assert [(f.rule_id, f.line) for f in findings] == [("UC701", 6)]


def test_ignore_for_another_rule_does_not_suppress() -> None:
    findings, suppressed = detect_text("All tests pass. <!-- distill: ignore DX101 -->", None, DetectSettings())
    assert [f.rule_id for f in findings] == ["UC701"] and suppressed == ()


def test_ignored_lines_parsing() -> None:
    lines = ignored_lines("a <!-- distill: ignore DX101, SI201 -->\n<!-- distill: ignore -->\nb\n")
    assert lines == {1: frozenset({"DX101", "SI201"}), 3: frozenset()}


def test_indented_transcripts_are_quoted_output() -> None:
    text = (
        "Speed up the pack walk\n\nBefore and after, on my laptop:\n\n"
        "    $ git -C /home/someone/src/linux.git rev-list --count HEAD\n"
        "    Failed: 0, all tests pass\n\n"
        "The walk now skips trees it has already seen.\n"
    )
    assert detect_text(text, None, DetectSettings())[0] == ()


def test_a_wrapped_line_starting_with_a_claim_word_is_not_a_sentence_start() -> None:
    wrapped = "Handle empty input\n\nThe helper was rewritten so that it can be\ntested without a network.\n"
    assert detect_text(wrapped, None, DetectSettings())[0] == ()
    opening = "Handle empty input\n\nThe helper was rewritten.\nTested without a network.\n"
    assert [f.rule_id for f in detect_text(opening, None, DetectSettings())[0]] == ["UC702"]


def test_a_bare_round_number_needs_review_talk() -> None:
    plain = "Translate the strings\n\nThis is round 2 of the translation update.\n"
    assert detect_text(plain, None, DetectSettings())[0] == ()
    review = "Tighten the parser\n\nRound 2 of the feedback asked for stricter dates.\n"
    assert [f.rule_id for f in detect_text(review, None, DetectSettings())[0]] == ["SI201"]


def test_a_short_quoted_phrase_is_mentioned_not_used() -> None:
    mention = 'Teach the deictic rule "as discussed", and flag \'this session\' too.\n'
    assert detect_text(mention, None, DetectSettings())[0] == ()
    use = "Fix the retry as discussed, in this session.\n"
    assert {f.token for f in detect_text(use, None, DetectSettings())[0]} >= {"as discussed"}
    apostrophes = "Don't retry as discussed; it's the author's call.\n"
    assert "as discussed" in {f.token for f in detect_text(apostrophes, None, DetectSettings())[0]}
