"""docs/conformance.md stays true: each test it names exists, each spec Rule has a row, each row
has a status, and each test named after a rule or phase is listed there."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "conformance.md"
TEST_REF = re.compile(r"(tests/[\w/]+\.py)::(test_\w+)")
STATUS = ("**by construction**", "**not checkable**", "**not realized**", "**vacant**")
RULES = range(1, 34)  # the spec's Rules, numbered as listed (vacant numbers keep their place)
SECTIONS = ("## F0", "## F1", "## F2", "## F3", "## F4", "## F5", "## Qd", "## F6", "## Qp", "## F7", "## Rules")


def _rows() -> list[str]:
    return [line for line in DOC.read_text(encoding="utf-8").splitlines()
            if line.startswith("| ") and not line.startswith(("| Obligation", "| Rule | Name"))]


def _tests_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def test_every_test_the_doc_names_exists() -> None:
    missing = []
    for path, name in TEST_REF.findall(DOC.read_text(encoding="utf-8")):
        if not (ROOT / path).is_file() or name not in _tests_in(ROOT / path):
            missing.append(f"{path}::{name}")
    assert not missing, f"docs/conformance.md names tests that do not exist: {missing}"


def test_every_row_has_a_test_or_a_status() -> None:
    bare = [row for row in _rows() if not TEST_REF.search(row) and not any(s in row for s in STATUS)]
    assert not bare, f"rows with neither a test nor a status: {bare}"


def test_every_spec_rule_and_phase_has_its_place() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert [n for n in RULES if not re.search(rf"^\| Rule {n} \|", text, re.MULTILINE)] == []
    assert [s for s in SECTIONS if s not in text] == []


def test_every_test_named_after_a_rule_or_phase_is_listed() -> None:
    listed = {name for _, name in TEST_REF.findall(DOC.read_text(encoding="utf-8"))}
    named = {f"{path.relative_to(ROOT)}::{name}" for path in (ROOT / "tests").rglob("test_*.py")
             for name in _tests_in(path) if re.match(r"test_(rule\d+|f\d)_", name)}
    assert sorted(ref for ref in named if ref.split("::")[1] not in listed) == []
