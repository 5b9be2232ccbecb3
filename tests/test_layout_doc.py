"""docs/layout.md, where a newcomer finds each spec term's module, is what tools/layout_doc.py prints."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _layout_doc():
    spec = importlib.util.spec_from_file_location("layout_doc", ROOT / "tools" / "layout_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("layout_doc", module)
    spec.loader.exec_module(module)
    return module


layout_doc = _layout_doc()


def test_docs_layout_md_is_up_to_date() -> None:
    current = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    assert current == layout_doc.layout_markdown(), (
        "docs/layout.md is stale: python tools/layout_doc.py > docs/layout.md")


def test_every_phase_module_and_detector_rule_is_listed() -> None:
    text = layout_doc.layout_markdown()
    from diylisis.core.detectors import RULES

    for rule in RULES:
        assert f"| {rule.id} | {rule.name} |" in text
    for path in (ROOT / "diylisis").rglob("*.py"):
        assert f"`{path.relative_to(ROOT)}`" in text, f"{path} is missing from docs/layout.md"
    assert "| F2 | `" in text and "| F7 | `" in text
    assert "| `Certificate` | `" in text


def test_a_spec_rule_lists_the_modules_citing_it() -> None:
    rows = [line for line in layout_doc.spec_rules_section() if line.startswith("| Rule 29 |")]
    assert len(rows) == 1
    assert "f0_contract.py" in rows[0]  # mark_provenance cites Rule 29
