"""The shared gate's questions and answers: an answer is checked against its question when given."""

from __future__ import annotations

import pytest

from diylisis.core import gate

TEXT, NUMBER = gate.Takes.TEXT, gate.Takes.NUMBER
CHOICE = gate.Question(id="task-4", kind="residual", subject="Task #4",
                       options=(gate.Option(name="resolve", takes=TEXT), gate.Option(name="drop")))
DIRECTION = gate.Question(id="direction", kind="direction", subject="which direction",
                          options=(gate.Option(name="select", takes=NUMBER),
                                   gate.Option(name="synthesize", takes=TEXT)))
CLAIM = gate.Question(id="claim-1.1", kind="claim", subject="the timeout is 30 s", verdict=True,
                      flags=(gate.Option(name="withdraw"), gate.Option(name="revisit", takes=TEXT),
                             gate.Option(name="handoff", takes=TEXT)))


@pytest.mark.parametrize(("question", "answer", "wrong"), [
    (CHOICE, gate.choice("task-4", "DROP"), None),
    (CHOICE, gate.choice("task-4", "resolve", " the retry task "), None),
    (CHOICE, gate.choice("task-4", "resolve"), "answer resolve for 'task-4' needs a value"),
    (CHOICE, gate.choice("task-4", "route", "docs/a.md"), "task-4 takes resolve | drop, not route"),
    (CHOICE, gate.choice("other", "drop"), "the answer is for 'other', not 'task-4'"),
    (CHOICE, gate.verdict("task-4", "fine"), "task-4 takes resolve | drop, not verdict"),
    (DIRECTION, gate.choice("direction", "select", "2"), None),
    (DIRECTION, gate.choice("direction", "select", "two"), "needs a number, not 'two'"),
    (CLAIM, gate.verdict("claim-1.1", "stale: the code says 60"), None),
    (CLAIM, gate.verdict("claim-1.1", "stale", "revisit", "changed:src/cache.py"), None),
    (CLAIM, gate.verdict("claim-1.1", "  "), "claim-1.1 needs a verdict in your own words"),
    (CLAIM, gate.verdict("claim-1.1", "stale", "revisit"), "answer revisit for 'claim-1.1' needs a value"),
    (CLAIM, gate.verdict("claim-1.1", "stale", "approve"), "takes withdraw | revisit | handoff beside the verdict"),
    (CLAIM, gate.choice("claim-1.1", "withdraw"), "claim-1.1 takes a verdict in your own words, not withdraw"),
])
def test_an_answer_fits_its_question_or_says_why_not(question: gate.Question, answer: gate.Answer,
                                                      wrong: str | None) -> None:
    found = gate.problem(question, answer)
    assert (found is None) if wrong is None else (found is not None and wrong in found), found


def test_a_verdict_is_kept_as_written_and_never_read_for_a_flag() -> None:
    answer = gate.verdict("claim-1.1", " withdraw it, revisit later ")
    assert (answer.option, answer.value, answer.flag) == (gate.VERDICT, "withdraw it, revisit later", None)


def test_the_commands_of_a_paused_question_follow_its_shape() -> None:
    assert gate.command_lines("r1", CHOICE) == ("git distill answer r1 task-4 resolve VALUE",
                                                "git distill answer r1 task-4 drop")
    assert gate.command_lines("r1", CLAIM) == (
        "git distill answer r1 claim-1.1 --verdict TEXT [--withdraw] [--revisit VALUE] [--handoff VALUE]",)
