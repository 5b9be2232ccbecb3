"""`git distill resume RUN`: continue a paused certification from its saved state."""

from __future__ import annotations

from pathlib import Path

import click

from diylisis.commands.certify import ANSWERS, FORMAT, NO_INPUT, SIGN, choose_gate, emit


@click.command()
@click.argument("run_id", metavar="RUN")
@SIGN
@ANSWERS
@NO_INPUT
@FORMAT
def command(run_id: str, sign: bool | None, answers_file: Path | None, no_input: bool, output_format: str) -> int:
    """Continue paused run RUN; a record edited while paused re-enters the loop from F1."""
    from diylisis import certification

    workspace = certification.with_signing(certification.Workspace.open(), sign)
    result = certification.resume(workspace, run_id, choose_gate(answers_file, no_input))
    return emit(result, output_format)
