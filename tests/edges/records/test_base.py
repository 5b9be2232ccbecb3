"""records.base: the one reader of a named file (message file, PR body file) and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from diylisis.core.errors import BadInput
from diylisis.core.model import RecordKind, Target
from diylisis.edges.records import read_snapshot
from diylisis.edges.records.base import read_named_file


def test_a_named_file_is_read_whole_within_its_bound_and_unbounded_without_one(tmp_path: Path) -> None:
    body = tmp_path / "body.md"
    body.write_bytes(b"x" * 100)
    assert read_named_file(str(body), "PR body file", 100) == b"x" * 100
    assert read_named_file(str(body), "message file", None) == b"x" * 100
    with pytest.raises(BadInput, match=r"^PR body file .*body\.md is 100 bytes, over the 99-byte record limit$"):
        read_named_file(str(body), "PR body file", 99)


def test_a_missing_or_unreadable_named_file_is_one_line_of_bad_input(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match=r"^message file .*nope does not exist$"):
        read_named_file(str(tmp_path / "nope"), "message file", None)
    with pytest.raises(BadInput, match=r"^cannot read PR body file .*: Is a directory$"):
        read_named_file(str(tmp_path), "PR body file", None)


def test_both_adapters_report_a_missing_file_through_it(repo: Path) -> None:
    for kind, what in ((RecordKind.MSGFILE, "message file"), (RecordKind.PRBODY, "PR body file")):
        with pytest.raises(BadInput, match=rf"^{what} .*gone\.txt does not exist$"):
            read_snapshot(Target(kind=kind, locator=str(repo / "gone.txt")), repo)


def test_a_pr_body_file_over_the_limit_is_refused_before_it_is_read(repo: Path) -> None:
    (repo / "body.md").write_bytes(b"Fix the retry\n" * 100)
    with pytest.raises(BadInput, match="is 1400 bytes, over the 1000-byte record limit"):
        read_snapshot(Target(kind=RecordKind.PRBODY, locator=str(repo / "body.md")), repo, max_bytes=1000)
