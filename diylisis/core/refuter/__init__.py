"""F5: what a refuter may read (RefuterInput), and the built-in realization (lint-fallback).

Which realization runs, the lint or a configured command, is chosen in
diylisis/edges/refuter_choice.py."""

from __future__ import annotations

from msgspec import Struct

from diylisis.core.model import (
    ActivationEdge,
    Contract,
    RouteJudgment,
    Target,
    ZeroMemoryVerdict,
)
from diylisis.core.state import DecisionRecord, FieldMark, Item


class RefuterInput(Struct, frozen=True, kw_only=True):
    """Everything F5 may read (spec F5 inputs); nothing of the author's session beyond this."""

    target: Target
    text: str
    revision: str | None
    judgments: tuple[RouteJudgment, ...]
    contract: Contract
    activation_edge: ActivationEdge
    watchlist: tuple[str, ...]  # session terms the run met (category 1-3 attention list)
    open_items: tuple[Item, ...]  # items of the record still without a disposition
    utterances: tuple[str, ...]  # category 10 only
    contract_provenance: tuple[FieldMark, ...]  # category 10 only
    cp_answer: str | None  # category 10 only
    premises: tuple[DecisionRecord, ...]  # category 6 and deduplication only
    unresolved_references: tuple[str, ...]  # Reference locators failing resolves_at now
    uncertified_siblings: tuple[str, ...]  # routed record files without a certificate (category 11)
    missing_sources: tuple[str, ...]  # allowed sources that do not resolve (category 6)


def refute(request: RefuterInput) -> ZeroMemoryVerdict:
    """F5 comprehension_gate with the built-in realization (lint-fallback)."""
    from diylisis.core.refuter.lint import refute as lint_refute

    return lint_refute(request)
