"""Detector settings read from the `[detect]` table of the configuration (issue 4, precision controls)."""

from __future__ import annotations

from collections.abc import Mapping

from msgspec import Struct

from diylisis.core.errors import ConfigError
from diylisis.core.model import Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_KEYS = {"glossary", "reject", "disable", "severity", "per_path", "trackers", "languages", "hosts"}
# The forges a self-hosted host may run; each lays out issue and pull-request URLs its own way.
FORGES = ("github", "gitlab", "gitea", "forgejo", "bitbucket", "gitee")


class PathRule(Struct, frozen=True, kw_only=True):
    """Rules disabled or re-levelled for files matching a glob."""

    glob: str
    disable: frozenset[str] = frozenset()
    severity: tuple[tuple[str, Severity], ...] = ()


class DetectSettings(Struct, frozen=True, kw_only=True):
    """Glossary, reject list, disabled rules, severity overrides, per-path rules, tracker URLs, languages."""

    glossary: frozenset[str] = frozenset()
    reject: tuple[str, ...] = ()
    disable: frozenset[str] = frozenset()
    severity: tuple[tuple[str, Severity], ...] = ()
    per_path: tuple[PathRule, ...] = ()
    trackers: tuple[tuple[str, str], ...] = ()  # issue-key prefix -> URL template with {key}
    languages: tuple[str, ...] | None = None  # None: every shipped lexicon
    hosts: tuple[tuple[str, str], ...] = ()  # self-hosted forge host (lower case) -> one of FORGES

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> DetectSettings:
        """Build settings from a `[detect]` TOML table; unknown keys or bad values raise ConfigError."""
        unknown = set(mapping) - _KEYS
        if unknown:
            raise ConfigError(f"[detect] has unknown setting(s): {', '.join(sorted(unknown))}")
        per_path = []
        for entry in _list(mapping, "per_path", dict):
            extra = set(entry) - {"glob", "disable", "severity"}
            if extra or not isinstance(entry.get("glob"), str) or not entry["glob"]:
                raise ConfigError("[detect] per_path entries need a glob and only disable/severity")
            per_path.append(
                PathRule(
                    glob=entry["glob"],
                    disable=frozenset(_strings(entry.get("disable", []), "per_path.disable")),
                    severity=_levels(entry.get("severity", {}), "per_path.severity"),
                )
            )
        trackers = mapping.get("trackers", {})
        if not isinstance(trackers, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) and "{key}" in v for k, v in trackers.items()
        ):
            raise ConfigError('[detect] trackers maps a key prefix to a URL template with "{key}"')
        languages = mapping.get("languages")
        hosts = mapping.get("hosts", {})
        if not isinstance(hosts, Mapping) or not all(
            isinstance(k, str) and k.strip() and v in FORGES for k, v in hosts.items()
        ):
            raise ConfigError(f"[detect] hosts maps a host name to one of {', '.join(FORGES)}")
        return cls(
            glossary=frozenset(t.lower() for t in _strings(mapping.get("glossary", []), "glossary")),
            reject=tuple(_strings(mapping.get("reject", []), "reject")),
            disable=frozenset(_strings(mapping.get("disable", []), "disable")),
            severity=_levels(mapping.get("severity", {}), "severity"),
            per_path=tuple(per_path),
            trackers=tuple(sorted((k.upper(), v) for k, v in trackers.items())),
            languages=None if languages is None else tuple(_strings(languages, "languages")),
            hosts=tuple(sorted((k.strip().lower(), v) for k, v in hosts.items())),
        )

    def disabled_for(self, path: str | None) -> frozenset[str]:
        """Rule ids disabled for a record at path (None: not a file)."""
        out = set(self.disable)
        for rule in self._matching(path):
            out |= rule.disable
        return frozenset(out)

    def level_for(self, rule_id: str, default: Severity, path: str | None) -> Severity:
        """The severity a rule reports at for path: per-path beats global beats the rule's default."""
        level = dict(self.severity).get(rule_id, default)
        for rule in self._matching(path):
            level = dict(rule.severity).get(rule_id, level)
        return level

    def accepts(self, token: str) -> bool:
        """The token is (or contains) a glossary term."""
        low = token.lower()
        return any(term == low or term in low for term in self.glossary)

    def tracker_url(self, key: str) -> str | None:
        """Full URL of an issue key whose prefix config maps to a tracker."""
        prefix = key.rsplit("-", 1)[0].upper()
        template = dict(self.trackers).get(prefix)
        return template.format(key=key) if template else None

    def forge_of(self, host: str) -> str | None:
        """The forge a host declared in [detect] hosts runs (None: not declared)."""
        return dict(self.hosts).get(host.lower()) if self.hosts else None

    def _matching(self, path: str | None) -> tuple[PathRule, ...]:
        if path is None or not self.per_path:
            return ()
        from diylisis.core.config_schema import glob_matches  # gitignore-style: `docs/*.md` stays in docs/

        return tuple(r for r in self.per_path if glob_matches(r.glob, path))


def _list(mapping: Mapping[str, Any], key: str, kind: type) -> list[Any]:
    value = mapping.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, kind) for v in value):
        raise ConfigError(f"[detect] {key} must be a list of {kind.__name__}")
    return value


def _strings(value: Any, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"[detect] {key} must be a list of non-empty strings")
    return value


def _levels(value: Any, key: str) -> tuple[tuple[str, Severity], ...]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"[detect] {key} maps rule ids to error|warning|info")
    out = []
    for rule_id, level in value.items():
        try:
            out.append((str(rule_id), Severity(level)))
        except ValueError:
            raise ConfigError(f"[detect] {key}.{rule_id}: {level!r} is not error, warning or info") from None
    return tuple(sorted(out, key=lambda pair: pair[0]))
