"""`git distill uninstall-hooks`: remove the hooks install-hooks wrote, and put back what it moved aside.

Only a hook carrying our id line is removed. A hook install-hooks moved aside (kept as
`<hook>.local` with --chain, or `<hook>.distill-backup` with --force) is restored only when our
script records that it saved it; any other file is left as it is.
"""

from __future__ import annotations

import os
from pathlib import Path

import click
from msgspec import Struct

from diylisis.core.errors import EXIT_OK


class Removed(Struct, frozen=True, kw_only=True):
    """What happened to one hook."""

    name: str
    path: Path
    action: str  # removed | restored | left (not ours) | absent
    restored_from: str | None = None


def uninstall(root: Path) -> tuple[Removed, ...]:
    """Remove our hook scripts from the hooks directory, restoring what install-hooks saved."""
    from diylisis.app.hooks import scripts

    directory = scripts.hooks_dir(root)
    done = []
    for name in scripts.HOOK_NAMES:
        path = directory / name
        state = scripts.hook_state(directory, name)
        if state == "none":
            done.append(Removed(name=name, path=path, action="absent"))
            continue
        if state not in ("ours", "chained", "inactive"):
            done.append(Removed(name=name, path=path, action="left"))
            continue
        saved = scripts.saved_hook(path.read_text(encoding="utf-8", errors="replace"))
        kept = directory / saved if saved and "/" not in saved and saved.startswith(name) else None
        if kept is not None and kept.is_file():
            os.replace(kept, path)  # one rename: the hook is never missing in between
            done.append(Removed(name=name, path=path, action="restored", restored_from=kept.name))
        else:
            path.unlink()
            done.append(Removed(name=name, path=path, action="removed"))
    return tuple(done)


@click.command("uninstall-hooks")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing on success.")
def command(quiet: bool) -> int:
    """Remove the commit-msg, post-commit and pre-push hooks that install-hooks wrote.

    A hook git distill did not write is left alone. One that install-hooks moved aside
    (--chain or --force) is put back in its place.
    """
    from diylisis.core.safe_text import visible
    from diylisis.edges.gitio import toplevel

    for entry in uninstall(toplevel(".")):
        if quiet or entry.action == "absent":
            continue
        words = {"removed": "removed", "left": "left (not written by git distill)",
                 "restored": f"restored from {entry.restored_from}"}[entry.action]
        click.echo(visible(f"{words}: {entry.path}"))
    return EXIT_OK
