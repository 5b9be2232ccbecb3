"""The commit-msg hook's import budget: what `python -X importtime -m diylisis hook commit-msg` loads.

The hook runs on every commit, and importing pygit2 alone costs more than gitlint's whole run
on one message. This test runs the real hook on a clean message in a real temporary repository
and reads the interpreter's own import log: no heavy third-party or stdlib module from DENIED
may load, and every diylisis module that loads must be one the fast path needs (ALLOWED).
Timing itself is left to bench/perf.py; this test only fails on what was imported.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import commit

CLEAN_MESSAGE = """\
Reject negative offsets in the archive reader

The archive reader now stops with exit code 2 when an entry header gives a
negative offset, and names the entry. It used to seek backwards and read
the previous entry's bytes as this one's content.
"""

# Heavy modules the fast path has no use for: pygit2 (and cffi under it), rich (and the
# markdown and highlighting stacks it pulls in), click (cli.main dispatches `hook commit-msg
# FILE` before importing it), schema validation, stdlib families a message check never
# needs (networking, email, XML, async, process pools, logging), and what the hook's own
# modules avoid because each import costs milliseconds on every commit: subprocess and what it
# pulls in (gitio starts git with os.posix_spawnp), dataclasses (the models are msgspec Structs),
# pathlib with urllib.parse (paths are strings), hashlib's OpenSSL module (diylisis.core.digests),
# tomllib (read only when a configuration file exists), array, and json (the per-user cache is
# marshal, the pending certificate is written by msgspec's encoder). typing and decimal are not
# here: msgspec loads both.
DENIED = frozenset({
    "pygit2", "_cffi_backend", "cffi", "rich", "pygments", "markdown_it", "mdurl", "click",
    "jsonschema", "referencing", "rpds", "tomli_w", "yaml", "_yaml",
    "importlib.metadata", "email", "http", "urllib.request", "xml", "ssl", "socket",
    "asyncio", "concurrent", "multiprocessing", "sqlite3", "unittest", "logging",
    "pickle", "tarfile", "zipfile", "argparse", "difflib",
    "subprocess", "threading", "selectors", "signal", "fnmatch", "unicodedata",
    "dataclasses", "pathlib", "urllib.parse",
    "hashlib", "_hashlib", "tomllib", "array", "json",
})

# The diylisis modules the commit-msg path needs: the command line entry and the hooks, the
# certification engine and its phases, the built-in lint refuter, the detectors and the
# `git`-subprocess context, the msgfile adapter (and the adapter registry it sits in), run
# files, and the escaping of printed text (the brief it writes quotes the record). Not the note
# store (with notes and note_text under it) nor signing: the hook writes no note and signs
# nothing (post-commit stores, and signs if asked). Scans, verification, rendering, SARIF,
# pygit2 contexts and history walks, the external refuter command and the other commands are
# not on it, nor the gates (a clean message asks no question) and the other record adapters.
# The secret scanner checks every reading, and hook_certificates keeps the certificate for
# post-commit. The configuration carries the rule for generated messages (core.generated);
# DISTILL_SKIP and SKIP are read by core.skip.
ALLOWED = frozenset({
    "diylisis", "diylisis.cli", "diylisis.core.errors",
    "diylisis.app.hooks", "diylisis.app.hooks.commit_msg", "diylisis.app.hooks.shared",
    "diylisis.core.model", "diylisis.core.digests",
    "diylisis.core.state", "diylisis.core.secrets", "diylisis.edges.hook_certificates",
    "diylisis.app.certification", "diylisis.edges.workspace", "diylisis.edges.git_keys", "diylisis.core.codec",
    "diylisis.edges.config",
    "diylisis.edges.run_files",
    "diylisis.edges", "diylisis.core.engine", "diylisis.edges.gitio",
    "diylisis.edges.gitio.context",
    "diylisis.edges.records", "diylisis.edges.records.base", "diylisis.edges.records.msgfile",
    "diylisis.core.phases", "diylisis.core.phases.f0_contract", "diylisis.core.phases.f1_deixis",
    "diylisis.core.phases.f2_grounding", "diylisis.core.phases.f3_disposition", "diylisis.core.phases.f4_judgments",
    "diylisis.core.phases.f6_settle", "diylisis.core.phases.f7_certify", "diylisis.core.phases.repair",
    "diylisis.core.refuter", "diylisis.core.refuter.lint",
    "diylisis.core.detectors", "diylisis.core.detectors._match", "diylisis.core.detectors.claims",
    "diylisis.core.detectors.deixis", "diylisis.core.detectors.evidence", "diylisis.core.detectors.lexicon",
    "diylisis.core.detectors.narration",
    "diylisis.core.detectors.places", "diylisis.core.detectors.references", "diylisis.core.detectors.rendering",
    "diylisis.core.detectors.rule", "diylisis.core.detectors.session", "diylisis.core.detectors.settings",
    "diylisis.core.detectors.suppressions",
    "diylisis.core.detectors.terms", "diylisis.core.detectors.text",
    "diylisis.core.safe_text", "diylisis.core", "diylisis.core.generated", "diylisis.core.skip", "diylisis.core.cjk",
    "diylisis.core.detectors.prefilter", "diylisis.core.lazy_pattern",
    "diylisis.edges.user_cache",
    # the layer packages (DESIGN.md, Layout), and F0's file-system guard and F5's choice of
    # realization, which live in the edges
    "diylisis.app", "diylisis.edges.certificate_target", "diylisis.edges.refuter_choice",
})

_LINE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|(?P<indent> *)(?P<name>\S+)\s*$")


def imported_modules(stderr: str) -> set[str]:
    """Module names from `python -X importtime` output (stderr)."""
    names = set()
    for line in stderr.splitlines():
        match = _LINE.match(line)
        if match:
            names.add(match.group("name"))
    return names


def denied(modules: set[str]) -> set[str]:
    """The loaded modules that are, or live under, a DENIED name."""
    return {m for m in modules if any(m == d or m.startswith(d + ".") for d in DENIED)}


def run_hook(repo: Path, message: str) -> subprocess.CompletedProcess[str]:
    """The documented hook command under -X importtime, in repo, on a message file."""
    path = repo / ".git" / "COMMIT_EDITMSG"
    path.write_text(message, encoding="utf-8")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "diylisis", "hook", "commit-msg", str(path)],
        cwd=repo, env=env, capture_output=True, text=True, check=False,
    )


def startup_modules(repo: Path) -> set[str]:
    """What this interpreter loads before running any code (site and .pth files: an editable
    install's finder imports pathlib, for one); those loads are not the hook's doing."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "pass"], cwd=repo, env=env,
                          capture_output=True, text=True, check=True)
    return imported_modules(done.stderr)


def test_hook_on_a_clean_message_loads_only_its_fast_path(repo: Path) -> None:
    commit(repo, "Add the archive reader\n", {"src/archive.py": "def read(path):\n    return b''\n"})
    run_hook(repo, CLEAN_MESSAGE)  # the first run after an install fills the per-user lexicon cache
    done = run_hook(repo, CLEAN_MESSAGE)
    modules = imported_modules(done.stderr)
    assert done.returncode == 0, done.stderr[-2000:]
    assert {"diylisis.cli", "diylisis.app.hooks.commit_msg"} <= modules  # the log was read, and it is the hook's
    heavy = denied(modules - startup_modules(repo))
    assert heavy == set(), f"the commit-msg hook loaded heavy modules: {sorted(heavy)}"
    extra = {m for m in modules if m.startswith("diylisis.")} - ALLOWED
    assert extra == set(), f"the commit-msg hook loaded modules off its fast path: {sorted(extra)}"


def test_hook_on_a_clean_message_starts_only_the_git_processes_it_reads(repo: Path, tmp_path: Path) -> None:
    """`git rev-parse` (root, git dir, HEAD) and one `git config` (cleanup, comment char, origin,
    store and signing settings): git's own trace names every git command a process ran."""
    commit(repo, "Add the archive reader\n", {"src/archive.py": "def read(path):\n    return b''\n"})
    path = repo / ".git" / "COMMIT_EDITMSG"
    path.write_text(CLEAN_MESSAGE, encoding="utf-8")
    trace = tmp_path / "git-trace.txt"
    done = subprocess.run([sys.executable, "-m", "diylisis", "hook", "commit-msg", str(path)], cwd=repo,
                          env={**os.environ, "GIT_TRACE": str(trace)}, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    commands = [line.split("trace: built-in: git ", 1)[1].split()[0]
                for line in trace.read_text(encoding="utf-8").splitlines() if "trace: built-in: git " in line]
    assert sorted(commands) == ["config", "rev-parse"], commands


def test_the_budget_check_sees_a_denied_import(repo: Path) -> None:
    """The parser and the deny list catch pygit2 when something does load it."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import pygit2, diylisis.app.hooks"],
                          cwd=repo, capture_output=True, text=True, check=True)
    modules = imported_modules(done.stderr)
    assert "pygit2" in denied(modules)
    assert "diylisis.app.hooks" in modules
