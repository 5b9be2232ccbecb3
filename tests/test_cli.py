"""The command line's one error handler: a missing declared dependency is a setup problem (exit 2),
any other failed import is a crash (exit 70), never a traceback with exit 1."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from diylisis.cli import declared_dependency


def _without(module: str, repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """git distill ARGS in repo, in an interpreter where importing module fails: a None entry in
    sys.modules is the import system's own way to make `import module` raise ModuleNotFoundError."""
    code = f"import sys; sys.modules[{module!r}] = None; from diylisis.cli import main; main({list(args)!r})"
    return subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, check=False)


def test_a_missing_dependency_is_one_line_and_exit_2(repo: Path) -> None:
    done = _without("click", repo, "doctor")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"git distill: the package click is not installed for {sys.executable}; install diylisis into this "
        "Python (pip install .) or run the git-distill it installed"]


def test_a_checkout_never_installed_names_the_missing_package(repo: Path, tmp_path: Path) -> None:
    """Run from a source checkout by an interpreter without site-packages: no diylisis metadata and
    no dependencies, so the checkout's pyproject.toml says what is missing."""
    root = Path(__file__).resolve().parents[1]
    checkout = tmp_path / "checkout"
    shutil.copytree(root / "diylisis", checkout / "diylisis", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(root / "pyproject.toml", checkout / "pyproject.toml")
    done = subprocess.run([sys.executable, "-S", "-c", f"import sys; sys.path.insert(0, {str(checkout)!r}); "
                           "from diylisis.cli import main; main(['scan'])"],
                          cwd=repo, capture_output=True, text=True, check=False)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("git distill: the package ") and "is not installed for" in line


def test_a_module_no_dependency_provides_is_an_internal_error(repo: Path) -> None:
    (repo / ".distill.toml").write_text('[hooks]\nrole = "reviewer"\n', encoding="utf-8")
    done = _without("tomllib", repo, "doctor")
    assert done.returncode == 70, done.stderr
    assert "internal error: ModuleNotFoundError" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(("module", "declared"), [
    ("pygit2", True), ("tomli_w", True), ("rich.console", True), ("markdown_it.token", True),
    ("pytest", False),  # a test extra, not a dependency
    ("tomllib", False), ("diylisis", False), (None, False),
])
def test_the_declared_dependencies_are_read_from_the_installed_metadata(module: str | None, declared: bool) -> None:
    assert declared_dependency(module) is declared
