"""`git distill forget RECORD [--push [--remote NAME]]`: drop a record's certificates and snapshot."""

from __future__ import annotations

import json

import click

from diylisis.commands import options
from diylisis.core.errors import EXIT_OK


@click.command("forget")
@click.argument("record")
@click.option("--push", is_flag=True, help="Also push the certificate refs without them to the remote.")
@click.option("--remote", default="origin", show_default=True, help="The remote --push sends to.")
@options.output_format()
def command(record: str, push: bool, remote: str, output_format: str) -> int:
    """Remove RECORD's certificates (every role) and its snapshot blob from the certificate refs.

    RECORD is named as for show (HEAD, commit:REV, file:PATH, ...) by its current content,
    or as blob:ID for content no record holds any more (an amended message). With --push
    both refs are pushed to the remote. What others fetched before is not taken back: the
    output says what a remote may still hold.
    """
    from diylisis.app import certification, forget
    from diylisis.edges import records, store

    workspace = certification.Workspace.open()
    if record.startswith("blob:"):
        blob = forget.blob_of(record)
    else:
        snapshot = certification.read(workspace, records.parse_target(record, workspace.root))
        blob = store.blob_id(snapshot.data, store.settings(workspace.root).object_format)
    done = forget.forget(workspace.root, blob, remote=remote if push else None)
    if output_format == "json":
        click.echo(json.dumps({"record": record, "blob": done.blob, "certificates": done.certificates,
                               "snapshot": done.snapshot, "remote": done.remote, "pushed": list(done.pushed),
                               "still_held": list(done.still_held)}, indent=2))
        return EXIT_OK
    if not done.certificates and not done.snapshot:
        click.echo(f"{record}: nothing stored for this content (blob {done.blob}); nothing to forget")
        return EXIT_OK
    click.echo(f"forgot {record} (blob {done.blob}): removed {done.certificates} certificate(s)"
               + (" and its snapshot" if done.snapshot else "") + " from the certificate refs")
    if done.pushed:
        click.echo(f"pushed {', '.join(done.pushed)} to {done.remote}")
    elif not push:
        click.echo("not pushed: a remote that has the certificate refs still holds them; "
                   "run again with --push, or git distill sync --push")
    click.echo("what may still hold it:")
    for line in done.still_held:
        click.echo(f"  - {line}")
    return EXIT_OK
