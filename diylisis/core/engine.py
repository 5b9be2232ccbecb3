"""The certification loop over the phases F0..F7, with pause and resume (spec FLOW, LOOP).

The engine owns no I/O: reading the record, detection, the refuter, the gate, the write
channel, saving the run and storing the certificate are handed to it in `Edges`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from msgspec import Struct
from msgspec.structs import replace

from diylisis.core.lazy_pattern import LazyPattern
from diylisis.core.model import (
    DEFAULT_VERB,
    Certificate,
    Contract,
    Finding,
    Reference,
    RepoContext,
    Snapshot,
    ZeroMemoryVerdict,
)
from diylisis.core.phases import (
    f0_contract,
    f1_deixis,
    f2_grounding,
    f3_disposition,
    f4_judgments,
    f6_settle,
    f7_certify,
    repair,
)
from diylisis.core.refuter import RefuterInput
from diylisis.core.state import (
    RESIDUAL_OPTIONS,
    DecisionRecord,
    DeltaKind,
    DispositionKind,
    FieldMark,
    FieldProvenance,
    GateKind,
    Item,
    ItemKind,
    ItemOrigin,
    LedgerEntry,
    LedgerReason,
    Provenance,
    Question,
    RepairDelta,
    RunState,
    RunStatus,
)

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from typing import Any

    from diylisis.core.gate import Answer
    from diylisis.core.tagging import SupportFacts
    from diylisis.edges.certify_gate import Gate

MAX_PASSES = 12
# session-record files (task, plan, handoff, prompt, notes) a reader would be sent to (category 11)
_RECORD_FILE = LazyPattern(r"(?i)(^|/)(tasks?|todo|plans?|handoffs?|prompts?|notes|design)[^/]*\.md$"
                           r"|(^|/)(tasks|plans|handoffs|prompts)/")


class Edges(Struct, frozen=True, kw_only=True):
    """The side effects the loop may cause, each a plain callable (STYLE: edges only)."""

    read: Callable[[], Snapshot]
    context: Callable[[Snapshot], RepoContext | None]
    detect: Callable[[Snapshot], tuple[tuple[Finding, ...], tuple[str, ...]]]  # findings, suppressions
    refute: Callable[[RefuterInput], ZeroMemoryVerdict]
    gate: Gate
    write: Callable[[bytes, RunState], str | None] | None  # None: no write channel (Rule 12)
    save: Callable[[RunState], None]
    certified_elsewhere: Callable[[str, str], bool]  # (tracked path, role) -> holds a certificate
    read_source: Callable[[str, Snapshot], str | None]
    store: Callable[[Certificate, Snapshot], None]
    now: Callable[[], str]
    self_ledger: Callable[[Snapshot], str | None]  # the record that is itself a decision ledger
    # F3b: what the repository holds for these keys at the snapshot's revision (None: not measurable)
    support: Callable[[Snapshot, frozenset[str]], SupportFacts | None]
    no_channel_reason: str = "this record has no write channel"
    languages: tuple[str, ...] | None = None  # [detect] languages the lexicons cover (None: every shipped one)


class Certified(Struct, frozen=True, kw_only=True):
    """The run ended with a certificate (F7), stored, and the brief printed from it."""

    state: RunState
    certificate: Certificate
    brief: str


class Paused(Struct, frozen=True, kw_only=True):
    """The run waits for the author: its state's open questions (and a repair's diff) are saved."""

    state: RunState


class Stopped(Struct, frozen=True, kw_only=True):
    """The run ended without a certificate, for the reason its state keeps; a fresh certification is needed."""

    state: RunState

    @property
    def reason(self) -> str:
        return self.state.stop_reason or ""


Result = Certified | Paused | Stopped  # where a run ended; each carries its final state


def run(state: RunState, edges: Edges) -> Result:
    """Run passes until the fixed point, a pause or a stop; then Qp and F7."""
    state = _contract_gate(state, edges)
    if state.status == RunStatus.PAUSED:
        edges.save(state)
        return Paused(state=state)
    while True:
        reached = _passes_to_fixed_point(state, edges)
        if isinstance(reached, Paused | Stopped):
            return reached
        state, settled = reached
        state = _premise_gate(state, edges)
        if state.status == RunStatus.PAUSED:
            edges.save(state)
            return Paused(state=state)
        snapshot = edges.read()
        if f7_certify.identity_holds(snapshot, settled.reviewed):
            break
        # mutated after the final Pass: re-enter (Rule 24)
    _, suppressions = edges.detect(snapshot)
    certificate = f7_certify.assemble(
        snapshot=snapshot, contract=state.contract,
        edge=f0_contract.activation_edge(state.contract, state.target),
        judgments=state.judgments, deltas=state.repair_deltas, premises=state.premises,
        verdict=settled.verdict, issued_at=edges.now(), suppressions=suppressions,
        consumer_profile=_consumer_profile(state), authority_copy=_authority_copy(state),
        languages=edges.languages)
    brief = f7_certify.brief_text(certificate)
    edges.store(certificate, snapshot)
    state = replace(state, status=RunStatus.CERTIFIED, open_questions=())
    edges.save(state)
    return Certified(state=state, certificate=certificate, brief=brief)


def _contract_gate(state: RunState, edges: Edges) -> RunState:
    """F0 Confirm/Correct for ai_authored fields (Rule 29), before F1."""
    authored = list(f0_contract.unconfirmed_fields(state.contract_provenance))
    if not authored:
        return state
    questions = tuple(
        Question(id=f"contract-{name}", gate=GateKind.CONTRACT,
                 token=f0_contract.field_text(state.contract, name),
                 reason=f"the contract's {name} is not in your own words: confirm it, or correct it",
                 options=("confirm", "correct"))
        for name in authored if not _answer(state.answers, f"contract-{name}")
    )
    if questions:
        state = _record_answers(state, edges.gate.ask(questions, state))
    still_open = tuple(q for q in questions if not _answer(state.answers, q.id))
    if still_open:
        return replace(state, status=RunStatus.PAUSED, open_questions=still_open)
    contract = state.contract
    corrections: list[str] = []
    for name in authored:
        answer = _answer(state.answers, f"contract-{name}")
        if answer and answer.option == "correct":
            value = answer.value or ""
            corrections.append(value)
            contract = _with_contract_field(contract, name, _listed(value) if name == "allowed_sources" else value)
    marks = tuple(_answered_mark(m, _answer(state.answers, f"contract-{m.field}")) if m.field in authored else m
                  for m in state.contract_provenance)
    # a correction is the user's own words: it joins the utterance the fields are marked against
    return replace(state, contract=contract, contract_provenance=marks, status=RunStatus.RUNNING,
                   utterances=state.utterances + tuple(corrections), open_questions=())


def _answered_mark(mark: FieldMark, answer: Answer | None) -> FieldMark:
    """Ac on one field: Correct re-marks it user_stated; Confirm ratifies it, still ai_authored (Rule 29)."""
    if answer is not None and answer.option == "correct":
        return replace(mark, provenance=FieldProvenance.USER_STATED, confirmed=None)
    return replace(mark, confirmed="the user confirmed it at F0")


def _passes_to_fixed_point(state: RunState, edges: Edges) -> tuple[RunState, f6_settle.Settled] | Paused | Stopped:
    """Passes until one reaches the fixed point; returns the state and what that pass settled
    on, or where the run paused or stopped (the state is saved after every pass)."""
    while state.pass_n < MAX_PASSES:
        passed = _pass(replace(state, pass_n=state.pass_n + 1), edges)
        edges.save(passed.state if isinstance(passed, Stopped) else passed[0])
        if isinstance(passed, Stopped):
            return passed
        state, settled = passed
        if state.status is RunStatus.PAUSED:
            return Paused(state=state)
        if settled is not None:
            return state, settled
    stopped = _stopped(state, f"no fixed point after {MAX_PASSES} passes")
    edges.save(stopped.state)
    return stopped


def _stopped(state: RunState, reason: str) -> Stopped:
    """The run stops for reason: no answer or repair can bring it to certify."""
    return Stopped(state=replace(state, status=RunStatus.STOPPED, stop_reason=reason))


def _pass(state: RunState, edges: Edges) -> tuple[RunState, f6_settle.Settled | None] | Stopped:
    """One pass F1..F6 with Qd and the repair step; returns the state and, when the pass
    reached the fixed point, the verdict it settled on with the digest of the bytes it reviewed;
    or the stop, when the pass found that no answer or repair can bring the run to certify."""
    snapshot = edges.read()
    reviewed = snapshot.digest
    context = edges.context(snapshot)
    findings, _ = edges.detect(snapshot)
    scanned = f1_deixis.scan(snapshot, findings, context, edges.self_ledger(snapshot))
    items = _mark_authored(scanned.items, state) + _settled(state, scanned.items)
    decisions = _bind_decisions(scanned.decisions, state.answers)
    state = replace(state, items=items, subst_table=scanned.subst_table, decisions=decisions)

    def holds(locator: str) -> bool:
        return f2_grounding.resolves_at(locator, context)[0]

    keys = f3_disposition.support_keys(state.items, snapshot.text)
    facts = edges.support(snapshot, keys) if keys else None

    def _dispose(state: RunState) -> RunState:
        return _disposed(state, snapshot, facts)

    answers_before = len(state.answers)
    premises_before = len(state.premises)
    state = _dispose(state)
    # answers given while paused bind their premises before F5 reads them (Rule 31)
    state = replace(state, premises=_premises(state))
    # a refuter that gives no valid verdict raises (exit 1, each reason on stderr); the run file
    # keeps the last saved state, so `resume` can continue once the refuter is fixed
    verdict = _unpremised(edges.refute(_refuter_input(state, snapshot, edges, holds)), state)
    backstop = next((f for f in verdict.findings if f.category in (9, 10)), None)
    if backstop is not None:
        name = "competence-substitution" if backstop.category == 9 else "contract-provenance"
        return _stopped(state, f"{name} backstop: {backstop.why} ({backstop.location}); "
                               f"re-declare the contract and run a fresh certification")
    state = _dispose(_bind_findings(verdict, state, snapshot.text))
    questions = asked = _residual_questions(state, context, edges)
    if questions:
        # the premise questions ride along: answers to the items lead to a repair or a premise,
        # after which Qp fires, and a run asks all it will need in one pause
        premises = _premise_questions(state) if any(q.gate is GateKind.RESIDUAL for q in questions) else ()
        state = _record_answers(state, edges.gate.ask(questions + premises, state))
        state = _dispose(state)
        questions = _residual_questions(state, context, edges)
        if questions:
            ledger = _surface(state.ledger, questions)
            premises = _premise_questions(state) if any(q.gate is GateKind.RESIDUAL for q in questions) else ()
            return replace(state, status=RunStatus.PAUSED, open_questions=questions + premises,
                           ledger=ledger), None
    state = replace(state, ledger=_surface(state.ledger, asked))
    gate_changed = len(state.answers) != answers_before
    stop = _answer(state.answers, "contract-stop")
    if stop is not None and stop.option == "resolve" and not state.contract.stop:
        state = replace(state, contract=replace(state.contract, stop=stop.value))
    state = _apply_contract_leak_answers(state)
    state = _apply_exposure_answers(state, lambda locator: edges.read_source(locator, snapshot))
    state = replace(state, premises=_premises(state), open_questions=(), status=RunStatus.RUNNING)

    done = frozenset(delta.item_id for delta in state.repair_deltas)
    edits, conflicts = repair.plan(snapshot.text, state.items, _answers_by_item(state),
                                   state.decisions, done, _kept_spans(snapshot.text, state)) \
        if edges.write else ((), ())
    edits = tuple(edit for edit in edits if not _forge_linked(state, edit.item_id))
    if conflicts:
        return replace(state, status=RunStatus.PAUSED, open_questions=tuple(
            Question(id=c, gate=GateKind.RESIDUAL, token=c, options=RESIDUAL_OPTIONS,
                     reason="dropping it would cut into kept content: answer again")
            for c in conflicts)), None
    deltas: tuple[RepairDelta, ...] = ()
    if edits:
        new_text, deltas = repair.apply(snapshot.text, edits, state.pass_n)
        change = repair_diff(snapshot.text, new_text, str(state.target))
        if not edges.gate.confirm(change, state):  # nothing is rewritten unseen (Rule 12)
            # a repair makes Qp fire: its questions are asked in this pause too
            return replace(state, status=RunStatus.PAUSED, proposed_change=change,
                           open_questions=_premise_questions(state)), None
        state = replace(state, proposed_change=None, repair_deltas=state.repair_deltas + deltas,
                        repaired_targets=state.repaired_targets + tuple(
                            (d.before, f"line {d.line}") for d in deltas))
        assert edges.write is not None
        commit_id = edges.write(new_text.encode("utf-8"), state)
        if commit_id:
            state = replace(state, repair_commits=state.repair_commits + (commit_id,))
        snapshot = edges.read()

    dropped = _dropped_tokens(state)
    leaks = _leaks(dropped, state, snapshot, verdict) if dropped else ()
    exposure = f6_settle.exposure_scan(dropped, {
        locator: edges.read_source(locator, snapshot) for locator in _exposure_sources(state)} if dropped else {})
    known = {entry.item_id for entry in state.ledger}
    ledger = state.ledger + tuple(dict.fromkeys(
        LedgerEntry(item_id="exposure-" + f1_deixis.slug(locator), reason=LedgerReason.EXPOSURE, surfaced=False,
                    detail=f6_settle.exposure_detail(token, locator))
        for token, locator in exposure if "exposure-" + f1_deixis.slug(locator) not in known))
    unresolved = f6_settle.unresolved_references(state.judgments, holds)
    measure = f6_settle.measure(
        items=state.items, dispositions=state.dispositions, ledger=ledger,
        leaks=len(leaks), authored=state.authored, judgments=state.judgments,
        unresolved_references=unresolved, decisions=_kept_decisions(state),
        activity=state.contract.activity,
        stop=state.contract.stop or (stop.value if stop is not None else None))
    state = replace(state, measure=measure, ledger=ledger)
    settled = f6_settle.settle(total=measure.total, verdict=verdict, deltas_this_pass=len(deltas),
                               gate_changed=gate_changed, reviewed=reviewed)
    if not verdict.passed and not deltas and not gate_changed and len(state.premises) == premises_before:
        return _stopped(state, (
            "the refuter keeps failing on findings that were already answered: "
            + "; ".join(f"{f.token!r} ({f.location}): {f.why}" for f in verdict.findings[:5])))
    if settled is None and measure.total and not deltas and not gate_changed and verdict.passed:
        where = sorted({channel for _, channel in leaks})
        return _stopped(state, (
            f"the measure stays at {measure.total} with nothing left to repair: {measure}"
            + (f"; dropped content survives in: {', '.join(where)}" if where else "")))
    return state, settled


def _with_contract_field(contract: Contract, name: str, value: str | tuple[str, ...] | None) -> Contract:
    """The contract with its field `name` (one of its own field names, chosen at run time) set to value."""
    changes: dict[str, Any] = {name: value}  # replace() checks the name; the field's type is the caller's
    return replace(contract, **changes)


def _listed(value: str) -> tuple[str, ...]:
    """A list-valued contract field as the author answers it: `;`-separated."""
    return tuple(part.strip() for part in value.split(";") if part.strip())


def _forge_linked(state: RunState, item_id: str) -> bool:
    """A bare issue number in a made commit's message or a PR body that the origin's forge links itself
    (`Fixes #12.` on GitHub): it is judged by its URL, but the author's text keeps it as written,
    closing keyword and all."""
    from diylisis.core.model import RecordKind

    if state.target.kind not in (RecordKind.COMMIT, RecordKind.PRBODY):
        return False  # a file gets the URL; the commit-msg hook prints the URL it writes
    item = next((i for i in state.items if i.id == item_id), None)
    return item is not None and item.rule_id == "RF301" and bool(item.resolution) and \
        not any(a.item_id == item_id for a in state.answers)


def repair_diff(before: str, after: str, name: str) -> str:
    """The repaired text against the record as a unified diff, for the author to confirm."""
    import difflib  # only a repair needs it, not the hook's clean path

    return "".join(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                        f"{name} (now)", f"{name} (repaired)"))


def _apply_contract_leak_answers(state: RunState) -> RunState:
    """A Resolve re-declares a contract field that held dropped content, a Drop unsets it (Rule 18)."""
    contract = state.contract
    for name in f6_settle.CONTRACT_CHANNEL_FIELDS:
        answer = _answer(state.answers, f"contract-{name}-leak")
        if answer is None:
            continue
        value = answer.value if answer.option == "resolve" else None
        if isinstance(getattr(contract, name), tuple):
            contract = _with_contract_field(contract, name, _listed(value or ""))
        elif name == "activation_verb":
            contract = replace(contract, activation_verb=value or DEFAULT_VERB)
        else:
            contract = _with_contract_field(contract, name, value)
    return state if contract == state.contract else replace(state, contract=contract)


def _premised(state: RunState, token: str) -> bool:
    """The reception premises already carry this token: a Defer answer's item, or a relayed claim."""
    by_id = {item.id: item for item in state.items}
    if any(a.option == "defer" and a.item_id in by_id and by_id[a.item_id].token == token
           for a in _answers_by_item(state)):
        return True
    return any(p.id == "claim-" + f1_deixis.slug(token) for p in state.premises)


def _unpremised(verdict: ZeroMemoryVerdict, state: RunState) -> ZeroMemoryVerdict:
    """Rule 31: a finding on an already-premised claim is not failed again; a Fail that names
    nothing else stands as a Pass over the premise list the receiver reconfirms."""
    kept = tuple(f for f in verdict.findings if f.category in (9, 10) or not _premised(state, f.token))
    if len(kept) == len(verdict.findings):
        return verdict
    return replace(verdict, findings=kept, passed=verdict.passed or not kept)


def _leaks(dropped: tuple[str, ...], state: RunState, snapshot: Snapshot,
           verdict: ZeroMemoryVerdict) -> tuple[tuple[str, str], ...]:
    """Dropped tokens still on an emit channel: the record, a draft certificate or its brief."""
    from diylisis.core import codec

    draft = f7_certify.assemble(
        snapshot=snapshot, contract=state.contract,
        edge=f0_contract.activation_edge(state.contract, state.target), judgments=state.judgments,
        deltas=state.repair_deltas, premises=state.premises, verdict=verdict, issued_at="draft")
    return f6_settle.leak_lint(dropped, {"record": snapshot.text,
                                         **f6_settle.contract_channels(state.contract),
                                         "reception premises": "\n".join(draft.reception.premises),
                                         "reception procedure": codec.dumps(codec.encode(draft.reception)),
                                         "certificate": codec.dumps(codec.certificate_to_dict(draft)),
                                         "brief": "\n".join(f7_certify.brief_lines(draft))})


def _disposed(state: RunState, snapshot: Snapshot, facts: SupportFacts | None) -> RunState:
    grounding = f2_grounding.classify(state.items)
    result = f3_disposition.dispose(state.items, grounding, _answers_by_item(state), state.contract,
                                    text=snapshot.text, path=snapshot.path or str(snapshot.target), facts=facts)
    judgments = f4_judgments.form(state.items, result.dispositions)
    history = state.history + tuple(h for h in result.history
                                    if all(old.item_id != h.item_id for old in state.history))
    return replace(state, grounding=grounding, provenance=result.provenance,
                   dispositions=result.dispositions, judgments=judgments, history=history)


def _answers_by_item(state: RunState) -> tuple[Answer, ...]:
    """Answers as they apply to items: an answer to a token covers each place it stands."""
    answers = {answer.item_id: answer for answer in state.answers}
    applied = list(state.answers)
    for item in state.items:
        if item.id in answers:
            continue
        shared = answers.get(f1_deixis.slug(item.token))
        if shared is not None:
            applied.append(replace(shared, item_id=item.id))
    return tuple(applied)


def _residual_questions(state: RunState, context: RepoContext | None, edges: Edges) -> tuple[Question, ...]:
    disposed = {d.item_id for d in state.dispositions}
    answered = {a.item_id: a for a in _answers_by_item(state)}
    questions = []
    has_channel = edges.write is not None
    offered = RESIDUAL_OPTIONS if has_channel else ("defer",)  # Rule 14: with no write channel, only Defer
    unsupported = {mark.item_id: mark.source for mark in state.provenance if mark.provenance is Provenance.UNKNOWN}
    for item in state.items:
        if item.kind is ItemKind.CONTENT or (item.kind is ItemKind.POINTER and item.id in disposed):
            continue
        if item.id in disposed and (has_channel or not item.resolution or _answer(state.answers, item.id)):
            continue
        if item.kind is ItemKind.POINTER:
            reason = (f"{unsupported.get(item.id, 'the source does not support the line')}; edit the record"
                      " to agree with the source and certify again, or accept the claim as a premise:"
                      " defer with a condition")
            options: tuple[str, ...] = f3_disposition.UNSUPPORTED_OPTIONS
        elif item.origin is ItemOrigin.REFUTER and item.line == 0:
            reason = f"{item.why} — not a passage of the record: accept it as a premise with a condition"
            options = ("defer",)
        elif not has_channel:
            reason = (f"{item.why or item.kind}; no write channel ({edges.no_channel_reason}), "
                      "so it can only be accepted as a premise: defer with a condition")
            options = ("defer",)
        else:
            reason = f"{item.why or item.kind}" + (f" — {item.fix}" if item.fix else "")
            options = RESIDUAL_OPTIONS
        problem = _answer_problem(answered.get(item.id), context)
        if problem:
            reason = f"{problem}; {reason}"
        questions.append(Question(id=item.id, gate=GateKind.RESIDUAL, token=item.token,
                                  reason=reason, options=options, line=item.line))
    for decision in state.decisions:
        if decision.ledger_ref or decision.deferral:
            continue
        answer = _answer(state.answers, decision.id)
        problem = _answer_problem(answer, context, ledger=True)
        if answer is not None and answer.option in offered and not problem:
            continue
        questions.append(Question(
            id=decision.id, gate=GateKind.RESIDUAL, token=decision.claim, line=decision.line,
            options=offered,
            reason=(f"{problem}; " if problem else "") + "a decision with no durable record of its "
                   "rationale: resolve with a commit id, tracked path or issue/PR URL"))
    for entry in state.ledger:
        answer = _answer(state.answers, entry.item_id)
        problem = _answer_problem(answer, context) if entry.reason is LedgerReason.EXPOSURE else None
        if entry.reason is LedgerReason.EXPOSURE and (answer is None or problem):
            questions.append(Question(id=entry.item_id, gate=GateKind.RESIDUAL, token=entry.detail, line=0,
                                      options=offered,
                                      reason=(f"{problem}; " if problem else "") + _EXPOSURE_OPTIONS
                                      if has_channel else "exposure scan (detection only): accept it with a condition"))
    for name, held in f6_settle.leaking_fields(_dropped_tokens(state), state.contract).items():
        if not _answer(state.answers, f"contract-{name}-leak"):
            questions.append(Question(
                id=f"contract-{name}-leak", gate=GateKind.RESIDUAL, token=f0_contract.field_text(state.contract, name),
                line=0, options=("resolve", "drop"),
                reason=f"the contract's {name} still holds what you dropped from the record "
                       f"({', '.join(held)}): resolve with the {name} in other words, or drop the field"))
    if state.contract.activity and not state.contract.stop and not _answer(state.answers, "contract-stop"):
        questions.append(Question(
            id="contract-stop", gate=GateKind.CONTRACT, token=state.contract.activity, line=0,
            options=("resolve", "defer"),
            reason="the contract declares an activity but no stop condition (measure leg: unmet stop); "
                   "resolve with the condition the recipient stops at, or defer"))
    if not has_channel:
        questions = [q for q in questions if not _answer(state.answers, q.id)]
    return tuple(questions)


_EXPOSURE_OPTIONS = ("exposure scan (detection only): route to a pointer that does not expose it, resolve to "
                     "keep the dropped content after all, drop the pointer or source that exposes it, or "
                     "defer with a condition")


def _apply_exposure_answers(state: RunState, read_source: Callable[[str], str | None]) -> RunState:
    """Rule 14 on exposure residuals: Route replaces the exposing pointer, Drop releases it, Resolve
    re-disposes the dropped items it exposes on the author's authority (spec: exposed_drops)."""
    by_slug = {"exposure-" + f1_deixis.slug(locator): locator for locator in _exposure_sources(state)}
    contract, answers = state.contract, list(state.answers)
    answered = {a.item_id for a in answers}
    for entry in state.ledger:
        answer = _answer(state.answers, entry.item_id)
        locator = by_slug.get(entry.item_id)
        if entry.reason is not LedgerReason.EXPOSURE or answer is None or locator is None \
                or answer.option == "defer":
            continue
        from diylisis.core.gate import Answer  # only an answered exposure residual makes new answers

        if answer.option == "resolve":
            text = read_source(locator) or ""
            exposed = {a.item_id for a in _answers_by_item(state) if a.option == "drop"}
            for index, old in enumerate(answers):
                item = next((i for i in state.items if i.id == old.item_id), None)
                if old.item_id in exposed and item is not None and item.token in text:
                    answers[index] = Answer(item_id=old.item_id, option="resolve", value=answer.value)
            continue
        if locator in contract.allowed_sources:
            sources = tuple(answer.value if s == locator and answer.option == "route" else s
                            for s in contract.allowed_sources if answer.option == "route" or s != locator)
            contract = replace(contract, allowed_sources=tuple(v for v in sources if v))
            continue
        for item in state.items:
            if item.kind is ItemKind.POINTER and item.locator == locator and item.id not in answered:
                answers.append(Answer(item_id=item.id, option=answer.option, value=answer.value))
    return replace(state, contract=contract, answers=tuple(answers))


def _answer_problem(answer: Answer | None, context: RepoContext | None,
                    ledger: bool = False) -> str | None:
    """A Route answer (or a decision's ledger ref) must resolve without the author session."""
    checked = ("route", "resolve") if ledger else ("route",)
    if answer is None or answer.option not in checked or not answer.value:
        return None
    holds, detail = f2_grounding.resolves_at(answer.value, context)
    return None if holds else f"{answer.option} answer {answer.value!r} does not resolve ({detail})"


def _surface(ledger: tuple[LedgerEntry, ...], questions: tuple[Question, ...]) -> tuple[LedgerEntry, ...]:
    """Every question put to the author surfaces its ledger entry (a new one when it had none)."""
    asked = {q.id: q for q in questions}
    entries = tuple(replace(e, surfaced=True) if e.item_id in asked else e for e in ledger)
    have = {e.item_id for e in entries}
    return entries + tuple(LedgerEntry(item_id=q.id, reason=LedgerReason.UNRESOLVED, detail=q.reason, surfaced=True)
                           for q in questions if q.id not in have)


def _bind_findings(verdict: ZeroMemoryVerdict, state: RunState, text: str) -> RunState:
    """F5 rows -> EvidencedFindings (Rule 31): bound to an open item, a recurrence, a claim
    repair relayed to the premises, or an item of its own — never dropped."""
    by_token = {item.token: item for item in state.items}
    disposed = {d.item_id for d in state.dispositions}
    repaired = {token for token, _ in state.repaired_targets}
    items, premises, ledger = list(state.items), list(state.premises), list(state.ledger)
    known = {item.id for item in items} | {p.id for p in premises}
    for finding in verdict.findings:
        bound = by_token.get(finding.token)
        if bound is not None and bound.id not in disposed:
            continue  # joins the open item it names
        recurrence = bound is not None or finding.token in repaired
        if finding.advisory == "Defer" and not recurrence:
            premise_id = "claim-" + f1_deixis.slug(finding.token)
            if premise_id not in known:
                premises.append(DecisionRecord(id=premise_id, line=_line_of(finding.location),
                                               claim=f"{finding.token!r} ({finding.location}): {finding.why}"))
                known.add(premise_id)
            continue
        item_id = ("recurrence-" if recurrence else "refuter-") + f1_deixis.slug(finding.token)
        if item_id in known:
            continue
        line, column = _position_of(text, _line_of(finding.location), finding.token)
        items.append(Item(id=item_id, token=finding.token, line=line, column=column,
                          kind=ItemKind.COMPREHENSION_GAP, origin=ItemOrigin.REFUTER, checklist=finding.category,
                          why=f"refuter, category {finding.category} at {finding.location}: {finding.why}",
                          fix=f"{finding.advisory}: {finding.repair}"))
        ledger.append(LedgerEntry(item_id=item_id, reason=LedgerReason.RECURRENCE if recurrence
                                  else LedgerReason.COMPREHENSION_GAP,
                                  detail=finding.why, surfaced=True))
        known.add(item_id)
    return replace(state, items=tuple(items), premises=tuple(premises), ledger=tuple(ledger))


def _line_of(location: str) -> int:
    match = re.search(r"line (\d+)", location)
    return int(match.group(1)) if match else 0


def _position_of(text: str, line: int, token: str) -> tuple[int, int]:
    """(line, column) of token, on its stated line or the first line that holds it; (0, 1) if absent."""
    lines = text.split("\n")
    order = ([line - 1] if 0 < line <= len(lines) else []) + list(range(len(lines)))
    for index in order:
        at = lines[index].find(token)
        if at >= 0:
            return index + 1, at + 1
    return 0, 1


def _record_answers(state: RunState, answers: tuple[Answer, ...]) -> RunState:
    known = {a.item_id for a in state.answers}
    return replace(state, answers=state.answers + tuple(a for a in answers if a.item_id not in known))


def _answer(answers: tuple[Answer, ...], item_id: str) -> Answer | None:
    return next((a for a in answers if a.item_id == item_id), None)


def _bind_decisions(decisions: tuple[DecisionRecord, ...], answers: tuple[Answer, ...]) -> tuple[DecisionRecord, ...]:
    bound = []
    for decision in decisions:
        answer = _answer(answers, decision.id)
        if answer and answer.option == "defer":
            decision = replace(decision, deferral=answer.value)
        bound.append(decision)
    return tuple(bound)


def _kept_decisions(state: RunState) -> tuple[DecisionRecord, ...]:
    """Λ.decisions without those a Gate Drop released (Rule 33: the DecisionRecord goes with its item)."""
    return tuple(d for d in state.decisions
                 if (a := _answer(state.answers, d.id)) is None or a.option != "drop")


def _premises(state: RunState) -> tuple[DecisionRecord, ...]:
    """Reception premises: accepted gaps (Defer) travel to the receiver with their condition."""
    premises = [p for p in state.premises if not p.id.startswith("defer-")]
    by_id = {item.id: item for item in state.items}
    for answer in _answers_by_item(state):
        if answer.option != "defer":
            continue
        item = by_id.get(answer.item_id)
        if item is not None and item.kind.is_residue:
            premises.append(DecisionRecord(
                id=f"defer-{item.id}", line=item.line, deferral=answer.value,
                claim=f"accepted gap at line {item.line}: {item.token!r} ({item.why or item.kind})"))
        elif item is not None and item.kind == ItemKind.POINTER:
            # F3b: a line its source contradicts, accepted as it stands; the disagreement travels
            said = next((m.source for m in state.provenance if m.item_id == item.id), item.token)
            premises.append(DecisionRecord(id=f"defer-{item.id}", line=item.line, deferral=answer.value,
                                           claim=f"unsupported claim at line {item.line}: {said}"))
        elif answer.item_id == "contract-stop":
            premises.append(DecisionRecord(id="defer-contract-stop", line=0, deferral=answer.value,
                                           claim="the contract names no stop condition"))
        elif answer.item_id.startswith("exposure-"):
            entry = next((e for e in state.ledger if e.item_id == answer.item_id), None)
            premises.append(DecisionRecord(id=f"defer-{answer.item_id}", line=0, deferral=answer.value,
                                           claim=entry.detail if entry else answer.item_id))
        elif answer.item_id.startswith("decision-"):
            decision = next((d for d in state.decisions if d.id == answer.item_id), None)
            claim = decision.claim if decision else answer.item_id
            premises.append(DecisionRecord(id=f"defer-{answer.item_id}", line=0, deferral=answer.value,
                                           claim=f"decision without a durable record: {claim}"))
    unique = {p.id: p for p in premises}
    return tuple(unique.values())


def _dropped_tokens(state: RunState) -> tuple[str, ...]:
    answers = {a.item_id: a for a in _answers_by_item(state)}
    # an excision's text stays dropped unless a later answer re-disposed its item (Resolve on exposure)
    return tuple(dict.fromkeys(
        item.token for item in state.items
        if (a := answers.get(item.id)) is not None and a.option == "drop")) + tuple(
        delta.before for delta in state.repair_deltas if delta.kind is DeltaKind.EXCISION and delta.before.strip()
        and (delta.item_id not in answers or answers[delta.item_id].option == "drop")) + tuple(
        decision.claim for decision in state.decisions
        if (a := answers.get(decision.id)) is not None and a.option == "drop")


def _exposure_sources(state: RunState) -> tuple[str, ...]:
    routed = tuple(d.value for d in state.dispositions
                   if d.kind is DispositionKind.ROUTE and d.value)
    return tuple(dict.fromkeys(routed + state.contract.allowed_sources))


def _kept_spans(text: str, state: RunState) -> tuple[tuple[int, int], ...]:
    """Offsets of kept and routed items' tokens, which no excision may cut into (Rule 12)."""
    kept = {d.item_id for d in state.dispositions if d.kind is not DispositionKind.DROP}
    starts = [0] + [i + 1 for i, char in enumerate(text) if char == "\n"]
    spans = []
    for item in state.items:
        if item.id in kept and item.kind is not ItemKind.CONTENT and item.line <= len(starts):
            start = starts[item.line - 1] + item.column - 1
            if text[start:start + len(item.token)] == item.token:
                spans.append((start, start + len(item.token)))
    return tuple(spans)


def _settled(state: RunState, scanned: tuple[Item, ...]) -> tuple[Item, ...]:
    """Items that outlive a rescan: those a repair settled (they keep their dispositions though
    their text changed, LOOP) and refuter items, which no detector finds again."""
    done = {delta.item_id for delta in state.repair_deltas}
    answered = {answer.item_id for answer in state.answers}
    present = {item.id for item in scanned}
    return tuple(item for item in state.items
                 if item.id not in present and item.kind.is_residue
                 and (item.id in done or (item.origin is ItemOrigin.REFUTER and item.id in answered)))


def _mark_authored(items: tuple[Item, ...], state: RunState) -> tuple[Item, ...]:
    """Text a repair wrote re-enters F1-F3 as authored items (Rule 25)."""
    added = [d.added for d in state.repair_deltas if d.kind is DeltaKind.RESOLUTION and d.added]
    marked = []
    for item in items:
        if any(item.token in text for text in added) and item.kind is not ItemKind.CONTENT:
            item = replace(item, origin=ItemOrigin.AUTHORED)
        marked.append(item)
    return tuple(marked)


def _refuter_input(state: RunState, snapshot: Snapshot, edges: Edges, holds: Callable[[str], bool]) -> RefuterInput:
    disposed = {d.item_id for d in state.dispositions}
    open_items = tuple(i for i in state.items if i.id not in disposed and i.kind.is_residue)
    siblings = tuple(
        j.verdict.ref.locator for j in state.judgments
        if isinstance(j.verdict, Reference) and j.verdict.ref.locator.endswith(".md")
        and _RECORD_FILE.search(j.verdict.ref.locator)
        and not edges.certified_elsewhere(j.verdict.ref.locator, state.contract.role))
    return RefuterInput(
        target=state.target, text=snapshot.text, revision=snapshot.tree_revision,
        judgments=state.judgments, contract=state.contract,
        activation_edge=f0_contract.activation_edge(state.contract, state.target),
        watchlist=tuple(row.surface_token for row in state.subst_table),
        open_items=open_items, utterances=state.utterances,
        contract_provenance=state.contract_provenance,
        cp_answer=_cp_answer(state),
        premises=state.premises,
        unresolved_references=f6_settle.unresolved_references(state.judgments, holds),
        uncertified_siblings=siblings,
        missing_sources=tuple(s for s in state.contract.allowed_sources if not holds(s)))


_CONSUMER_QUESTION = Question(id="qp-consumer", gate=GateKind.PREMISE, token="consumer profile",
                              reason="who receives this record: a person, or an agent (with or without the repo)?",
                              options=("value",))
_AUTHORITY = Question(id="qp-authority", gate=GateKind.PREMISE, token="authority copy",
                      reason="is the carried copy derived (answer: derived), or authoritative at a location "
                             "the receiver can open (a tracked path, a commit id or a durable URL)?",
                      options=("value",))


def _premise_questions(state: RunState) -> tuple[Question, ...]:
    """The Qp questions not answered yet (Rule 32), asked together with the first items."""
    return tuple(q for q in (_CONSUMER_QUESTION, _AUTHORITY) if not _answer(state.answers, q.id))


def _premise_fires(state: RunState) -> bool:
    """Qp fires iff the record was repaired, names a certificate target, or premises ride along (Rule 32)."""
    return bool(state.repair_deltas) or bool(state.contract.certificate_target) or bool(state.premises)


def _consumer_profile(state: RunState) -> str | None:
    """Qp's consumer profile as the certificate holds it; None when Qp did not fire."""
    answer = _answer(state.answers, _CONSUMER_QUESTION.id) if _premise_fires(state) else None
    return answer.value if answer else None


def _authority_copy(state: RunState) -> str | None:
    """Qp's AuthorityCopy as the certificate holds it (`derived` or the location); None when Qp did not fire."""
    answer = _answer(state.answers, _AUTHORITY.id) if _premise_fires(state) else None
    if answer is None or not answer.value:
        return None
    from diylisis.core.phases import qp_premise

    return qp_premise.stored(qp_premise.parse_authority(answer.value))


def _check_authority(state: RunState, edges: Edges) -> tuple[RunState, str | None]:
    """Qp terminal check (Rule 32): an AuthoritativeAt location must resolve and its line be
    leak-clean; a failing answer is withdrawn, so Qp is asked again with the failure cited."""
    from diylisis.core.phases import qp_premise

    authority = _answer(state.answers, "qp-authority")
    if authority is None or not authority.value:
        return state, None
    snapshot = edges.read()
    context = edges.context(snapshot)
    problem = qp_premise.authority_problem(
        qp_premise.parse_authority(authority.value), str(state.target),
        lambda locator: f2_grounding.resolves_at(locator, context), _dropped_tokens(state))
    if problem is None:
        return state, None
    return replace(state, answers=tuple(a for a in state.answers if a.item_id != "qp-authority")), problem


def _cp_answer(state: RunState) -> str | None:
    """Λ.cp_answer as the refuter reads it: Correct or Confirm once given, None while a field awaits it."""
    if f0_contract.unconfirmed_fields(state.contract_provenance):
        return None
    options = {a.option for a in state.answers
               if a.item_id.startswith("contract-") and a.option in ("confirm", "correct")}
    if "correct" in options:
        return "correct"
    return "confirm" if options or any(m.confirmed for m in state.contract_provenance) else None


def _premise_gate(state: RunState, edges: Edges) -> RunState:
    """Qp (Rule 32), when it fires: ask what is unanswered, run the terminal check, pause while open."""
    if not _premise_fires(state):
        return state  # Qp does not fire on a clean record (the hook's fast path)
    unanswered = _premise_questions(state)  # mostly asked already, with the items
    if unanswered:
        state = _record_answers(state, edges.gate.ask(unanswered, state))
    state, problem = _check_authority(state, edges)
    still = tuple(replace(q, reason=f"{problem}; {q.reason}") if problem and q is _AUTHORITY else q
                  for q in _premise_questions(state))
    if still:
        return replace(state, status=RunStatus.PAUSED, open_questions=still)
    return state
