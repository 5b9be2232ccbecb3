"""The verdict format: what parses, what is rejected and why (F5, Rule 9)."""

from __future__ import annotations

import pytest

from diylisis.core.model import CHECKLIST, Realization, RefuterFinding, SweepRow, ZeroMemoryVerdict
from diylisis.core.refuter.verdict import InvalidVerdict, parse, render

GENERIC = Realization.GENERIC_SUBAGENT


def sweep(status: dict[int, str] | None = None) -> tuple[SweepRow, ...]:
    status = status or {}
    return tuple(SweepRow(category=n, status=status.get(n, "clear"), checked=f"checked {name}")
                 for n, name in CHECKLIST.items())


def failing() -> ZeroMemoryVerdict:
    finding = RefuterFinding(token="the v2 | shim", location="line 3", category=1,
                             why="never defined", advisory="Resolve", repair="name its module")
    return ZeroMemoryVerdict(passed=False, realization=GENERIC, sweep=sweep({1: "finding"}),
                             findings=(finding,))


def test_render_and_parse_round_trip_both_verdicts() -> None:
    passing = ZeroMemoryVerdict(passed=True, realization=GENERIC, sweep=sweep())
    assert parse(render(passing), GENERIC) == passing
    assert parse(render(failing()), GENERIC) == failing()


def test_rows_are_matched_by_number_whatever_words_follow() -> None:
    text = render(ZeroMemoryVerdict(passed=True, realization=GENERIC, sweep=sweep()))
    text = text.replace("| 4 unresolvable references |", "| 4. Broken links (paths, URLs) |")
    parsed = parse(text, GENERIC)
    assert [row.category for row in parsed.sweep] == list(range(1, 12))


def test_surrounding_prose_and_quotes_are_tolerated() -> None:
    text = "Here is my review.\n\n" + render(failing()).replace('"the v2 \\| shim"',
                                                               "`the v2 \\| shim`")
    parsed = parse(text + "\nThanks.\n", GENERIC)
    assert parsed.findings[0].token == "the v2 | shim"


def _reasons(text: str, expected: Realization = GENERIC) -> tuple[str, ...]:
    with pytest.raises(InvalidVerdict) as caught:
        parse(text, expected)
    return caught.value.reasons


def test_missing_sweep_rows_are_named() -> None:
    text = "\n".join(line for line in render(failing()).splitlines()
                     if not line.startswith(("| 7 ", "| 11 ")))
    reasons = _reasons(text)
    assert any("lacks a valid row for category 7, 11" in r for r in reasons), reasons


def test_empty_what_was_checked_is_rejected() -> None:
    text = render(failing()).replace("| clear | checked session identifiers |", "| clear |  |")
    assert any("category 2 says nothing about what was checked" in r for r in _reasons(text))


@pytest.mark.parametrize("cell", ["Resolve or Drop", "", "Resolve, Route", "Fix"])
def test_advisory_must_be_exactly_one_tag(cell: str) -> None:
    text = render(failing()).replace("| Resolve |", f"| {cell} |")
    assert any("is not exactly one of Resolve, Route, Drop, Defer" in r for r in _reasons(text))


def test_realization_must_match_the_configured_one() -> None:
    text = render(failing())
    reasons = _reasons(text, Realization.REFUTER_SUBAGENT)
    assert any("configured as 'refuter-subagent'" in r for r in reasons)
    assert any("no 'Realization:' line" in r
               for r in _reasons(text.replace("Realization: generic-subagent\n", "")))


def test_verdict_line_is_pass_or_fail_exactly_once() -> None:
    text = render(failing())
    assert any("must be Pass or Fail" in r for r in _reasons(text.replace("Fail", "Maybe", 1)))
    assert any("no 'Verdict:' line" in r for r in _reasons(text.replace("Verdict: Fail\n", "")))
    assert any("2 'Verdict:' lines" in r for r in _reasons("Verdict: Pass\n" + text))


def test_pass_with_findings_and_fail_without_are_rejected() -> None:
    text = render(failing())
    assert any("a Pass has none" in r for r in _reasons(text.replace("Verdict: Fail",
                                                                      "Verdict: Pass")))
    passing = render(ZeroMemoryVerdict(passed=True, realization=GENERIC, sweep=sweep()))
    assert any("at least one row" in r for r in _reasons(passing.replace("Verdict: Pass",
                                                                          "Verdict: Fail")))


def test_sweep_status_must_agree_with_the_findings() -> None:
    text = render(failing()).replace("| 1 coined names without in-target definition | finding |",
                                     "| 1 coined names without in-target definition | clear |")
    assert any("category 1 has a finding but its sweep row says 'clear'" in r
               for r in _reasons(text))
    passing = render(ZeroMemoryVerdict(passed=True, realization=GENERIC,
                                       sweep=sweep({5: "finding"})))
    assert any("category 5 says 'finding' but no findings row cites it" in r
               for r in _reasons(passing))


def test_both_tables_are_required_and_category_numbers_checked() -> None:
    text = render(failing())
    without_findings = "\n".join(line for line in text.splitlines()
                                 if "Quoted token" not in line and "line 3" not in line
                                 and line != "|---|---|---|---|---|---|")
    assert any("no findings table" in r for r in _reasons(without_findings))
    assert any("category 12 is not 1 to 11" in r
               for r in _reasons(text.replace("| 1 coined names without in-target definition | "
                                              "never", "| 12 coined | never")))
    assert any("does not start with a number" in r
               for r in _reasons(text.replace("| 3 deictic anchors |", "| deictic anchors |")))
    assert any("no category sweep table" in r for r in _reasons(text.split("Category sweep:")[0]))


def test_every_defect_is_reported_at_once() -> None:
    text = ("Verdict: Pass\nRealization: refuter-subagent\n\n"
            "| Quoted token | Location | Category | Why unresolvable | Advisory | Repair note |\n"
            "|---|---|---|---|---|---|\n\n"
            "| Category | Status | What was checked |\n|---|---|---|\n"
            "| 1 coined | clear | all |\n| 2 ids | clear |  |\n")
    reasons = _reasons(text)
    assert len(reasons) >= 3
    assert any("Realization" in r for r in reasons)
    assert any("category 2 says nothing" in r for r in reasons)
    assert any("lacks a valid row" in r for r in reasons)


def test_markdown_emphasis_around_labels_and_status_aliases_are_read() -> None:
    text = render(failing()).replace("Verdict: Fail", "**Verdict:** Fail").replace(
        "Realization: generic-subagent", "## Realization: `generic-subagent`").replace(
        "| 9 operative procedure | clear |", "| 9 operative procedure | N/A |")
    parsed = parse("```\n" + text + "```\n", GENERIC)
    assert not parsed.passed
    assert next(r for r in parsed.sweep if r.category == 9).status == "not-applicable"
