"""`git distill install-hooks [--force] [--chain]`: the plain commit-msg, post-commit and pre-push hooks.

For people without the pre-commit framework. Honors core.hooksPath. An existing hook that
is not ours is never overwritten unless asked: `--chain` keeps it as `<hook>.local` and our
hook runs it first; `--force` replaces it (keeping a copy as `<hook>.distill-backup`).
"""

from __future__ import annotations

import os
from pathlib import Path

import click
from msgspec import Struct

from diylisis.core.errors import EXIT_OK, BadInput

BACKUP_SUFFIX = ".distill-backup"


class Installed(Struct, frozen=True, kw_only=True):
    """What happened to one hook."""

    name: str
    path: Path
    action: str  # installed | updated | unchanged | chained | replaced


def plan(directory: Path, names: tuple[str, ...], *, force: bool, chain: bool) -> None:
    """Refuse before writing anything when a foreign hook is in the way (exit 2)."""
    from diylisis.app.hooks import scripts

    blocked = []
    for name in names:
        state = scripts.hook_state(directory, name)
        if state in ("foreign", "pre-commit") and not (force or chain):
            blocked.append(name)
        if state in ("foreign", "pre-commit") and chain and not force and \
                (directory / f"{name}{scripts.CHAINED_SUFFIX}").exists():
            raise BadInput(f"{directory / name} is not ours and {name}{scripts.CHAINED_SUFFIX} "
                           "already exists; move one of them away, or pass --force to replace it")
    if blocked:
        listed = ", ".join(str(directory / name) for name in blocked)
        raise BadInput(f"{listed}: an existing hook that git distill did not write; "
                       "rerun with --chain to keep it and run it first, or --force to replace it")


def install(root: Path, *, force: bool = False, chain: bool = False,
            names: tuple[str, ...] | None = None, interpreter: str | None = None) -> tuple[Installed, ...]:
    """Write our hook scripts into the hooks directory; nothing is written when one is refused.

    interpreter: the Python the scripts try first (default: the one running this), so a hook
    still runs once the virtual environment it was installed from is no longer active."""
    import sys

    from diylisis.app.hooks import scripts

    interpreter = interpreter if interpreter is not None else sys.executable

    names = names or scripts.HOOK_NAMES
    directory = scripts.hooks_dir(root)
    plan(directory, names, force=force, chain=chain)
    directory.mkdir(parents=True, exist_ok=True)
    done = []
    for name in names:
        path = directory / name
        state = scripts.hook_state(directory, name)
        saved = None
        if state in ("ours", "chained", "inactive"):
            saved = scripts.saved_hook(path.read_text(encoding="utf-8", errors="replace"))
        elif state != "none":
            saved = f"{name}{scripts.CHAINED_SUFFIX}" if chain else f"{name}{BACKUP_SUFFIX}"
        script = scripts.hook_script(name, interpreter=interpreter, saved=saved)
        if state in ("ours", "chained", "inactive"):
            same = path.read_text(encoding="utf-8", errors="replace") == script
            action = "unchanged" if same and state != "inactive" else "updated"
        elif state == "none":
            action = "installed"
        elif chain:
            os.replace(path, directory / f"{name}{scripts.CHAINED_SUFFIX}")
            action = "chained"
        else:
            os.replace(path, directory / f"{name}{BACKUP_SUFFIX}")
            action = "replaced"
        if action != "unchanged":
            temporary = directory / f".{name}.distill-{os.getpid()}"
            temporary.write_text(script, encoding="utf-8")
            temporary.chmod(0o755)
            os.replace(temporary, path)
        done.append(Installed(name=name, path=path, action=action))
    return tuple(done)


@click.command("install-hooks")
@click.option("--force", is_flag=True, help="Replace an existing hook that is not ours (a copy is kept).")
@click.option("--chain", is_flag=True, help="Keep an existing hook as <hook>.local and run it first.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success.")
def command(force: bool, chain: bool, quiet: bool) -> int:
    """Install the commit-msg, post-commit and pre-push hooks (honors core.hooksPath).

    commit-msg judges each message as you commit; post-commit stores its certificate, keyed
    by the message git stored; pre-push verifies the pushed commits and pushes
    the refs/notes/distill* refs (certificates, vet and preview records) beside them. An existing
    hook git distill did not write is left alone unless you pass --chain (keep it and run it
    first) or --force.
    """
    from diylisis.core.safe_text import visible
    from diylisis.edges.gitio import toplevel

    for entry in install(toplevel("."), force=force, chain=chain):
        if not quiet:
            extra = ""
            if entry.action == "chained":
                extra = f" (the previous hook runs first as {entry.name}.local)"
            elif entry.action == "replaced":
                extra = f" (the previous hook is kept as {entry.name}{BACKUP_SUFFIX})"
            click.echo(visible(f"{entry.action} {entry.path}{extra}"))
    return EXIT_OK
