"""BoundaryUndefined from CODEOWNERS on the vet fixture: a claim about a path another owner holds
is handed to them, never asked; the author's own paths and a catch-all default owner are not."""

from __future__ import annotations

from pathlib import Path

from diylisis.app import vet, vet_session
from diylisis.core.vet import owners
from diylisis.core.vet.claims import Settlement
from diylisis.edges.gate import PausedGate
from tests.conftest import distill, git
from tests.vet_fixture import MERGE, TIMEOUT_CLAIM, build, commit_at


def _own(repo: Path, text: str) -> None:
    commit_at(repo, "2024-03-08", "Name the code owners", {".github/CODEOWNERS": text})


def _timeout_settlement(repo: Path) -> tuple[Settlement, str] | None:
    _, settled = vet.formation(repo, vet.pin_all(repo, MERGE))
    return next(((c.settlement, c.basis) for c in settled if c.claim.text == TIMEOUT_CLAIM), None)


def test_a_path_codeowners_gives_to_another_owner_is_handed_not_asked(repo: Path) -> None:
    build(repo)
    _own(repo, "# cache code\n* @everyone\n/src/ @cache-team  # the cache team\n")
    author = git(repo, "log", "-1", "--format=%ae").strip()
    assert _timeout_settlement(repo) == (
        Settlement.BOUNDARY_UNDEFINED,
        f"docs/design.md:3 names src/cache.py, which .github/CODEOWNERS:3 gives to @cache-team, not to the"
        f" action's author {author}")
    outcome = vet_session.start(repo, repo / ".git", MERGE, PausedGate())
    assert all(item.audit.claim.text != TIMEOUT_CLAIM for item in outcome.open_items)
    assert any(m.startswith("handed elsewhere: docs/design.md:3: it is not this author's to settle")
               for m in outcome.messages)

    # the stored result verifies: the boundary is measured the same way again at the commit
    for item in outcome.open_items:
        vet_session.answer(repo, repo / ".git", outcome.run_id, item.audit.id, "One run proves nothing.",
                           antithesis=item.antithesis.index, withdraw=False, revisit=None, handoff=None)
    done = vet_session.resume(repo, repo / ".git", outcome.run_id, PausedGate())
    assert isinstance(done, vet_session.Vetted)
    assert [h["deficit"] for h in done.result["handoffs"]] == ["BoundaryUndefined"]
    verified = distill(repo, "vet", "--verify", "--format", "json")
    assert verified.returncode == 0, verified.stdout


def test_the_authors_own_path_and_a_catch_all_owner_draw_no_boundary(repo: Path) -> None:
    build(repo)
    author = git(repo, "log", "-1", "--format=%ae").strip()
    _own(repo, f"* @everyone\n/src/ @cache-team {author}\n")
    assert _timeout_settlement(repo) is None  # asked: the author owns src/
    _own(repo, "* @everyone\n")
    assert _timeout_settlement(repo) is None  # the default owner covers the author's paths too
    _own(repo, "/src/ @cache-team\n/src/cache.py\n")  # a later rule with no owners releases the path
    assert _timeout_settlement(repo) is None


def test_the_last_matching_rule_owns_the_path() -> None:
    rules = owners.parse("CODEOWNERS", "*.py @python\n/src/ @core\n\n# note\n/src/cache.py @cache\n")
    assert [r.line for r in rules] == [1, 2, 5]
    found = owners.rule_for(rules, "src/cache.py")
    assert found is not None and found.owners == ("@cache",)
    other = owners.rule_for(rules, "src/retry.py")
    assert other is not None and other.owners == ("@core",)
    assert owners.rule_for(rules, "docs/design.md") is None
