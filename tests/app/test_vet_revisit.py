"""The Revisit loop: conditions as git predicates anchored when answered; a met one re-asks with a
fresh challenge, an unmet one is "not carried out", and a repeated one terminates."""

from __future__ import annotations

from pathlib import Path

import pytest

from diylisis.app import vet_session
from diylisis.core.vet import triggers
from diylisis.edges import vet_triggers
from diylisis.edges.gate import PausedGate
from tests.conftest import commit, distill
from tests.vet_fixture import BOTTLENECK_CLAIM, MERGE, TIMEOUT_CLAIM, audit_ids, build

GIT_DIR = Path(".git")


def _answer(repo: Path, run: str, audit: str, index: int, verdict: str, revisit: str | None = None) -> tuple[str, ...]:
    return vet_session.answer(repo, repo / GIT_DIR, run, audit, verdict, antithesis=index, withdraw=False,
                              revisit=revisit, handoff=None)


@pytest.mark.parametrize(("text", "kind", "argument"), [
    ("changed:src/cache.py", triggers.ConditionKind.CHANGED, "src/cache.py"),
    ("gone:src/cache.py", triggers.ConditionKind.GONE, "src/cache.py"),
    ("tracked:tests/test_cache.py", triggers.ConditionKind.TRACKED, "tests/test_cache.py"),
    ("reachable:v2", triggers.ConditionKind.REACHABLE, "v2"),
    ("ref:release", triggers.ConditionKind.REF, "release"),
    ("when the load test is done", triggers.ConditionKind.FREE_TEXT, "when the load test is done"),
    ("changed: two words", triggers.ConditionKind.FREE_TEXT, "changed: two words"),
])
def test_conditions_parse_into_their_forms(text: str, kind: triggers.ConditionKind, argument: str) -> None:
    assert triggers.parse(text) == triggers.Condition(kind=kind, argument=argument)


def test_conditions_are_read_from_git_and_met_only_after_a_change(repo: Path) -> None:
    build(repo)
    gone = triggers.parse("gone:src/cache.py")
    assert vet_triggers.state(repo, gone) == "does not hold"
    assert vet_triggers.state(repo, triggers.parse("ref:main")) == "holds"
    assert vet_triggers.state(repo, triggers.parse("reachable:main")) == "holds"
    assert vet_triggers.state(repo, triggers.parse("tracked:nowhere.py")) == "does not hold"
    assert vet_triggers.state(repo, triggers.parse("free words")) is None
    assert triggers.met(gone, "does not hold", "holds")
    assert not triggers.met(gone, "holds", "holds")  # held when answered: no loop
    changed = triggers.parse("changed:src/cache.py")
    blob = vet_triggers.state(repo, changed)
    assert blob is not None and not triggers.met(changed, blob, blob)


def test_a_revisit_met_while_paused_reenters_with_a_fresh_challenge_and_a_repeat_terminates(repo: Path) -> None:
    build(repo)
    ids = audit_ids(repo)
    timeout, index = ids[TIMEOUT_CLAIM]
    paused = vet_session.start(repo, repo / GIT_DIR, MERGE, PausedGate())
    _answer(repo, paused.run_id, timeout, index, "Depends on the next cache change.", revisit="changed:src/cache.py")
    _answer(repo, paused.run_id, ids[BOTTLENECK_CLAIM][0], 1, "One run is not a rule.")
    # the author changes the code the claim names while the run is paused
    commit(repo, "Lower the cache timeout back to 30 seconds",
           {"src/cache.py": "TIMEOUT = 30\n\n\ndef lookup(key):\n    return key\n"})

    again = vet_session.resume(repo, repo / GIT_DIR, paused.run_id, PausedGate())
    assert isinstance(again, vet_session.Paused)
    assert [(i.audit.id, i.antithesis.index) for i in again.open_items] == [(timeout, index + 1)]
    fresh = again.open_items[0].antithesis
    assert "src/cache.py:1 TIMEOUT = 60" not in fresh.antithesis  # re-read at HEAD: only the config disagrees now
    assert "config/cache.toml:2 timeout = 60" in fresh.antithesis
    assert any("asked again with a new challenge" in m for m in again.messages)

    # the same revisit again is anchored to the new blob: it waits, and the run ends
    _answer(repo, paused.run_id, timeout, index + 1, "Still depends on the next change.",
            revisit="changed:src/cache.py")
    done = vet_session.resume(repo, repo / GIT_DIR, paused.run_id, PausedGate())
    assert isinstance(done, vet_session.Vetted)
    assert done.result["unmet_revisits"] == [f"Revisit(changed:src/cache.py) on {timeout}"]
    assert f"not carried out: Revisit(changed:src/cache.py) on {timeout}" in done.messages
    trace = done.result["trace"]
    assert isinstance(trace, dict) and [a["index"] for a in trace[timeout]] == [1, 2]  # append-only
    history = done.result["history"]
    assert isinstance(history, list)
    assert [(h["audit"], h["antithesis"]) for h in history if h["audit"] == timeout] == [
        (timeout, 1), (timeout, None), (timeout, 2)]
    # a resume after the run ended is exit 2
    ended = distill(repo, "resume", paused.run_id)
    assert ended.returncode == 2


def test_an_unmet_and_an_unwatchable_revisit_are_reported_not_carried_out(repo: Path) -> None:
    build(repo)
    ids = audit_ids(repo)
    paused = vet_session.start(repo, repo / GIT_DIR, MERGE, PausedGate())
    _answer(repo, paused.run_id, ids[TIMEOUT_CLAIM][0], 1, "Wait for the config review.",
            revisit="changed:config/cache.toml")
    _answer(repo, paused.run_id, ids[BOTTLENECK_CLAIM][0], 1, "Ask again after the load test.",
            revisit="after the load test")
    done = vet_session.resume(repo, repo / GIT_DIR, paused.run_id, PausedGate())
    assert isinstance(done, vet_session.Vetted)
    assert sorted(done.result["unmet_revisits"]) == sorted([  # type: ignore[arg-type]
        f"Revisit(changed:config/cache.toml) on {ids[TIMEOUT_CLAIM][0]}",
        f"Revisit(after the load test) on {ids[BOTTLENECK_CLAIM][0]} (vet cannot watch this condition)"])
