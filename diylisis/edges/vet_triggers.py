"""The state of a revisit condition at HEAD, read from git (the anchor at answer time, and the
state each Phase 3 compares it with)."""

from __future__ import annotations

from pathlib import Path

from diylisis.core.errors import GitError
from diylisis.core.vet.triggers import Condition, ConditionKind
from diylisis.edges import vet_facts
from diylisis.edges.gitio import try_git


def state(root: str | Path, condition: Condition) -> str | None:
    """`changed`: the path's blob at HEAD ("absent" when untracked); the yes/no forms: "holds" or
    "does not hold"; None for free text (unwatchable)."""
    argument = condition.argument
    if condition.kind is ConditionKind.CHANGED:
        return vet_facts.blob_id(root, "HEAD", argument) or "absent"
    if condition.kind in (ConditionKind.GONE, ConditionKind.TRACKED):
        tracked = vet_facts.blob_id(root, "HEAD", argument) is not None
        holds = tracked if condition.kind is ConditionKind.TRACKED else not tracked
    elif condition.kind is ConditionKind.REACHABLE:
        try:
            commit = vet_facts.resolve(root, argument)
        except GitError:
            holds = False
        else:
            holds = try_git(["merge-base", "--is-ancestor", commit, "HEAD"], root)[0] == 0
    elif condition.kind is ConditionKind.REF:
        name = argument if argument.startswith("refs/") else None
        candidates = [name] if name else [f"refs/heads/{argument}", f"refs/tags/{argument}",
                                          f"refs/remotes/{argument}"]
        holds = any(try_git(["show-ref", "--verify", "--quiet", c], root)[0] == 0 for c in candidates)
    else:
        return None
    return "holds" if holds else "does not hold"
