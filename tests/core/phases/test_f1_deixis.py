"""F1 decision records (Rule 33): which sentences bind a DecisionRecord."""

from __future__ import annotations

from diylisis.core.phases import f1_deixis

LINES = (
    "We decided to keep the parser in one module.",
    "WE DECIDED TO KEEP IT. The rest stays.",
    "Decision: the cache lives in .git/distill, not in the work tree.",
    "The loader now opted for lazy reads instead of reading everything up front",
    "We \u017fettled on one retry (a long s, which IGNORECASE folds onto s).",
    "\u00c9crit en fran\u00e7ais, we chose the shorter name.",
    "캐시는 작업 트리 밖에 두기로 결정했다.",
    "The reader skips blank lines and reports the first bad one.",
    "Keep src/decided_to.py as it is; nothing was decided here",
    "instead",
    "",
    "> We decided to quote this, so it is not a decision of this record.",
)


def _reference(text: str) -> list[tuple[int, str]]:
    """Every line tried with the full pattern, no shortcut."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith((">", "```")):
            continue
        found += [(number, m.group(0).strip()) for m in f1_deixis._DECISION.finditer(line)
                  if len(m.group(0).strip()) >= 8]
    return found


def test_decisions_are_the_sentences_the_pattern_matches() -> None:
    text = "\n".join(LINES) + "\n"
    records = list(f1_deixis._decisions(text, None, "the commit this message creates"))
    assert [(r.line, r.claim) for r in records] == _reference(text)
    assert [r.line for r in records] == [1, 2, 3, 4, 5, 6, 7]
    assert [r.id for r in records] == [f"decision-{n}" for n in range(1, 8)]
    assert {r.ledger_ref for r in records} == {"the commit this message creates"}


def test_a_long_line_without_a_decision_is_cheap_and_binds_nothing() -> None:
    line = "The reader checks every entry header, " * 400  # the pattern alone backtracks over all of it
    assert list(f1_deixis._decisions(line, None, None)) == []
    assert not f1_deixis._may_decide(line)
