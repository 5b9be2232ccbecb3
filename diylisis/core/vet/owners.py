"""CODEOWNERS for BoundaryUndefined (/bound), pure: a claim about a path that CODEOWNERS gives to
another owner is not the action author's to settle (design/vet.md, the four local claims).

The file is read at the vetted commit by `diylisis.edges.vet_facts.ownership`. Its rules follow GitHub's
reading: gitignore-style patterns, the last matching rule wins, and a rule with no owners
releases the path. A catch-all rule (`*`) names the repository's default owners, which cover the
author's own paths as well, so it draws no boundary. The author is the action commit's author
email, so `vet --verify` measures the same boundary on any clone.
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct

CODEOWNERS_PATHS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")  # GitHub's search order
_CATCH_ALL = frozenset({"*", "**", "/**", "/*"})


class OwnerRule(Struct, frozen=True, kw_only=True):
    """One CODEOWNERS line: a pattern and the owners it names (@user, @org/team or an email)."""

    line: int
    pattern: str
    owners: tuple[str, ...]


class Ownership(Struct, frozen=True, kw_only=True):
    """The CODEOWNERS file at the vetted commit and the email of the action's author."""

    path: str
    rules: tuple[OwnerRule, ...]
    author: str


class Boundary(Struct, frozen=True, kw_only=True):
    """A path the claim names that CODEOWNERS gives to owners other than the author."""

    path: str
    rule: OwnerRule
    codeowners: str

    def basis(self, where: str, author: str) -> str:
        """The certificate's basis, in plain words."""
        return (f"{where} names {self.path}, which {self.codeowners}:{self.rule.line} gives to "
                f"{', '.join(self.rule.owners)}, not to the action's author {author}")


def parse(path: str, text: str) -> tuple[OwnerRule, ...]:
    """The rules of a CODEOWNERS file, in file order; comments and blank lines skipped."""
    rules = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        pattern, *owners = line.split()
        rules.append(OwnerRule(line=number, pattern=pattern, owners=tuple(owners)))
    return tuple(rules)


def _matches(pattern: str, path: str) -> bool:
    import pathspec  # only a repository with a CODEOWNERS file needs it

    return pathspec.GitIgnoreSpec.from_lines([pattern]).match_file(path)


def rule_for(rules: Sequence[OwnerRule], path: str) -> OwnerRule | None:
    """The rule that owns PATH: the last one whose pattern matches it."""
    found = None
    for rule in rules:
        if _matches(rule.pattern, path):
            found = rule
    return found


def boundary(ownership: Ownership, paths: Sequence[str]) -> Boundary | None:
    """The first of PATHS whose owning rule is specific (not a catch-all), names owners, and does
    not name the author; None when the author may settle claims about all of them."""
    author = ownership.author.lower()
    for path in paths:
        rule = rule_for(ownership.rules, path)
        if rule is None or not rule.owners or rule.pattern in _CATCH_ALL:
            continue
        if author and author in (owner.lower() for owner in rule.owners):
            continue
        return Boundary(path=path, rule=rule, codeowners=ownership.path)
    return None
