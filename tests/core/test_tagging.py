"""Tagging: quantities, contradictions and the three tags, measured on the vet fixture."""

from __future__ import annotations

from pathlib import Path

from diylisis.core import tagging
from diylisis.edges import vet_facts
from tests.conftest import git
from tests.vet_fixture import TIMEOUT_CLAIM, build, commit_at


def _claim(text: str, paragraph: str | None = None) -> tagging.ClaimLine:
    return tagging.ClaimLine(source="docs/design.md", line=3, text=text, paragraph=paragraph or text)


def _fact(path: str, key: str, value: str, section: str | None = None) -> tagging.CodeFact:
    quantity = tagging.parse_value(value, key)
    assert quantity is not None
    return tagging.CodeFact(path=path, line=1, key=key, section=section, text=f"{key} = {value}", value=quantity)


def test_units_are_normalized_before_values_are_compared() -> None:
    one_minute = tagging.quantity("1", "min", "timeout")
    sixty = tagging.quantity("60", None, "timeout")
    thirty_seconds = tagging.quantity("30", "s", "timeout")
    assert one_minute.same_as(sixty)
    assert not thirty_seconds.same_as(sixty)
    assert tagging.quantity("500", None, "timeout_ms").same_as(tagging.quantity("0.5", "s", "timeout"))
    assert tagging.parse_value('"5m"', "timeout") == tagging.Quantity(written="5 m", value=300.0,
                                                                      kind=tagging.QuantityKind.DURATION)


def test_a_sentence_scoped_to_the_file_contradicts_a_different_value() -> None:
    contradictions, agreements = tagging.compare(_claim(TIMEOUT_CLAIM), (_fact("src/cache.py", "TIMEOUT", "60"),))
    assert [(c.claim_value.written, c.fact.referent) for c in contradictions] == [("30 s", "src/cache.py:TIMEOUT")]
    assert agreements == ()
    contradictions, agreements = tagging.compare(_claim("The cache timeout is 1 min in `src/cache.py`."),
                                                 (_fact("src/cache.py", "TIMEOUT", "60"),))
    assert contradictions == () and len(agreements) == 1


def test_a_bare_key_with_no_file_or_section_in_reach_is_no_pair() -> None:
    claim = _claim("The DSN sets timeout=30s for the database.")
    assert tagging.compare(claim, (_fact(".golangci.yml", "timeout", "5m"),)) == ((), ())
    # the section scopes it: "cache timeout" names [cache].timeout
    scoped = tagging.compare(_claim("The cache timeout is 30 s."),
                             (_fact("config/cache.toml", "timeout", "60", section="cache"),))
    assert len(scoped[0]) == 1


def test_a_match_never_spans_a_newline() -> None:
    claim = _claim("The `TIMEOUT` in `src/cache.py` bounds lookups.",
                   paragraph="The `TIMEOUT` in `src/cache.py` bounds lookups.\n30 s is plenty.")
    assert tagging.compare(claim, (_fact("src/cache.py", "TIMEOUT", "60"),)) == ((), ())


def test_code_facts_read_sections_of_toml_and_assignments_of_code() -> None:
    facts = tagging.code_facts("config/cache.toml", "[cache]\ntimeout = 60\n[db]\ntimeout = \"5s\"\n",
                               frozenset({"timeout"}))
    assert [(f.referent, f.line, f.value.value) for f in facts] == [
        ("config/cache.toml:[cache].timeout", 2, 60.0), ("config/cache.toml:[db].timeout", 4, 5.0)]
    assert [f.referent for f in tagging.code_facts("src/cache.py", "TIMEOUT = 60\n", frozenset({"TIMEOUT"}))] == [
        "src/cache.py:TIMEOUT"]


def test_resolving_is_not_supporting() -> None:
    # a claim whose file resolves but whose value disagrees is no DirectObserved
    contradiction = tagging.compare(_claim(TIMEOUT_CLAIM), (_fact("src/cache.py", "TIMEOUT", "60"),))[0]
    tag = tagging.provenance(agreements=(), contradictions=contradiction, enforcement=(),
                             enforcement_basis="git grep -n -w TIMEOUT HEAD -- tests/")
    assert tag.evidence is tagging.VerificationPath.PROVISIONAL_ASSUMPTION
    agreement = tagging.compare(_claim(TIMEOUT_CLAIM), (_fact("src/cache.py", "TIMEOUT", "30"),))[1]
    tag = tagging.provenance(agreements=agreement, contradictions=(), enforcement=(),
                             enforcement_basis="git grep -n -w TIMEOUT HEAD -- tests/")
    assert tag.evidence is tagging.VerificationPath.DIRECT_OBSERVED and not tag.enforced
    assert tagging.UNOBSERVABLE_COUPLING in tag.support


def test_the_fixture_measures_leverage_age_lag_and_both_pairs(repo: Path) -> None:
    fixture = build(repo)
    tracked = vet_facts.tracked_paths(repo, fixture.tip)
    leverage = vet_facts.citations_of(repo, fixture.tip, ("docs/design.md",), tracked)["docs/design.md"]
    assert leverage.downstream_count == 5
    assert [b.locator for b in leverage.branches] == [
        "src/retry.py:3", "tasks/cache-1.md:3", "tasks/cache-2.md:3", "tasks/cache-3.md:3", "tasks/handoff.md:4"]
    assert leverage.basis.startswith("git grep -I -n -F -e docs/design.md")

    written_by, observed_at = vet_facts.blame_lines(repo, fixture.tip, "docs/design.md", (3,))[3]
    assert written_by == fixture.written
    query = vet_facts.LagQuery(since=written_by, paths=tagging.named_paths(TIMEOUT_CLAIM),
                               tokens=tagging.named_tokens(TIMEOUT_CLAIM))
    (lag, basis), = vet_facts.lags(repo, fixture.tip, (query,))
    assert [(c.commit, c.path, c.token) for c in lag] == [(fixture.raised, "src/cache.py", "TIMEOUT")]
    assert basis == (f"git log -GTIMEOUT {written_by[:12]}..{fixture.tip[:12]} -- src/cache.py",)
    fresh = tagging.freshness(written_by, observed_at, vet_facts.commit_time(repo, fixture.tip), "DocumentRead",
                              lag, basis)
    assert fresh.stale and fresh.age == 65 * 86400

    facts = vet_facts.code_facts(repo, fixture.tip, tagging.candidate_keys(TIMEOUT_CLAIM))
    claim = tagging.ClaimLine(source="docs/design.md", line=3, text=TIMEOUT_CLAIM, paragraph=TIMEOUT_CLAIM)
    contradictions, _ = tagging.compare(claim, facts)
    assert sorted((c.fact.path, c.fact.line, c.fact.text) for c in contradictions) == [
        ("config/cache.toml", 2, "timeout = 60"), ("src/cache.py", 1, "TIMEOUT = 60")]


def test_a_sixth_citing_file_gives_six(repo: Path) -> None:
    fixture = build(repo, extra_citing=1)
    tracked = vet_facts.tracked_paths(repo, fixture.tip)
    cited = vet_facts.citations_of(repo, fixture.tip, ("docs/design.md",), tracked)["docs/design.md"]
    assert cited.downstream_count == 6


def test_reverting_the_raise_removes_the_lag_and_the_pairs(repo: Path) -> None:
    fixture = build(repo)
    assert fixture.raised is not None
    git(repo, "revert", "--no-edit", fixture.raised)
    tip = git(repo, "rev-parse", "HEAD").strip()
    query = vet_facts.LagQuery(since=fixture.written, paths=("src/cache.py",), tokens=("TIMEOUT",))
    (lag, _), = vet_facts.lags(repo, tip, (query,))
    assert lag == ()
    claim = tagging.ClaimLine(source="docs/design.md", line=3, text=TIMEOUT_CLAIM, paragraph=TIMEOUT_CLAIM)
    contradictions, agreements = tagging.compare(claim, vet_facts.code_facts(
        repo, tip, tagging.candidate_keys(TIMEOUT_CLAIM)))
    assert contradictions == () and len(agreements) == 2


def test_a_test_naming_the_key_is_enforcement(repo: Path) -> None:
    fixture = build(repo)
    assert vet_facts.enforcement_of(repo, fixture.tip, ("TIMEOUT",))["TIMEOUT"][0] == ()
    commit_at(repo, "2024-03-08", "Test the timeout", {"tests/test_cache.py": "from src.cache import TIMEOUT\n"})
    found, basis = vet_facts.enforcement_of(repo, "HEAD", ("TIMEOUT",))["TIMEOUT"]
    assert [(e.path, e.line) for e in found] == [("tests/test_cache.py", 1)]
    assert basis.startswith("git grep -n -w TIMEOUT")
