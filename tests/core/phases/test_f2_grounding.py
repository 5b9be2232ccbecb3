"""F2 grounding closure (Rule 21): classify, stable_ref, resolves_at on a real repository,
and the dereference step a Reference verdict gives the recipient."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import commit

from diylisis.core.model import RefKind, StableRef
from diylisis.core.phases.f2_grounding import classify, dereference_step, resolves_at, stable_ref
from diylisis.core.state import Grounding, Item, ItemKind, ItemOrigin
from diylisis.edges.gitio.context import GitCommandContext


def _item(item_id: str, kind: str, **fields: object) -> Item:
    return Item(id=item_id, token=fields.pop("token", item_id), line=1, column=0, kind=ItemKind(kind),
                origin=ItemOrigin.TARGET, **fields)


def test_classify_gives_each_item_kind_its_grounding() -> None:
    items = (
        _item("body", "content"),
        _item("ptr", "pointer", locator="docs/cli.md"),
        _item("issue", "session-id", resolution="https://example.org/acme/tool/issues/12"),
        _item("yesterday", "session-id", why="a time only the author knows"),
        _item("that-fix", "session-id"),
    )
    marks = {mark.item_id: mark for mark in classify(items)}
    assert [mark.item_id for mark in classify(items)] == ["body", "ptr", "issue", "yesterday", "that-fix"]
    assert marks["body"].grounding is Grounding.INLINE
    assert marks["ptr"].grounding is Grounding.STABLE_POINTER
    assert "docs/cli.md" in marks["ptr"].detail
    assert marks["issue"].grounding is Grounding.STABLE_POINTER
    assert "https://example.org/acme/tool/issues/12" in marks["issue"].detail
    assert marks["yesterday"].grounding is Grounding.ROUTED_RESIDUAL
    assert marks["yesterday"].detail == "a time only the author knows"
    assert marks["that-fix"].detail == "session-id the recipient cannot resolve"


@pytest.mark.parametrize(("locator", "kind", "stored"), [
    ("https://example.org/a", RefKind.URL, "https://example.org/a"),
    ("0123456789abcdef0123456789abcdef01234567", RefKind.ID, "0123456789abcdef0123456789abcdef01234567"),
    ("$ make test", RefKind.COMMAND, "make test"),
    ("git log -1", RefKind.COMMAND, "git log -1"),
    ("docs/cli.md", RefKind.PATH, "docs/cli.md"),
    ("abc12", RefKind.PATH, "abc12"),  # too short for an id
])
def test_stable_ref_reads_the_locator_kind(locator: str, kind: RefKind, stored: str) -> None:
    assert stable_ref(locator) == StableRef(kind=kind, locator=stored)


def test_resolves_at_checks_paths_and_commits_in_the_repository(repo: Path) -> None:
    first = commit(repo, "Add the CLI docs\n", {"docs/cli.md": "# CLI\n", "src/main.py": "print()\n"})
    context = GitCommandContext(repo, first)
    assert resolves_at("docs/cli.md", context)[0] is True
    assert resolves_at("./src/main.py", context)[0] is True
    assert resolves_at("docs", context)[0] is True  # a tracked folder
    holds, checked = resolves_at("docs/missing.md", context)
    assert holds is False and "not a tracked path" in checked
    holds, checked = resolves_at(first, context)
    assert holds is True and checked.startswith(f"commit {first[:12]}")
    assert resolves_at("deadbeefdeadbeefdeadbeefdeadbeefdeadbeef", context)[0] is False


@pytest.mark.parametrize(("locator", "why"), [
    ("/tmp/build.log", "temporary, home or machine-absolute path"),
    ("/home/someone/notes.txt", "temporary, home or machine-absolute path"),
    ("../outside.md", "temporary, home or machine-absolute path"),
    ("file:///etc/passwd", "file: links are local to one machine"),
    ("http://localhost:8080/run/3", "local, private or session-scoped URL"),
])
def test_resolves_at_refuses_what_only_the_author_can_open(repo: Path, locator: str, why: str) -> None:
    commit(repo, "Add a file\n", {"tmp/build.log": "x\n", "outside.md": "x\n"})
    assert resolves_at(locator, GitCommandContext(repo, None)) == (False, why)


def test_resolves_at_without_a_repository_holds_only_durable_urls() -> None:
    assert resolves_at("docs/cli.md", None) == (False, "no repository to resolve it in")
    assert resolves_at("https://example.org/acme/tool/issues/12", None) == (True, "durable public URL")


@pytest.mark.parametrize(("ref", "revision", "step"), [
    (StableRef(kind=RefKind.URL, locator="https://example.org/a"), "abc", "open https://example.org/a"),
    (StableRef(kind=RefKind.ID, locator="0123abcd"), None, "git show 0123abcd"),
    (StableRef(kind=RefKind.COMMAND, locator="make test"), "abc", "make test"),
    (StableRef(kind=RefKind.PATH, locator="docs/cli.md:12"), "abc", "git show abc:docs/cli.md"),
    (StableRef(kind=RefKind.PATH, locator="docs/cli.md"), None, "read docs/cli.md"),
])
def test_dereference_step_is_what_the_recipient_runs(ref: StableRef, revision: str | None, step: str) -> None:
    assert dereference_step(ref, revision) == step
