"""Move the flat `diylisis` package into the layout of DESIGN.md ("Layout"), from one table.

Run from a checkout's root: `python3 tools/relayout.py` (add `--dry-run` to only print).

- Every module of the package is `git mv`ed to its place, as MODULES below says: the pure core
  (`diylisis/core/`), the only I/O (`diylisis/edges/`), the use cases (`diylisis/app/`), and the
  click layer (`diylisis/cli.py`, `diylisis/commands/`), which stays where it is. A module that
  already sits in one of those places stays. A module found nowhere in the table is an error
  that lists it, so a module someone added is placed on purpose, not left behind.
- Every reference to a moved module is rewritten by the same table: imports (`from diylisis
  import gitio` becomes `from diylisis.edges import gitio`), dotted names in strings (lazy
  import tables, `python -m diylisis.x`, the import budget), and repository paths
  (`diylisis/x.py`, `tests/x/test_y.py`) in the text files of the checkout.
- Tests move to mirror the package (TESTS below; `tests/test_<name>.py` follows the module
  named <name>), and a moved test's `Path(__file__).resolve().parents[N]` keeps its target.
- A second run changes nothing. Nothing but the standard library and `git` is used.

The table is also what tests/test_layout.py and the core import guard read.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

PACKAGE = "diylisis"
LAYERS = ("core", "edges", "app")
# Where the click layer and the entry points live; they do not move.
STAYS = ("diylisis/__init__.py", "diylisis/__main__.py", "diylisis/cli.py")
STAYS_UNDER = ("diylisis/commands/",)

_CORE = {
    # the protocol's values and the run state
    "model.py": "model.py",
    "state.py": "state.py",
    "codec.py": "codec.py",
    "digests.py": "digests.py",
    "errors.py": "errors.py",
    # the fixed-point loop; its side effects are handed in
    "engine.py": "engine.py",
    # checks over values, no I/O
    "accounting.py": "accounting.py",
    "config_schema.py": "config_schema.py",
    "safe_text.py": "safe_text.py",
    "secrets.py": "secrets.py",
    # phases F0..F7 and their helpers
    "phases/excision.py": "phases/excision.py",
    "phases/f0_contract.py": "phases/f0_contract.py",
    "phases/f1_deixis.py": "phases/f1_deixis.py",
    "phases/f2_grounding.py": "phases/f2_grounding.py",
    "phases/f3_disposition.py": "phases/f3_disposition.py",
    "phases/f4_judgments.py": "phases/f4_judgments.py",
    "phases/f6_settle.py": "phases/f6_settle.py",
    "phases/f7_certify.py": "phases/f7_certify.py",
    "phases/qp_premise.py": "phases/qp_premise.py",
    "phases/repair.py": "phases/repair.py",
    # detector rules, lexicons as data
    "detectors/__init__.py": "detectors/__init__.py",
    "detectors/_match.py": "detectors/_match.py",
    "detectors/claims.py": "detectors/claims.py",
    "detectors/coverage.py": "detectors/coverage.py",
    "detectors/deixis.py": "detectors/deixis.py",
    "detectors/docs.py": "detectors/docs.py",
    "detectors/evidence.py": "detectors/evidence.py",
    "detectors/lexicon.py": "detectors/lexicon.py",
    "detectors/narration.py": "detectors/narration.py",
    "detectors/places.py": "detectors/places.py",
    "detectors/references.py": "detectors/references.py",
    "detectors/rendering.py": "detectors/rendering.py",
    "detectors/rule.py": "detectors/rule.py",
    "detectors/session.py": "detectors/session.py",
    "detectors/settings.py": "detectors/settings.py",
    "detectors/suppressions.py": "detectors/suppressions.py",
    "detectors/terms.py": "detectors/terms.py",
    "detectors/text.py": "detectors/text.py",
    # F5: the refuter's input, the built-in lint and the verdict format
    "refuter/__init__.py": "refuter/__init__.py",
    "refuter/lint.py": "refuter/lint.py",
    "refuter/verdict.py": "refuter/verdict.py",
}

_EDGES = {
    # git: one layer, and the notes store on top of it
    "gitio/__init__.py": "gitio/__init__.py",
    "gitio/context.py": "gitio/context.py",
    "gitio/history.py": "gitio/history.py",
    "store.py": "store.py",
    "note_text.py": "note_text.py",
    "signing.py": "signing.py",
    "publish_check.py": "publish_check.py",
    # records: one adapter per substrate
    "records/__init__.py": "records/__init__.py",
    "records/base.py": "records/base.py",
    "records/commit.py": "records/commit.py",
    "records/file.py": "records/file.py",
    "records/msgfile.py": "records/msgfile.py",
    "records/prbody.py": "records/prbody.py",
    # configuration files, the workspace, run files, questions and output
    "config.py": "config.py",
    "config_trust.py": "config_trust.py",
    "workspace.py": "workspace.py",
    "trust.py": "trust.py",
    "gate.py": "certify_gate.py",  # certify's questions over the shared gate in edges/gate.py
    "runs.py": "runs.py",
    "render.py": "render.py",
    "sarif.py": "sarif.py",
    "sarif_verify.py": "sarif_verify.py",
    "hook_certificates.py": "hook_certificates.py",
    "repair_commit.py": "repair_commit.py",
    "crashpoint.py": "crashpoint.py",
    "workers.py": "workers.py",
    # the external refuter command and its prompt
    "refuter/command.py": "refuter/command.py",
    "refuter/prompt.py": "refuter/prompt.py",
}

_APP = {
    "certification.py": "certification.py",
    "verification.py": "verification.py",
    "scan.py": "scan.py",
    "forget.py": "forget.py",
    "hooks.py": "hooks/__init__.py",  # split by hook: diylisis/app/hooks/
}

_COMMANDS = {
    "manpage.py": "commands/manpage.py",  # built from the click commands
}


def _table() -> dict[str, str]:
    table: dict[str, str] = {}
    for layer, entries in (("core", _CORE), ("edges", _EDGES), ("app", _APP)):
        for old, new in entries.items():
            table[f"{PACKAGE}/{old}"] = f"{PACKAGE}/{layer}/{new}"
    for old, new in _COMMANDS.items():
        table[f"{PACKAGE}/{old}"] = f"{PACKAGE}/{new}"
    return table


# Old path -> new path, for every module of the flat package.
MODULES: dict[str, str] = _table()

# Data files move with the modules that read them (directory entries end with "/").
DATA: dict[str, str] = {
    "diylisis/detectors/lexicons/": "diylisis/core/detectors/lexicons/",
    "diylisis/refuter/instructions.md": "diylisis/core/refuter/instructions.md",  # read as diylisis.refuter's
}

# Test folders and files, old -> new (folders end with "/"); a file entry wins over its folder.
# A `tests/test_<name>.py` not listed follows the module named <name>; one without such a
# module (a test of several layers at once) stays in tests/.
TESTS: dict[str, str] = {
    "tests/detectors/": "tests/core/detectors/",
    "tests/detectors/test_prefilter.py": "tests/core/detectors/test_rule_prefilter.py",  # which rules run
    "tests/detectors/test_context.py": "tests/edges/gitio/test_context.py",  # they test gitio
    "tests/detectors/test_context_search.py": "tests/edges/gitio/test_context_search.py",
    "tests/detectors/test_history.py": "tests/edges/gitio/test_history.py",
    "tests/phases/": "tests/core/phases/",
    "tests/engine/": "tests/core/engine/",
    "tests/engine/test_runs.py": "tests/edges/test_runs.py",
    "tests/engine/test_interactive.py": "tests/edges/test_gate_interactive.py",
    "tests/records/": "tests/edges/records/",
    "tests/refuter/": "tests/edges/refuter/",  # the command, its prompt and confinement
    "tests/refuter/test_verdict.py": "tests/core/refuter/test_verdict.py",
    "tests/hooks/": "tests/app/hooks/",
    "tests/test_certify.py": "tests/app/test_certification.py",
    "tests/test_coverage.py": "tests/core/detectors/test_coverage.py",
}
# Files in tests/ that test several layers at once, or the repository itself, and stay.
TESTS_STAY = ("tests/conftest.py",)

# Core modules that may still do what core otherwise may not, each with the names it may use
# and why. tests/test_layout.py fails when an exception is no longer needed, so it is removed.
CORE_EXCEPTIONS: dict[str, tuple[frozenset[str], str]] = {
    "diylisis/detectors/lexicon.py": (
        frozenset({"os", "open", "diylisis.edges"}),
        "reads the lexicon files shipped inside the package, and keeps their parsed form in the per-user cache",
    ),
}

# What no core module may import (at run time: imports under `if TYPE_CHECKING:` are types only).
CORE_BANNED_IMPORTS = frozenset({
    "pygit2", "click", "rich", "subprocess", "os", "pathlib", "shutil", "tempfile", "socket",
    "signal", "multiprocessing", "concurrent", "fcntl", "pty", "select", "selectors", "io",
})
# Text files where names are not rewritten: the table itself and recorded sample data.
# tests/test_layout.py builds flat sample checkouts with the old names on purpose.
NOT_REWRITTEN = ("tools/relayout.py", "tests/test_layout.py", "bench/corpus/", "fixtures/records/")
# Generated files keyed by the digest of a moved module's source, rebuilt after the rewrite while
# they still exist: (the module that must exist, the command's arguments after `python -m`).
REGENERATED: tuple[tuple[str, tuple[str, ...]], ...] = ()
LAYER_DOCS = {
    "core": "The pure core: values, phases, detectors and the engine; imports no pygit2, click or rich.",
    "edges": "The only I/O: git, the notes store, records, configuration, the gate, runs and output.",
    "app": "The use cases: certification, verification, scan, forget and the git hooks.",
}


# --- names ---------------------------------------------------------------------------------


def module_name(path: str) -> str:
    """`diylisis/a/b.py` -> `diylisis.a.b`; a package's `__init__.py` names the package."""
    stem = path[: -len(".py")]
    if stem.endswith("/__init__"):
        stem = stem[: -len("/__init__")]
    return stem.replace("/", ".")


def names_table(modules: dict[str, str] = MODULES) -> dict[str, str]:
    """Old dotted name -> new dotted name, for modules and for folders that move as a whole."""
    names = {module_name(old): module_name(new) for old, new in modules.items()}
    folders: dict[str, set[str]] = {}
    for old, new in modules.items():
        old_dir, new_dir = old.rsplit("/", 1)[0], new.rsplit("/", 1)[0]
        if old.rsplit("/", 1)[1] == new.rsplit("/", 1)[1]:
            folders.setdefault(old_dir.replace("/", "."), set()).add(new_dir.replace("/", "."))
        else:
            folders.setdefault(old_dir.replace("/", "."), set()).add("")
    for old_dir, targets in folders.items():
        if len(targets) == 1 and "" not in targets and old_dir != PACKAGE and old_dir not in names:
            names[old_dir] = next(iter(targets))
    return names


_DOTTED = re.compile(r"(?<![\w.])diylisis(?:\.[A-Za-z_]\w*)+")


def rename_dotted(text: str, names: dict[str, str]) -> str:
    """Every dotted name starting with a moved module's old name, with its new name."""

    def swap(match: re.Match[str]) -> str:
        dotted = match.group(0)
        parts = dotted.split(".")
        for end in range(len(parts), 1, -1):
            prefix = ".".join(parts[:end])
            if prefix in names:
                return ".".join([names[prefix], *parts[end:]])
        return dotted

    return _DOTTED.sub(swap, text)


def rewrite_from_imports(source: str, names: dict[str, str]) -> str:
    """`from diylisis[.pkg] import module, ...` with the module's new package, split per package."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, int, int, str]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                and (node.module == PACKAGE or node.module.startswith(PACKAGE + "."))):
            continue
        groups: dict[str, list[str]] = {}
        moved = False
        for alias in node.names:
            full = f"{node.module}.{alias.name}"
            if full in names:
                parent, _, base = names[full].rpartition(".")
                moved = True
                if base == alias.name:
                    shown = alias.name if not alias.asname else f"{alias.name} as {alias.asname}"
                else:
                    shown = f"{base} as {alias.asname or alias.name}"
            else:
                parent = rename_dotted(node.module, names)
                shown = alias.name if not alias.asname else f"{alias.name} as {alias.asname}"
            groups.setdefault(parent, []).append(shown)
        if not moved or node.end_lineno is None or node.end_col_offset is None:
            continue
        indent = lines[node.lineno - 1][: node.col_offset]
        statements = []
        for parent, group in groups.items():
            one = f"from {parent} import {', '.join(group)}"
            if len(indent) + len(one) > 110:
                one = f"from {parent} import (\n" + "".join(f"{indent}    {name},\n" for name in group) + f"{indent})"
            statements.append(one)
        edits.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset,
                      f"\n{indent}".join(statements)))
    for start_line, start_col, end_line, end_col, text in sorted(edits, reverse=True):
        head = lines[start_line - 1][:start_col]
        tail = lines[end_line - 1][end_col:]
        lines[start_line - 1 : end_line] = [head + text + tail]
    return "".join(lines)


# --- the core's import guard ----------------------------------------------------------------


def core_files(root: Path, modules: dict[str, str] = MODULES) -> list[str]:
    """The core's modules as the checkout holds them: at their old places or under core/."""
    old = [path for path, new in modules.items() if new.startswith(f"{PACKAGE}/core/") and (root / path).exists()]
    moved = sorted(str(path.relative_to(root)) for path in (root / PACKAGE / "core").rglob("*.py"))
    return sorted(old) + moved


def _runtime_imports(tree: ast.Module) -> list[tuple[int, str, str | None]]:
    """(line, module, imported name or None) of each import not under `if TYPE_CHECKING:`."""
    found: list[tuple[int, str, str | None]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for branch in node.orelse:
                visit(branch)
            return
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.extend((node.lineno, node.module, alias.name) for alias in node.names)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "open":
            found.append((node.lineno, "open", None))
        for child in ast.iter_child_nodes(node):
            visit(child)

    for statement in tree.body:
        visit(statement)
    return found


def _outside_core(module: str, name: str | None, names: dict[str, str]) -> str | None:
    """The diylisis module an import reaches outside the core, or None."""
    if not (module == PACKAGE or module.startswith(PACKAGE + ".")):
        return None
    known = set(names) | set(names.values())
    target = f"{module}.{name}" if name is not None and f"{module}.{name}" in known else module
    if target == PACKAGE:
        return None  # the root package: its version
    new = rename_dotted(target, names)
    return None if new == f"{PACKAGE}.core" or new.startswith(f"{PACKAGE}.core.") else target


def core_uses(root: Path) -> dict[str, list[tuple[int, str]]]:
    """For each core module, what it uses that core may not: (line, name), exceptions included."""
    names = names_table()
    uses: dict[str, list[tuple[int, str]]] = {}
    for path in core_files(root):
        tree = ast.parse((root / path).read_text(encoding="utf-8"))
        for line, module, name in _runtime_imports(tree):
            if module == "open":
                uses.setdefault(path, []).append((line, "open"))
            elif module.split(".")[0] in CORE_BANNED_IMPORTS:
                uses.setdefault(path, []).append((line, module.split(".")[0]))
            else:
                outside = _outside_core(module, name, names)
                if outside is not None:
                    uses.setdefault(path, []).append((line, outside))
    return uses


def _exception_for(path: str) -> tuple[frozenset[str], str] | None:
    for old, new in MODULES.items():
        if path in (old, new):
            return CORE_EXCEPTIONS.get(old)
    return None


def core_violations(root: Path) -> list[str]:
    """`path:line: imports name` for each use the core may not make and no exception allows."""
    names = names_table()
    problems = []
    for path, found in sorted(core_uses(root).items()):
        allowed = _exception_for(path)
        allowed_names = {rename_dotted(name, names) for name in allowed[0]} | allowed[0] if allowed else set()
        problems += [f"{path}:{line}: uses {name}" for line, name in found if name not in allowed_names]
    return problems


def unneeded_exceptions(root: Path) -> list[str]:
    """Names CORE_EXCEPTIONS allows that their module no longer uses."""
    names = names_table()
    uses = core_uses(root)
    unneeded = []
    for old, (allowed, _) in CORE_EXCEPTIONS.items():
        path = old if (root / old).exists() else MODULES[old]
        used = {name for _, name in uses.get(path, [])} | {rename_dotted(name, names)
                                                            for _, name in uses.get(path, [])}
        unneeded += [f"{old}: {name}" for name in sorted(allowed)
                     if name not in used and rename_dotted(name, names) not in used]
    return unneeded


_FROM_LINE = re.compile(r"^([ \t]*)from (diylisis[\w.]*) import [^(\n\\]*$")


def sort_package_imports(source: str) -> str:
    """Runs of one-line `from diylisis... import` statements, sorted by module again."""
    lines = source.split("\n")
    start = 0
    while start < len(lines):
        first = _FROM_LINE.match(lines[start])
        end = start + 1
        if first is not None:
            while end < len(lines) and (match := _FROM_LINE.match(lines[end])) and match.group(1) == first.group(1):
                end += 1
            lines[start:end] = sorted(lines[start:end], key=lambda line: _FROM_LINE.match(line).group(2))  # type: ignore[union-attr]
        start = end
    return "\n".join(lines)


# --- the checkout --------------------------------------------------------------------------


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"relayout: git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout


def tracked(root: Path) -> list[str]:
    """The checkout's tracked files that exist in the work tree."""
    return [path for path in _git(root, "ls-files", "-z").split("\0") if path and (root / path).exists()]


def in_layout(path: str) -> bool:
    """The module already sits where the layout puts modules."""
    return (path in STAYS or path.startswith(STAYS_UNDER)
            or any(path.startswith(f"{PACKAGE}/{layer}/") for layer in LAYERS))


def unmapped_modules(files: list[str], modules: dict[str, str] = MODULES) -> list[str]:
    """Package modules that are neither in the layout nor in the table."""
    return sorted(path for path in files
                  if path.startswith(f"{PACKAGE}/") and path.endswith(".py")
                  and not in_layout(path) and path not in modules)


def unmapped_data(files: list[str]) -> list[str]:
    """Package files that are not modules, outside the layout and not in DATA."""
    return sorted(path for path in files
                  if path.startswith(f"{PACKAGE}/") and not path.endswith(".py") and not in_layout(path)
                  and not any(path == old or (old.endswith("/") and path.startswith(old)) for old in DATA))


def stale_entries(root: Path, modules: dict[str, str] = MODULES) -> list[str]:
    """Table entries whose module exists at neither its old nor its new place."""
    return sorted(old for old, new in modules.items() if not (root / old).exists() and not (root / new).exists())


def data_moves(files: list[str]) -> dict[str, str]:
    """Old path -> new path of each package data file still at its old place."""
    moves = {}
    for path in files:
        for old, new in DATA.items():
            if path == old:
                moves[path] = new
            elif old.endswith("/") and path.startswith(old):
                moves[path] = new + path[len(old):]
    return moves


def test_target(path: str, new_modules: list[str]) -> str | None:
    """Where a test file goes, or None when it stays."""
    if path in TESTS:
        return TESTS[path]
    folders = sorted((old for old in TESTS if old.endswith("/") and path.startswith(old)), key=len)
    if folders:
        return TESTS[folders[-1]] + path[len(folders[-1]):]
    match = re.fullmatch(r"tests/test_(\w+)\.py", path)
    if match is None or path in TESTS_STAY:
        return None
    name = match.group(1)
    homes = sorted({new.rsplit("/", 1)[0] for new in new_modules
                    if new.endswith(f"/{name}.py") or new.endswith(f"/{name}/__init__.py")
                    or new == f"{PACKAGE}/{name}/__init__.py"})
    homes = [home for home in homes if home != PACKAGE]
    if len(homes) != 1:
        return None
    folder = homes[0][len(PACKAGE) + 1:]
    target = f"tests/{folder}/test_{name}.py" if folder else path
    return None if target == path else target


def _parents_fixed(text: str, delta: int) -> str:
    """`Path(__file__).resolve().parents[N]` / `.parent.parent` shifted by delta folders."""
    pattern = re.compile(r"Path\(__file__\)\.resolve\(\)((?:\.parent(?![s\w]))+|\.parents\[(\d+)\])")

    def shift(match: re.Match[str]) -> str:
        level = int(match.group(2)) + 1 if match.group(2) is not None else match.group(1).count(".parent")
        return f"Path(__file__).resolve().parents[{level + delta - 1}]"

    return pattern.sub(shift, text)


def sibling_imports_fixed(text: str, path: str, test_places: dict[str, str]) -> str:
    """`from test_x import ...` of a test module now in another folder, as `from tests.a.test_x`.

    test_places: module basename -> its path after the move, for every test-tree module."""

    def swap(match: re.Match[str]) -> str:
        name = match.group(3)
        place = test_places.get(name)
        if place is None or place.rsplit("/", 1)[0] == path.rsplit("/", 1)[0]:
            return match.group(0)
        return f"{match.group(1)}{match.group(2)} {module_name(place)}"

    return re.sub(r"(?m)^([ \t]*)(from|import) (\w+)\b(?!\.)", swap, text)


_FROM_IN_TEXT = re.compile(r"(?:(?<=\\n)|(?<=\\t)|\b)from (diylisis(?:\.\w+)*) import (\w+)\b(?![ \t]*,)")


def rewrite_from_imports_in_text(text: str, names: dict[str, str]) -> str:
    """`from diylisis import module` written inside strings and docs (code run by a child
    interpreter, examples), one imported name each; real import statements are handled by
    rewrite_from_imports."""

    def swap(match: re.Match[str]) -> str:
        full = f"{match.group(1)}.{match.group(2)}"
        if full not in names:
            return match.group(0)
        parent, _, base = names[full].rpartition(".")
        shown = match.group(2) if base == match.group(2) else f"{base} as {match.group(2)}"
        return f"from {parent} import {shown}"

    return _FROM_IN_TEXT.sub(swap, text)


def _path_pattern(old: str) -> re.Pattern[str]:
    tail = "" if old.endswith("/") else r"(?![\w/])"
    return re.compile(r"(?<![\w.-])" + re.escape(old) + tail)


def rewrite_paths(text: str, moves: dict[str, str]) -> str:
    """Repository paths of moved files and folders, with their new ones."""
    for old in sorted(moves, key=len, reverse=True):
        if old in text:
            text = _path_pattern(old).sub(moves[old], text)
    return text


def folder_moves(moves: dict[str, str], files: list[str]) -> dict[str, str]:
    """Folders all of whose files moved to one new folder, keeping their relative paths."""
    folders: dict[str, set[str]] = {}
    for old, new in moves.items():
        parts = old.split("/")
        for end in range(1, len(parts)):
            folder = "/".join(parts[:end]) + "/"
            rest = old[len(folder):]
            folders.setdefault(folder, set()).add(new[: -len(rest)] if new.endswith("/" + rest) else "")
    result = {}
    for folder, targets in folders.items():
        remaining = [path for path in files if path.startswith(folder) and path not in moves]
        if len(targets) == 1 and "" not in targets and not remaining and folder.count("/") > 1:
            result[folder] = next(iter(targets))
    return result


def _package_data(text: str, folders: dict[str, str]) -> str:
    """pyproject's package-data globs (relative to the package) with the new folders."""
    relative = {old[len(PACKAGE) + 1:]: new[len(PACKAGE) + 1:] for old, new in folders.items()
                if old.startswith(PACKAGE + "/")}
    for old_file, new_file in DATA.items():
        if not old_file.endswith("/"):
            relative.setdefault(old_file[len(PACKAGE) + 1:].rsplit("/", 1)[0] + "/",
                                new_file[len(PACKAGE) + 1:].rsplit("/", 1)[0] + "/")

    def swap(match: re.Match[str]) -> str:
        glob = match.group(1)
        for old in sorted(relative, key=len, reverse=True):
            if glob.startswith(old):
                return f'"{relative[old]}{glob[len(old):]}"'
        return match.group(0)

    def section(match: re.Match[str]) -> str:
        return re.sub(r'"([^"]+)"', swap, match.group(0))

    return re.sub(r"(?ms)^\[tool\.setuptools\.package-data\]\n.*?(?=^\[|\Z)", section, text)


def _is_text(path: Path) -> bool:
    try:
        data = path.read_bytes()
    except OSError:
        return False
    if b"\0" in data[:8192]:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def plan(root: Path) -> tuple[dict[str, str], list[str]]:
    """(old path -> new path for every file to move, problems that stop the run)."""
    files = tracked(root)
    problems = [f"{path}: a module the table in tools/relayout.py does not place; add it to _CORE, "
                f"_EDGES or _APP (for example \"{path[len(PACKAGE) + 1:]}\": \"{path[len(PACKAGE) + 1:]}\")"
                for path in unmapped_modules(files)]
    problems += [f"{path}: a package file the DATA table does not place" for path in unmapped_data(files)]
    moves: dict[str, str] = {}
    for old, new in MODULES.items():
        if (root / old).exists():
            if (root / new).exists():
                problems.append(f"{old}: its new place {new} is taken")
            moves[old] = new
    moves.update(data_moves(files))
    new_modules = [MODULES.get(path, path) for path in files if path.endswith(".py") and path.startswith(PACKAGE)]
    new_modules += [new for new in MODULES.values() if new not in new_modules]
    for path in files:
        if path.startswith("tests/") and path not in moves:
            target = test_target(path, new_modules)
            if target is not None and target != path:
                if (root / target).exists():
                    problems.append(f"{path}: its new place {target} is taken")
                moves[path] = target
    targets: dict[str, str] = {}
    for old, new in moves.items():
        if new in targets:
            problems.append(f"{old} and {targets[new]} would both move to {new}")
        targets[new] = old
    return moves, problems


def _depth(path: str) -> int:
    return path.count("/")


def run(root: Path, dry_run: bool = False) -> int:
    """Move and rewrite; print each step. Exit status: 0 done, 2 when something is unplaced."""

    def say(text: str) -> None:
        print(text)

    moves, problems = plan(root)
    if problems:
        for problem in problems:
            say(f"relayout: {problem}")
        say("relayout: nothing was moved")
        return 2
    for stale in stale_entries(root):
        say(f"note: {stale} is in the table but exists nowhere; remove its entry")
    files_before = tracked(root)
    names = names_table()
    folders = folder_moves(moves, files_before)
    all_paths = {**folders, **moves}
    if dry_run:
        for old, new in sorted(moves.items()):
            say(f"would move {old} -> {new}")
        return 0
    for old, new in sorted(moves.items()):
        (root / new).parent.mkdir(parents=True, exist_ok=True)
        _git(root, "mv", old, new)
        say(f"moved {old} -> {new}")
    for layer in LAYERS:
        init = root / PACKAGE / layer / "__init__.py"
        if (root / PACKAGE / layer).is_dir() and not init.exists():
            init.write_text(f'"""{LAYER_DOCS[layer]}"""\n', encoding="utf-8")
            _git(root, "add", str(init.relative_to(root)))
            say(f"created {init.relative_to(root)}")
    changed = 0
    test_places = {path.rsplit("/", 1)[1][: -len(".py")]: path for path in tracked(root)
                   if path.startswith("tests/") and path.endswith(".py")
                   and not path.endswith(("/conftest.py", "/__init__.py"))}
    for path in tracked(root):
        if path.startswith(NOT_REWRITTEN) or not _is_text(root / path):
            continue
        before = (root / path).read_text(encoding="utf-8")
        after = before
        if path.endswith(".py"):
            after = rewrite_from_imports(after, names)
        after = rewrite_from_imports_in_text(after, names)
        after = rename_dotted(after, names)
        if path.endswith(".py") and after != before:
            after = sort_package_imports(after)
        after = rewrite_paths(after, all_paths)
        if path == "pyproject.toml":
            after = _package_data(after, folders | {old: new for old, new in DATA.items() if old.endswith("/")})
        if path.startswith("tests/") and path.endswith(".py"):
            after = sibling_imports_fixed(after, path, test_places)
        old_path = next((old for old, new in moves.items() if new == path), None)
        if old_path is not None and path.startswith("tests/") and _depth(path) != _depth(old_path):
            after = _parents_fixed(after, _depth(path) - _depth(old_path))
        if after != before:
            (root / path).write_text(after, encoding="utf-8")
            changed += 1
            say(f"rewrote references in {path}")
    for module, arguments in REGENERATED:
        if (moves or changed) and (root / module).exists():
            done = subprocess.run([sys.executable, "-m", *arguments], cwd=root, capture_output=True, text=True)
            shown = f"python -m {' '.join(arguments)}"
            say(f"regenerated with `{shown}`" if done.returncode == 0
                else f"relayout: `{shown}` failed; run it where the package's dependencies are installed")
    changed += _regenerate_layout_doc(root, say)
    if not moves and not changed:
        say("relayout: the checkout is already in the layout; nothing changed")
    else:
        say(f"relayout: moved {len(moves)} files, rewrote {changed}; review with `git status` and commit")
    return 0


def _regenerate_layout_doc(root: Path, say: Callable[[str], None]) -> int:
    """docs/layout.md written again from the moved code (1 when it changed); a hint when it cannot be."""
    generator = root / "tools" / "layout_doc.py"
    if not generator.exists():
        return 0
    done = subprocess.run([sys.executable, str(generator)], cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        say("relayout: could not regenerate docs/layout.md here; run "
            "`python tools/layout_doc.py > docs/layout.md` where the package's dependencies are installed")
        return 0
    document = root / "docs" / "layout.md"
    if document.exists() and document.read_text(encoding="utf-8") == done.stdout:
        return 0
    document.write_text(done.stdout, encoding="utf-8")
    say("regenerated docs/layout.md")
    return 1


def main(argv: list[str]) -> int:
    """Command line: `python3 tools/relayout.py [--dry-run]` from the checkout's root."""
    if any(arg not in ("--dry-run",) for arg in argv):
        print("usage: python3 tools/relayout.py [--dry-run]", file=sys.stderr)
        return 2
    root = Path.cwd()
    if not (root / PACKAGE).is_dir() or not (root / ".git").exists():
        print(f"relayout: run from the root of a checkout that holds {PACKAGE}/", file=sys.stderr)
        return 2
    return run(root, dry_run="--dry-run" in argv)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
