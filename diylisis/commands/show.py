"""`git distill show TARGET`: the certificates stored for a record's current content."""

from __future__ import annotations

import json

import click

from diylisis.errors import EXIT_FAILED, EXIT_OK


@click.command()
@click.argument("target", default="HEAD")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def command(target: str, output_format: str) -> int:
    """Show every certificate stored under TARGET's current content (all roles)."""
    from diylisis import certification, codec, records, render, store
    from diylisis.safe_text import visible, visible_json

    workspace = certification.Workspace.open()
    snapshot = certification.read(workspace, records.parse_target(target, workspace.root))
    notes = store.get(workspace.root, snapshot.data)
    certificates = [codec.certificate_from_dict(data) for data in notes]
    if output_format == "json":
        click.echo(visible_json(json.dumps({"target": str(snapshot.target), "digest": snapshot.digest,
                                            "certificates": notes}, ensure_ascii=False, indent=2)))
    elif not certificates:
        click.echo(visible(f"{snapshot.target}: no certificate for this content ({snapshot.digest})"))
    else:
        for certificate in certificates:
            click.echo(render.certificate_text(certificate))
    return EXIT_OK if certificates else EXIT_FAILED
