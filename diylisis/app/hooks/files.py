"""The pre-commit framework's file hook (`git distill hook files PATH...`): certify the staged
content (index blob) of each record file, never editing one."""

from __future__ import annotations

import os

from msgspec.structs import replace

from diylisis.app.hooks.shared import (
    HOOK_RATIFIER,
    Output,
    hook_gate,
    hook_request,
    report_refusal,
    said_skipped,
)
from diylisis.core.errors import EXIT_FAILED, EXIT_OK, BadInput
from diylisis.core.model import RecordKind, Snapshot, Target
from diylisis.core.state import RunStatus
from diylisis.edges.gitio import try_git

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from diylisis.edges.workspace import Workspace

REPAIR_FILES = "git distill certify {path}"


def staged_files(paths: Sequence[str], *, out: Output, cwd: str | Path = ".") -> int:
    """The pre-commit hook: certify the staged content (index blob) of each record file."""
    from diylisis.app import certification

    if said_skipped(out, "files"):
        return EXIT_OK
    workspace = certification.Workspace.open(cwd)
    import fnmatch  # the pre-commit file hook, not the commit-msg path

    settings = workspace.config.hooks
    failed = 0
    for path in paths:
        relative = repo_path(workspace.root, cwd, path)
        if settings.files and not any(fnmatch.fnmatch(relative, glob) for glob in settings.files):
            out.note(f"git distill: {relative} is outside [hooks] files; skipped")
            continue
        data = staged_blob(workspace.root, relative)
        if data is None:
            continue  # deleted or not staged: nothing will be committed under this path
        if not certify_staged(workspace, relative, data, settings.role, out):
            failed += 1
    return EXIT_FAILED if failed else EXIT_OK


def repo_path(root: str | Path, cwd: str | Path, path: str) -> str:
    """path (given relative to cwd) as a repository path; one outside the repository is exit 2."""
    relative = os.path.relpath(os.path.abspath(os.path.join(cwd, path)), os.path.abspath(root))
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        raise BadInput(f"{path} is outside the repository at {root}")
    return relative.replace(os.sep, "/")


def staged_blob(root: str | Path, path: str) -> bytes | None:
    """The bytes the index holds for path (stage 0), or None when the index has no entry."""
    code, out, _ = try_git(["cat-file", "blob", f":{path}"], root)
    return out if code == 0 else None


def certify_staged(workspace: Workspace, path: str, data: bytes, role: str, out: Output, *,
                   in_message: bool = False) -> bool:
    """Certify the staged bytes of path for role with the engine, checking only; print a refusal."""
    from diylisis.app import certification
    from diylisis.core import engine
    from diylisis.edges.records.base import check_record

    check_record(data, f"the staged content of {path}", workspace.config.max_record_bytes)
    target = Target(kind=RecordKind.FILE, locator=path)
    # no revision and no tree revision: the staged content belongs to no commit yet, and its
    # paths resolve against the index (certification.context_for)
    snapshot = Snapshot(target=target, data=data,
                        boundary=f"the staged content of {path} (index blob)",
                        revision=None, tree_revision=None, path=path)
    state = certification.start(workspace, target, hook_request(workspace, role), (), check_dirty=False,
                                ratified_by=HOOK_RATIFIER)
    # check_only: no write channel, so the hook never modifies a tracked file, and no run file
    edges = certification.edges(workspace, target, hook_gate(role), check_only=True)
    result = engine.run(state, replace(edges, read=lambda: snapshot))
    if result.state.status == RunStatus.CERTIFIED:
        out.note(f"git distill: {path} certified for {role}")
        return True
    report_refusal(out, result, what=path, fix=REPAIR_FILES.format(path=path),
                   fix_words=("once this commit is made, repair it with" if in_message
                              else "this hook never edits files; repair it with"))
    return False
