"""The interactive gate on a real terminal (a pseudo-terminal drives the prompts)."""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import commit, git

from tests.terminal import converse


def test_prompts_show_evidence_then_one_question_per_item(repo: Path) -> None:
    commit(repo, "Add task\n", {"docs/a.md": "# A\n", "TASK.md": "Implement it as above.\n"})
    code, screen = converse(repo, [sys.executable, "-m", "diylisis", "certify", "TASK.md", "--role", "implementer"],
                             [("[resolve/route/drop/defer]", "resolve"), ("resolve with", "as described in docs/a.md"),
                              ("answer", "an agent with the repository"), ("answer", "derived"),
                              ("[y/n]", "y")])
    assert "Substitution table" in screen and "as above" in screen
    assert code == 0, screen
    assert "as described in docs/a.md" in (repo / "TASK.md").read_text()
    assert "Distill-Run:" in git(repo, "log", "-1", "--format=%B")
