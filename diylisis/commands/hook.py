"""`git distill hook commit-msg FILE | post-commit | pre-push [REMOTE URL] | files FILE...`: what hooks call.

The plain scripts in hooks/ and the entries of .pre-commit-hooks.yaml run these. They are
quiet when all is well (`--verbose` says what happened), short when they refuse, and
colored only on a terminal without NO_COLOR. The logic lives in `diylisis.app.hooks`, one module per hook.
"""

from __future__ import annotations

import os
import sys

import click

VERBOSE = click.option("-v", "--verbose", is_flag=True, help="Also say what passed or was skipped.")


@click.group("hook")
def command() -> None:
    """Entry points for git hooks and the pre-commit framework."""


@command.command("commit-msg")
@click.argument("message_file")
@VERBOSE
def commit_msg(message_file: str, verbose: bool) -> int:
    """Certify the message in MESSAGE_FILE (git's commit-msg hook argument).

    Mechanical repairs are written into the file; anything that needs your judgment
    fails the commit (exit 1) with each finding, and the typed message is kept.
    """
    from diylisis.app.hooks.commit_msg import commit_msg
    from diylisis.app.hooks.shared import Output

    return commit_msg(message_file, out=Output.to(verbose=verbose))


@command.command("post-commit")
@VERBOSE
def post_commit(verbose: bool) -> int:
    """Store the certificate the commit-msg hook made, keyed by the message git committed.

    The commit-msg hook judges every way git may store the message but writes no note; this
    hook reads the message of HEAD and stores only the certificate of exactly those bytes.
    Always exit 0: the commit is already made.
    """
    from diylisis.app.hooks.post_commit import post_commit
    from diylisis.app.hooks.shared import Output

    return post_commit(out=Output.to(verbose=verbose))


@command.command("pre-push")
@click.argument("remote", required=False)
@click.argument("url", required=False)
@click.option("--no-push-notes", is_flag=True, help="Verify only; do not push refs/notes/distill.")
@VERBOSE
def pre_push(remote: str | None, url: str | None, no_push_notes: bool, verbose: bool) -> int:
    """Verify the commits being pushed and push the certificate refs beside them.

    As git's pre-push hook: REMOTE and URL as arguments, the pushed refs on stdin. Under
    the pre-commit framework (no arguments) the refs come from its PRE_COMMIT_* variables;
    run by hand, the commits on no remote-tracking ref are verified. Exit 1 when a pushed
    commit's message has no valid certificate.
    """
    from diylisis.app.hooks import pre_push as hook
    from diylisis.app.hooks.shared import Output
    from diylisis.edges.gitio import toplevel

    if remote is None:
        remote, refs = hook.framework_refs(toplevel("."), os.environ)
    else:
        text = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
        refs = hook.parse_push_lines(text)
    return hook.pre_push(remote, refs, out=Output.to(verbose=verbose), push_notes=not no_push_notes)


@command.command("files")
@click.argument("paths", nargs=-1)
@VERBOSE
def files(paths: tuple[str, ...], verbose: bool) -> int:
    """Certify the STAGED content of each record file (never edits a file).

    Files outside the `[hooks] files` globs of the configuration, when set, are skipped.
    """
    from diylisis.app.hooks.files import staged_files
    from diylisis.app.hooks.shared import Output

    return staged_files(paths, out=Output.to(verbose=verbose))
