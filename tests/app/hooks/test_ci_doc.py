"""docs/ci.md stays runnable: its shell job passes and fails in a fresh clone, its workflow parses."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from hookutil import CHECKOUT, CLEAN, bare, distill, new_repo, ok, run, write

DOC = (CHECKOUT / "docs" / "ci.md").read_text(encoding="utf-8")


def _block(language: str, after: str) -> str:
    start = DOC.index(after)
    return re.search(rf"```{language}\n(.*?)```", DOC[start:], re.DOTALL).group(1)


def test_the_workflow_parses_and_does_what_the_page_says() -> None:
    workflow = yaml.safe_load(_block("yaml", "## GitHub Actions"))
    steps = workflow["jobs"]["verify"]["steps"]
    assert steps[0]["with"]["fetch-depth"] == 0
    fetch = next(step["run"] for step in steps if step.get("name") == "Fetch the certificates")
    assert "refs/notes/distill" in fetch and "refs/distill/snapshots" in fetch
    verify = next(step["run"] for step in steps if "verify --range" in step.get("run", ""))
    assert "--format sarif > distill.sarif" in verify
    upload = next(step for step in steps if "upload-sarif" in step.get("uses", ""))
    assert upload["with"]["sarif_file"] == "distill.sarif" and upload["if"] == "always()"
    assert workflow["permissions"]["security-events"] == "write"
    install = next(step["run"] for step in steps if step.get("name") == "Install git distill")
    # the package is not on PyPI: a bare `pip install diylisis` would fail in every CI that copies this
    assert re.fullmatch(r'pip install "git\+<URL of the diylisis repository>@[^"]+"', install.strip()), install


def test_the_shell_job_passes_then_fails_in_a_fresh_clone(tmp_path: Path) -> None:
    script = tmp_path / "distill-ci.sh"
    script.write_text(_block("sh", "## Any other CI"), encoding="utf-8")
    work = new_repo(tmp_path / "work")
    ok(work, "git", "remote", "add", "origin", str(bare(tmp_path / "remote.git")))
    assert distill(work, "install-hooks", "-q").returncode == 0
    write(work, "README.md", "widget\n")
    ok(work, "git", "commit", "-q", "-m", "Start the widget repository with a README")
    base = ok(work, "git", "rev-parse", "HEAD").strip()
    write(work, "src/upload.py", "MAX_ATTEMPTS = 5\n")
    ok(work, "git", "commit", "-q", "-m", CLEAN)
    ok(work, "git", "push", "-q", "origin", "main")

    clone = tmp_path / "clone"
    ok(tmp_path, "git", "clone", "-q", str(tmp_path / "remote.git"), str(clone))
    passed = run(clone, "sh", str(script), base)
    assert passed.returncode == 0, passed.stderr
    assert json.loads((clone / "distill.json").read_text())["ok"] is True

    write(work, "src/upload.py", "MAX_ATTEMPTS = 6\n")
    ok(work, "git", "commit", "-q", "--no-verify", "-m", "Raise the attempt limit to six")
    ok(work, "git", "push", "-q", "--no-verify", "origin", "main")
    ok(clone, "git", "pull", "-q", "--ff-only")
    failed = run(clone, "sh", str(script), base)
    assert failed.returncode == 1
    assert json.loads((clone / "distill.json").read_text())["ok"] is False
