"""Options that several commands share, defined once."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

import click

from diylisis.core.safe_text import visible_json, visible_lines

F = TypeVar("F", bound=Callable[..., object])


def echo_json(data: object) -> None:
    """Print DATA as `--format json` does: indented, non-ASCII as it is, control characters escaped."""
    click.echo(visible_json(json.dumps(data, ensure_ascii=False, indent=2)))


BLOCK_SECONDS = 0.2  # the longest a judged record's lines wait before they are printed


def echo_lines(lines: Iterable[str]) -> None:
    """Print lines as they come, each escaped as by visible(): in blocks of 256 or after
    BLOCK_SECONDS, since click.echo costs about 15 us a call and a long range prints as it goes."""
    block: list[str] = []
    sent = time.monotonic()
    for line in lines:
        block.append(line)
        if len(block) >= 256 or time.monotonic() - sent > BLOCK_SECONDS:
            click.echo(visible_lines(block))
            block, sent = [], time.monotonic()
    if block:
        click.echo(visible_lines(block))


def jobs(parallel_from: int) -> Callable[[F], F]:
    """-j/--jobs of a command that shares a range among worker processes from parallel_from commits on."""
    return click.option(
        "-j",
        "--jobs",
        type=click.IntRange(min=0),
        default=0,
        help=f"With --range, worker processes (default 0: one per CPU for {parallel_from} or more commits, "
             "else 1).",
    )


def output_format(*more: str, help: str = "Output for people or for scripts.") -> Callable[[F], F]:
    """--format: text for people, json for scripts, and MORE (sarif) where the command writes it."""
    return click.option("--format", "output_format", type=click.Choice(["text", "json", *more]), default="text",
                        show_default=True, help=help)


def _targets_or_range(ctx: click.Context, param: click.Parameter, value: object) -> object:
    """Refuse TARGET... with --range, whichever of the two click reads second."""
    if value and ctx.params.get("targets" if param.name == "range_spec" else "range_spec"):
        from diylisis.core.errors import BadInput

        raise BadInput("give targets or --range, not both")
    return value


def targets_or_range(range_help: str, parallel_from: int) -> Callable[[F], F]:
    """TARGET... or --range A..B, never both (with --merges, and -j/--jobs for the range): the records a
    reading command takes."""
    def add(function: F) -> F:
        merges = click.option("--merges", is_flag=True, help="With --range, include merge commits.")
        range_spec = click.option("--range", "range_spec", metavar="A..B", help=range_help, callback=_targets_or_range)
        targets = click.argument("targets", nargs=-1, callback=_targets_or_range)
        for option in (jobs(parallel_from), merges, range_spec, targets):
            function = option(function)
        return function
    return add


_ANSWERS = click.option("--answers", "answers_file", type=click.Path(dir_okay=False, path_type=Path),
                        help="TOML file of gate answers keyed by item id: id = \"drop\" or id = { resolve = \"...\" }"
                             " (see git distill answer --help for every item).")
_SIGN = click.option("--sign/--no-sign", default=None,
                     help="Sign the certificate with the signing git is configured for (gpg.format, "
                          "user.signingKey); default: git config distill.sign.")
_NO_INPUT = click.option("--no-input", is_flag=True,
                         help="Never prompt: open questions pause the run (exit 3).")
_YES = click.option("--yes", is_flag=True,
                    help="Apply the repaired text without asking (it is still shown as a diff); without it, "
                         "an answers file or a resumed run stops with exit 3 before the repair.")
_VERBOSE = click.option("--verbose", "-v", is_flag=True,
                        help="Also print the protocol's own record: substitution table, disposition trace, "
                             "ledger and judgments (JSON always has them).")


def run_options(function: F) -> F:
    """The options of a run that may pause, certify's and resume's: --sign, --answers, --no-input, --yes,
    --verbose and --format."""
    for option in (output_format(), _VERBOSE, _YES, _NO_INPUT, _ANSWERS, _SIGN):
        function = option(function)
    return function
