"""`DISTILL_SKIP=name,...` (and pre-commit's `SKIP`): what one commit or push asks the hooks to skip.

A name is a hook (`commit-msg`, `post-commit`, `pre-push`, `files`, their pre-commit ids such as
`distill-commit-msg` and `distill-verify`, or `distill` for all of them), or a rule id or name
(`UC701`): findings of that rule alone do not stop this commit, which is then made without a
certificate, so the pre-push hook and CI still ask for one. pre-commit's own `SKIP` names hook
ids; any other name in it belongs to another tool and is ignored.
"""

from __future__ import annotations

from msgspec import Struct

from diylisis.core.errors import BadInput

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

# hook name -> the names that skip it
HOOK_ALIASES = {
    "commit-msg": ("commit-msg", "distill-commit-msg"),
    "post-commit": ("post-commit", "distill-post-commit"),
    "pre-push": ("pre-push", "distill-verify"),
    "files": ("files", "distill-files"),
}
ALL_HOOKS = "distill"


class Skips(Struct, frozen=True, kw_only=True):
    """What this one run was asked to skip: hooks, and rules whose findings do not block."""

    hooks: frozenset[str] = frozenset()
    rules: frozenset[str] = frozenset()

    def skips_hook(self, hook: str) -> bool:
        return hook in self.hooks


def _names(value: str) -> list[str]:
    return [name.strip() for name in value.split(",") if name.strip()]


def skips_from(environ: Mapping[str, str], rule_id: Callable[[str], str | None]) -> Skips:
    """The Skips of DISTILL_SKIP and SKIP; a DISTILL_SKIP name that is neither a hook nor a rule
    (rule_id: a rule id or name -> its id, else None) is bad input, so a typo skips nothing silently."""
    hooks: set[str] = set()
    rules: set[str] = set()
    by_alias = {alias: hook for hook, aliases in HOOK_ALIASES.items() for alias in aliases}
    for name in _names(environ.get("SKIP", "")):
        if name == ALL_HOOKS:
            hooks.update(HOOK_ALIASES)
        elif name in by_alias:
            hooks.add(by_alias[name])
    for name in _names(environ.get("DISTILL_SKIP", "")):
        if name == ALL_HOOKS:
            hooks.update(HOOK_ALIASES)
        elif name in by_alias:
            hooks.add(by_alias[name])
        elif (found := rule_id(name)) is not None:
            rules.add(found)
        else:
            known = ", ".join(sorted(by_alias))
            raise BadInput(f"DISTILL_SKIP names {name!r}, which is neither a hook ({known}, or {ALL_HOOKS} for "
                           "all) nor a rule id; see git distill rules")
    return Skips(hooks=frozenset(hooks), rules=frozenset(rules))
