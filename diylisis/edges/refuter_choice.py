"""F5: which refuter realization runs, the built-in lint or the configured command.

`--refuter lint|command` overrides the configuration; a command comes only from the user's own
config file, never from a committed one (DESIGN.md, Trust).
"""

from __future__ import annotations

from collections.abc import Callable

from diylisis.core.model import ZeroMemoryVerdict
from diylisis.core.refuter import RefuterInput, refute

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from pathlib import Path

    from diylisis.edges.config import RefuterSettings

CHOICES = ("lint", "command")


def settings_for(settings: RefuterSettings, override: str | None) -> RefuterSettings:
    """The refuter settings after `--refuter lint|command` (exit 2 when command has none)."""
    from msgspec.structs import replace

    from diylisis.core.errors import BadInput, ConfigError

    if override is None:
        return settings
    if override not in CHOICES:
        raise BadInput(f"--refuter takes {' or '.join(CHOICES)}, not {override!r}")
    if override == "lint":
        return replace(settings, command=())
    if not settings.command:
        from diylisis.edges.config import user_config_path
        from diylisis.edges.config_trust import display_path

        raise ConfigError("--refuter command needs a command: set [refuter] command = "
                          f'["tool", "arg", ...] in your own {display_path(user_config_path())} '
                          "(a committed config may not name one; see docs/refuters.md)")
    return settings


def realization_for(settings: RefuterSettings, *, root: str | Path | None = None
                    ) -> Callable[[RefuterInput], ZeroMemoryVerdict]:
    """F5 realization: the configured command, else lint-fallback (`--refuter`: settings_for)."""
    if settings.ignored:
        import sys

        for warning in settings.ignored:
            print(f"warning: {warning}", file=sys.stderr)
    if not settings.command:
        return refute
    from pathlib import Path

    from diylisis.edges.refuter import command

    return command.realization(settings, Path(root or "."))
