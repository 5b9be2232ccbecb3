"""A rule that raises fails closed: RuleCrashed names the rule and the record."""

from __future__ import annotations

import pytest

from diylisis import workers
from diylisis.detectors import DetectSettings, detect
from diylisis.errors import RuleCrashed
from diylisis.model import RecordKind, Snapshot, Target


class BrokenTree:
    """A RepoContext whose repository questions fail, as a corrupt repository would."""

    has_tree = True

    def tracked(self, path: str) -> bool:
        raise OSError("tree unreadable")

    def commit_id(self, prefix: str) -> str | None:
        return None

    def origin(self) -> tuple[str, str, str] | None:
        return None

    def mentions(self, term: str) -> bool:
        return False


def test_a_crashing_rule_is_reported_with_its_id() -> None:
    snapshot = Snapshot(
        target=Target(kind=RecordKind.FILE, locator="notes.md"),
        data=b"Design notes are in plans/cache-design.md.\n",
        boundary="file bytes",
        path="notes.md",
    )
    with pytest.raises(RuleCrashed) as caught:
        detect(snapshot, BrokenTree(), DetectSettings())
    assert caught.value.rule_id == "EP507"
    assert "file:notes.md" in caught.value.message and "tree unreadable" in caught.value.message
    assert caught.value.exit_code == 70


@pytest.mark.skipif(not workers.can_fork(), reason="workers are forked on Linux only")
@pytest.mark.usefixtures("deadline")
def test_a_rule_crash_in_a_worker_process_reaches_the_caller_whole() -> None:
    def judge(part: list[int]) -> list[int]:
        if 30 in part:
            raise RuleCrashed("EP507", "commit:0123abcd", OSError("tree unreadable"))
        return part

    with pytest.raises(RuleCrashed) as caught:
        list(workers.in_order(range(40), judge, jobs=2, chunk=4))
    assert caught.value.rule_id == "EP507" and caught.value.exit_code == 70
    assert caught.value.message == "rule EP507 crashed on commit:0123abcd: OSError: tree unreadable"
