"""`git distill show TARGET`: the certificates stored for a record's current content."""

from __future__ import annotations

import click

from diylisis.commands import options
from diylisis.core.errors import EXIT_FAILED, EXIT_OK


@click.command()
@click.argument("target", default="HEAD")
@options.output_format()
def command(target: str, output_format: str) -> int:
    """Show every certificate stored under TARGET's current content (all roles)."""
    from diylisis.app import certification
    from diylisis.core.safe_text import visible
    from diylisis.edges import records, render
    from diylisis.edges.note_text import stored_certificates
    from diylisis.edges.trust import signature_checks

    workspace = certification.Workspace.open()
    snapshot = certification.read(workspace, records.parse_target(target, workspace.root))
    stored = stored_certificates(workspace.root, snapshot.data, str(snapshot.target))
    notes = [note for note, _ in stored]
    certificates = [certificate for _, certificate in stored]
    signatures = signature_checks(workspace, notes, snapshot.digest)
    if output_format == "json":
        from diylisis.edges.trust import signature_json

        options.echo_json({"target": str(snapshot.target), "digest": snapshot.digest, "certificates": notes,
                           "signatures": [signature_json(s) for s in signatures]})
    elif not certificates:
        click.echo(visible(f"{snapshot.target}: no certificate for this content ({snapshot.digest})"))
    else:
        for certificate, signature in zip(certificates, signatures, strict=True):
            click.echo(render.certificate_text(certificate))
            click.echo(visible(f"Signature: {signature.words()}"))
    return EXIT_OK if certificates else EXIT_FAILED
