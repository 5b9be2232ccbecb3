"""Write docs/layout.md: where each spec term lives (phase, type, detector rule, spec rule -> module).

Run from a checkout's root: `python3 tools/layout_doc.py > docs/layout.md`.
tests/test_layout_doc.py fails when the committed file differs from what this prints.

Everything is read from the code: module docstrings, the classes of the model and the run state,
the detector registry, and the "Rule N" citations in the package's source. Entries are ordered by
where tools/relayout.py puts each module, so the text is the same before and after the move
(the move rewrites the paths in it).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "diylisis"
MODEL_MODULES = ("diylisis.core.model", "diylisis.core.state")
LAYER_TITLES = {
    "core": "Core (pure: no pygit2, click, rich, subprocess or file system; tests/test_layout.py checks it)",
    "edges": "Edges (all I/O: git, notes, records, configuration, gate, runs, output)",
    "app": "Use cases",
    "commands": "Command line (click)",
}


def _relayout() -> ModuleType:
    spec = importlib.util.spec_from_file_location("relayout", ROOT / "tools" / "relayout.py")
    assert spec is not None and spec.loader is not None
    module = sys.modules.get("relayout") or importlib.util.module_from_spec(spec)
    if "relayout" not in sys.modules:
        sys.modules["relayout"] = module
        spec.loader.exec_module(module)
    return module


def _modules() -> list[str]:
    """Repository paths of the package's modules, as the checkout holds them."""
    return sorted(str(path.relative_to(ROOT)) for path in (ROOT / PACKAGE).rglob("*.py")
                  if "__pycache__" not in path.parts)


def _placed(path: str) -> str:
    """Where the layout puts a module (its path after tools/relayout.py)."""
    return str(_relayout().MODULES.get(path, path))


def _layer(path: str) -> str:
    placed = _placed(path)[len(PACKAGE) + 1:]
    first = placed.split("/", 1)[0]
    return first if first in LAYER_TITLES else "commands"


def _summary(path: str) -> str:
    """The first line of a module's docstring."""
    doc = ast.get_docstring(ast.parse((ROOT / path).read_text(encoding="utf-8"))) or ""
    return doc.strip().split("\n", 1)[0].strip().replace("|", "\\|")


def _path_of(module: ModuleType) -> str:
    return str(Path(str(module.__file__)).resolve().relative_to(ROOT))


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def phases_section() -> list[str]:
    """Phase -> module, from the phases package."""
    phases = sorted((path for path in _modules() if "/phases/" in path and not path.endswith("__init__.py")),
                    key=_placed)
    lines = ["## Phases", "", "| Phase | Module | What it does |", "|---|---|---|"]
    for path in phases:
        stem = path.rsplit("/", 1)[1][: -len(".py")]
        match = re.match(r"(f\d|qp)_", stem)
        phase = match.group(1).upper() if match else stem
        lines.append(f"| {phase} | `{path}` | {_summary(path)} |")
    return lines


def types_section() -> list[str]:
    """Each protocol type (model and run state) -> its module, with its docstring's first line."""
    lines = ["## Types", "", "| Type | Module | What it is |", "|---|---|---|"]
    rows = []
    for name in MODEL_MODULES:
        path = _path_of(importlib.import_module(name))
        for node in ast.parse((ROOT / path).read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                doc = (ast.get_docstring(node) or "").strip().split("\n", 1)[0]
                rows.append((node.name, path, _cell(doc)))
    for attribute, path, doc in sorted(rows):
        lines.append(f"| `{attribute}` | `{path}` | {doc} |")
    return lines


def rules_section() -> list[str]:
    """Each detector rule -> the module that defines it (docs/rules.md has their docs)."""
    detectors = importlib.import_module("diylisis.core.detectors")
    owners: dict[str, str] = {}
    for name, module in sorted(sys.modules.items()):
        if name.startswith(detectors.__name__ + ".") and module is not None:
            for rule in getattr(module, "RULES", ()):
                owners.setdefault(rule.id, _path_of(module))
    lines = ["## Detector rules", "", "Their documentation is docs/rules.md.", "",
             "| Rule | Name | Module |", "|---|---|---|"]
    for rule in detectors.RULES:
        lines.append(f"| {rule.id} | {rule.name} | `{owners.get(rule.id, _path_of(detectors))}` |")
    return lines


def spec_rules_section() -> list[str]:
    """Each spec rule the source cites ("Rule N") -> the modules citing it."""
    cited: dict[int, set[str]] = {}
    for path in _modules():
        for number in re.findall(r"\bRule (\d+)\b", (ROOT / path).read_text(encoding="utf-8")):
            cited.setdefault(int(number), set()).add(path)
    lines = ["## Spec rules", "", "Modules whose source cites the rule (`Rule N` in a docstring or comment).", "",
             "| Spec rule | Modules |", "|---|---|"]
    for number in sorted(cited):
        paths = sorted(cited[number], key=_placed)
        lines.append(f"| Rule {number} | {', '.join(f'`{path}`' for path in paths)} |")
    return lines


def modules_section() -> list[str]:
    """Every module by layer, with its docstring's first line."""
    lines = ["## Modules by layer", ""]
    by_layer: dict[str, list[str]] = {layer: [] for layer in LAYER_TITLES}
    for path in _modules():
        by_layer[_layer(path)].append(path)
    for layer, title in LAYER_TITLES.items():
        lines += [f"### {title}", "", "| Module | What it holds |", "|---|---|"]
        for path in sorted(by_layer[layer], key=_placed):
            lines.append(f"| `{path}` | {_summary(path)} |")
        lines.append("")
    return lines[:-1]


def layout_markdown() -> str:
    """The whole of docs/layout.md."""
    lines = [
        "# Where things live",
        "",
        "Generated by `python3 tools/layout_doc.py > docs/layout.md`; tests/test_layout_doc.py fails when",
        "it is stale. The layout is DESIGN.md's: a pure core, the edges that do all I/O, the use cases",
        "and a thin command line. To find a spec term, look it up below; `git grep` for the same word",
        "finds the code, since code names use the spec's words.",
        "",
        *phases_section(), "",
        *types_section(), "",
        *rules_section(), "",
        *spec_rules_section(), "",
        *modules_section(),
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.stdout.write(layout_markdown())
