"""Revisit conditions (the Revisit loop's trigger_met), pure: the watchable forms as git predicates.

`changed:PATH` (its blob differs from the blob at answer time), `gone:PATH` and `tracked:PATH`
(at HEAD), `reachable:REV` (a commit reachable from HEAD), `ref:NAME` (the ref exists). Each is
anchored when the answer is recorded: a condition counts as met only once it has changed from how
it stood then, so an answer repeated after a re-ask waits for a new change instead of looping.
Any other text is accepted and declared unwatchable: it is never met by vet.
"""

from __future__ import annotations

import enum

from msgspec import Struct


class ConditionKind(enum.Enum):
    """The watchable forms; FREE_TEXT is accepted but never watched."""

    CHANGED = "changed"
    GONE = "gone"
    TRACKED = "tracked"
    REACHABLE = "reachable"
    REF = "ref"
    FREE_TEXT = "free-text"


class Condition(Struct, frozen=True, kw_only=True):
    """A parsed revisit condition."""

    kind: ConditionKind
    argument: str  # the path, revision or ref; the whole text for free text

    @property
    def watchable(self) -> bool:
        """vet can tell by itself when it holds."""
        return self.kind is not ConditionKind.FREE_TEXT


def parse(text: str) -> Condition:
    """`changed:PATH` and the other forms; anything else is free text."""
    head, colon, rest = text.strip().partition(":")
    if colon and rest.strip() and " " not in rest.strip():
        for kind in ConditionKind:
            if kind.value == head and kind is not ConditionKind.FREE_TEXT:
                return Condition(kind=kind, argument=rest.strip())
    return Condition(kind=ConditionKind.FREE_TEXT, argument=text.strip())


def met(condition: Condition, anchor: str | None, now: str) -> bool:
    """Whether the condition is met: its state NOW differs from its ANCHOR at answer time, and for
    the yes/no forms it holds now. Free text is never met."""
    if not condition.watchable or anchor is None:
        return False
    if condition.kind is ConditionKind.CHANGED:
        return now != anchor
    return now == "holds" and anchor != "holds"
