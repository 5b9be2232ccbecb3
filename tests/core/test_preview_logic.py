"""The pure preview protocol: detect, axes, contrast and the gates with the shared re-fan budget."""

from __future__ import annotations

import pytest

from diylisis.core.preview import axes, contrast, detect, flow
from diylisis.core.preview.model import Arm, DetectSignals, ProbeEvidence, ProbeStatus, Route, Tier

CANDIDATES = ("a SQLite file cache", "a Redis server cache", "plain JSON files on disk")
FAILURE = axes.parse_axis("failure: what happens when the cache is lost?")


def probe(index: int, value: str, paths: tuple[str, ...] = ("cache.py",), **extra: object) -> ProbeEvidence:
    present = frozenset(extra.pop("present", ("cache.py", "README.md", "data/seed.json")))  # type: ignore[arg-type]
    status = ProbeStatus(str(extra.pop("status", "populated")))
    return ProbeEvidence(index=index, direction=CANDIDATES[index], status=status,
                         axis_values=(("failure", value, paths),), present_paths=present,
                         **extra)  # type: ignore[arg-type]


def approved(state: flow.Lambda) -> flow.Lambda:
    step = flow.on_qspec(state, flow.QspecAnswer(kind="approve"))
    assert step.next == "instantiate", step.relay
    return flow.instantiated(step.state)


@pytest.mark.parametrize(("candidates", "signals", "kind", "protocol"), [
    (("only one",), DetectSignals(), "requires_fail", "/ideate"),
    (("same", " Same "), DetectSignals(), "requires_fail", "/ideate"),
    (CANDIDATES, DetectSignals(recognizable=True), "no_deficit", None),
    (CANDIDATES, DetectSignals(familiar=True), "route_away", "/ground"),
    (CANDIDATES, DetectSignals(needs_real_data=True), "route_away", "/inquire"),
    (CANDIDATES, DetectSignals(sibling="frame"), "route_away", "/frame"),
    (CANDIDATES, DetectSignals(placeholders_distort=True), "unfit", None),
])
def test_each_not_activated_exit_has_its_relay(candidates: tuple[str, ...], signals: DetectSignals,
                                               kind: str, protocol: str | None) -> None:
    found = detect.detect(candidates, signals)
    assert found is not None and found.kind == kind and found.protocol == protocol and found.relay


def test_the_first_matching_row_wins_and_two_real_candidates_activate() -> None:
    both = detect.detect(CANDIDATES, DetectSignals(familiar=True, needs_real_data=True))
    assert both is not None and both.row == "1"
    assert detect.detect(CANDIDATES, DetectSignals()) is None


def test_hints_come_from_where_the_texts_differ_and_are_never_axes() -> None:
    hints = axes.derive_hints(CANDIDATES)
    assert hints[0].distinctive == ("sqlite", "file")
    assert "cache" not in hints[1].distinctive and "redis" in hints[1].distinctive
    state = flow.start(CANDIDATES, (), Tier.MOCKUP, "M")
    step = flow.on_qspec(state, flow.QspecAnswer(kind="approve"))
    assert step.next == "qspec" and "no divergence axis" in step.relay


def test_an_axis_that_only_repeats_a_label_is_refused() -> None:
    label = axes.parse_axis("storage: a SQLite file cache")
    assert axes.axis_problems((label,), CANDIDATES)
    with pytest.raises(ValueError, match="id: question"):
        axes.parse_axis("no colon here")


def test_adjust_loops_before_anything_is_generated_then_approve_settles_the_axes() -> None:
    state = flow.start(CANDIDATES, (FAILURE,), Tier.VIGNETTE, "M")
    step = flow.on_qspec(state, flow.QspecAnswer(kind="adjust",
                                                 text="axis ops: who runs it at night?; tier mockup; tgt 1,2"))
    assert step.next == "qspec" and step.state.pending is None and step.state.probes == ()
    assert step.state.spec.tier is Tier.MOCKUP and step.state.spec.tgt == CANDIDATES[:2]
    done = flow.on_qspec(step.state, flow.QspecAnswer(kind="approve"))
    assert done.next == "instantiate"
    assert [a.settled_at for a in done.state.spec.axes] == ["qspec-2", "qspec-2"]
    assert flow.on_qspec(step.state, flow.QspecAnswer(kind="adjust", text="tgt 9")).relay.startswith("that revision")


def test_five_candidates_need_an_explicit_target_set_of_two_to_four() -> None:
    five = CANDIDATES + ("files on S3", "an in-process dict")
    state = flow.start(five, (FAILURE,), Tier.MOCKUP, "M")
    assert flow.on_qspec(state, flow.QspecAnswer(kind="approve")).next == "qspec"
    chosen = flow.on_qspec(state, flow.QspecAnswer(kind="adjust", text="tgt 1,4")).state
    assert flow.on_qspec(chosen, flow.QspecAnswer(kind="approve")).next == "instantiate"


def test_dissolution_and_withdrawal_at_the_spec_gate() -> None:
    state = flow.start(CANDIDATES, (FAILURE,), Tier.MOCKUP, "M")
    dissolved = flow.on_qspec(state, flow.QspecAnswer(kind="dissolve", text="only SQLite survives a restart"))
    assert dissolved.arm is Arm.DISSOLUTION_EXIT
    assert flow.on_qspec(state, flow.QspecAnswer(kind="withdraw")).arm is Arm.EARLY_EXIT


def test_contrast_cells_rows_commitments_and_unknowns() -> None:
    shared = ("LICENSE", "blob1")
    seen = contrast.contrast((FAILURE,), (
        probe(0, "rebuilt from the file", changed=(shared, ("cache.py", "b0")), commitments=(("lang", "python"),),
              unknowns=(("does the host keep /var?", "Inquire"), ("bad", "Later"))),
        probe(1, "lost until warm", changed=(shared, ("cache.py", "b1")), commitments=(("lang", "python"),),
              unknowns=(("who restarts redis?", "gap"),)),
        probe(2, "rebuilt", paths=("missing.py",), changed=(shared,), commitments=(("lang", "go"),)),
    ))
    row = seen.rows[0]
    assert [cell.kind for _, cell in row.cells] == ["value", "value", "UNGROUNDED"] and not row.flagged
    assert [(c.key, c.kind) for c in seen.common] == [("LICENSE", "path")]
    assert {(u.text, u.route) for u in seen.unknowns} == {("does the host keep /var?", Route.INQUIRE),
                                                          ("who restarts redis?", Route.GAP)}
    assert len(seen.rejected_unknowns) == 1 and not seen.insufficient


def test_a_row_is_flagged_only_when_all_cells_are_equal_and_fake_data_is_named() -> None:
    same = contrast.contrast((FAILURE,), (probe(0, "lost"), probe(1, "Lost"), probe(2, "lost")))
    assert same.rows[0].flagged and same.insufficient
    data = contrast.contrast((FAILURE,), (probe(0, "a", paths=("data/seed.json",)), probe(1, "b")))
    assert data.rows[0].cells[0][1].note == "divergence lives in fake data"
    failed = contrast.contrast((FAILURE,), (probe(0, "a"), probe(1, "b", status="timed_out")))
    assert failed.rows[0].cells[1][1].kind == "UNDIFFERENTIATED" and failed.problems


def test_an_axis_raised_by_a_probe_is_listed_never_added() -> None:
    extra = ProbeEvidence(index=0, direction="x", status=ProbeStatus.POPULATED,
                          axis_values=(("failure", "a", ("cache.py",)), ("cost", "cheap", ())),
                          present_paths=frozenset({"cache.py"}))
    seen = contrast.contrast((FAILURE,), (extra, probe(1, "b")))
    assert seen.raised_axes == ((0, "cost"),) and [row.axis.id for row in seen.rows] == ["failure"]


def test_select_only_a_probed_direction_and_an_unprobed_one_spends_the_refan() -> None:
    state = approved(flow.start(CANDIDATES, (FAILURE,), Tier.MOCKUP, "M", tgt=CANDIDATES[:2]))
    seen = contrast.contrast((FAILURE,), (probe(0, "a"), probe(1, "b")))
    assert flow.on_qdir(state, flow.QdirAnswer(kind="select", probe=7), seen).next == "qdir"
    chosen = flow.on_qdir(state, flow.QdirAnswer(kind="select", probe=1), seen)
    assert chosen.next == "harvest" and chosen.state.direction is not None
    assert chosen.state.direction.direction == CANDIDATES[1] and chosen.state.direction.deciding == ("failure",)
    gap = flow.on_qdir(state, flow.QdirAnswer(kind="unprobed", text=CANDIDATES[2]), seen)
    assert gap.next == "qspec" and gap.state.refan_budget == 0 and gap.state.spec.tgt == (CANDIDATES[2],)
    again = flow.instantiated(flow.on_qspec(gap.state, flow.QspecAnswer(kind="approve")).state)
    assert [slot.index for slot in again.probes] == [0, 1, 2]
    assert flow.on_qdir(again, flow.QdirAnswer(kind="unprobed", text="files on S3"), seen).arm is Arm.EARLY_EXIT


def test_materialize_is_absent_at_budget_zero_and_insufficiency_branches_on_what_the_budget_bought() -> None:
    state = approved(flow.start(CANDIDATES, (FAILURE,), Tier.MOCKUP, "M"))
    seen = contrast.contrast((FAILURE,), (probe(0, "a"), probe(1, "b"), probe(2, "c")))
    synth = flow.on_qdir(state, flow.QdirAnswer(kind="synthesize", text="SQLite with a JSON export"), seen)
    assert synth.next == "qmicro" and flow.qmicro_options(synth.state) == ("confirm", "materialize")
    made = flow.on_qmicro(synth.state, flow.QmicroAnswer(kind="materialize"))
    assert made.next == "instantiate" and made.state.pending is not None
    assert made.state.pending.tgt == ("SQLite with a JSON export",)
    state2 = flow.instantiated(made.state)
    assert flow.qmicro_options(state2) == ("confirm",)
    again = flow.on_qdir(state2, flow.QdirAnswer(kind="synthesize", text="x"), seen).state
    assert flow.on_qmicro(again, flow.QmicroAnswer(kind="materialize")).next == "qmicro"
    relayed = flow.on_qdir(state2, flow.QdirAnswer(kind="insufficient"), seen)
    assert relayed.next == "qdir" and relayed.state.insufficiency_relayed
    assert flow.on_qdir(relayed.state, flow.QdirAnswer(kind="insufficient"), seen).arm is Arm.EARLY_EXIT
    gap = flow.on_qdir(state, flow.QdirAnswer(kind="insufficient"), seen)
    assert gap.next == "qspec" and gap.state.refan_kind == "Gap"
    assert flow.on_qdir(gap.state, flow.QdirAnswer(kind="insufficient"), seen).arm is Arm.MISDIAGNOSIS_EXIT


def test_a_factual_question_at_the_direction_gate_becomes_an_inquire_unknown() -> None:
    state = approved(flow.start(CANDIDATES, (FAILURE,), Tier.MOCKUP, "M"))
    seen = contrast.contrast((FAILURE,), (probe(0, "a"), probe(1, "b"), probe(2, "c")))
    asked = flow.on_qdir(state, flow.QdirAnswer(kind="interrogate", text="how fast is Redis on our host?"), seen)
    assert asked.next == "qdir" and asked.state.unknowns[0].route is Route.INQUIRE
    assert asked.state.refan_budget == 1


def test_the_state_survives_a_round_trip_through_json() -> None:
    import json

    import msgspec

    state = approved(flow.start(CANDIDATES, (FAILURE,), Tier.MOCKUP, "M"))
    seen = contrast.contrast((FAILURE,), (probe(0, "a"), probe(1, "b"), probe(2, "c")))
    state = flow.on_qdir(state, flow.QdirAnswer(kind="interrogate", text="how fast?"), seen).state
    state = flow.on_qdir(state, flow.QdirAnswer(kind="synthesize", text="both"), seen).state
    assert msgspec.convert(json.loads(json.dumps(msgspec.to_builtins(state))), flow.Lambda) == state


def test_a_stored_record_is_checked_for_its_declarations() -> None:
    from diylisis.core.preview.verify import record_problems

    good = {"schema": "distill-preview/1", "arm": "DirectionalContrast", "non_evidence": "evidence for no claim",
            "axes": [{"id": "failure", "settled_at": "qspec-1"}], "contrast_map": {"failure": {"a": "x"}},
            "fans": [{"kind": "contrast", "tgt": ["a", "b"]}],
            "exposed_unknowns": [{"text": "t", "route": "Gap"}],
            "direction": {"kind": "select", "direction": "a"},
            "discard_trace": [{"probe": {"index": 0, "direction": "a"}, "disposition": "FileDestroyed"},
                              {"probe": {"index": 1, "direction": "b"}, "disposition": "FileDestroyed"}]}
    assert record_problems(good) == ()
    twice = {**good, "discard_trace": [good["discard_trace"][0]] * 2}
    assert any("each probe once" in p for p in record_problems(twice))
    elsewhere = {**good, "direction": {"kind": "select", "direction": "c"}}
    assert any("never probed" in p for p in record_problems(elsewhere))
    unsettled = {**good, "axes": [{"id": "failure", "settled_at": None}]}
    assert any("never settled" in p for p in record_problems(unsettled))
    assert record_problems([]) == ("the record is not a JSON object",)
