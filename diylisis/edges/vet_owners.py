"""The CODEOWNERS file vet's BoundaryUndefined reads, at the vetted commit, and the email of the
action's author: the two git facts `diylisis.core.vet.owners` judges with. Writes nothing."""

from __future__ import annotations

from pathlib import Path

from diylisis.core.vet import owners
from diylisis.edges import vet_facts
from diylisis.edges.gitio import try_git


def ownership(root: str | Path, commit: str, action_commit: str) -> owners.Ownership | None:
    """The first CODEOWNERS file GitHub would read at COMMIT with the author email of ACTION_COMMIT;
    None when there is no such file."""
    for path in owners.CODEOWNERS_PATHS:
        blob = vet_facts.blob_id(root, commit, path)
        if blob is None:
            continue
        code, out, _ = try_git(["log", "-1", "--format=%ae", action_commit, "--"], root)
        author = out.decode("utf-8", errors="replace").strip() if code == 0 else ""
        return owners.Ownership(path=path, rules=owners.parse(path, vet_facts.blob_text(root, blob)), author=author)
    return None
