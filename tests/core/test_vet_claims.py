"""The certificate's arms: claims handed elsewhere or unattributable are reported, never asked."""

from __future__ import annotations

from pathlib import Path

from diylisis.app import vet, vet_session
from diylisis.core.vet.claims import Settlement
from diylisis.edges.gate import PausedGate
from tests.vet_fixture import MERGE, build, commit_at


def _settled(repo: Path, request: vet.VetRequest) -> dict[str, tuple[Settlement, str]]:
    _, settled = vet.formation(repo, vet.pin_all(repo, request))
    return {c.claim.text: (c.settlement, c.basis) for c in settled}


def test_the_lru_claim_is_unattributable_after_one_narrowed_reassessment(repo: Path) -> None:
    build(repo)
    settled = _settled(repo, MERGE)
    lru = settled["Eviction is LRU: the least recently used entry goes first."]
    assert lru[0] is Settlement.UNATTRIBUTABLE
    assert lru[1] == ("none: 5 files rest on docs/design.md, but nothing at the vetted commit holds a value"
                      " for docs/design.md:4")
    paused = vet_session.start(repo, repo / ".git", MERGE, PausedGate())
    assert all("LRU" not in item.audit.claim.text for item in paused.open_items)  # never asked
    assert any(m.startswith("unattributable: docs/design.md:4: none:") for m in paused.messages)


def test_not_measured_yet_is_handed_and_alone_it_is_the_second_trivial_convergence(repo: Path) -> None:
    build(repo)
    request = vet.VetRequest(action="hand off the cache work", sources=("tasks/handoff.md",))
    settled = _settled(repo, request)
    text = "The hit rate under load is not measured yet, see docs/design.md."
    assert settled[text][0] is Settlement.CONTEXT_INSUFFICIENT
    outcome = vet_session.start(repo, repo / ".git", request, PausedGate())
    assert isinstance(outcome, vet_session.Vetted) and outcome.messages[0] == vet_session.NONE_CLAIMED
    assert any("(/inquire)" in m for m in outcome.messages)
    assert outcome.result is not None
    assert outcome.result["dispositions"] and outcome.result["trace"] == {}
    assert outcome.result["handoffs"][0]["deficit"] == "ContextInsufficient"  # type: ignore[index]


def test_an_open_decision_box_and_a_vendored_path_are_handed(repo: Path) -> None:
    build(repo)
    commit_at(repo, "2024-03-08", "Plan the eviction work", {"docs/plan.md": (
        "# Plan\n\n- [ ] decide eviction policy for the cache\n\n"
        "Never edit vendor/cachelib/lru.py by hand, it is always regenerated.\n")})
    settled = _settled(repo, vet.VetRequest(action="deploy", sources=("docs/plan.md",)))
    assert settled["- [ ] decide eviction policy for the cache"][0] is Settlement.GAP_UNNOTICED
    assert settled["Never edit vendor/cachelib/lru.py by hand, it is always regenerated."][0] is (
        Settlement.BOUNDARY_UNDEFINED)


def test_a_claim_the_action_does_not_read_is_unattributable(repo: Path) -> None:
    build(repo)
    commit_at(repo, "2024-03-08", "Note the cache speed", {"docs/speed.md": "The cache will never be slow.\n"})
    request = vet.VetRequest(action="merge feature/retry", range="main..feature/retry", sources=("docs/speed.md",))
    settled = _settled(repo, request)
    assert settled["The cache will never be slow."] == (Settlement.UNATTRIBUTABLE,
                                                        "none: the action does not read docs/speed.md")
