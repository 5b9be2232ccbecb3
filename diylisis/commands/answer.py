"""`git distill answer RUN ITEM OPTION [VALUE]`: answer one open item of a paused run."""

from __future__ import annotations

import click


@click.command()
@click.argument("run_id", metavar="RUN")
@click.argument("item")
@click.argument("option", type=click.Choice(["resolve", "route", "drop", "defer", "confirm", "correct", "value"]))
@click.argument("value", required=False)
def command(run_id: str, item: str, option: str, value: str | None) -> int:
    """Record ITEM's answer in paused run RUN; then `git distill resume RUN`.

    resolve VALUE: a canonical reference or inline text; route VALUE: a stable reference
    (tracked path, commit id or durable URL); drop: remove it from the record;
    defer VALUE: accept the gap until the condition VALUE (it travels as a premise).
    """
    from diylisis import certification
    from diylisis.gate import parse_answer

    workspace = certification.Workspace.open()
    state = certification.answer(workspace, run_id, parse_answer(item, option, value))
    left = [q.id for q in state.open_questions if all(a.item_id != q.id for a in state.answers)]
    click.echo(f"recorded {item} = {option}" + (f" {value!r}" if value else "")
               + (f"; still open: {', '.join(left)}" if left else f"; now: git distill resume {run_id}"))
    return 0
