"""The checks `config.load` runs beyond types: rule ids, per-path globs, and where an error is.

Every command and `git distill doctor` read the configuration through `config.load`, so all
of them accept and reject the same files. A problem carries the keys that lead to the value it
is about; only once a file has problems is it parsed again with tomlkit to turn those keys into
a line number (tomllib keeps no positions, and importing tomlkit costs more than a whole
commit-msg hook run, about 120 ms under `python -X importtime` on a loaded two-core machine,
which a valid configuration never pays).
"""

from __future__ import annotations

from collections.abc import Mapping

from msgspec import Struct

from diylisis.core.errors import ConfigError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Problem(Struct, frozen=True, kw_only=True):
    """One thing wrong with the configuration: where (keys from the config table's top) and what."""

    keys: tuple[str | int, ...]
    text: str
    file: str | None = None  # set once text names the file and line (located)


class ConfigProblems(ConfigError):
    """Configuration errors that know where they are: a line per problem in the message."""

    def __init__(self, message: str, problems: tuple[Problem, ...]) -> None:
        super().__init__(message)
        self.problems = problems


def keyed(keys: tuple[str | int, ...], text: str) -> ConfigProblems:
    """An error about the value at keys (from the config table's top); `load` adds file and line."""
    return ConfigProblems(text, (Problem(keys=keys, text=text),))


def problems_of(error: ConfigError, section: str) -> tuple[Problem, ...]:
    """The problems an error carries; one that does not know its keys is about the whole section."""
    if isinstance(error, ConfigProblems):
        return error.problems
    return (Problem(keys=(section,), text=error.message),)


def detect_problems(table: Mapping[str, Any]) -> tuple[Problem, ...]:
    """[detect]: rule ids that no rule has, per-path globs that cannot match, bad entries.

    Types and the other keys are DetectSettings.from_mapping's to judge; this adds what it does
    not know (the registry) and says where each problem is.
    """
    from diylisis.core.detectors.settings import DetectSettings

    out: list[Problem] = []
    known = sorted(DetectSettings.__struct_fields__)
    out += [Problem(keys=("detect", key), text=f"[detect] unknown key {key!r}; known: {', '.join(known)}")
            for key in table if key not in known]
    for key in ("glossary", "reject", "disable", "languages"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) and item for item in value):
            out.append(Problem(keys=("detect", key), text=f"[detect] {key} must be a list of non-empty strings"))
    out += _unknown_languages(table.get("languages"))
    ids = _rule_ids()
    out += _unknown_ids(table.get("disable"), ("detect", "disable"), ids)
    out += _unknown_levels(table.get("severity"), ("detect", "severity"), ids)
    per_path = table.get("per_path", [])
    if not isinstance(per_path, list):
        out.append(Problem(keys=("detect", "per_path"), text="[detect] per_path must be a list of tables"))
    else:
        for index, entry in enumerate(per_path):
            where = ("detect", "per_path", index)
            if not isinstance(entry, Mapping):
                out.append(Problem(keys=where, text="[detect] per_path: each entry is a table "
                                                    '{ glob = "...", disable = [...], severity = {...} }'))
                continue
            extra = sorted(set(entry) - {"glob", "disable", "severity"})
            for key in extra:
                out.append(Problem(keys=(*where, key), text=f"[detect] per_path: unknown key {key!r}; "
                                                            "known: glob, disable, severity"))
            glob = entry.get("glob")
            if not isinstance(glob, str) or not glob:
                out.append(Problem(keys=(*where, "glob") if "glob" in entry else where,
                                   text="[detect] per_path: each entry needs a glob (a non-empty string)"))
            else:
                reason = glob_problem(glob)
                if reason:
                    out.append(Problem(keys=(*where, "glob"), text=f"[detect] per_path: glob {glob!r} {reason}"))
            out += _unknown_ids(entry.get("disable"), (*where, "disable"), ids, "per_path disable")
            out += _unknown_levels(entry.get("severity"), (*where, "severity"), ids, "per_path severity")
    return tuple(out)


def _unknown_languages(value: Any) -> list[Problem]:
    if not isinstance(value, list):
        return []
    from diylisis.core.detectors.lexicon import available_languages

    shipped = available_languages()
    return [Problem(keys=("detect", "languages", index),
                    text=f"[detect] languages: no lexicon for {item!r} (have {', '.join(shipped)})")
            for index, item in enumerate(value) if isinstance(item, str) and item and item not in shipped]


def _rule_ids() -> frozenset[str]:
    from diylisis.core.detectors import RULES

    return frozenset(rule.id for rule in RULES)


def _unknown_ids(value: Any, keys: tuple[str | int, ...], ids: frozenset[str],
                 label: str | None = None) -> list[Problem]:
    if not isinstance(value, list):
        return []  # a wrong type is from_mapping's to report
    label = label or str(keys[-1])
    return [Problem(keys=(*keys, index), text=f"[detect] {label}: {unknown_id_text(item)}")
            for index, item in enumerate(value) if isinstance(item, str) and item not in ids]


def _unknown_levels(value: Any, keys: tuple[str | int, ...], ids: frozenset[str],
                    label: str | None = None) -> list[Problem]:
    label = label or str(keys[-1])
    if value is None:
        return []
    if not isinstance(value, Mapping):
        return [Problem(keys=keys, text=f"[detect] {label} maps rule ids to error, warning or info")]
    out = [Problem(keys=(*keys, key), text=f"[detect] {label}: {unknown_id_text(key)}")
           for key in value if key not in ids]
    for key, level in value.items():
        if level not in ("error", "warning", "info"):
            out.append(Problem(keys=(*keys, key), text=f"[detect] {label}: {key} = {level!r} is not "
                                                       "error, warning or info"))
    return out


def unknown_id_text(rule_id: str) -> str:
    """'unknown rule id ...', with the id meant when the text is a rule's name or a case slip."""
    from diylisis.core.detectors import rule_by_key

    meant = rule_by_key(rule_id)
    hint = f" (did you mean {meant.id}?)" if meant is not None else " (git distill rules lists them)"
    return f"unknown rule id {rule_id!r}{hint}"


def glob_problem(glob: str) -> str | None:
    """Why a per-path glob is refused (gitignore syntax, one pattern), or None. Checked without
    pathspec, which costs the commit-msg hook about 30 ms to import and is needed only to match
    a file's path (a commit message has none)."""
    if glob.startswith("!"):
        return "is a negation; per_path takes patterns of the files a rule applies to"
    if glob.startswith("#") or not glob.strip() or not glob.strip("/"):
        return "matches no file (in gitignore syntax it is a comment, blank, or only slashes)"
    if (len(glob) - len(glob.rstrip("\\"))) % 2:
        return "ends with a lone backslash, which escapes nothing"
    return None


def glob_matches(glob: str, path: str) -> bool:
    """The repository-relative path matches the gitignore-style glob (`docs/*.md` stays in docs/,
    `docs/**/*.md` goes into its subfolders, a glob without a slash matches at any depth)."""
    import pathspec  # only to match a file's path against per-path rules

    try:
        return pathspec.GitIgnoreSpec.from_lines([glob]).match_file(path)
    except ValueError as error:  # GitIgnorePatternError: what glob_problem does not foresee
        raise ConfigError(f"[detect] per_path: glob {glob!r} is not a gitignore-style pattern ({error})") from None


def located(problems: tuple[Problem, ...], file_path: str, text: str, shown: str,
            prefix: tuple[str, ...]) -> ConfigProblems:
    """One ConfigError, a line per problem: `FILE:LINE: text` (text: the file's content, read by
    the caller; prefix: the keys of the config table inside the file, ("tool", "diylisis") in
    pyproject.toml)."""
    name = shown.split(" ", 1)[0]
    document: Any = None
    try:
        import tomlkit

        document = tomlkit.parse(text)
    except Exception:  # tomllib has read the file: a failure here is tomlkit's, and costs only the line
        document = None
    numbered = []
    for problem in problems:
        line = None
        if problem.file is None:
            line = line_of(document, text, (*prefix, *problem.keys)) if document is not None else None
            where = f"{name}:{line}:" if line else f"{name}:"
            problem = Problem(keys=problem.keys, text=f"{where} {problem.text}", file=file_path)
        numbered.append((line or 0, problem))
    out = [problem for _, problem in sorted(numbered, key=lambda pair: pair[0])]  # in the file's order
    return ConfigProblems("\n".join(problem.text for problem in out), tuple(out))


_MARK = "distill-config-position-7f3a9c"


def line_of(document: Any, text: str, keys: tuple[str | int, ...]) -> int | None:
    """1-based line of the value at keys (or of the deepest part of keys that exists)."""
    import copy

    import tomlkit.items

    node = document
    found: list[str | int] = []
    for key in keys:
        try:
            child = node[key]
        except (KeyError, IndexError, TypeError):
            break
        found.append(key)
        node = child
    if not found:
        return None
    copied = copy.deepcopy(document)
    parent = copied
    for key in found[:-1]:
        parent = parent[key]
    target = parent[found[-1]]
    if isinstance(target, tomlkit.items.Table) and not isinstance(parent, list):
        if target.is_super_table():
            first = next(iter(target), None)
            return None if first is None else line_of(document, text, (*found, first))
        target.comment(_MARK)  # a table section: the line of its [header]
    elif isinstance(target, tomlkit.items.AoT):
        return line_of(document, text, (*found, 0))
    else:
        parent[found[-1]] = _MARK  # the value starts on its key's line, and nothing before it moved
    rendered = tomlkit.dumps(copied)
    at = rendered.find(_MARK)
    return None if at < 0 else rendered.count("\n", 0, at) + 1
