"""`git distill hook commit-msg FILE` on real repositories: repairs, refusals, skips, output."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

import pytest
from hookutil import CLEAN, RESIDUE, committed_repo, distill, distill_on_terminal, ok, run, write

from diylisis.core.generated import generated


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return committed_repo(tmp_path / "work")


def _message(repo: Path, text: str) -> Path:
    path = repo / ".git" / "COMMIT_EDITMSG"
    path.write_text(text, encoding="utf-8")
    return path


def _certified(repo: Path, data: str) -> list[dict]:
    blob = ok(repo, "git", "hash-object", "--stdin", input=data).strip()
    shown = run(repo, "git", "notes", "--ref", "distill", "show", blob)
    return [json.loads(line) for line in shown.stdout.splitlines()] if shown.returncode == 0 else []


def _pending(repo: Path, data: str) -> list[dict]:
    """The certificates the commit-msg hook left for these bytes, waiting for post-commit."""
    path = repo / ".git" / "distill" / "hook-certificate.json"
    if not path.exists():
        return []
    digest = "sha256:" + hashlib.sha256(data.encode("utf-8")).hexdigest()
    entries = json.loads(path.read_text(encoding="utf-8"))["entries"]
    return [entry["certificate"] for entry in entries if entry["digest"] == digest]


def _run_files(repo: Path) -> list[str]:
    runs = repo / ".git" / "distill" / "runs"
    return sorted(p.name for p in runs.iterdir()) if runs.is_dir() else []


def test_clean_message_is_silent_and_certified_as_git_will_store_it(work: Path) -> None:
    path = _message(work, CLEAN + "\n# Please enter the commit message for your changes.\n")
    done = distill(work, "hook", "commit-msg", str(path))
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""
    assert [c["role"] for c in _pending(work, CLEAN)] == ["reviewer"]
    assert _certified(work, CLEAN) == []  # nothing durable before git has stored the message
    assert _run_files(work) == []  # a hook run leaves no run state behind
    ok(work, "git", "commit", "-q", "--allow-empty", "--no-verify", "--cleanup=strip", "-F", str(path))
    assert distill(work, "hook", "post-commit").returncode == 0
    assert [c["role"] for c in _certified(work, CLEAN)] == ["reviewer"]
    assert _pending(work, CLEAN) == []  # taken by post-commit


def test_a_commit_through_the_editor_verifies(work: Path) -> None:
    assert distill(work, "install-hooks", "-q").returncode == 0
    # git writes its comment template into the file, the editor leaves it, git strips it
    done = run(work, "git", "commit", "-q", "--allow-empty", "-e", "-m", CLEAN,
               extra={"GIT_EDITOR": "true"})
    assert done.returncode == 0, done.stderr
    assert ok(work, "git", "log", "-1", "--format=%B").strip() == CLEAN.strip()
    assert distill(work, "verify", "HEAD").returncode == 0


def test_residue_is_refused_with_each_finding_and_the_reuse_command(work: Path) -> None:
    path = _message(work, RESIDUE + "\n")
    done = distill(work, "hook", "commit-msg", str(path))
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    finding = next(line for line in lines if "discussed above" in line)
    assert "line 1" in finding and re.search(r"\[[A-Z]{1,3}\d{3}\]", finding)  # the rule id
    assert any(line.strip().startswith("fix: ") for line in lines)
    assert any(re.fullmatch(r"\s+item [\w-]+", line) for line in lines)
    assert f"git commit -e -F {path}" in done.stderr
    assert "\033[" not in done.stderr  # not a terminal: no color
    assert path.read_text(encoding="utf-8") == RESIDUE + "\n"
    assert _certified(work, RESIDUE + "\n") == []
    assert _run_files(work) == []


def test_a_bare_issue_number_becomes_a_url_of_the_origin_host(work: Path) -> None:
    ok(work, "git", "remote", "add", "origin", "https://github.com/example/widget.git")
    text = ("Stop the uploader from retrying forever\n\n"
            "The retry loop now ends after five attempts; closes #12.\n")
    path = _message(work, text)
    done = distill(work, "hook", "commit-msg", "--verbose", str(path))
    assert done.returncode == 0, done.stderr
    repaired = path.read_text(encoding="utf-8")
    assert "closes https://github.com/example/widget/issues/12." in repaired
    assert "#12" in done.stderr  # --verbose names the repair
    assert _pending(work, repaired)
    ok(work, "git", "commit", "-q", "--allow-empty", "--no-verify", "-F", str(path))
    assert distill(work, "hook", "post-commit").returncode == 0
    assert distill(work, "verify", "HEAD").returncode == 0


@pytest.mark.parametrize("text", [
    "fixup! Start the widget repository\n",
    "squash! Start the widget repository\n\nas discussed above\n",
    "Merge branch 'feature/upload' into main\n",
    "Merge remote-tracking branch 'origin/main'\n",
    'Revert "Start the widget repository"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.\n',
])
def test_generated_messages_are_skipped_unless_configured(work: Path, text: str) -> None:
    assert generated(text) is not None
    path = _message(work, text)
    skipped = distill(work, "hook", "commit-msg", "-v", str(path))
    assert skipped.returncode == 0 and "skipped" in skipped.stderr
    assert _pending(work, text) == []
    (work / ".distill.toml").write_text("[hooks]\ncheck_generated = true\n", encoding="utf-8")
    checked = distill(work, "hook", "commit-msg", str(path))
    assert "skipped" not in checked.stderr
    assert checked.returncode == 1 or _pending(work, text)


def test_an_edited_revert_message_is_authored() -> None:
    assert generated('Revert "Add cache"\n\nThis reverts commit 0123456.\n\nIt broke '
                     "the nightly import, as discussed above.\n") is None
    assert generated("Merge the upload rework\n") is None


def test_role_comes_from_the_hooks_section(work: Path) -> None:
    (work / ".distill.toml").write_text('[hooks]\nrole = "implementer"\n', encoding="utf-8")
    path = _message(work, CLEAN)
    assert distill(work, "hook", "commit-msg", str(path)).returncode == 0
    assert [c["role"] for c in _pending(work, CLEAN)] == ["implementer"]


def test_empty_message_is_left_to_git(work: Path) -> None:
    path = _message(work, "# only a comment\n\n")
    done = distill(work, "hook", "commit-msg", str(path))
    assert done.returncode == 0 and done.stderr == ""


def test_missing_message_file_is_bad_input(work: Path) -> None:
    done = distill(work, "hook", "commit-msg", str(work / "no-such-file"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("text", [CLEAN, RESIDUE + "\n"])
def test_hook_path_imports_neither_pygit2_nor_rich(work: Path, text: str) -> None:
    path = _message(work, text)
    done = run(work, sys.executable, "-X", "importtime", "-m", "diylisis", "hook", "commit-msg",
               str(path))
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    assert "diylisis.app.hooks.commit_msg" in imported
    assert not {name for name in imported if name.split(".")[0] in ("pygit2", "rich")}


def _stderr_on_terminal(repo: Path, path: Path, **variables: str) -> bytes:
    import os

    environ = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return distill_on_terminal(repo, "hook", "commit-msg", str(path), environ={**environ, **variables})[1]


def test_color_only_on_a_terminal_and_never_with_no_color(work: Path) -> None:
    path = _message(work, RESIDUE + "\n")
    assert b"\x1b[1;31m" in _stderr_on_terminal(work, path)
    plain = _stderr_on_terminal(work, path, NO_COLOR="1")
    assert b"discussed above" in plain and b"\x1b[" not in plain


def test_a_path_staged_in_this_commit_resolves(work: Path) -> None:
    assert distill(work, "install-hooks", "-q").returncode == 0
    write(work, "src/retry.py", "MAX_ATTEMPTS = 5\n")
    done = run(work, "git", "commit", "-q", "-m",
               "Add src/retry.py with the upload attempt limit\n\n"
               "src/retry.py holds MAX_ATTEMPTS, read by the uploader.\n")
    assert done.returncode == 0, done.stderr
    assert distill(work, "verify", "HEAD").returncode == 0
    ok(work, "git", "rm", "-q", "--cached", "src/retry.py")
    removed = run(work, "git", "commit", "-q", "-m",
                  "Stop shipping src/retry.py\n\nThe limit in src/retry.py moves to the config.\n")
    assert removed.returncode == 0, removed.stderr  # the path the change removes is its subject
    refused = run(work, "git", "commit", "-q", "--allow-empty", "-m",
                  "Tune the uploader\n\nThe limit in src/retry.py is now 3.\n")
    assert refused.returncode != 0 and "src/retry.py" in refused.stderr  # untracked, and not this change's


def test_a_bad_notes_ref_setting_stops_only_a_certificate_write(work: Path) -> None:
    """The store starts early, but its settings are judged when a certificate is written, as before."""
    ok(work, "git", "config", "distill.notesRef", "refs/heads/main")
    refused = distill(work, "hook", "commit-msg", str(_message(work, RESIDUE)))
    assert refused.returncode == 1 and "not portable" in refused.stderr
    failed = distill(work, "hook", "commit-msg", str(_message(work, CLEAN)))
    assert failed.returncode == 2 and "distill.notesRef" in failed.stderr
    assert ok(work, "git", "for-each-ref", "refs/notes", "refs/distill") == ""
