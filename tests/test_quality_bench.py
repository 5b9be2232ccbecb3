"""bench/quality.py on a tiny corpus written for this test (text-only and with --repos-root)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from tests.conftest import commit, git

ROOT = Path(__file__).resolve().parents[1]

RECORDS = [
    # (id, kind, lang, text, portable, labels)
    (
        "c1",
        "commit-message",
        "en",
        "Fix parser\n\nAs discussed, all tests pass.",
        False,
        [
            {"token": "As discussed", "category": "deictic"},
            {"token": "all tests pass", "category": "unverifiable-claim"},
        ],
    ),
    (
        "c2",
        "commit-message",
        "en",
        "Skip blank lines\n\nBlank lines ended the block early. Fixes #3.",
        True,
        [{"token": "#3", "category": "bare-issue-ref", "resolvable_on_host": True}],
    ),
    (
        "c3",
        "commit-message",
        "ko",
        "파서 수정\n\n이번 세션에서 정한 방식으로 바꿨다.",
        False,
        [{"token": "이번 세션", "category": "deictic"}],
    ),
    ("c4", "commit-message", "ko", "파서 수정\n\n빈 줄에서 블록이 끝나던 문제를 고쳤다.", True, []),
    (
        "p1",
        "pr-body",
        "en",
        "Adds retries.\n\nThe design is in plans/retry.md.",
        False,
        [{"token": "plans/retry.md", "category": "ephemeral-ref"}],
    ),
]


def write_corpus(path: Path, sha: str | None) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for rid, kind, lang, text, portable, labels in RECORDS:
            row = {
                "id": rid,
                "repo": "acme/widgets",
                "sha": sha if kind != "pr-body" else None,
                "kind": kind,
                "lang": lang,
                "text": text,
                "portable_for_reviewer": portable,
                "labels": labels,
            }
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(ROOT / "bench" / "quality.py"), *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )


def test_text_only_scores_and_line_format(tmp_path: Path) -> None:
    corpus = tmp_path / "tiny.jsonl"
    write_corpus(corpus, "0" * 40)
    done = bench(str(corpus))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("mode: text-only")
    # p1's untracked path needs a tree, so text-only misses it: 2 of 3 non-portable found, no false positive.
    assert lines[-1] == "quality: precision=1.000 recall=0.667 fp_rate=0.000 records=5"
    assert "quality[ko]: precision=1.000 recall=1.000 fp_rate=0.000 records=2" in lines
    assert "quality[pr-body]: precision=1.000 recall=0.000 fp_rate=0.000 records=1" in lines
    assert lines.index("quality[commit-message]: precision=1.000 recall=1.000 fp_rate=0.000 records=4") < len(lines) - 1


def test_repos_root_gives_commit_records_their_tree(tmp_path: Path, repo: Path) -> None:
    sha = commit(repo, "Add plans", {"plans/other.md": "x\n"})
    root = tmp_path / "repos"
    (root / "acme+widgets").mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(root / "acme+widgets" / "repo"))
    corpus = tmp_path / "tiny.jsonl"
    write_corpus(corpus, sha)
    done = bench(str(corpus), "--repos-root", str(root))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith(f"mode: repos-root {root}; contexts: host=1, tree=4")


def test_missing_corpus_is_exit_2(tmp_path: Path) -> None:
    done = bench(str(tmp_path / "absent.jsonl"))
    assert done.returncode == 2 and "no such corpus file" in done.stderr


def write_rows(path: Path, rows: list[dict]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps({"sha": None, "kind": "commit-message", "lang": "en"} | row) + "\n")


def test_on_label_counts_every_occurrence_of_a_token(tmp_path: Path) -> None:
    corpus = tmp_path / "twice.jsonl"
    write_rows(
        corpus,
        [
            {
                "id": "t1",
                "repo": "acme/widgets",
                "text": "Skip blank lines\n\nFixes #3. See #3 for the report.",
                "portable_for_reviewer": True,
                "labels": [{"token": "#3", "category": "bare-issue-ref", "resolvable_on_host": True}],
            }
        ],
    )
    done = bench(str(corpus))
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("bare-issue-ref "))
    # two findings, one per occurrence of the one label: both sit on it
    assert row.split()[-2:] == ["2", "1.000"]


def test_leave_one_source_out_drops_rules_only_that_source_attests(tmp_path: Path) -> None:
    corpus = tmp_path / "sources.jsonl"
    claim = {"token": "all tests pass", "category": "unverifiable-claim"}
    write_rows(
        corpus,
        [
            {"id": "a1", "repo": "acme/one", "text": "Fix parser\n\nNow all tests pass.",
             "portable_for_reviewer": False, "labels": [claim]},
            {"id": "b1", "repo": "acme/two", "text": "Fix lexer\n\nBlank lines ended the block early.",
             "portable_for_reviewer": True, "labels": []},
        ],
    )
    done = bench(str(corpus))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "quality: precision=1.000 recall=1.000 fp_rate=0.000 records=2"
    # the claim rule is attested by acme/one alone, so measuring acme/one without it misses the record
    assert lines[-2] == "quality[loso]: precision=1.000 recall=0.000 fp_rate=0.000 records=2"
    source = next(line for line in lines if line.startswith("other (2 sources)"))
    assert source.endswith("UC701")
    rule = next(line for line in lines if line.startswith("UC701 "))
    assert rule.split()[1:5] == ["error", "1", "1", "1.000"]


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("quality_bench", ROOT / "bench" / "quality.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(spec.name, None)
    return module


def test_task_file_context_leaves_its_own_file_out(tmp_path: Path, repo: Path) -> None:
    # the term is written only in the task file, so only that file could make it "defined in the repository"
    sha = commit(repo, "Add plan", {"notes/PLAN.md": "Rework the quillfeather cache.\n", "README.md": "x\n"})
    root = tmp_path / "repos"
    (root / "acme+widgets").mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(root / "acme+widgets" / "repo"))
    quality = load_bench()
    base = {"repo": "acme/widgets", "sha": sha, "text": "Rework the quillfeather cache."}
    repos: dict = {}
    as_commit, kind = quality.context_for(base | {"kind": "commit-message"}, root, repos)
    assert kind == "tree" and as_commit.mentions("quillfeather")
    # the corpus files name a task file by `path`, the shared records by a `path@sha` locator
    for own in ({"path": "notes/PLAN.md"}, {"locator": f"notes/PLAN.md@{sha}"}):
        as_file, kind = quality.context_for(base | {"kind": "task-file"} | own, root, repos)
        assert kind == "tree" and not as_file.mentions("quillfeather"), own
        assert as_file.tracked("notes/PLAN.md")
