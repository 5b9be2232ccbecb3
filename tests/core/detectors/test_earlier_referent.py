"""DX105 in a commit with a tree: "the old approach" is the code the change replaces, and a pointer
described where it stands is described; a plan or idea of the author's, never described, is not."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from diylisis.core.detectors import DetectSettings, detect_text, is_blocking
from diylisis.edges.gitio.context import PygitContext
from tests.conftest import commit


def _dx105(repo: Path, message: str) -> set[str]:
    commit(repo, "Add the loader", {"src/loader.py": "def load():\n    return 1\n"})
    sha = commit(repo, message, {"src/loader.py": "def load():\n    return 2\n"})
    context = PygitContext(pygit2.Repository(str(repo)), sha)
    findings, _ = detect_text(message, context, DetectSettings())
    return {f.token for f in findings if f.rule_id == "DX105" and is_blocking(f)}


@pytest.mark.parametrize(
    "body",
    [
        "This fixes two races that were caused by the old approach.",
        "The previous design could not handle empty files.",
    ],
)
def test_the_replaced_code_of_a_commit_is_in_its_diff(repo: Path, body: str) -> None:
    assert not _dx105(repo, f"Rework the loader\n\n{body}\n")


def test_a_pointer_described_where_it_stands(repo: Path) -> None:
    assert not _dx105(repo, "Rework the loader\n\nThe earlier plan of caching per user was dropped.\n")


@pytest.mark.parametrize(
    ("body", "token"),
    [
        ("Go back to the earlier approach for retries.", "the earlier approach"),
        ("Keep the original plan for the release.", "the original plan"),
        ("The retry keeps the original approach for now.", "the original approach"),
        ("We go back to the previous design here.", "the previous design"),
    ],
)
def test_an_approach_or_plan_never_described_is_residue(repo: Path, body: str, token: str) -> None:
    assert _dx105(repo, f"Rework the loader\n\n{body}\n") == {token}
