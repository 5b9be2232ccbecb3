"""F2: grounding closure — how each item's content reaches the recipient (Rule 21)."""

from __future__ import annotations

import re

from diylisis.core.model import RefKind, RepoContext, StableRef
from diylisis.core.phases.f1_deixis import durable_url
from diylisis.core.state import Grounding, GroundingMark, Item, ItemKind

_FULL_ID = re.compile(r"^[0-9a-f]{7,64}$")
_EPHEMERAL_PATH = re.compile(r"^(/tmp/|/var/tmp/|/private/|~|/Users/|/home/|[A-Za-z]:\\)")


def classify(items: tuple[Item, ...]) -> tuple[GroundingMark, ...]:
    """F2 classify(item) -> Inline | StablePointer | RoutedResidual."""
    marks = []
    for item in items:
        if item.kind is ItemKind.CONTENT:
            marks.append(GroundingMark(item_id=item.id, grounding=Grounding.INLINE,
                                       detail="the record's own text (its first line stands for it)"))
        elif item.kind is ItemKind.POINTER:
            marks.append(GroundingMark(item_id=item.id, grounding=Grounding.STABLE_POINTER,
                                       detail=f"resolves_at({item.locator}) held at F1"))
        elif item.resolution:
            marks.append(GroundingMark(item_id=item.id, grounding=Grounding.STABLE_POINTER,
                                       detail=f"mechanical resolution to {item.resolution}"))
        else:
            marks.append(GroundingMark(item_id=item.id, grounding=Grounding.ROUTED_RESIDUAL,
                                       detail=item.why or f"{item.kind} the recipient cannot resolve"))
    return tuple(marks)


def stable_ref(locator: str) -> StableRef:
    """The StableRef kind a locator reads as."""
    if re.match(r"^https?://", locator):
        return StableRef(kind=RefKind.URL, locator=locator)
    if _FULL_ID.match(locator):
        return StableRef(kind=RefKind.ID, locator=locator)
    if locator.startswith("$ ") or locator.startswith("git "):
        return StableRef(kind=RefKind.COMMAND, locator=locator.removeprefix("$ "))
    return StableRef(kind=RefKind.PATH, locator=locator)


def resolves_at(locator: str, context: RepoContext | None) -> tuple[bool, str]:
    """resolves_at(locator): (holds, what was checked) without the author session (DESIGN.md)."""
    locator = locator.strip()
    if re.match(r"^[a-z][a-z0-9+.-]*://", locator, re.IGNORECASE):
        if not locator.lower().startswith(("http://", "https://")):
            return False, f"{locator.split(':', 1)[0]}: links are local to one machine"
        if durable_url(locator):
            return True, "durable public URL"
        return False, "local, private or session-scoped URL"
    if _EPHEMERAL_PATH.match(locator) or ".." in locator.split("/"):
        return False, "temporary, home or machine-absolute path"
    if context is None:
        return False, "no repository to resolve it in"
    if _FULL_ID.match(locator) and re.search(r"[a-f]", locator):
        full = context.commit_id(locator)
        if full:
            return True, f"commit {full[:12]} reachable from a ref"
    path = locator.lstrip("./")
    if context.tracked(path):
        return True, f"{path} tracked at the certified revision"
    return False, f"{locator} is not a tracked path, a reachable commit or a durable URL"


def dereference_step(ref: StableRef, revision: str | None) -> str:
    """The receiver-executable step that dereferences a Reference verdict (checklist 6)."""
    match ref.kind:
        case RefKind.URL:
            return f"open {ref.locator}"
        case RefKind.ID:
            return f"git show {ref.locator}"
        case RefKind.COMMAND:
            return ref.locator
        case RefKind.PATH:
            path = ref.locator.split(":", 1)[0] if re.search(r":\d+$", ref.locator) else ref.locator
            return f"git show {revision}:{path}" if revision else f"read {path}"
    raise AssertionError(ref.kind)
