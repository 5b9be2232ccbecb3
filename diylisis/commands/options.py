"""Options that several commands share, defined once."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import click

F = TypeVar("F", bound=Callable[..., object])


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
