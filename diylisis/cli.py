"""The `git distill` command group: parse flags, call one function, render, map errors to exit codes.

Commands live in `diylisis.commands.<name>` and are imported only when invoked, so
`git distill --help` stays cheap. `hook commit-msg FILE [-v]` runs on every commit, so
`main` dispatches it before click is imported (click and what it pulls in cost about a
third of a bare interpreter start); every other invocation, and any other spelling of that
one (`--help`, `--`, an unknown option), goes through click.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from diylisis.core.errors import EXIT_BAD_INPUT, EXIT_INTERNAL, DistillError

TYPE_CHECKING = False  # true for type checkers only: the commit-msg path never imports click
if TYPE_CHECKING:
    import click

    group: click.Group  # built by __getattr__ on first use
    LazyGroup: type[click.Group]

# command name -> module defining `command` (a click.Command). Explicit, not discovered.
COMMANDS: dict[str, tuple[str, str]] = {
    "certify": ("diylisis.commands.certify", "Certify a record's portability for a recipient role."),
    "verify": ("diylisis.commands.verify", "Re-check certificates against the records' current content."),
    "show": ("diylisis.commands.show", "Show the certificates stored for a record."),
    "brief": ("diylisis.commands.brief", "Print the reception procedure a recipient carries downstream."),
    "sync": ("diylisis.commands.sync", "Push or fetch certificates (refs/notes/distill) with a remote."),
    "resume": ("diylisis.commands.resume", "Continue a paused run (certify, vet or preview)."),
    "answer": ("diylisis.commands.answer", "Answer one open item of a paused run."),
    "runs": ("diylisis.commands.runs", "List, show or abort kept certification runs (abort undoes a half-made repair)."),  # noqa: E501
    "init": ("diylisis.commands.init", "Write a commented starter .distill.toml."),
    "hook": ("diylisis.commands.hook", "Entry points for git hooks: commit-msg, pre-push, staged files."),
    "install-hooks": ("diylisis.commands.install_hooks", "Install the commit-msg and pre-push hooks."),
    "uninstall-hooks": ("diylisis.commands.uninstall_hooks", "Remove the hooks install-hooks wrote; restore what it saved."),  # noqa: E501
    "doctor": ("diylisis.commands.doctor", "Check hooks, certificate refs, configuration and refuter setup."),
    "refuter-prompt": ("diylisis.commands.refuter_prompt", "Print the prompt a refuter command would receive."),
    "scan": ("diylisis.commands.scan", "Find session residue in records or a commit range (detection only)."),
    "rules": ("diylisis.commands.rules", "List the detector rules, or explain one."),
    "demo": ("diylisis.commands.demo", "A guided tour in a throw-away repository."),
    "help": ("diylisis.commands.help", "Print the help of git distill or of one command."),
    "preview": ("diylisis.commands.preview", "Compare throw-away probes of 2-4 directions before choosing one."),
    "vet": ("diylisis.commands.vet", "Vet the claims a pending merge, deploy or handoff leans on, one verdict per claim."),  # noqa: E501
    "forget": ("diylisis.commands.forget", "Remove a record's certificates and snapshot blob (--push: on the remote)."),  # noqa: E501
}

_VERBOSE_FLAGS = ("-v", "--verbose")


def _build_group() -> click.Group:
    """The click group (imported and built on first use, never on the commit-msg fast path)."""
    from importlib import import_module  # importlib and warnings: not on the commit-msg path

    import click

    class LazyGroup(click.Group):
        """A click group whose subcommands are imported on first use."""

        def list_commands(self, ctx: click.Context) -> list[str]:
            return sorted(COMMANDS)

        def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
            if name not in COMMANDS:
                return None
            module_name, _ = COMMANDS[name]
            command: click.Command = import_module(module_name).command
            return command

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

    return group


_BUILT: list[click.Group] = []  # the group, once built


def _group() -> click.Group:
    """The click group, built on first use."""
    if not _BUILT:
        _BUILT.append(_build_group())
    return _BUILT[0]


def __getattr__(name: str) -> object:
    """`group` and `LazyGroup`, built with click only when something asks for them."""
    if name == "group":
        return _group()
    if name == "LazyGroup":
        return type(_group())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def fast_commit_msg(argv: list[str]) -> tuple[str, bool] | None:
    """(message file, verbose) when argv is exactly `hook commit-msg FILE` with -v/--verbose
    anywhere after the subcommand; None for anything click must parse."""
    if len(argv) < 3 or argv[0] != "hook" or argv[1] != "commit-msg":
        return None
    rest = argv[2:]
    verbose = any(arg in _VERBOSE_FLAGS for arg in rest)
    files = [arg for arg in rest if arg not in _VERBOSE_FLAGS]
    if len(files) != 1 or files[0].startswith("-") or len(rest) - len(files) > 1:
        return None
    return files[0], verbose


def fast_post_commit(argv: list[str]) -> bool | None:
    """verbose when argv is exactly `hook post-commit [-v]`; None for anything click must parse."""
    if argv[:2] != ["hook", "post-commit"] or len(argv) > 3:
        return None
    if len(argv) == 3 and argv[2] not in _VERBOSE_FLAGS:
        return None
    return len(argv) == 3


def fast_pre_push(argv: list[str]) -> tuple[str, str, bool] | None:
    """(remote, url, verbose) when argv is exactly `hook pre-push REMOTE URL [-v]`, as git runs
    the hook; None for anything click must parse (the framework's spelling has no arguments)."""
    if argv[:2] != ["hook", "pre-push"]:
        return None
    rest = argv[2:]
    verbose = [arg for arg in rest if arg in _VERBOSE_FLAGS]
    words = [arg for arg in rest if arg not in _VERBOSE_FLAGS]
    if len(words) != 2 or len(verbose) > 1 or any(word.startswith("-") for word in words):
        return None
    return words[0], words[1], bool(verbose)


def _pre_push(remote: str, verbose: bool) -> int:
    from diylisis.app.hooks.pre_push import parse_push_lines, pre_push
    from diylisis.app.hooks.shared import Output

    text = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    return pre_push(remote, parse_push_lines(text), out=Output.to(verbose=verbose))


def _post_commit(verbose: bool) -> int:
    from diylisis.app.hooks.post_commit import post_commit
    from diylisis.app.hooks.shared import Output

    return post_commit(out=Output.to(verbose=verbose))


def _commit_msg(message_file: str, verbose: bool) -> int:
    from diylisis.app.hooks.commit_msg import commit_msg
    from diylisis.app.hooks.shared import Output

    return commit_msg(message_file, out=Output.to(verbose=verbose))


def _click_main(argv: list[str] | None) -> int:
    import click

    try:
        code = _group().main(args=argv, prog_name="git distill", standalone_mode=False)
    except click.exceptions.Abort:
        _say("git distill: aborted")
        return 130
    except click.exceptions.Exit as done:
        return done.exit_code
    except click.ClickException as error:
        error.show()
        return 2
    return code if isinstance(code, int) else 0


def _say(text: str) -> None:
    from diylisis.core.safe_text import visible_block  # an error may quote a record, a note or a refuter

    sys.stderr.write(visible_block(text) + "\n")
    sys.stderr.flush()


def _guarded(run: Callable[[], int]) -> int:
    """run's exit code; a DistillError is one line and its code, a crash is an internal error."""
    try:
        return run()
    except DistillError as error:
        _say(f"git distill: {error.message}")
        return error.exit_code
    except SystemExit:
        raise
    except KeyboardInterrupt:
        _say("git distill: interrupted")
        return 130
    except Exception as error:  # a crash is never reported as a finding or as silence
        if isinstance(error, ModuleNotFoundError) and declared_dependency(error.name):
            # a setup problem, not a bug: this interpreter lacks a declared dependency
            _say(f"git distill: the package {error.name} is not installed for {sys.executable}; "
                 f"install diylisis into this Python (pip install .) or run the git-distill it installed")
            return EXIT_BAD_INPUT
        _say(f"git distill: internal error: {type(error).__name__}: {error}")
        _say("git distill: this is a bug; please report it with the command you ran.")
        return EXIT_INTERNAL


def declared_dependency(module: str | None) -> bool:
    """module is (under) a dependency diylisis declares (not an extra), by its distribution name:
    the installed metadata's, or a checkout's pyproject.toml where diylisis was never installed.
    Read only after an import failed, so the hook never loads importlib.metadata."""
    import re
    from importlib import metadata

    if not module:
        return False
    try:
        requirements = metadata.requires("diylisis") or []
    except metadata.PackageNotFoundError:
        requirements = _checkout_requirements()
    # a missing distribution cannot say which modules it provides, so its module is taken to be
    # its normalized name (tomli-w: tomli_w), markdown-it-py's excepted; pyahocorasick's is not
    # either, and the prefilter runs without it
    names = {re.split(r"[^A-Za-z0-9._-]", requirement, maxsplit=1)[0].lower().replace("-", "_").replace(".", "_")
             for requirement in requirements if "extra ==" not in requirement}
    names = {"markdown_it" if name == "markdown_it_py" else name for name in names}
    return module.partition(".")[0] in names


def _checkout_requirements() -> list[str]:
    """[project] dependencies of the pyproject.toml beside the package (run from a checkout)."""
    import tomllib
    from pathlib import Path

    try:
        project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []
    dependencies = project.get("project", {}).get("dependencies", [])
    return [str(entry) for entry in dependencies] if isinstance(dependencies, list) else []


def main(argv: list[str] | None = None) -> None:
    """Entry point for `git-distill`, `diylisis` and `python -m diylisis`."""
    fast = fast_commit_msg(sys.argv[1:] if argv is None else list(argv))
    if fast is not None:
        sys.exit(_guarded(lambda: _commit_msg(*fast)))
    after_commit = fast_post_commit(sys.argv[1:] if argv is None else list(argv))
    if after_commit is not None:  # the post-commit hook runs on every commit: no click either
        sys.exit(_guarded(lambda: _post_commit(after_commit)))
    pushing = fast_pre_push(sys.argv[1:] if argv is None else list(argv))
    if pushing is not None:  # git runs the pre-push hook with REMOTE URL: no click on that path
        remote, _, verbose = pushing
        sys.exit(_guarded(lambda: _pre_push(remote, verbose)))
    sys.exit(_guarded(lambda: _click_main(argv)))
