"""`git distill resume RUN`: continue a paused certification from its saved state."""

from __future__ import annotations

import click

from diylisis.commands.certify import ANSWERS, FORMAT, NO_INPUT, SIGN, choose_gate, emit


@click.command()
@click.argument("run_id", metavar="RUN")
@SIGN
@ANSWERS
@NO_INPUT
@FORMAT
def command(run_id: str, sign: bool | None, answers_file, no_input: bool, output_format: str) -> int:
    """Continue paused run RUN; a record edited while paused re-enters the loop from F1."""
    from diylisis import certification
    from diylisis.commands.preview import is_preview_run, resume_preview_run

    if is_preview_run(run_id):  # a run of git distill preview: its own state and gates
        return resume_preview_run(run_id, answers_file, no_input, output_format)

    workspace = certification.with_signing(certification.Workspace.open(), sign)
    result = certification.resume(workspace, run_id, choose_gate(answers_file, no_input))
    return emit(result, output_format)
