"""F5 refuter realizations behind one call: the built-in lint and, when configured, a command."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from diylisis.model import (
    ActivationEdge,
    Contract,
    RouteJudgment,
    Target,
    ZeroMemoryVerdict,
)
from diylisis.state import DecisionRecord, FieldMark, Item

TYPE_CHECKING = False  # true for type checkers only: the hook never imports typing
if TYPE_CHECKING:
    from pathlib import Path

    from diylisis.config import RefuterSettings

CHOICES = ("lint", "command")

@dataclass(frozen=True, slots=True, kw_only=True)
class RefuterInput:
    """Everything F5 may read (spec F5 inputs); nothing of the author's session beyond this."""

    target: Target
    text: str
    revision: str | None
    judgments: tuple[RouteJudgment, ...]
    contract: Contract
    activation_edge: ActivationEdge
    watchlist: tuple[str, ...]  # session terms the run met (category 1-3 attention list)
    open_items: tuple[Item, ...]  # items of the record still without a disposition
    utterances: tuple[str, ...]  # category 10 only
    contract_provenance: tuple[FieldMark, ...]  # category 10 only
    cp_answer: str | None  # category 10 only
    premises: tuple[DecisionRecord, ...]  # category 6 and deduplication only
    unresolved_references: tuple[str, ...]  # Reference locators failing resolves_at now
    uncertified_siblings: tuple[str, ...]  # routed record files without a certificate (category 11)
    missing_sources: tuple[str, ...]  # allowed sources that do not resolve (category 6)


def refute(request: RefuterInput) -> ZeroMemoryVerdict:
    """F5 comprehension_gate with the built-in realization (lint-fallback)."""
    from diylisis.refuter.lint import refute as lint_refute

    return lint_refute(request)


def settings_for(settings: RefuterSettings, override: str | None) -> RefuterSettings:
    """The refuter settings after `--refuter lint|command` (exit 2 when command has none)."""
    from dataclasses import replace

    from diylisis.errors import BadInput, ConfigError

    if override is None:
        return settings
    if override not in CHOICES:
        raise BadInput(f"--refuter takes {' or '.join(CHOICES)}, not {override!r}")
    if override == "lint":
        return replace(settings, command=())
    if not settings.command:
        from diylisis.config import user_config_path
        from diylisis.config_trust import display_path

        raise ConfigError("--refuter command needs a command: set [refuter] command = "
                          f'["tool", "arg", ...] in your own {display_path(user_config_path())} '
                          "(a committed config may not name one; see docs/refuters.md)")
    return settings


def realization_for(settings: RefuterSettings, override: str | None = None, *,
                    root: str | Path | None = None) -> Callable[[RefuterInput], ZeroMemoryVerdict]:
    """F5 realization: the configured command, else lint-fallback; `override` is lint|command."""
    settings = settings_for(settings, override)
    if settings.ignored:
        import sys

        for warning in settings.ignored:
            print(f"warning: {warning}", file=sys.stderr)
    if not settings.command:
        return refute
    from pathlib import Path

    from diylisis.refuter import command

    return command.realization(settings, Path(root or "."))
