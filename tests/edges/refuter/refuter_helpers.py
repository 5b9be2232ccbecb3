"""Builders for the refuter tests: F5 inputs over a real repository, fixture commands."""

from __future__ import annotations

import sys
from pathlib import Path

from diylisis.core.model import (
    ActivationEdge,
    Contract,
    InlineEvidence,
    RecordKind,
    Reference,
    RefKind,
    RouteJudgment,
    StableRef,
    Target,
    Value,
)
from diylisis.core.refuter import RefuterInput
from diylisis.core.state import DecisionRecord, FieldMark, FieldProvenance, Item, ItemKind, ItemOrigin
from diylisis.edges.config import RefuterSettings

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "refuters"


def fixture_command(name: str) -> tuple[str, ...]:
    """argv running one scripted refuter with this interpreter."""
    return (sys.executable, str(FIXTURES / f"{name}.py"))


def settings(name: str, **overrides) -> RefuterSettings:
    values = dict(command=fixture_command(name), realization="generic-subagent", timeout=20.0,
                  retries=2)
    values.update(overrides)
    return RefuterSettings(**values)


def refuter_input(text: str, revision: str | None, *, role: str = "reviewer") -> RefuterInput:
    target = Target(kind=RecordKind.COMMIT, locator="HEAD")
    return RefuterInput(
        target=target, text=text, revision=revision,
        judgments=(
            RouteJudgment(item="design", verdict=Reference(ref=StableRef(kind=RefKind.PATH,
                                                                         locator="docs/design.md")),
                          basis="tracked at the certified revision"),
            RouteJudgment(item="limit", verdict=Value(evidence=InlineEvidence(content="at most 3")),
                          basis="stated in the record"),
        ),
        contract=Contract(role=role, activity="review the change", allowed_sources=("docs/",),
                          stop="the review is written"),
        activation_edge=ActivationEdge(verb="Read commit:HEAD and execute it", locator=str(target)),
        watchlist=("the v2 shim",),
        open_items=(Item(id="i1", token="as above", line=2, column=1, kind=ItemKind.DEICTIC,
                         origin=ItemOrigin.TARGET, why="points into the session", checklist=3),),
        utterances=("please certify the fix for reviewers",),
        contract_provenance=(FieldMark(field="activity", provenance=FieldProvenance.AI_AUTHORED),),
        cp_answer=None,
        premises=(DecisionRecord(id="p1", claim="the cache stays on", line=0,
                                 deferral="until the next release"),),
        unresolved_references=("/tmp/run3.log",),
        uncertified_siblings=("TASKS.md",),
        missing_sources=(),
    )
