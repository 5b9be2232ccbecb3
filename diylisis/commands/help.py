"""`git distill help [COMMAND]`: the help of the whole tool or of one command.

`git distill --help` never reaches us: git turns it into `man git-distill`, which finds the
man page the package installs (`man/git-distill.1`, built by `python -m diylisis.commands.manpage`).
"""

from __future__ import annotations

import click

from diylisis.core.errors import EXIT_OK, BadInput


@click.command()
@click.argument("name", required=False, metavar="[COMMAND]")
@click.pass_context
def command(ctx: click.Context, name: str | None) -> int:
    """Print the help of git distill, or of one COMMAND (the same text as `git distill COMMAND -h`)."""
    group_ctx = ctx.parent
    if group_ctx is None:  # called outside the group (tests of this module alone)
        from diylisis.cli import group as built

        group_ctx = click.Context(built, info_name="git distill")
    group = group_ctx.command
    if name is None:
        click.echo(group.get_help(group_ctx))
        return EXIT_OK
    assert isinstance(group, click.Group)
    chosen = group.get_command(group_ctx, name)
    if chosen is None:
        raise BadInput(f"no command {name!r}; `git distill help` lists the commands")
    click.echo(chosen.get_help(click.Context(chosen, info_name=name, parent=group_ctx)))
    return EXIT_OK
