"""`git distill runs [list | show RUN | abort RUN]`: the certifications this repository keeps a run for.

A run keeps its file while it is paused for answers, or when it stopped in the middle of a
repair (a kill, a lock that never freed): `resume` continues it, `abort` undoes the repair
that was under way and drops the run. Run files of finished runs are removed by certify.
"""

from __future__ import annotations

import os

import click

from diylisis.commands import options
from diylisis.core.errors import EXIT_OK, BadInput
from diylisis.core.safe_text import visible

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from typing import Any

    from diylisis.edges.workspace import Workspace

FORMAT = options.output_format()


def _age(seconds: int) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return f"{seconds} s ago"


def _workspace() -> Workspace:
    from diylisis.edges.workspace import Workspace

    return Workspace.open()


def _row(workspace: Workspace, run_id: str) -> dict[str, Any]:
    """What `runs` shows of one run, from its kind; a file that cannot be read is a damaged row."""
    from diylisis.app import run_kinds
    from diylisis.edges import run_files

    kind = None
    try:
        kind = run_kinds.kind_of_run(workspace, run_id)
        return kind.describe(workspace, run_id)
    except BadInput as error:
        return {"kind": kind and kind.name, **run_files.damaged_row(workspace.git_dir, run_id, error.message)}


@click.group(invoke_without_command=True)
@FORMAT
@click.pass_context
def command(ctx: click.Context, output_format: str) -> int:
    """List the kept runs of every kind (certify, vet, preview: paused, in the middle of a
    repair, or failed); `show RUN` and `abort RUN` (undo what it left half done and drop
    the run) act on one."""
    if ctx.invoked_subcommand is None:
        return _list(output_format)
    ctx.obj = output_format
    return EXIT_OK


@command.command("list")
@FORMAT
def list_command(output_format: str) -> int:
    """List the kept runs: id, record, status and age."""
    return _list(output_format)


def _list(output_format: str) -> int:
    from diylisis.edges import run_files

    workspace = _workspace()
    found = [_row(workspace, run_id) for run_id in run_files.run_ids(workspace.git_dir)]
    if output_format == "json":
        options.echo_json({"runs": found})
    elif not found:
        click.echo("no runs are kept in this repository")
    else:
        for run in found:
            click.echo(visible(f"{run['run']}  {run.get('kind') or '?':<8}  {run['status']:<9}  "
                               f"{_age(run['age_seconds']):<12}  {run['record']}"))
    return EXIT_OK


@command.command("show")
@click.argument("run_id", metavar="RUN")
@FORMAT
def show_command(run_id: str, output_format: str) -> int:
    """What run RUN is doing and how to go on with it."""
    from diylisis.app import run_kinds

    workspace = _workspace()
    run = run_kinds.kind_of_run(workspace, run_id).describe(workspace, run_id)
    if output_format == "json":
        options.echo_json(run)
        return EXIT_OK
    role = f" for {run['role']}" if run.get("role") else ""  # a certification's recipient role
    click.echo(visible(f"run {run['run']}: {run['record']}{role}, {run['status']}, "
                       f"last saved {_age(run['age_seconds'])}"))
    click.echo(visible(f"  {run['what']}"))
    if run["open_items"]:
        click.echo(visible(f"  open items: {', '.join(run['open_items'])}"))
    if run.get("repair_commits"):
        click.echo(visible(f"  repair commits so far: {', '.join(c[:12] for c in run['repair_commits'])}"))
    for step in run["next"]:
        click.echo(visible(f"  next: {step}"))
    return EXIT_OK


@command.command("abort")
@click.argument("run_id", metavar="RUN")
@FORMAT
def abort_command(run_id: str, output_format: str) -> int:
    """Undo run RUN's unfinished repair (a made repair commit stays) and remove the run."""
    from diylisis.app import run_kinds
    from diylisis.edges import run_files

    workspace = _workspace()
    try:
        kind = run_kinds.kind_of_run(workspace, run_id)
        said: tuple[str, ...] = kind.abort(workspace, run_id)
    except BadInput:
        if not run_files.is_run_id(run_id) or not os.path.isfile(run_files.run_file(workspace.git_dir, run_id)):
            raise
        run_files.remove(workspace.git_dir, run_id)  # unreadable: nothing in it can be undone
        said = (f"the file of run {run_id} could not be read; removed it, and no file was changed",)
    if output_format == "json":
        options.echo_json({"run": run_id, "aborted": True, "done": list(said)})
    else:
        for sentence in said:
            click.echo(visible(sentence))
    return EXIT_OK
