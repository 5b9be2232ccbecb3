"""`git distill brief TARGET --role ROLE`: the reception procedure to carry downstream."""

from __future__ import annotations

import click

from diylisis.commands import options
from diylisis.core.errors import EXIT_FAILED, EXIT_OK


@click.command()
@click.argument("target", default="HEAD")
@click.option("--role", required=True, help="The recipient role the certificate was issued for.")
@options.output_format()
def command(target: str, role: str, output_format: str) -> int:
    """Print the reception procedure of TARGET's certificate for ROLE.

    It leads whatever text you hand the recipient: role, granted sources, verification
    commands, scope, stop condition, dereference steps (the identity re-check first) and
    the premises to reconfirm. All of it is the certificate's text, quoted under its
    author's name: read its commands before running any.
    """
    from diylisis.app import certification
    from diylisis.core import codec
    from diylisis.core.phases.f7_certify import brief_text
    from diylisis.core.safe_text import visible
    from diylisis.edges import records
    from diylisis.edges.note_text import stored_certificates
    from diylisis.edges.trust import signature_checks

    workspace = certification.Workspace.open()
    snapshot = certification.read(workspace, records.parse_target(target, workspace.root))
    for data, certificate in stored_certificates(workspace.root, snapshot.data, str(snapshot.target)):
        if certificate.role == role:
            if output_format == "json":
                options.echo_json(codec.encode(certificate.reception))
            else:
                (signature,) = signature_checks(workspace, [data], snapshot.digest)
                click.echo(brief_text(certificate, signature.words()), nl=False)
            return EXIT_OK
    click.echo(visible(f"git distill: {snapshot.target} has no certificate for role {role} on its current "
                       f"content; run git distill certify {target} --role {role}"), err=True)
    return EXIT_FAILED
