"""Pattern B on the vet fixture: a condition the user gives with --what-if replaces a current one,
and the claims it names are challenged at the place the action reads them."""

from __future__ import annotations

import json
from pathlib import Path

from msgspec.structs import replace

from diylisis.app import vet, vet_session
from diylisis.core.vet import patterns
from diylisis.core.vet.model import Antithesis, Pattern
from diylisis.edges.gate import PausedGate
from tests.conftest import distill
from tests.vet_fixture import BOTTLENECK_CLAIM, MERGE, TIMEOUT_CLAIM, build

DROP = "the cache timeout drops to 5 s"


def _by_thesis(formed: vet.Formed) -> dict[str, Antithesis]:
    return {a.thesis: a for a in formed.antitheses}


def test_a_what_if_naming_the_claims_key_gives_a_pattern_b_challenge(repo: Path) -> None:
    build(repo)
    formed = vet.form(repo, replace(MERGE, what_if=DROP))
    timeout = _by_thesis(formed)[TIMEOUT_CLAIM]
    assert timeout.pattern is Pattern.COUNTERFACTUAL_GAP
    assert timeout.antithesis.startswith(
        f"If {DROP} in place of src/cache.py:1 TIMEOUT = 60 and config/cache.toml:2 timeout = 60, a gap opens at"
        " src/retry.py:3, which rests on docs/design.md:3.")
    assert f'condition given with --what-if: "{DROP}"' in timeout.evidence
    assert "the action reads the claim at src/retry.py:3" in timeout.evidence
    assert any(b.startswith("git grep -n -w TIMEOUT") for b in timeout.basis)
    # the condition names nothing the bottleneck claim's facts name: its measured pattern stands
    assert _by_thesis(formed)[BOTTLENECK_CLAIM].pattern is Pattern.INFERENCE_FALLACY_AUDIT


def test_without_a_condition_vet_posits_no_pattern_b(repo: Path) -> None:
    build(repo)
    formed = vet.form(repo, MERGE)
    assert Pattern.COUNTERFACTUAL_GAP not in {a.pattern for a in formed.antitheses}
    timeout = next(a for a in formed.audits if a.claim.text == TIMEOUT_CLAIM)
    assert patterns.bears_on(timeout, "config/cache.toml goes away")  # a file the facts name
    assert patterns.bears_on(timeout, "TIMEOUT becomes an env variable")  # the code token
    assert not patterns.bears_on(timeout, "the moon falls out of the sky")


def test_the_command_pauses_on_the_pattern_b_challenge_and_says_when_it_names_nothing(repo: Path) -> None:
    build(repo)
    done = distill(repo, "vet", "--action", MERGE.action, "--range", str(MERGE.range), "--what-if", DROP,
                   "--no-input", "--format", "json")
    assert done.returncode == 3, done.stderr
    items = {item["claim"]: item for item in json.loads(done.stdout)["items"]}
    assert items[TIMEOUT_CLAIM]["pattern"] == "B" and items[BOTTLENECK_CLAIM]["pattern"] == "D"

    unrelated = vet_session.start(repo, repo / ".git", replace(MERGE, what_if="the moon falls"), PausedGate())
    assert any("names nothing the claims' facts name" in m for m in unrelated.messages)
    assert distill(repo, "vet", "--action", "merge", "--range", str(MERGE.range), "--what-if", " ").returncode == 2
