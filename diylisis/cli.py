"""The `git distill` command group: parse flags, call one function, render, map errors to exit codes.

Commands live in `diylisis.commands.<name>` and are imported only when invoked, so
`git distill --help` and the hooks stay cheap (issue 7).
"""

from __future__ import annotations

import sys
from importlib import import_module

import click

from diylisis.errors import EXIT_INTERNAL, DistillError

# command name -> module defining `command` (a click.Command). Explicit, not discovered.
COMMANDS: dict[str, tuple[str, str]] = {
    "certify": ("diylisis.commands.certify", "Certify a record's portability for a recipient role."),
    "verify": ("diylisis.commands.verify", "Re-check certificates against the records' current content."),
    "show": ("diylisis.commands.show", "Show the certificates stored for a record."),
    "brief": ("diylisis.commands.brief", "Print the reception procedure a recipient carries downstream."),
    "sync": ("diylisis.commands.sync", "Push or fetch certificates (refs/notes/distill) with a remote."),
    "resume": ("diylisis.commands.resume", "Continue a paused certification."),
    "answer": ("diylisis.commands.answer", "Answer one open item of a paused certification."),
    "init": ("diylisis.commands.init", "Write a commented starter .distill.toml."),
    "hook": ("diylisis.commands.hook", "Entry points for git hooks: commit-msg, pre-push, staged files."),
    "install-hooks": ("diylisis.commands.install_hooks", "Install the commit-msg and pre-push hooks."),
    "doctor": ("diylisis.commands.doctor", "Check hooks, certificate refs, configuration and refuter setup."),
    "refuter-prompt": ("diylisis.commands.refuter_prompt", "Print the prompt a refuter command would receive."),
    "scan": ("diylisis.commands.scan", "Find session residue in records or a commit range (detection only)."),
    "rules": ("diylisis.commands.rules", "List the detector rules, or explain one."),
    "demo": ("diylisis.commands.demo", "A guided tour in a throw-away repository."),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module_name, _ = COMMANDS[name]
        return import_module(module_name).command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in sorted(COMMANDS)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="diylisis", prog_name="git distill")
def group() -> None:
    """git distill: certify that a record makes sense to someone who was not there.

    A record is a commit message (commit:REV), a file (file:PATH or file:PATH@REV), a
    commit-msg hook's message file (msgfile:PATH) or a pull-request body (prbody:PATH,
    prbody:- for stdin). A bare path means file:, a bare revision means commit:.

    Exit codes: 0 ok, 1 not portable or verification failed, 2 bad input,
    3 paused for the author's judgment, 70 internal error.
    """


def main(argv: list[str] | None = None) -> None:
    """Entry point for `git-distill`, `diylisis` and `python -m diylisis`."""
    try:
        code = group.main(args=argv, prog_name="git distill", standalone_mode=False)
    except DistillError as error:
        click.echo(f"git distill: {error.message}", err=True)
        sys.exit(error.exit_code)
    except click.exceptions.Abort:
        click.echo("git distill: aborted", err=True)
        sys.exit(130)
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.ClickException as error:
        error.show()
        sys.exit(2)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        click.echo("git distill: interrupted", err=True)
        sys.exit(130)
    except Exception as error:  # a crash is never reported as a finding or as silence
        click.echo(f"git distill: internal error: {type(error).__name__}: {error}", err=True)
        click.echo("git distill: this is a bug; please report it with the command you ran.", err=True)
        sys.exit(EXIT_INTERNAL)
    sys.exit(code if isinstance(code, int) else 0)
