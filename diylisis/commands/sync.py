"""`git distill sync [REMOTE] [--push|--fetch]`: move certificates to and from a remote.

The work is `diylisis.app.sync`'s, shared with the pre-push hook: every notes ref under
refs/notes/distill and refs/distill/snapshots are fetched and merged (each side's
certificates survive), then pushed, with one rule for rejections and retries.
"""

from __future__ import annotations

import json

import click

from diylisis.app.sync import SyncResult, sync
from diylisis.commands import options
from diylisis.core import codec
from diylisis.edges.gitio import toplevel


def render_text(result: SyncResult) -> str:
    """A few lines saying what moved."""
    lines = []
    if result.fetched:
        lines.append(f"fetched and merged {', '.join(result.fetched)} from {result.remote}")
    if result.pushed:
        lines.append(f"pushed {', '.join(result.pushed)} to {result.remote}")
    if not lines:
        lines.append(f"nothing to move: neither side has certificates under {result.notes_ref}")
    lines.append(f"{result.certified_blobs} certified snapshot(s) under {result.notes_ref}")
    return "\n".join(lines)


@click.command("sync")
@click.argument("remote", required=False, default="origin")
@click.option("--push", "mode", flag_value="push", help="Only push local certificates.")
@click.option("--fetch", "mode", flag_value="fetch", help="Only fetch and merge the remote's.")
@options.output_format()
def command(remote: str, mode: str | None, output_format: str) -> int:
    """Push or fetch certificates (refs/notes/distill*) with a remote; default: fetch, then push.

    A push the remote rejects because it moved is fetched, merged and pushed again (not with
    --push, which only pushes); a remote busy with another clone's push is waited out.
    """
    from diylisis.core.safe_text import visible_block, visible_json

    result = sync(toplevel("."), remote, fetch=mode in (None, "fetch"), push=mode in (None, "push"))
    # a ref name may come from a committed config
    if output_format == "json":
        click.echo(visible_json(json.dumps(codec.encode(result), sort_keys=True)))
    else:
        click.echo(visible_block(render_text(result)))
    return 0
