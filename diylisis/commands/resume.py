"""`git distill resume RUN`: continue a paused run (a certification, a vet or a preview)."""

from __future__ import annotations

from pathlib import Path

import click

from diylisis.commands import options


@click.command()
@click.argument("run_id", metavar="RUN")
@options.run_options
def command(run_id: str, sign: bool | None, answers_file: Path | None, no_input: bool, yes: bool, verbose: bool,
            output_format: str) -> int:
    """Continue paused run RUN; a certified record edited while paused re-enters the loop from F1."""
    from diylisis.app import run_kinds
    from diylisis.edges.workspace import Workspace

    workspace = Workspace.open()
    kind = run_kinds.kind_of_run(workspace, run_id)
    request = run_kinds.ResumeRequest(answers_file=answers_file, no_input=no_input, output_format=output_format,
                                      sign=sign, yes=yes, verbose=verbose)
    return kind.resume(workspace, run_id, request)
