"""F6 measure legs, one test each, plus leak lint, exposure scan and the fixed point."""

from __future__ import annotations

from pathlib import Path

from conftest import commit

from diylisis.core.model import (
    CHECKLIST,
    InlineEvidence,
    Realization,
    Reference,
    RefKind,
    RouteJudgment,
    StableRef,
    SweepRow,
    Value,
    ZeroMemoryVerdict,
)
from diylisis.core.phases import f6_settle
from diylisis.core.phases.f2_grounding import resolves_at
from diylisis.core.state import (
    DecisionRecord,
    Disposition,
    DispositionKind,
    Item,
    ItemKind,
    ItemOrigin,
    LedgerEntry,
    LedgerReason,
)
from diylisis.edges.gitio import open_repo
from diylisis.edges.gitio.context import PygitContext

RESIDUE = Item(id="task-4", token="Task #4", line=1, column=1, kind=ItemKind.SESSION_ID, origin=ItemOrigin.TARGET)
AUTHORED = Item(id="v2", token="v2 shim", line=2, column=1, kind=ItemKind.COINED_TERM, origin=ItemOrigin.AUTHORED)


def _measure(**overrides):
    base = dict(items=(), dispositions=(), ledger=(), leaks=0, authored=(), judgments=(),
                unresolved_references=(), decisions=(), activity=None, stop=None)
    return f6_settle.measure(**{**base, **overrides})


def test_unresolved_anchor_counts_until_disposed() -> None:
    assert _measure(items=(RESIDUE,)).unresolved_anchors == 1
    drop = Disposition(item_id="task-4", kind=DispositionKind.DROP, value=None, basis="Gate Drop")
    assert _measure(items=(RESIDUE,), dispositions=(drop,)).unresolved_anchors == 0


def test_unmet_stop() -> None:
    assert _measure(activity="implement it").unmet_stop == 1
    assert _measure(activity="implement it", stop="tests pass").unmet_stop == 0


def test_unsurfaced_residual() -> None:
    hidden = LedgerEntry(item_id="x", reason=LedgerReason.UNRESOLVED, detail="d", surfaced=False)
    assert _measure(ledger=(hidden,)).unsurfaced_residual == 1
    assert _measure(ledger=(LedgerEntry(item_id="x", reason=LedgerReason.UNRESOLVED, detail="d", surfaced=True),)
                    ).unsurfaced_residual == 0


def test_leaked_drops_via_leak_lint() -> None:
    leaks = f6_settle.leak_lint(("Task #4",), {"record": "done", "brief": "see Task #4"})
    assert leaks == (("Task #4", "brief"),)
    assert _measure(leaks=len(leaks)).leaked_drops == 1


def test_undisposed_authored() -> None:
    assert _measure(items=(AUTHORED,), authored=("v2",)).undisposed_authored == 1


def test_missing_bases() -> None:
    weak = RouteJudgment(item="a", verdict=Value(evidence=InlineEvidence(content="x")), basis="I think so")
    good = RouteJudgment(item="b", verdict=Value(evidence=InlineEvidence(content="x")),
                         basis="Gate Resolve by the author: x")
    assert _measure(judgments=(weak, good)).missing_bases == 1


def test_unresolvable_route_pointers(repo: Path) -> None:
    commit(repo, "Add docs\n", {"docs/a.md": "a\n"})
    context = PygitContext(open_repo(repo), "HEAD")
    judgments = tuple(
        RouteJudgment(item=name, verdict=Reference(ref=StableRef(kind=RefKind.PATH, locator=name)),
                      basis="observed: resolves_at")
        for name in ("docs/a.md", "docs/gone.md", "/tmp/x.log"))
    unresolved = f6_settle.unresolved_references(judgments, lambda loc: resolves_at(loc, context)[0])
    assert unresolved == ("docs/gone.md", "/tmp/x.log")
    assert _measure(unresolved_references=unresolved).unresolvable_route_pointers == 2


def test_ledgerless_decisions() -> None:
    bare = DecisionRecord(id="decision-1", claim="We decided to cap retries.", line=1)
    bound = DecisionRecord(id="decision-2", claim="We chose X.", line=2, ledger_ref="docs/a.md")
    deferred = DecisionRecord(id="decision-3", claim="We chose Y.", line=3, deferral="after review")
    assert _measure(decisions=(bare, bound, deferred)).ledgerless_decisions == 1


def test_exposure_scan_reads_sources_and_flags_unreadable_ones() -> None:
    hits = f6_settle.exposure_scan(("Task #4",), {"docs/a.md": "Task #4 is here", "gone.md": None, "b": "x"})
    assert ("Task #4", "docs/a.md") in hits and ("(unreadable)", "gone.md") in hits
    assert f6_settle.exposure_scan((), {"gone.md": None}) == ()


def test_fixed_point_needs_pass_quiet_and_delta_free() -> None:
    sweep = tuple(SweepRow(category=n, status="clear", checked="looked") for n in CHECKLIST)
    passed = ZeroMemoryVerdict(passed=True, realization=Realization.LINT_FALLBACK, sweep=sweep)
    assert f6_settle.fixed_point(0, passed, 0, False)
    assert not f6_settle.fixed_point(0, passed, 1, False)
    assert not f6_settle.fixed_point(0, passed, 0, True)
    assert not f6_settle.fixed_point(1, passed, 0, False)
    failed = ZeroMemoryVerdict(passed=False, realization=Realization.LINT_FALLBACK, sweep=sweep)
    assert not f6_settle.fixed_point(0, failed, 0, False)


def test_settle_hands_the_verdict_and_the_reviewed_digest_on_only_at_the_fixed_point() -> None:
    sweep = tuple(SweepRow(category=n, status="clear", checked="looked") for n in CHECKLIST)
    passed = ZeroMemoryVerdict(passed=True, realization=Realization.LINT_FALLBACK, sweep=sweep)
    settled = f6_settle.settle(total=0, verdict=passed, deltas_this_pass=0, gate_changed=False,
                               reviewed="sha256:" + "ab" * 32)
    assert settled == f6_settle.Settled(verdict=passed, reviewed="sha256:" + "ab" * 32)
    assert f6_settle.settle(total=0, verdict=passed, deltas_this_pass=1, gate_changed=False,
                            reviewed="sha256:" + "ab" * 32) is None
    assert f6_settle.settle(total=2, verdict=passed, deltas_this_pass=0, gate_changed=False,
                            reviewed="sha256:" + "ab" * 32) is None


# --- Rule 21 / F6 exposure scan: a granted source the receiver cannot open ------------------


def test_rule21_private_url_source_does_not_resolve() -> None:
    for private in ("https://internal.example.corp/wiki/Task12", "https://wiki.intranet/page",
                    "http://build.lan/job/3", "https://jira/browse/ABC-1"):
        assert resolves_at(private, None)[0] is False, private
    assert resolves_at("https://github.com/simonw/llm/issues/1", None)[0] is True


def test_f6_unreadable_granted_source_is_a_finding_and_with_drops_an_exposure_item(repo: Path,
                                                                                 tmp_path: Path) -> None:
    import json

    from conftest import distill

    source = "https://internal.example.corp/wiki/Task12"
    commit(repo, "Add the task\n", {"TASK.md": "# Task\n\nAdd a --json flag.\nSee /tmp/run3.log for the trace.\n"})
    answers = tmp_path / "answers.toml"
    answers.write_text('tmp-run3-log = "drop"\n', encoding="utf-8")
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--source", source,
                     "--utterance", f"certify TASK.md; the implementer may read {source}",
                     "--yes", "--answers", str(answers), "--format", "json")
    assert paused.returncode == 3, paused.stdout + paused.stderr
    items = json.loads(paused.stdout)["items"]
    finding = next(item for item in items if item["token"] == source)
    assert "cannot open" in finding["reason"]
    run = json.loads(paused.stdout)["run"]
    assert distill(repo, "answer", run, finding["id"], "defer", "the wiki page is copied into docs/").returncode == 0
    resumed = distill(repo, "resume", run, "--yes", "--answers", str(answers), "--format", "json")
    assert resumed.returncode == 3, resumed.stdout + resumed.stderr
    exposure = [item for item in json.loads(resumed.stdout)["items"] if item["id"].startswith("exposure-")]
    assert exposure and source in exposure[0]["token"] and "cannot read" in exposure[0]["token"]


# --- Rule 18: the leak lint covers every emitted channel; a leaking contract field is an item ---


def test_rule18_contract_field_holding_dropped_residue_is_an_item(repo: Path, tmp_path: Path) -> None:
    import json

    from conftest import distill

    commit(repo, "Add the task\n", {"TASK.md": "# Task\n\nAdd a --json flag.\nSee /tmp/run3.log for the trace.\n"})
    stop = "stop once /tmp/run3.log shows no errors"
    answers = tmp_path / "answers.toml"
    answers.write_text('tmp-run3-log = "drop"\nqp-consumer = { value = "an agent" }\n'
                       'qp-authority = { value = "derived" }\n', encoding="utf-8")
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--stop", stop,
                     "--utterance", stop, "--yes", "--answers", str(answers), "--format", "json")
    assert paused.returncode == 3, paused.stdout + paused.stderr
    (item,) = json.loads(paused.stdout)["items"]
    assert item["id"] == "contract-stop-leak" and item["token"] == stop and "/tmp/run3.log" in item["reason"]
    run = json.loads(paused.stdout)["run"]
    assert distill(repo, "answer", run, item["id"], "resolve", "stop once the flag prints JSON").returncode == 0
    done = distill(repo, "resume", run, "--yes", "--answers", str(answers), "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    certificate = json.loads(done.stdout)["certificate"]
    assert certificate["reception"]["stop"] == "stop once the flag prints JSON"
    assert "/tmp/run3.log" not in json.dumps(certificate) and "/tmp/run3.log" not in json.loads(done.stdout)["brief"]


def test_rule18_leak_lint_names_each_contract_channel() -> None:
    from diylisis.core.model import Contract

    contract = Contract(role="implementer", activity="fix the v2 shim", scope="only src/",
                        allowed_sources=("docs/a.md", "/tmp/run3.log"), stop="when /tmp/run3.log is clean")
    leaks = f6_settle.leak_lint(("/tmp/run3.log",), f6_settle.contract_channels(contract))
    assert sorted(channel for _, channel in leaks) == ["contract.allowed_sources", "contract.stop"]
    assert f6_settle.leaking_fields((" /tmp/run3.log",), contract) == {
        "allowed_sources": ("/tmp/run3.log",), "stop": ("/tmp/run3.log",)}


def test_rule12_deferred_item_trace_says_the_text_stays() -> None:
    from diylisis.core.gate import Answer
    from diylisis.core.phases.f3_disposition import from_answer

    disposition = from_answer(RESIDUE, Answer(item_id=RESIDUE.id, option="defer", value="the task is migrated"))
    assert disposition.kind is DispositionKind.DROP  # spec: Defer resolves to a released item
    assert "text stays in the record" in disposition.basis and "the task is migrated" in disposition.basis
