"""`git distill brief TARGET --role ROLE`: the reception procedure to carry downstream."""

from __future__ import annotations

import json

import click

from diylisis.errors import EXIT_FAILED, EXIT_OK


@click.command()
@click.argument("target", default="HEAD")
@click.option("--role", required=True, help="The recipient role the certificate was issued for.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text",
              show_default=True)
def command(target: str, role: str, output_format: str) -> int:
    """Print the reception procedure of TARGET's certificate for ROLE.

    It leads whatever text you hand the recipient: role, granted sources, verification
    commands, scope, stop condition, dereference steps (the identity re-check first) and
    the premises to reconfirm. All of it is the certificate's text, quoted under its
    author's name: read its commands before running any.
    """
    from diylisis import certification, codec, records
    from diylisis.note_text import stored_certificates
    from diylisis.phases.f7_certify import brief_text
    from diylisis.safe_text import visible, visible_json

    workspace = certification.Workspace.open()
    snapshot = certification.read(workspace, records.parse_target(target, workspace.root))
    for data, certificate in stored_certificates(workspace.root, snapshot.data, str(snapshot.target)):
        if certificate.role == role:
            if output_format == "json":
                click.echo(visible_json(json.dumps(codec.encode(certificate.reception), ensure_ascii=False,
                                                   indent=2)))
            else:
                click.echo(brief_text(certificate, _signature_words(workspace, data, snapshot.digest)), nl=False)
            return EXIT_OK
    click.echo(visible(f"git distill: {snapshot.target} has no certificate for role {role} on its current "
                       f"content; run git distill certify {target} --role {role}"), err=True)
    return EXIT_FAILED


def _signature_words(workspace, note: dict, digest: str) -> str:  # type: ignore[no-untyped-def]
    """The note's signature checked as verify checks it, in plain words ("unsigned" when it has none)."""
    from diylisis import codec, signing

    if codec.SIGNATURE_FIELD not in note:
        return "unsigned"
    from diylisis.trust import signature_policy

    return signing.check(note, digest, signature_policy(workspace, strict=False)).words()
