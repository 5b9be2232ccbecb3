"""The package layout (DESIGN.md, Layout) and tools/relayout.py, which moves the flat package into it.

Every module sits in the layout or has an entry in the script's table; no entry names a file
that exists nowhere; the core (as the table defines it) imports no pygit2, click, rich,
subprocess or file-system module, and nothing of the package outside the core. The script
itself is run on small real repositories: it moves, rewrites, refuses an unplaced module, and
changes nothing the second time.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "relayout.py"


def _load_relayout():
    spec = importlib.util.spec_from_file_location("relayout", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("relayout", module)
    spec.loader.exec_module(module)
    return module


relayout = _load_relayout()


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def _checkout(root: Path, files: dict[str, str]) -> Path:
    """A real repository holding files, all committed."""
    _git(root, "init", "-q")
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=Layout Test", "-c", "user.email=layout@example.invalid",
         "commit", "-q", "-m", "Add a small flat package")
    return root


def _relayout(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=root, capture_output=True, text=True)


# --- the checkout as it is --------------------------------------------------------------------


def test_every_module_sits_in_the_layout_or_in_the_table() -> None:
    files = relayout.tracked(ROOT)
    unplaced = relayout.unmapped_modules(files) + relayout.unmapped_data(files)
    assert unplaced == [], f"place these in tools/relayout.py (MODULES or DATA): {unplaced}"


def test_the_table_names_no_file_that_exists_nowhere() -> None:
    stale = relayout.stale_entries(ROOT)
    stale += [old for old, new in relayout.DATA.items() if not (ROOT / old).exists() and not (ROOT / new).exists()]
    stale += [old for old, new in relayout.TESTS.items() if not (ROOT / old).exists() and not (ROOT / new).exists()]
    stale += [old for old in relayout.CORE_EXCEPTIONS if old not in relayout.MODULES]
    assert stale == [], f"remove these entries from tools/relayout.py: {stale}"


def test_core_imports_no_io_no_ui_and_nothing_outside_the_core() -> None:
    assert relayout.core_files(ROOT), "the table places no module in the core"
    violations = relayout.core_violations(ROOT)
    assert violations == [], "the core must stay pure (hand the I/O in, or move it to diylisis/edges):\n" + "\n".join(
        violations)


def test_every_exception_to_the_core_guard_is_still_needed() -> None:
    assert relayout.unneeded_exceptions(ROOT) == [], "remove what CORE_EXCEPTIONS no longer needs"


def test_the_table_moves_into_the_layers_only() -> None:
    for old, new in relayout.MODULES.items():
        assert relayout.in_layout(new), f"{old} -> {new} is outside the layout"
        assert not relayout.in_layout(old), f"{old} is already in the layout; it needs no entry"


# --- the guard on a made-up core ------------------------------------------------------------


def test_the_guard_finds_io_and_edge_imports_but_not_type_only_ones(tmp_path: Path) -> None:
    (tmp_path / "diylisis" / "phases").mkdir(parents=True)
    (tmp_path / "diylisis" / "phases" / "f2_grounding.py").write_text(
        "import pygit2\n"
        "from diylisis import gitio, model\n"
        "from diylisis.errors import DistillError\n"
        "TYPE_CHECKING = False\n"
        "if TYPE_CHECKING:\n"
        "    import click\n"
        "    from diylisis.config import Config\n"
        "def read(path):\n"
        "    import subprocess\n"
        "    with open(path) as handle:\n"
        "        return handle.read()\n",
        encoding="utf-8")
    found = relayout.core_violations(tmp_path)
    assert found == [
        "diylisis/phases/f2_grounding.py:1: uses pygit2",
        "diylisis/phases/f2_grounding.py:2: uses diylisis.gitio",
        "diylisis/phases/f2_grounding.py:9: uses subprocess",
        "diylisis/phases/f2_grounding.py:10: uses open",
    ]


# --- the script on small real repositories --------------------------------------------------


FLAT = {
    "diylisis/__init__.py": '__version__ = "0"\n',
    "diylisis/model.py": '"""Values."""\n',
    "diylisis/errors.py": "class DistillError(Exception):\n    pass\n",
    "diylisis/gitio/__init__.py": "from diylisis.errors import DistillError\n",
    "diylisis/gitio/history.py": "import diylisis.gitio\n",
    "diylisis/phases/f1_deixis.py": "from diylisis import model\n",
    "diylisis/refuter/__init__.py": "",
    "diylisis/refuter/lint.py": "from diylisis.refuter import command\n",
    "diylisis/refuter/command.py": "",
    "diylisis/detectors/lexicons/en.toml": "[words]\n",
    "diylisis/certification.py": (
        "from diylisis import errors, gitio, model\n"
        "from diylisis.phases import f1_deixis\n"
        "LAZY = {'history': 'diylisis.gitio.history:walk'}\n"
        "CHILD = 'import sys; from diylisis import gitio; gitio.main()'\n"
        "LINES = 'import sys\\nfrom diylisis import model\\n'\n"
    ),
    "diylisis/commands/scan.py": "from diylisis.gitio.history import walk\n",
    "tests/test_model.py": "from test_gitio import helper\nROOT = Path(__file__).resolve().parents[1]\n",
    "tests/test_gitio.py": "def helper():\n    pass\n",
    "tests/detectors/test_context.py": "ROOT = Path(__file__).resolve().parent.parent\n",
    "docs/notes.md": "See diylisis/gitio/history.py and `python -m diylisis.refuter.lint`.\n",
    "pyproject.toml": ('[tool.setuptools.package-data]\ndiylisis = ["detectors/lexicons/*.toml"]\n\n'
                       '[project.scripts]\nx = "diylisis.certification:main"\n'),
}


def test_the_script_moves_rewrites_and_is_idempotent(tmp_path: Path) -> None:
    root = _checkout(tmp_path, FLAT)
    first = _relayout(root)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "moved diylisis/model.py -> diylisis/core/model.py" in first.stdout
    read = {path: (root / path).read_text(encoding="utf-8") for path in relayout.tracked(root)}
    assert read["diylisis/app/certification.py"] == (
        "from diylisis.core import errors, model\n"
        "from diylisis.core.phases import f1_deixis\n"
        "from diylisis.edges import gitio\n"
        "LAZY = {'history': 'diylisis.edges.gitio.history:walk'}\n"
        "CHILD = 'import sys; from diylisis.edges import gitio; gitio.main()'\n"
        "LINES = 'import sys\\nfrom diylisis.core import model\\n'\n"
    )
    assert read["diylisis/edges/gitio/__init__.py"] == "from diylisis.core.errors import DistillError\n"
    assert read["diylisis/edges/gitio/history.py"] == "import diylisis.edges.gitio\n"
    assert read["diylisis/core/refuter/lint.py"] == "from diylisis.edges.refuter import command\n"
    assert read["diylisis/commands/scan.py"] == "from diylisis.edges.gitio.history import walk\n"
    assert "diylisis/core/detectors/lexicons/en.toml" in read
    assert read["docs/notes.md"] == ("See diylisis/edges/gitio/history.py and "
                                     "`python -m diylisis.core.refuter.lint`.\n")
    assert '"core/detectors/lexicons/*.toml"' in read["pyproject.toml"]
    assert 'x = "diylisis.app.certification:main"' in read["pyproject.toml"]
    assert read["tests/core/test_model.py"] == ("from tests.edges.gitio.test_gitio import helper\n"
                                                "ROOT = Path(__file__).resolve().parents[2]\n")
    # tests/, as before
    assert read["tests/edges/gitio/test_context.py"] == "ROOT = Path(__file__).resolve().parents[2]\n"
    assert {"diylisis/core/__init__.py", "diylisis/edges/__init__.py", "diylisis/app/__init__.py"} <= set(read)
    assert not (root / "diylisis" / "model.py").exists()

    _git(root, "add", "-A")
    second = _relayout(root)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "nothing changed" in second.stdout
    assert _git(root, "diff") == ""  # the second run rewrote nothing the first had staged
    assert {path: (root / path).read_text(encoding="utf-8") for path in relayout.tracked(root)} == read


def test_an_unplaced_module_stops_the_script_and_moves_nothing(tmp_path: Path) -> None:
    root = _checkout(tmp_path, {**FLAT, "diylisis/tagging.py": "", "diylisis/detectors/fresh.py": ""})
    done = _relayout(root)
    assert done.returncode == 2
    assert "diylisis/detectors/fresh.py: a module the table" in done.stdout
    assert "diylisis/tagging.py: a module the table" in done.stdout
    assert (root / "diylisis" / "model.py").exists()
    assert _git(root, "status", "--porcelain") == ""


def test_modules_already_in_the_layout_stay(tmp_path: Path) -> None:
    root = _checkout(tmp_path, {**FLAT, "diylisis/core/tagging.py": "from diylisis import model\n",
                                "diylisis/edges/runs_store.py": ""})
    done = _relayout(root)
    assert done.returncode == 0, done.stdout
    assert (root / "diylisis" / "core" / "tagging.py").read_text(encoding="utf-8") == (
        "from diylisis.core import model\n")
    assert (root / "diylisis" / "edges" / "runs_store.py").exists()


@pytest.mark.parametrize("argument", ["--force", "extra"])
def test_an_unknown_argument_is_a_usage_error(tmp_path: Path, argument: str) -> None:
    root = _checkout(tmp_path, FLAT)
    done = _relayout(root, argument)
    assert done.returncode == 2
    assert "usage:" in done.stderr
    assert (root / "diylisis" / "model.py").exists()
