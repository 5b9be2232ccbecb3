"""Configuration: `.distill.toml`, else `[tool.diylisis]` in pyproject.toml, into a frozen Config.

Precedence (one function, `load`): command-line flags > `.distill.toml` > pyproject.toml >
built-in defaults. Flags are applied by the commands; this module only reads files.
A committed config is the repository author's: what it may not say (a program to run, a
file outside the repository) comes from the user's own config file (config_trust).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import MappingProxyType

from diylisis.errors import ConfigError
from diylisis.frozen import field, frozen_model

TYPE_CHECKING = False  # true for type checkers only: the hook never imports typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

CONFIG_FILE = ".distill.toml"
DEFAULT_MAX_BYTES = 1024 * 1024
SECTIONS = ("contract", "detect", "hooks", "refuter", "limits", "verify")


@frozen_model
class ContractFields:
    """Contract fields as one source states them (the config file, or the command line); None or ()
    means not stated there. F0 declares the contract from them (phases/f0_contract.declare)."""

    role: str | None = None
    activity: str | None = None
    allowed_sources: tuple[str, ...] = ()
    scope: str | None = None
    verification: tuple[str, ...] = ()
    stop: str | None = None
    certificate_target: str | None = None
    activation_verb: str | None = None


@frozen_model
class HookSettings:
    role: str = "reviewer"
    files: tuple[str, ...] = ()
    check_generated: bool = False  # fixup!/squash!/merge/revert messages are skipped by default


@frozen_model
class RefuterSettings:
    command: tuple[str, ...] = ()
    realization: str = "generic-subagent"
    timeout: float = 300.0
    retries: int = 2
    source: str | None = None  # the user's config file the command came from, for messages
    ignored: tuple[str, ...] = ()  # warnings: keys of a committed config that only the user may set


@frozen_model
class VerifySettings:
    """`[verify]`: the policy `git distill verify` enforces (CI reads it from the repository)."""

    require_signed: bool = False
    allowed_signers: str | None = None  # a repository-relative path to git's ssh allowed-signers file


@frozen_model
class Config:
    contract: ContractFields = field(default_factory=ContractFields)
    detect_table: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    hooks: HookSettings = field(default_factory=HookSettings)
    refuter: RefuterSettings = field(default_factory=RefuterSettings)
    max_record_bytes: int = DEFAULT_MAX_BYTES
    verify: VerifySettings = field(default_factory=VerifySettings)
    source: str | None = None  # the file the settings came from, for messages

    def detect_settings(self) -> Any:
        """The detector settings (`[detect]`), built on first use."""
        from diylisis.detectors.settings import DetectSettings

        return DetectSettings.from_mapping(dict(self.detect_table))


def load(root: str | Path) -> Config:
    """Read the repository's configuration (F0 defaults); a file that does not parse is exit 2."""
    table, source = _read_table(root)
    unknown = sorted(set(table) - set(SECTIONS))
    if unknown:
        raise ConfigError(f"{source}: unknown section [{unknown[0]}]; known: {', '.join(SECTIONS)}")
    contract = _contract(_section(table, "contract", source), source)
    _check_inside(root, contract, source)
    return Config(
        contract=contract,
        detect_table=MappingProxyType(dict(_section(table, "detect", source))),
        hooks=_hooks(_section(table, "hooks", source), source),
        refuter=_trusted_refuter(_section(table, "refuter", source), source),
        max_record_bytes=_int(_section(table, "limits", source), "max_record_bytes",
                              DEFAULT_MAX_BYTES, source),
        verify=_verify(_section(table, "verify", source), source, root),
        source=source,
    )


def _check_inside(root: str | Path, contract: ContractFields, source: str | None) -> None:
    """A committed certificate_target names a file inside the repository (config_trust)."""
    named = contract.certificate_target
    if not named or named in ("notes", "session"):
        return
    from diylisis.config_trust import outside_reason

    reason = outside_reason(root, named)
    if reason is not None:
        raise ConfigError(f"{source}: [contract] certificate_target {named!r} {reason}; a committed "
                          "config may only name a file inside the repository (pass "
                          "--certificate-target to choose another place yourself)")


def user_config_path() -> str:
    """The user's own config file: $XDG_CONFIG_HOME/diylisis/config.toml, else ~/.config/..."""
    base = os.environ.get("XDG_CONFIG_HOME") or ""
    if not os.path.isabs(base):  # the XDG rule: a relative value is ignored
        base = os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "diylisis", "config.toml")


def _trusted_refuter(section: Mapping[str, Any], source: str | None) -> RefuterSettings:
    """[refuter]: command and realization from the user's own config only, the other keys from
    it when set there, else from the committed config (config_trust)."""
    if not section and not os.path.isfile(user_config_path()):
        return RefuterSettings()  # the usual case, and the commit-msg hook's: one stat
    from diylisis.config_trust import USER_ONLY_REFUTER_KEYS, ignored_refuter_keys

    committed = _refuter(section, source)
    ignored = ignored_refuter_keys(section, source)
    user_table, user_source = _read_user_table()
    user_section = _section(user_table, "refuter", user_source)
    mine = _refuter(user_section, user_source)
    kept = {key: getattr(mine, key) for key in (*USER_ONLY_REFUTER_KEYS, "timeout", "retries")
            if key in user_section}
    warnings = list(ignored)
    for key in ("timeout", "retries"):
        # a committed value may lower the user's (or the default), never raise it: a repository
        # must not keep a refuter running, or re-run it, longer than the user allows
        ceiling = getattr(mine, key)
        if key in section:
            kept[key] = min(getattr(committed, key), ceiling)
            if getattr(committed, key) > ceiling:
                warnings.append(f"{source}: [refuter] {key} = {section[key]!r} is above your own "
                                f"{ceiling:g}; {ceiling:g} is used (a committed config may only lower it)")
    return RefuterSettings(**kept, source=user_source if mine.command else None, ignored=tuple(warnings))


def _read_user_table() -> tuple[Mapping[str, Any], str | None]:
    from diylisis.config_trust import USER_SECTIONS, display_path

    path = user_config_path()
    if not os.path.isfile(path):  # one stat on the hook's path: most users have none
        return {}, None
    shown = display_path(path)
    table = _parse(path)
    unknown = sorted(set(table) - set(USER_SECTIONS))
    if unknown:
        raise ConfigError(f"{shown}: unknown section [{unknown[0]}]; known: {', '.join(USER_SECTIONS)}")
    return table, shown


def _read_table(root: str | Path) -> tuple[Mapping[str, Any], str | None]:
    own = os.path.join(root, CONFIG_FILE)
    if os.path.isfile(own):
        return _parse(own), CONFIG_FILE
    pyproject = os.path.join(root, "pyproject.toml")
    if os.path.isfile(pyproject):
        with open(pyproject, "rb") as handle:
            data = handle.read()
        # Most Python projects have a pyproject.toml and no [tool.diylisis]; parsing it (tomllib
        # and typing loaded) would cost the commit-msg hook about 7 ms on every commit for nothing.
        if b"diylisis" in data:
            table = _parse_bytes(data, pyproject).get("tool", {}).get("diylisis")
            if table is not None:
                return table, "pyproject.toml [tool.diylisis]"
    return {}, None


def _parse(path: str) -> dict[str, Any]:
    with open(path, "rb") as handle:
        return _parse_bytes(handle.read(), path)


def _parse_bytes(data: bytes, path: str) -> dict[str, Any]:
    import tomllib  # only when a configuration file exists: most repositories have none

    try:
        return tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{os.path.basename(path)} does not parse: {error}") from None


def _section(table: Mapping[str, Any], name: str, source: str | None) -> Mapping[str, Any]:
    value = table.get(name, {})
    if not isinstance(value, Mapping):
        raise ConfigError(f"{source}: [{name}] must be a table")
    return value


def _check_keys(section: Mapping[str, Any], allowed: tuple[str, ...], name: str,
                source: str | None) -> None:
    for key in section:
        if key not in allowed:
            raise ConfigError(f"{source}: unknown key {key!r} in [{name}]; known: {', '.join(allowed)}")


def _str(section: Mapping[str, Any], key: str, source: str | None) -> str | None:
    value = section.get(key)
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{source}: {key} must be a string")
    return value


def _strs(section: Mapping[str, Any], key: str, source: str | None) -> tuple[str, ...]:
    value = section.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{source}: {key} must be a list of strings")
    return tuple(value)


def _int(section: Mapping[str, Any], key: str, default: int, source: str | None) -> int:
    value = section.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ConfigError(f"{source}: {key} must be a positive whole number")
    return value


def _contract(section: Mapping[str, Any], source: str | None) -> ContractFields:
    keys = ("role", "activity", "allowed_sources", "scope", "verification", "stop",
            "certificate_target", "activation_verb")
    _check_keys(section, keys, "contract", source)
    return ContractFields(
        role=_str(section, "role", source),
        activity=_str(section, "activity", source),
        allowed_sources=_strs(section, "allowed_sources", source),
        scope=_str(section, "scope", source),
        verification=_strs(section, "verification", source),
        stop=_str(section, "stop", source),
        certificate_target=_str(section, "certificate_target", source),
        activation_verb=_str(section, "activation_verb", source),
    )


def _hooks(section: Mapping[str, Any], source: str | None) -> HookSettings:
    _check_keys(section, ("role", "files", "check_generated"), "hooks", source)
    check_generated = section.get("check_generated", False)
    if not isinstance(check_generated, bool):
        raise ConfigError(f"{source}: check_generated must be true or false")
    return HookSettings(
        role=_str(section, "role", source) or "reviewer",
        files=_strs(section, "files", source),
        check_generated=check_generated,
    )


def _refuter(section: Mapping[str, Any], source: str | None) -> RefuterSettings:
    _check_keys(section, ("command", "realization", "timeout", "retries"), "refuter", source)
    realization = _str(section, "realization", source) or "generic-subagent"
    if realization not in ("generic-subagent", "refuter-subagent"):
        raise ConfigError(f"{source}: realization must be generic-subagent or refuter-subagent")
    timeout = section.get("timeout", 300)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        raise ConfigError(f"{source}: timeout must be a positive number of seconds")
    retries = section.get("retries", 2)
    if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
        raise ConfigError(f"{source}: retries must be a whole number, 0 or more")
    return RefuterSettings(
        command=_strs(section, "command", source),
        realization=realization,
        timeout=float(timeout),
        retries=retries,
    )


def _verify(section: Mapping[str, Any], source: str | None, root: str | Path) -> VerifySettings:
    """`[verify]`. A committed file may name an allowed-signers file only inside the repository:
    reading one is all it asks, and nothing outside the repository is the repository's to name."""
    _check_keys(section, ("require_signed", "allowed_signers"), "verify", source)
    require_signed = section.get("require_signed", False)
    if not isinstance(require_signed, bool):
        raise ConfigError(f"{source}: require_signed must be true or false")
    allowed = _str(section, "allowed_signers", source)
    if allowed is not None:
        top = os.path.realpath(root)
        where = os.path.realpath(os.path.join(top, allowed))
        if os.path.isabs(allowed) or os.path.commonpath([top, where]) != top:
            raise ConfigError(f"{source}: allowed_signers must be a path inside the repository, not {allowed!r}")
        allowed = os.path.relpath(where, top)
    return VerifySettings(require_signed=require_signed, allowed_signers=allowed)
