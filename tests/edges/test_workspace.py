"""Workspace: the repository a command works in, opened with rev-parse and config side by side."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import commit, git

from diylisis.core.errors import GitError
from diylisis.edges import workspace


def test_a_workspace_opened_from_a_subdirectory(repo: Path) -> None:
    (repo / "docs").mkdir()
    git(repo, "config", "commit.cleanup", "scissors")
    opened = workspace.Workspace.open(repo / "docs")
    assert opened.root == os.path.realpath(repo) and opened.head is None  # unborn branch
    assert opened.git_dir == os.path.realpath(repo / ".git")
    assert workspace.git_values(opened)["commit.cleanup"] == "scissors"
    head = commit(repo, "First\n")
    assert workspace.start_open(repo / "docs").finish().head == head


def test_outside_a_repository_opening_is_a_git_error(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(GitError, match="not a git repository with a work tree"):
        workspace.Workspace.open(tmp_path / "plain")
    with pytest.raises(GitError, match="not a directory"):
        workspace.start_open(tmp_path / "missing")
