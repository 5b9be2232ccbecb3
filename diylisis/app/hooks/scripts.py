"""The hook scripts and what is installed: the POSIX sh shims `git distill install-hooks` writes
(and the shipped `hooks/commit-msg`, `hooks/pre-push` are generated from), and how an installed
hook is recognized."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from diylisis.core.errors import BadInput
from diylisis.edges.gitio import run_git, try_git

HOOK_ID = "# diylisis-hook v1"
HOOK_NAMES = ("commit-msg", "post-commit", "pre-push")
CHAINED_SUFFIX = ".local"

_SCRIPT = """#!/bin/sh
{hook_id} ({name})
# {purpose}
# Installed by `git distill install-hooks`. A hook this replaced with --chain lives
# beside it as {name}{suffix} and runs first; its failure stops the commit or push.
{saved}hook_dir=$(dirname "$0")
{body}"""

_COMMIT_MSG_BODY = """if [ -x "$hook_dir/commit-msg{suffix}" ]; then
    "$hook_dir/commit-msg{suffix}" "$@" || exit $?
fi
{interpreter}if command -v git-distill >/dev/null 2>&1; then
    exec git-distill hook commit-msg "$@"
fi
if python3 -c 'import diylisis' 2>/dev/null; then
    exec python3 -m diylisis hook commit-msg "$@"
fi
echo "{missing}" >&2
exit 1
"""

_POST_COMMIT_BODY = """if [ -x "$hook_dir/post-commit{suffix}" ]; then
    "$hook_dir/post-commit{suffix}" "$@"
fi
{interpreter}if command -v git-distill >/dev/null 2>&1; then
    exec git-distill hook post-commit
fi
if python3 -c 'import diylisis' 2>/dev/null; then
    exec python3 -m diylisis hook post-commit
fi
echo "{missing}" >&2
exit 0
"""

_PRE_PUSH_BODY = """# git gives the pushed refs on stdin; keep them for both hooks
refs=$(cat)
if [ -x "$hook_dir/pre-push{suffix}" ]; then
    printf '%s\\n' "$refs" | "$hook_dir/pre-push{suffix}" "$@" || exit $?
fi
{interpreter}if command -v git-distill >/dev/null 2>&1; then
    printf '%s\\n' "$refs" | git-distill hook pre-push "$@"
    exit $?
fi
if python3 -c 'import diylisis' 2>/dev/null; then
    printf '%s\\n' "$refs" | python3 -m diylisis hook pre-push "$@"
    exit $?
fi
echo "{missing}" >&2
exit 1
"""

# the interpreter install-hooks ran under, tried first: the hook works once its venv is not active
_INTERPRETER = """interpreter={quoted}
if [ -x "$interpreter" ]; then
    {run}
fi
"""
_RUN = {
    "commit-msg": 'exec "$interpreter" -m diylisis hook commit-msg "$@"',
    "post-commit": 'exec "$interpreter" -m diylisis hook post-commit',
    "pre-push": 'printf \'%s\\n\' "$refs" | "$interpreter" -m diylisis hook pre-push "$@"\n    exit $?',
}
SAVED_MARK = "# diylisis-saved: "  # the hook install-hooks moved aside, which uninstall-hooks puts back

_PURPOSE = {
    "commit-msg": "Certify the commit message with git distill before git records it.",
    "post-commit": "Store the certificate of the message git just committed (keyed by its bytes).",
    "pre-push": "Verify the pushed commits' certificates and push refs/notes/distill beside them.",
}


def hook_script(name: str, *, interpreter: str | None = None, saved: str | None = None) -> str:
    """The POSIX sh shim for a hook name (commit-msg, post-commit or pre-push), carrying HOOK_ID.

    interpreter: the Python that runs diylisis, tried before git-distill on PATH; saved: the
    file name a hook this one replaced was moved to (uninstall-hooks restores it)."""
    if name not in HOOK_NAMES:
        raise BadInput(f"no diylisis hook named {name!r}; known: {', '.join(HOOK_NAMES)}")
    body = {"commit-msg": _COMMIT_MSG_BODY, "post-commit": _POST_COMMIT_BODY}.get(name, _PRE_PUSH_BODY)
    missing = (f"{name}: git distill is not installed (no git-distill on PATH, and python3 "
               "cannot import diylisis); install it, or skip this hook once with --no-verify")
    first = ""
    if interpreter is not None:
        first = _INTERPRETER.format(quoted=shlex.quote(interpreter), run=_RUN[name])
    return _SCRIPT.format(hook_id=HOOK_ID, name=name, purpose=_PURPOSE[name],
                          suffix=CHAINED_SUFFIX, saved=f"{SAVED_MARK}{saved}\n" if saved else "",
                          body=body.format(suffix=CHAINED_SUFFIX, missing=missing, interpreter=first))


def saved_hook(text: str) -> str | None:
    """The file name our hook script says it moved aside at install, or None."""
    for line in text.splitlines()[:8]:
        if line.startswith(SAVED_MARK):
            return line[len(SAVED_MARK):].strip() or None
    return None


def is_ours(text: str) -> bool:
    """The hook file was written by diylisis (it carries the id line)."""
    return any(line.startswith(HOOK_ID) for line in text.splitlines()[:3])


def hooks_dir(root: str | Path) -> Path:
    """The directory git runs hooks from: core.hooksPath when set, else the git dir's hooks."""
    code, out, _ = try_git(["config", "--get", "core.hooksPath"], root)
    configured = out.decode("utf-8", errors="surrogateescape").strip() if code == 0 else ""
    if configured:
        path = Path(os.path.expanduser(configured))
        return path if path.is_absolute() else Path(root) / path  # hooks run from the work-tree root
    common = run_git(["rev-parse", "--git-common-dir"], root).decode().strip()
    base = Path(common) if Path(common).is_absolute() else Path(root) / common
    return base / "hooks"


def hook_state(directory: Path, name: str) -> str:
    """What is installed as hook name: none, ours, chained, pre-commit, foreign or inactive."""
    path = directory / name
    if not path.exists():
        return "none"
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "foreign"
    if is_ours(text):
        if not os.access(path, os.X_OK):
            return "inactive"  # git skips a hook that is not executable
        return "chained" if (directory / f"{name}{CHAINED_SUFFIX}").exists() else "ours"
    if "File generated by pre-commit" in text:
        return "pre-commit"
    return "foreign"
