"""The message git stores is always one of the hook's readings: fuzzed real `git commit` runs.

Each run picks a commit.cleanup and core.commentChar configuration, a way to give the message
(-m, -F, the editor, -e with either), -v or not, a --cleanup= on the command line or not, and
a message made of lines that matter to git's cleanup (comment lines of each comment string,
scissors lines, git's own notice, blank and space-only lines, trailing blanks). A capturing
commit-msg hook keeps the message file and the facts the real hook reads (GIT_EDITOR,
GIT_INDEX_FILE); the readings computed from them must include the bytes of the commit git made.

The seed is fixed; DISTILL_FUZZ_COMMITS and DISTILL_FUZZ_SEED run more (bench/).
"""

from __future__ import annotations

import os
import random
import stat
import subprocess
from pathlib import Path

from conftest import commit, git

from diylisis.edges.records import msgfile

COMMITS = int(os.environ.get("DISTILL_FUZZ_COMMITS", "200"))
SEED = int(os.environ.get("DISTILL_FUZZ_SEED", "15"))

HOOK = """#!/bin/sh
cp "$1" "$(git rev-parse --git-dir)/captured-message"
{ printf '%s\\n' "${GIT_INDEX_FILE+index}"; printf '%s' "${GIT_EDITOR-}"; } > "$(git rev-parse --git-dir)/captured-env"
"""

EDITOR = """#!/bin/sh
case "$EDIT_ACTION" in
  keep) ;;
  prepend) { printf '%s' "$EDIT_TEXT"; cat "$1"; } > "$1.new" && mv "$1.new" "$1" ;;
  append) { cat "$1"; printf '%s' "$EDIT_TEXT"; } > "$1.new" && mv "$1.new" "$1" ;;
  replace) printf '%s' "$EDIT_TEXT" > "$1" ;;
esac
"""

CUT = "------------------------ >8 ------------------------"
LINES = (
    "Fix the parser on empty input", "Body text that stays", "  indented line", "trailing blanks   ",
    "tab at end\t", "", "", "   ", "# a comment line", "#123 starts with a hash", "; a semicolon line",
    "@ an at line", f"# {CUT}", f"; {CUT}", "# Do not modify or remove the line above.",
    "# Everything below it will be ignored.", "diff --git a/x b/x", "!bang line", "| pipe line",
)


def _script(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _text(rng: random.Random) -> str:
    lines = [rng.choice(LINES) for _ in range(rng.randint(1, 7))]
    return "\n".join(lines) + rng.choice(("\n", "", "\n\n"))


def test_the_stored_message_is_one_of_the_hooks_readings(repo: Path, tmp_path: Path) -> None:
    git(repo, "config", "--unset", "commit.cleanup")
    commit(repo, "Start the history\n", {"a.txt": "one\n"})
    _script(repo / ".git" / "hooks" / "commit-msg", HOOK)
    editor = _script(tmp_path / "editor.sh", EDITOR)
    rng = random.Random(SEED)
    made = misses = 0
    for number in range(COMMITS):
        cleanup = rng.choice((None, "default", "strip", "whitespace", "verbatim", "scissors"))
        comment = rng.choice((None, None, ";", "auto"))
        for key, value in (("commit.cleanup", cleanup), ("core.commentChar", comment)):
            if value is None:
                subprocess.run(["git", "config", "--unset", key], cwd=repo, check=False)
            else:
                git(repo, "config", key, value)
        message = _text(rng)
        (tmp_path / "MSG").write_text(message, encoding="utf-8")
        source = rng.choice((("-m", message), ("-F", str(tmp_path / "MSG")), (), ("-e", "-m", message),
                             ("-e", "-F", str(tmp_path / "MSG"))))
        args = ["commit", "-q", "--allow-empty", "--allow-empty-message", *source]
        if rng.random() < 0.4:
            args.append("-v")
        if rng.random() < 0.4:
            args.append(f"--cleanup={rng.choice(('default', 'strip', 'whitespace', 'verbatim', 'scissors'))}")
        (repo / "a.txt").write_text(f"{number}\n", encoding="utf-8")
        git(repo, "add", "a.txt")
        env = {**os.environ, "GIT_EDITOR": editor,
               "EDIT_ACTION": rng.choice(("keep", "prepend", "append", "replace")), "EDIT_TEXT": _text(rng)}
        done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True)
        if done.returncode != 0:
            continue  # git refused this invocation itself (for example an aborted empty edit)
        made += 1
        body = subprocess.run(["git", "cat-file", "commit", "HEAD"], cwd=repo, capture_output=True,
                              check=True).stdout
        stored = body.partition(b"\n\n")[2]
        raw = (repo / ".git" / "captured-message").read_bytes()
        index, _, editor_value = (repo / ".git" / "captured-env").read_text().partition("\n")
        facts = {"GIT_EDITOR": editor_value, **({"GIT_INDEX_FILE": "x"} if index == "index" else {})}
        readings = msgfile.readings(raw, (cleanup or "default").lower(), comment,
                                    msgfile.editor_from(facts))
        if stored not in readings:
            misses += 1
            assert stored in readings, (args, cleanup, comment, raw, stored, readings)
    assert made > COMMITS // 2  # most invocations made a commit, so the property was tested
    assert misses == 0
