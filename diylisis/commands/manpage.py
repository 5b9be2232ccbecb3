"""The git-distill(1) man page, built from the click commands so it cannot drift from `-h`.

`python -m diylisis.commands.manpage > man/git-distill.1` rewrites the shipped page; a test fails when
it is stale. git shows this page for `git distill --help` (git runs `man git-distill`), and man
finds it beside the interpreter's `bin` through PATH (`<prefix>/share/man/man1`).
"""

from __future__ import annotations

import inspect

import click


def _roff(text: str) -> str:
    """text with roff's control characters made literal."""
    escaped = text.replace("\\", "\\e").replace("-", "\\-")
    lines = []
    for line in escaped.splitlines():
        lines.append("\\&" + line if line.startswith((".", "'")) else line)
    return "\n".join(lines)


def _paragraphs(text: str) -> list[str]:
    """A docstring as roff paragraphs: its lines dedented, each paragraph one filled line."""
    rows: list[str] = []
    for paragraph in inspect.cleandoc(click.unstyle(text)).split("\n\n"):
        if paragraph.strip():
            rows += [".PP", _roff(" ".join(line.strip() for line in paragraph.splitlines()))]
    return rows


def _options(command: click.Command, ctx: click.Context) -> list[str]:
    rows: list[str] = []
    for parameter in command.params:
        record = parameter.get_help_record(ctx)
        if record is None or not record[1]:
            continue
        names, help_text = record
        rows += [".TP", f"\\fB{_roff(names)}\\fR", _roff(help_text or "")]
    # Written here rather than read from command.get_params: click keeps each command's help option as
    # first built, with the option names of whichever context asked first in the process.
    if command.add_help_option:
        rows += [".TP", f"\\fB{_roff(', '.join(ctx.help_option_names))}\\fR", "Show this message and exit."]
    return rows


def manpage() -> str:
    """The whole page, roff text."""
    from diylisis.cli import COMMANDS, group

    root = click.Context(group, info_name="git distill", **group.context_settings)
    lines = [
        '.TH GIT\\-DISTILL 1 "" "diylisis" "git distill manual"',
        ".SH NAME",
        "git\\-distill \\- certify that a record makes sense to someone who was not there",
        ".SH SYNOPSIS",
        "\\fBgit distill\\fR \\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGS\\fR]",
        ".br",
        "\\fBgit distill help\\fR [\\fICOMMAND\\fR]",
        ".SH DESCRIPTION",
        *_paragraphs(group.help or ""),
        ".SH COMMANDS",
    ]
    for name in sorted(COMMANDS):
        command = group.get_command(root, name)
        assert command is not None
        ctx = click.Context(command, info_name=name, parent=root)
        usage = " ".join(command.collect_usage_pieces(ctx))
        lines += [".SS", f"\\fBgit distill {name}\\fR {_roff(usage)}", *_paragraphs(command.help or "")]
        lines += _options(command, ctx)
    lines += [
        ".SH EXIT STATUS",
        "0 ok; 1 not portable or verification failed; 2 bad input (nothing written);",
        "3 paused for the author's judgment; 70 internal error (a bug; please report it).",
        ".SH SEE ALSO",
        "\\fBgit\\-notes\\fR(1), \\fBgithooks\\fR(5)",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import sys

    sys.stdout.write(manpage())
