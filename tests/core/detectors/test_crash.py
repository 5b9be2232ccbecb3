"""A rule that raises fails closed: RuleCrashed names the rule and the record."""

from __future__ import annotations

import pytest

from diylisis.core.detectors import DetectSettings, detect
from diylisis.core.errors import RuleCrashed
from diylisis.core.model import RecordKind, Snapshot, Target


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

    def uses_identifier(self, name: str) -> bool:
        return False

    def in_change(self, text: str) -> bool:
        return False


def test_a_crashing_rule_is_reported_with_its_id() -> None:
    snapshot = Snapshot(
        target=Target(kind=RecordKind.MSGFILE, locator="COMMIT_EDITMSG"),
        data=b"Move the design notes\n\nThey are in plans/cache-design.md.\n",
        boundary="file bytes",
    )
    with pytest.raises(RuleCrashed) as caught:
        detect(snapshot, BrokenTree(), DetectSettings())
    assert caught.value.rule_id == "EP507"
    assert "msgfile:COMMIT_EDITMSG" in caught.value.message and "tree unreadable" in caught.value.message
    assert caught.value.exit_code == 70
