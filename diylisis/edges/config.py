"""Configuration: `.distill.toml`, else `[tool.diylisis]` in pyproject.toml, into a frozen Config.

Precedence (one function, `load`): command-line flags > `.distill.toml` > pyproject.toml >
built-in defaults. Flags are applied by the commands; this module only reads files. When both
files configure the tool, `.distill.toml` is used whole and a warning names both.
A committed config is the repository author's: what it may not say (a program to run, a
file outside the repository) comes from the user's own config file (config_trust).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from types import MappingProxyType

from msgspec import Struct, field

from diylisis.core.errors import ConfigError
from diylisis.core.generated import GeneratedRule, rule_from_setting
from diylisis.core.phases.f0_contract import (
    ContractFields as ContractFields,  # the contract section's value; F0 owns it
)

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

CONFIG_FILE = ".distill.toml"
DEFAULT_MAX_BYTES = 1024 * 1024
SECTIONS = ("contract", "detect", "hooks", "refuter", "limits", "verify")


class HookSettings(Struct, frozen=True, kw_only=True):
    """`[hooks]`: the role hooks certify for, the record files they judge, and which generated messages."""

    role: str = "reviewer"
    files: tuple[str, ...] = ()
    # which generated messages (fixup!/squash!/amend!, merge, revert, repair) are judged; none by default
    generated: GeneratedRule = field(default_factory=GeneratedRule)


class RefuterSettings(Struct, frozen=True, kw_only=True):
    """`[refuter]`: the command that refutes a record, its realization, time limit and retries."""

    command: tuple[str, ...] = ()
    realization: str = "generic-subagent"
    timeout: float = 300.0
    retries: int = 2
    source: str | None = None  # the user's config file the command came from, for messages
    ignored: tuple[str, ...] = ()  # warnings: keys of a committed config that only the user may set


class VerifySettings(Struct, frozen=True, kw_only=True):
    """`[verify]`: the policy `git distill verify` enforces (CI reads it from the repository)."""

    require_signed: bool = False
    allowed_signers: str | None = None  # a repository-relative path to git's ssh allowed-signers file


class Config(Struct, frozen=True, kw_only=True):
    """A repository's settings: F0 defaults, detection, hooks, refuter, limits and verify policy."""

    contract: ContractFields = field(default_factory=ContractFields)
    detect_table: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    hooks: HookSettings = field(default_factory=HookSettings)
    refuter: RefuterSettings = field(default_factory=RefuterSettings)
    max_record_bytes: int = DEFAULT_MAX_BYTES
    verify: VerifySettings = field(default_factory=VerifySettings)
    source: str | None = None  # the file the settings came from, for messages
    warnings: tuple[str, ...] = ()  # advice on the configuration that does not stop a command

    def detect_settings(self) -> Any:
        """The detector settings (`[detect]`), built on first use."""
        from diylisis.core.detectors.settings import DetectSettings

        return DetectSettings.from_mapping(dict(self.detect_table))


class ConfigFile(Struct, frozen=True, kw_only=True):
    """The configuration's file, how messages name it, the keys of the configuration table
    inside it (("tool", "diylisis") in pyproject.toml) and that table."""

    path: str
    shown: str
    prefix: tuple[str, ...]
    table: Mapping[str, Any]


def load(root: str | Path, *, warn: bool = True) -> Config:
    """Read the repository's configuration (F0 defaults). Every problem of a file is exit 2, a
    line each naming the file and line (config_schema); the warnings (two configuration files)
    go to stderr unless warn is false (doctor reports them itself)."""
    found, warnings = _read_table(root)
    if warn:
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
    table, source = (found.table, found.shown) if found is not None else ({}, None)
    try:
        return _build(root, table, source, warnings)
    except ConfigError as error:
        if found is None:
            raise
        from diylisis.core.config_schema import located, problems_of

        raise located(problems_of(error, ""), found.path, _text_for_lines(found.path), found.shown,
                      found.prefix) from None


def _text_for_lines(path: str) -> str:
    """A configuration file's text, to number its problems' lines; empty when it cannot be read."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):  # tomllib has read it; without a text, errors lack a line
        return ""


def load_warnings(root: str | Path) -> tuple[str, ...]:
    """The warnings load prints for this repository (for doctor, which shows them with a file
    that has errors too)."""
    return _read_table(root)[1]


def _build(root: str | Path, table: Mapping[str, Any], source: str | None,
           warnings: tuple[str, ...]) -> Config:
    """The Config of a configuration table, or a ConfigProblems naming everything wrong in it."""
    if not table:
        return Config(refuter=_trusted_refuter({}), source=source, warnings=warnings)  # the hook's usual path
    from diylisis.core.config_schema import ConfigProblems, Problem, problems_of

    problems = [Problem(keys=(name,), text=f"unknown section [{name}]; known: {', '.join(SECTIONS)}")
                for name in table if name not in SECTIONS]
    sections: dict[str, Mapping[str, Any]] = {}
    for name in SECTIONS:
        value = table.get(name, {})
        if isinstance(value, Mapping):
            sections[name] = value
        else:
            problems.append(Problem(keys=(name,), text=f"[{name}] must be a table"))
    builders: dict[str, Callable[[Any], Any]] = {
        "contract": lambda section: _checked_contract(root, section),
        "detect": _detect,
        "hooks": _hooks,
        "refuter": lambda section: _trusted_refuter(section, source),
        "limits": _limits,
        "verify": lambda section: _verify(section, root),
    }
    built: dict[str, Any] = {}
    for name, build in builders.items():
        try:
            built[name] = build(sections.get(name, {}))
        except ConfigError as error:
            problems.extend(problems_of(error, name))
    if problems:
        raise ConfigProblems("\n".join(problem.text for problem in problems), tuple(problems))
    return Config(
        contract=built["contract"],
        detect_table=MappingProxyType(dict(sections.get("detect", {}))),
        hooks=built["hooks"],
        refuter=built["refuter"],
        max_record_bytes=built["limits"],
        verify=built["verify"],
        source=source,
        warnings=warnings,
    )


def _error(keys: tuple[str | int, ...], text: str) -> ConfigError:
    """A ConfigError about the value at keys; load() names its file and line."""
    from diylisis.core.config_schema import keyed

    return keyed(keys, text)


def _detect(section: Mapping[str, Any]) -> None:
    """[detect]: checked on load, so that every command and doctor refuse the same tables; built
    into DetectSettings when detection first needs it (Config.detect_settings)."""
    if not section:
        return
    from diylisis.core.config_schema import ConfigProblems, Problem, detect_problems
    from diylisis.core.detectors.settings import DetectSettings

    problems = detect_problems(section)
    if not problems:
        try:
            DetectSettings.from_mapping(dict(section))
        except ConfigError as error:  # what only DetectSettings knows, said of the whole table
            problems = (Problem(keys=("detect",), text=error.message),)
    if problems:
        raise ConfigProblems("\n".join(problem.text for problem in problems), problems)


def _checked_contract(root: str | Path, section: Mapping[str, Any]) -> ContractFields:
    contract = _contract(section)
    _check_inside(root, contract)
    return contract


def _limits(section: Mapping[str, Any]) -> int:
    _check_keys(section, ("max_record_bytes",), "limits")
    return _int(section, "max_record_bytes", DEFAULT_MAX_BYTES, "limits")


def _check_inside(root: str | Path, contract: ContractFields) -> None:
    """A committed certificate_target names a file inside the repository (config_trust)."""
    named = contract.certificate_target
    if not named or named in ("notes", "session"):
        return
    from diylisis.edges.config_trust import outside_reason

    reason = outside_reason(root, named)
    if reason is not None:
        raise _error(("contract", "certificate_target"),
                     f"[contract] certificate_target {named!r} {reason}; a committed config may only "
                     "name a file inside the repository (pass --certificate-target to choose another "
                     "place yourself)")


def user_config_path() -> str:
    """The user's own config file: $XDG_CONFIG_HOME/diylisis/config.toml, else ~/.config/..."""
    base = os.environ.get("XDG_CONFIG_HOME") or ""
    if not os.path.isabs(base):  # the XDG rule: a relative value is ignored
        base = os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "diylisis", "config.toml")


def _trusted_refuter(section: Mapping[str, Any], source: str | None = None) -> RefuterSettings:
    """[refuter]: command and realization from the user's own config only, the other keys from
    it when set there, else from the committed config (config_trust)."""
    if not section and not os.path.isfile(user_config_path()):
        return RefuterSettings()  # the usual case, and the commit-msg hook's: one stat
    from diylisis.edges.config_trust import USER_ONLY_REFUTER_KEYS, ignored_refuter_keys

    committed = _refuter(section)
    ignored = ignored_refuter_keys(section, source)
    mine, user_section, user_source = _user_refuter()
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


def _user_refuter() -> tuple[RefuterSettings, Mapping[str, Any], str | None]:
    """The user's own [refuter]: its settings, its table and how messages name its file. Its
    problems are named with that file's lines here (they are not the repository's)."""
    from diylisis.edges.config_trust import USER_SECTIONS, display_path

    path = user_config_path()
    if not os.path.isfile(path):  # one stat on the hook's path: most users have none
        return RefuterSettings(), {}, None
    shown = display_path(path)
    table = _parse(path, shown)
    try:
        unknown = sorted(set(table) - set(USER_SECTIONS))
        if unknown:
            raise _error((unknown[0],), f"unknown section [{unknown[0]}]; known: {', '.join(USER_SECTIONS)}")
        section = _section(table, "refuter")
        return _refuter(section), section, shown
    except ConfigError as error:
        from diylisis.core.config_schema import located, problems_of

        raise located(problems_of(error, "refuter"), path, _text_for_lines(path), shown, ()) from None


def _read_table(root: str | Path) -> tuple[ConfigFile | None, tuple[str, ...]]:
    """The configuration file .distill.toml, else pyproject.toml's [tool.diylisis]; and a warning
    when both exist (.distill.toml wins: the file made for the tool beats a section of another)."""
    own = os.path.join(root, CONFIG_FILE)
    pyproject = os.path.join(root, "pyproject.toml")
    tool = _tool_table(pyproject) if os.path.isfile(pyproject) else None
    if os.path.isfile(own):
        warnings = () if tool is None else (
            f"both {CONFIG_FILE} and pyproject.toml [tool.diylisis] configure git distill; "
            f"{CONFIG_FILE} is used and [tool.diylisis] is ignored (keep one of them)",)
        return ConfigFile(path=own, shown=CONFIG_FILE, prefix=(), table=_parse(own, CONFIG_FILE)), warnings
    if tool is not None:
        return ConfigFile(path=pyproject, shown="pyproject.toml [tool.diylisis]", prefix=("tool", "diylisis"),
                          table=tool), ()
    return None, ()


def _tool_table(pyproject: str) -> Mapping[str, Any] | None:
    with open(pyproject, "rb") as handle:
        data = handle.read()
    # Most Python projects have a pyproject.toml and no [tool.diylisis]; parsing it (tomllib
    # and typing loaded) would cost the commit-msg hook about 7 ms on every commit for nothing.
    if b"diylisis" not in data:
        return None
    table = _parse_bytes(data, "pyproject.toml").get("tool", {}).get("diylisis")
    if table is not None and not isinstance(table, Mapping):
        raise ConfigError("pyproject.toml: [tool.diylisis] must be a table")
    return table


def _parse(path: str, shown: str) -> dict[str, Any]:
    with open(path, "rb") as handle:
        return _parse_bytes(handle.read(), shown.split(" ", 1)[0])


def _parse_bytes(data: bytes, name: str) -> dict[str, Any]:
    import tomllib  # only when a configuration file exists: most repositories have none

    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{name}: does not parse: the file is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        import re

        at = re.search(r"\(at line (\d+), column \d+\)", str(error))
        raise ConfigError(f"{name}:{at.group(1) + ':' if at else ''} does not parse: {error}") from None


def _section(table: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = table.get(name, {})
    if not isinstance(value, Mapping):
        raise _error((name,), f"[{name}] must be a table")
    return value


def _check_keys(section: Mapping[str, Any], allowed: tuple[str, ...], name: str) -> None:
    for key in section:
        if key not in allowed:
            raise _error((name, key), f"[{name}] unknown key {key!r}; known: {', '.join(allowed)}")


def _str(section: Mapping[str, Any], key: str, name: str) -> str | None:
    value = section.get(key)
    if value is not None and not isinstance(value, str):
        raise _error((name, key), f"[{name}] {key} must be a string")
    return value


def _strs(section: Mapping[str, Any], key: str, name: str) -> tuple[str, ...]:
    value = section.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _error((name, key), f"[{name}] {key} must be a list of strings")
    return tuple(value)


def _int(section: Mapping[str, Any], key: str, default: int, name: str) -> int:
    value = section.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise _error((name, key), f"[{name}] {key} must be a positive whole number")
    return value


def _contract(section: Mapping[str, Any]) -> ContractFields:
    keys = ("role", "activity", "allowed_sources", "scope", "verification", "stop",
            "certificate_target", "activation_verb")
    _check_keys(section, keys, "contract")
    return ContractFields(
        role=_str(section, "role", "contract"),
        activity=_str(section, "activity", "contract"),
        allowed_sources=_strs(section, "allowed_sources", "contract"),
        scope=_str(section, "scope", "contract"),
        verification=_strs(section, "verification", "contract"),
        stop=_str(section, "stop", "contract"),
        certificate_target=_str(section, "certificate_target", "contract"),
        activation_verb=_str(section, "activation_verb", "contract"),
    )


def _hooks(section: Mapping[str, Any]) -> HookSettings:
    _check_keys(section, ("role", "files", "check_generated"), "hooks")
    try:
        generated = rule_from_setting(section.get("check_generated", False))
    except ValueError as error:
        raise _error(("hooks", "check_generated"), f"[hooks] check_generated {error}") from None
    return HookSettings(
        role=_str(section, "role", "hooks") or "reviewer",
        files=_strs(section, "files", "hooks"),
        generated=generated,
    )


def _refuter(section: Mapping[str, Any]) -> RefuterSettings:
    _check_keys(section, ("command", "realization", "timeout", "retries"), "refuter")
    realization = _str(section, "realization", "refuter") or "generic-subagent"
    if realization not in ("generic-subagent", "refuter-subagent"):
        raise _error(("refuter", "realization"),
                     "[refuter] realization must be generic-subagent or refuter-subagent")
    timeout = section.get("timeout", 300)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        raise _error(("refuter", "timeout"), "[refuter] timeout must be a positive number of seconds")
    retries = section.get("retries", 2)
    if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
        raise _error(("refuter", "retries"), "[refuter] retries must be a whole number, 0 or more")
    return RefuterSettings(
        command=_strs(section, "command", "refuter"),
        realization=realization,
        timeout=float(timeout),
        retries=retries,
    )


def _verify(section: Mapping[str, Any], root: str | Path) -> VerifySettings:
    """`[verify]`. A committed file may name an allowed-signers file only inside the repository:
    reading one is all it asks, and nothing outside the repository is the repository's to name."""
    _check_keys(section, ("require_signed", "allowed_signers"), "verify")
    require_signed = section.get("require_signed", False)
    if not isinstance(require_signed, bool):
        raise _error(("verify", "require_signed"), "[verify] require_signed must be true or false")
    allowed = _str(section, "allowed_signers", "verify")
    if allowed is not None:
        top = os.path.realpath(root)
        where = os.path.realpath(os.path.join(top, allowed))
        if os.path.isabs(allowed) or os.path.commonpath([top, where]) != top:
            raise _error(("verify", "allowed_signers"),
                         f"[verify] allowed_signers must be a path inside the repository, not {allowed!r}")
        allowed = os.path.relpath(where, top)
    return VerifySettings(require_signed=require_signed, allowed_signers=allowed)
