"""`git distill certify TARGET --role ROLE`: run the Diylisis loop to a certificate."""

from __future__ import annotations

from pathlib import Path

import click

from diylisis.commands import options
from diylisis.core.errors import EXIT_FAILED, BadInput

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from typing import Any

    from diylisis.core.engine import Result
    from diylisis.core.model import Target
    from diylisis.edges.workspace import Workspace

@click.command()
@click.argument("target")
@click.option("--role", help="Recipient role, e.g. reviewer, implementer, fresh-agent (default: config).")
@click.option("--activity", help="What the recipient will do with the record.")
@click.option("--source", "sources", multiple=True, help="A source the recipient may read (repeatable).")
@click.option("--scope", help="Execution scope the recipient keeps to.")
@click.option("--verify", "verification", multiple=True, help="A verification command (repeatable).")
@click.option("--stop", help="Stop condition for the recipient.")
@click.option("--certificate-target", help="Where the certificate lands besides the notes (not the record).")
@click.option("--verb", "activation_verb", help="Activation verb; default 'Read {locator} and execute it'.")
@click.option("--utterance", "utterances", multiple=True, help="Your own words that asked for this certification.")
@click.option("--utterance-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A file holding your own words that asked for this certification.")
@click.option("--refuter", "refuter_choice", type=click.Choice(["lint", "command"]),
              help="F5 realization: the built-in lint, or the [refuter] command (default: the "
                   "command when one is configured).")
@click.option("--check", is_flag=True,
              help="Certify only if already portable: no gate, no repair; residue exits 1.")
@options.run_options
def command(target: str, role: str | None, activity: str | None, sources: tuple[str, ...], scope: str | None,
            verification: tuple[str, ...], stop: str | None, certificate_target: str | None,
            activation_verb: str | None, utterances: tuple[str, ...], utterance_file: Path | None,
            refuter_choice: str | None, check: bool, sign: bool | None, answers_file: Path | None,
            no_input: bool, yes: bool, verbose: bool, output_format: str) -> int:
    """Certify TARGET's portability for a recipient ROLE and store the certificate as a git note.

    TARGET is commit:REV, file:PATH[@REV], msgfile:PATH, prbody:PATH or prbody:-, or a bare
    path or revision. Residue is repaired in place where the record has a write channel
    (a file is committed once per pass; an unpushed HEAD is amended) once you have seen the
    repaired text as a diff and confirmed it (at a terminal, or with --yes); what needs
    your judgment is asked at a terminal, taken from --answers, or left open: the run
    pauses (exit 3) and `git distill answer` / `git distill resume` continue it.

    Exit 0 certified, 1 not portable or stopped, 2 bad input, 3 paused.
    """
    from diylisis.app import certification
    from diylisis.core.state import RunStatus
    from diylisis.edges import records
    from diylisis.edges.config import ContractFields

    workspace = certification.with_signing(certification.Workspace.open(), sign)
    if refuter_choice is not None:
        from msgspec.structs import replace

        from diylisis.edges.refuter_choice import settings_for

        workspace = replace(workspace, config=replace(
            workspace.config, refuter=settings_for(workspace.config.refuter, refuter_choice)))
    parsed = records.parse_target(target, workspace.root)
    spoken = tuple(utterances)
    if utterance_file is not None:
        try:
            spoken += (utterance_file.read_text(encoding="utf-8"),)
        except UnicodeDecodeError:
            raise BadInput(f"{utterance_file} is not UTF-8 text") from None
    _refuse_undecodable_arguments({"--role": role, "--activity": activity, "--source": sources, "--scope": scope,
                                   "--verify": verification, "--stop": stop, "--certificate-target": certificate_target,
                                   "--verb": activation_verb, "--utterance": utterances})
    request = ContractFields(role=role, activity=activity, allowed_sources=tuple(sources),
                              scope=scope, verification=tuple(verification), stop=stop,
                              certificate_target=certificate_target,
                              activation_verb=activation_verb)
    state = certification.start(workspace, parsed, request, spoken, check_dirty=not check)
    _refuse_unwritable_store(workspace, parsed)
    from diylisis.app.certify_runs import emit, gate_for
    from diylisis.edges import certify_gate as gate

    if check:
        result = certification.certify(workspace, state, gate.PausedGate(), check_only=True)
        if result.state.status == RunStatus.PAUSED:
            return _not_portable(result, output_format)
        return emit(result, output_format, verbose)
    result = certification.certify(workspace, state, gate_for(workspace, parsed, answers_file, no_input, yes))
    return emit(result, output_format, verbose)


def _refuse_undecodable_arguments(arguments: dict[str, Any]) -> None:
    """An argument with bytes that are not UTF-8 (Python holds them as lone surrogates) is bad input:
    the certificate and the run file that would carry it are UTF-8 text."""
    for option, given in arguments.items():
        for text in (given,) if isinstance(given, str) else given or ():
            try:
                text.encode("utf-8")
            except UnicodeEncodeError as error:
                raise BadInput(f"{option} is not UTF-8 text (character {error.start + 1} stands for a byte "
                               "that is not UTF-8)") from None


def _refuse_unwritable_store(workspace: Workspace, target: Target) -> None:
    """A notes ref the certificate cannot be added to, or a corrupt note on the record's content,
    stops the run before it starts: it would fail only at the end, after its run file was written."""
    from diylisis.app import certification
    from diylisis.edges import store
    from diylisis.edges.note_text import CorruptNote

    snapshot = certification.read(workspace, target)
    try:
        store.check_writable(workspace.root, (snapshot.data, *snapshot.alternates))
    except CorruptNote as error:
        raise error.for_record(str(snapshot.target)) from None


def _not_portable(result: Result, output_format: str) -> int:

    from diylisis.core.safe_text import visible

    state = result.state
    from diylisis.core.state import GateKind

    found = [q for q in state.open_questions if q.gate is not GateKind.PREMISE]  # questions, not findings
    if output_format == "json":
        options.echo_json({"status": "not-portable", "target": str(state.target), "findings": [
            {"token": q.token, "line": q.line, "item": q.id, "why": q.reason} for q in found]})
    else:
        click.echo(visible(f"{state.target} is not portable for {state.contract.role}: {len(found)} finding(s)"))
        by_id = {item.id: item for item in state.items}
        for q in found:
            item = by_id.get(q.id)
            category = item.kind if item else q.gate.value
            rule = f" {item.rule_id}" if item and item.rule_id else ""
            click.echo(visible(f"  line {q.line}:{rule} {category} {q.token!r} — {item.why if item else q.reason}"))
    return EXIT_FAILED
