"""`git distill preview`: contrast 2-4 throw-away probes before choosing a direction (Proplasma).

Phase 0 decides whether a preview applies; the spec gate settles axes, placeholder policy,
target set and tier before anything is generated; probes are built in private repositories
(diylisis.edges.probes), contrasted, presented probe-first; the direction gate and the synthesis
micro-gate settle a direction; the harvest is saved, then every probe is destroyed and verified,
and the DirectionalContrast goes as one JSON line to refs/notes/distill-preview on the base.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from collections.abc import Callable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

import msgspec
from msgspec import Struct, field
from msgspec.structs import replace

from diylisis.app import preview_gate
from diylisis.app.preview_gate import OpenItem
from diylisis.core.errors import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, EXIT_PAUSED, BadInput
from diylisis.core.gate import Answer as GateAnswer
from diylisis.core.preview import axes as axes_mod
from diylisis.core.preview import contrast as contrast_mod
from diylisis.core.preview import detect, flow
from diylisis.core.preview.model import (
    Arm,
    Axis,
    CellKind,
    CommitmentKind,
    Contrast,
    DetectSignals,
    ExposedUnknown,
    Fan,
    FanKind,
    ProbeDisposition,
    ProbeEvidence,
    ProbeStatus,
    Tier,
)
from diylisis.core.preview.verify import SCHEMA as RECORD_SCHEMA
from diylisis.edges import confinement, gitio, preview_note, probes, run_files, standing

NON_EVIDENCE = "evidence for no claim"
NARRATION_LIMIT = 64 * 1024
REPORT_FILE = "PREVIEW.toml"


class Request(Struct, frozen=True, kw_only=True):
    candidates: tuple[str, ...]
    axes: tuple[str, ...] = ()
    tier: Tier = Tier.MOCKUP
    probe_cmd: str | None = None
    probe_cmds: Mapping[int, str] = field(default_factory=dict)
    answers: Path | None = None
    terminal: preview_gate.Terminal | None = None
    base: str = "HEAD"
    signals: DetectSignals = DetectSignals()
    timeout: float = 300.0
    jobs: int = 4
    unconfined: bool = False
    tgt: tuple[int, ...] = ()


class Confinement(StrEnum):
    """How the probe commands were kept from the user's repository."""

    NAMESPACES = "namespaces"  # a read-only repository in their own user and PID namespaces
    FINGERPRINT = "fingerprint"  # unconfined: the repository fingerprinted, any change refused


class ProbeCommand(Struct, frozen=True, kw_only=True):
    confinement: Confinement


class Record(Struct, frozen=True, kw_only=True):
    """The DirectionalContrast record: what the note on the base stores, one JSON line with keys sorted."""

    schema: str
    arm: Arm
    run: str
    base: str
    candidates: tuple[str, ...]
    tier: Tier
    axes: tuple[Axis, ...]
    fans: tuple[Fan, ...]
    contrast_map: dict[str, dict[str, str]]  # deciding axis -> direction -> its value
    exposed_unknowns: tuple[ExposedUnknown, ...]
    direction: dict[str, Any] | None  # the harvest's direction: kind, direction, ground
    discard_trace: list[dict[str, Any]]
    non_evidence: str
    probe_command: ProbeCommand


class StoodDown(Struct, frozen=True, kw_only=True, tag_field="status", tag="not activated"):
    """The report of a run Phase 0 stood down: why, and where the decision goes."""

    run: str
    arm: Arm
    reason: str  # the NotActivated kind
    relay: str
    row: str | None
    protocol: str | None


class Done(Struct, frozen=True, kw_only=True, omit_defaults=True, tag_field="status", tag="done"):
    """The report of a run that reached a terminal arm, its probes destroyed and verified."""

    run: str
    arm: Arm
    relay: str
    record: Record
    contrast: dict[str, Any] | None
    repository_changed: tuple[str, ...] = ()  # left out when the repository is byte-identical


class PausedAt(Struct, frozen=True, kw_only=True, tag_field="status", tag="paused"):
    """The report of a run paused at a gate: the one item it waits on."""

    run: str
    items: tuple[OpenItem, ...]
    contrast: dict[str, Any] | None


Report = StoodDown | Done | PausedAt  # `--format json` prints it, its variant named by "status"


class Result(Struct, frozen=True, kw_only=True):
    run: str
    arm: Arm | None  # None: paused at a gate
    exit_code: int
    report: Report


def report_json(report: Report) -> str:
    """The report as `--format json` prints it: one JSON object, keys sorted."""
    return json.dumps(msgspec.to_builtins(report), ensure_ascii=False, sort_keys=True)


def exit_code(arm: Arm | None) -> int:
    if arm is None:
        return EXIT_PAUSED
    if arm.converged:
        return EXIT_OK
    return EXIT_BAD_INPUT if arm is Arm.REQUIRES_FAIL else EXIT_FAILED


def run_preview(root: Path, git_dir: Path, request: Request, run: str, emit: Callable[[str], None]) -> Result:
    """Run one preview from Phase 0 to a terminal or a pause; emit prints the text as it comes."""
    candidates = detect.distinct_candidates(request.candidates)
    base = commit_id(root, request.base)
    stood_down = detect.detect(candidates, request.signals)
    if base is None and stood_down is None:
        raise BadInput(f"the base {request.base!r} is not a commit of this repository (commit something first, "
                       "or pass --base REV)")
    if stood_down is not None:
        arm = Arm.REQUIRES_FAIL if stood_down.kind == "requires_fail" else Arm.NOT_ACTIVATED
        emit(f"not activated: {stood_down.relay}")
        report = StoodDown(run=run, arm=arm, reason=stood_down.kind, relay=stood_down.relay, row=stood_down.row,
                           protocol=stood_down.protocol)
        if base is not None:
            probes.save_record(git_dir, run, {"kind": "preview", "run": run, "status": "not activated",
                                              "candidates": list(candidates), "probes": [], "relay": stood_down.relay})
        return Result(run=run, arm=arm, exit_code=exit_code(arm), report=report)
    assert base is not None
    try:
        axes = tuple(axes_mod.parse_axis(text) for text in request.axes)
    except ValueError as problem:
        raise BadInput(str(problem)) from None
    if request.probe_cmd is None:
        missing = [k for k in range(len(candidates)) if k not in request.probe_cmds]
        if missing or not request.probe_cmds:
            raise BadInput("a preview needs a probe command: --probe-cmd CMD, or --probe-cmd-k K=CMD "
                           f"for every probe (missing: {', '.join(map(str, missing)) or 'all'})")
    code, out, _ = gitio.try_git(["config", "--get", "extensions.partialClone"], root)
    if code == 0 and out.strip():
        raise BadInput("this repository is a partial clone: a probe's checkout would need objects it lacks; "
                       "fetch them (git fetch --refetch) or preview in a full clone")
    confined = not request.unconfined
    if confined and not confinement.sandbox_available():
        raise BadInput("probes cannot be confined on this machine (no user namespaces); pass --unconfined to run "
                       "them with your repository fingerprinted and any change refused")
    answers = preview_gate.AnswersFile(request.answers) if request.answers else None
    ask = preview_gate.chooser(answers, request.terminal)
    targets = tuple(candidates[k - 1] for k in request.tgt) if request.tgt else None
    if request.tgt and any(not 1 <= k <= len(candidates) for k in request.tgt):
        raise BadInput(f"--tgt numbers run from 1 to {len(candidates)}")
    marker = f"DISTILL-PLACEHOLDER-{run}"
    state = flow.start(candidates, axes, request.tier, marker, targets)
    session = _Session(root=root, git_dir=git_dir, run=run, base=base, request=request, emit=emit,
                       confined=confined, before=repository_marks(root))
    return session.drive(state, ask)


def commit_id(root: Path, revision: str) -> str | None:
    """The commit REVISION names in the user's repository, or None when it names none."""
    code, out, _ = gitio.git_process(["rev-parse", "--verify", "-q", "--end-of-options", f"{revision}^{{commit}}"],
                                     root, env=probes.our_git_env())
    return out.decode().strip() if code == 0 else None


class _Session:
    """The edges of one run: its substrate, the evidence read so far, the emitted text. It changes
    as the run goes (probes made, evidence read), so it is a plain object, not a frozen value."""

    def __init__(self, *, root: Path, git_dir: Path, run: str, base: str, request: Request,
                 emit: Callable[[str], None], confined: bool, before: dict[str, str],
                 narrations: dict[int, tuple[str, str]] | None = None) -> None:
        self.root = root
        self.git_dir = git_dir
        self.run = run
        self.base = base
        self.request = request
        self.emit = emit
        self.confined = confined
        self.before = before
        self.substrate: probes.Substrate | None = None
        self.evidence: dict[int, ProbeEvidence] = {}
        self.seen: Contrast | None = None
        self.outcomes: dict[int, probes.ProbeOutcome] = {}
        self.narrations: dict[int, tuple[str, str]] = narrations or {}  # index -> (text, sha256)

    def drive(self, state: flow.Lambda, ask: preview_gate.Ask, start: flow.Next = flow.Next.QSPEC) -> Result:
        """Run to a terminal or a pause; on Ctrl-C or any error every probe made so far is
        destroyed and verified before the error goes on (never a probe left behind silently)."""
        try:
            return self._drive(state, ask, start)
        except BaseException:
            if run_exists(self.git_dir, self.run) and probes.load_record(self.git_dir, self.run).get("probes"):
                dispositions = probes.cleanup_verify(self.git_dir, self.run)
                for d in dispositions:
                    self.emit(f"probe {d.probe.index}: {d.kind}" + (f" ({d.reason})" if d.reason else ""))
            raise

    def _drive(self, state: flow.Lambda, ask: preview_gate.Ask, start: flow.Next) -> Result:
        step = flow.Step(state=state, next=start)
        while True:
            state = step.state
            if step.relay:
                self.emit(step.relay)
            match step.next:
                case flow.Next.END:
                    assert step.arm is not None
                    return self.finish(state, step.arm, step.relay)
                case flow.Next.INSTANTIATE:
                    step = flow.Step(state=self.instantiate(state), next=flow.Next.QDIR)
                    continue
                case flow.Next.HARVEST:
                    return self.harvest_and_finish(state)
            item = self.open_item(state, step.next)
            raw = ask(item)
            if raw is None:
                return self.pause(state, item)
            answer = preview_gate.read(item.gate, raw)
            if isinstance(answer, flow.QspecAnswer):
                step = flow.on_qspec(state, answer)
            elif isinstance(answer, flow.QdirAnswer):
                assert self.seen is not None
                step = flow.on_qdir(state, answer, self.seen)
            else:
                step = flow.on_qmicro(state, answer)

    def open_item(self, state: flow.Lambda, gate: flow.Next) -> OpenItem:
        if gate is flow.Next.QSPEC:
            return OpenItem(id=f"qspec-{state.circulation}", gate="qspec", options=("approve", "adjust"),
                            text=self.qspec_text(state))
        if gate is flow.Next.QDIR:
            options = tuple(f"select:{slot.index}" for slot in state.probes) + ("synthesize",)
            flagged = [row.axis.id for row in self.seen.rows if row.flagged] if self.seen else []
            warning = (f"the contrast looks insufficient: {', '.join(flagged)} does not tell the probes apart "
                       "(answer insufficient to re-fan, or choose anyway)\n" if flagged else "")
            lines = [f"  select {slot.index}: " + "; ".join(
                f"{row.axis.id} = {cell.value or cell.kind}" for row in (self.seen.rows if self.seen else ())
                for index, cell in row.cells if index == slot.index) for slot in state.probes]
            return OpenItem(id="qdir", gate="qdir", options=options,
                            text=warning + "choose a direction:\n" + "\n".join(lines)
                            + "\n  synthesize TEXT (also: insufficient, unprobed TEXT, interrogate TEXT, withdraw)")
        return OpenItem(id="qmicro", gate="qmicro", options=flow.qmicro_options(state),
                        text=f"your synthesis: {state.composition}\nconfirm it now"
                        + (", or materialize it as a probe first" if state.refan_budget else ""))

    def qspec_text(self, state: flow.Lambda) -> str:
        spec = state.spec
        lines = [f"preview {self.run}: settle what the probes must show before any is made"]
        lines += [f"  axis {axis.id}: {axis.question} ({axis.proposed_by})" for axis in spec.axes]
        if not spec.axes:
            lines.append("  no axis yet; where the candidates' texts differ:")
            lines += [f"    {hint.candidate}: {', '.join(hint.distinctive) or '(no word of its own)'}"
                      for hint in axes_mod.derive_hints(state.candidates)]
        lines.append(f"  placeholders: {spec.policy.text()}")
        lines += [f"  probe {n}. {text}" if text in spec.tgt else f"  not probed {n}. {text}"
                  for n, text in enumerate(state.candidates, 1)]
        if state.refan_kind is FanKind.MATERIALIZATION:
            lines += [f"  probe: {target}" for target in spec.tgt]
        lines.append(f"  tier: {spec.tier.value}; confinement: "
                     + ("read-only repository, own folder writable, own PID namespace" if self.confined
                        else "NOT confined (your repository is fingerprinted and any change refused)"))
        lines.append("  every probe is destroyed when the preview ends; answer approve, adjust TEXT, "
                     "dissolve BASIS or withdraw")
        return "\n".join(lines)

    def instantiate(self, state: flow.Lambda) -> flow.Lambda:
        assert state.pending is not None
        first = len(state.probes)
        state = flow.instantiated(state)
        new = state.probes[first:]
        axes_json = json.dumps([{"id": a.id, "question": a.question} for a in state.spec.axes])
        env = {slot.index: {"DISTILL_PROBE": str(slot.index), "DISTILL_CANDIDATE": slot.direction,
                            "DISTILL_AXES": axes_json, "DISTILL_POLICY": state.spec.policy.text(),
                            "DISTILL_PROBE_MARKER": state.spec.policy.marker,
                            "DISTILL_TIER": state.spec.tier.value} for slot in new}
        if state.spec.tier is Tier.VIGNETTE:
            self.emit(f"narrating {len(new)} vignettes (no files are made; your repository is not touched)")
            if not run_exists(self.git_dir, self.run):
                probes.save_record(self.git_dir, self.run, {"kind": "preview", "run": self.run, "base": self.base,
                                                            "status": "narrating", "tier": "vignette",
                                                            "candidates": list(state.candidates), "probes": []})
            for slot in new:
                self.evidence[slot.index] = self.narrate(slot.index, slot.direction, env[slot.index])
            return self.contrasted(state)
        if self.substrate is None:
            self.substrate = probes.begin(self.root, self.git_dir, self.base, self.run,
                                          {"candidates": list(state.candidates), "tier": state.spec.tier.value})
            self.emit(f"creating {len(new)} probes in {self.substrate.root} (your repository is not touched)")
        for slot in new:
            probes.create_probe(self.substrate, slot.index, slot.direction, state.spec.policy.marker)
        commands = {slot.index: self.command_for(slot.index) for slot in new}
        for outcome in probes.run_probes(self.substrate, commands, env, timeout=self.request.timeout,
                                         confined=self.confined, jobs=self.request.jobs):
            self.outcomes[outcome.index] = outcome
        for slot in new:
            self.evidence[slot.index] = self.read_probe(slot.index, slot.direction)
        return self.contrasted(state)

    def contrasted(self, state: flow.Lambda) -> flow.Lambda:
        self.seen = contrast_mod.contrast(state.spec.axes, tuple(self.evidence[s.index] for s in state.probes),
                                          state.unknowns)
        state = replace(state, unknowns=self.seen.unknowns)
        self.present(state)
        return state

    def narrate(self, index: int, direction: str, env: Mapping[str, str]) -> ProbeEvidence:
        """A vignette: the probe command narrates the direction from a read-only export of the base;
        its stdout (front matter 'axis: value' lines, a blank line, the narration) is kept as is."""
        from diylisis.edges.refuter.command import export

        protected = standing.protected_paths(self.root)
        with export(self.root, self.base) as tree:
            outcome = confinement.run(confinement.Dispatch(
                argv=("sh", "-c", self.command_for(index)), cwd=tree,
                env={**env, "DISTILL_PREVIEW_RUN": self.run}, read_only=(*protected, tree),
                timeout=self.request.timeout, output_limit=NARRATION_LIMIT, confined=self.confined,
                tag=probes.probe_tag(self.run, index)))
        status = (ProbeStatus.TIMED_OUT if outcome.stop == "timeout"
                  else ProbeStatus.FAILED if outcome.stop or outcome.returncode else ProbeStatus.POPULATED)
        self.outcomes[index] = probes.ProbeOutcome(index=index, status=status, exit_status=outcome.returncode,
                                                   seconds=outcome.seconds, log_tail="")
        text = outcome.stdout.decode("utf-8", "replace") if status is ProbeStatus.POPULATED else ""
        self.narrations[index] = (text, hashlib.sha256(outcome.stdout).hexdigest())
        return replace(_narrated_evidence(index, direction, text), status=status)

    def command_for(self, index: int) -> str:
        found = self.request.probe_cmds.get(index, self.request.probe_cmd)
        if found is None:
            raise BadInput(f"no probe command for probe {index}: add --probe-cmd-k {index}=CMD or --probe-cmd CMD")
        return found

    def read_probe(self, index: int, direction: str) -> ProbeEvidence:
        assert self.substrate is not None
        outcome = self.outcomes[index]
        change = probes.harvest_changes(self.substrate, index)
        report = _report(probes.read_blob(self.substrate, change.tree, REPORT_FILE))
        listing = probes.git(["ls-tree", "-r", "-z", "--name-only", change.tree], self.substrate.root,
                             GIT_DIR=str(self.substrate.root / "inspect.git")).split(b"\0")
        present = frozenset(p.decode("utf-8", "surrogateescape") for p in listing if p)
        return ProbeEvidence(
            index=index, direction=direction, status=outcome.status,
            axis_values=tuple((axis_id, str(value.get("value", "")), tuple(map(str, value.get("paths", ()))))
                              for axis_id, value in report.get("axes", {}).items() if isinstance(value, dict)),
            commitments=tuple((str(k), str(v)) for k, v in report.get("commitments", {}).items()),
            unknowns=tuple((str(u.get("text", "")), str(u.get("route", ""))) for u in report.get("unknowns", [])
                           if isinstance(u, dict)),
            walkthrough=str(report.get("walkthrough", "")),
            changed=tuple((path, blob) for path, blob in change.blobs.items() if path != REPORT_FILE),
            present_paths=present, files=change.files, stamp_intact=change.stamp_intact)

    def present(self, state: flow.Lambda) -> None:
        assert self.seen is not None
        for slot in state.probes:
            found = self.evidence[slot.index]
            outcome = self.outcomes[slot.index]
            self.emit(f"== PLACEHOLDER probe {slot.index}: {slot.direction} ({found.status}"
                      + (f", exit {outcome.exit_status}" if found.status is ProbeStatus.FAILED else "") + ")")
            if slot.index in self.narrations:
                text, digest = self.narrations[slot.index]
                self.emit(f"   vignette, sha256 {digest[:16]}:")
                self.emit("   " + text.rstrip("\n").replace("\n", "\n   "))
                continue
            assert self.substrate is not None
            self.emit(f"   {self.substrate.probe_dir(slot.index) / 'tree'}")
            if found.walkthrough:
                self.emit("   " + found.walkthrough.strip().replace("\n", "\n   "))
            for status, path in found.files:
                self.emit(f"   {status} {path}")
        self.emit("== contrast")
        for row in self.seen.rows:
            flag = "  [does not tell them apart]" if row.flagged else ""
            self.emit(f"  {row.axis.id}: {row.axis.question}{flag}")
            for index, cell in row.cells:
                shown = cell.value if cell.kind is CellKind.VALUE else f"{cell.kind} {cell.value}".strip()
                cited = f" ({', '.join(cell.paths)})" if cell.paths else ""
                self.emit(f"    probe {index}: {shown}{cited}" + (f" - {cell.note}" if cell.note else ""))
        for common in self.seen.common:
            value = f" = {common.value}" if common.kind is CommitmentKind.DECLARED else ""
            self.emit(f"  shared by every probe: {common.key}{value}")
        for unknown in self.seen.unknowns:
            self.emit(f"  unknown ({unknown.route.value}): {unknown.text}")
        for index, axis_id in self.seen.raised_axes:
            self.emit(f"  raised by probe {index}, not settled: {axis_id}")
        for problem in (*self.seen.problems, *self.seen.rejected_unknowns):
            self.emit(f"  note: {problem}")
        unprobed = [c for c in state.candidates if c not in state.directions()]
        for text in unprobed:
            self.emit(f"  not probed: {text}")

    def harvest_and_finish(self, state: flow.Lambda) -> Result:
        assert state.direction is not None and self.seen is not None
        harvest = {"direction": {"kind": state.direction.kind, "direction": state.direction.direction,
                                 "ground": state.direction.ground},
                   "deciding_rows": self.deciding_rows(state),
                   "unknowns": [{"text": u.text, "route": u.route.value} for u in state.unknowns]}

        def save(data: dict[str, Any]) -> None:
            data["harvest"] = harvest

        probes.update_record(self.git_dir, self.run, save)
        return self.finish(state, Arm.DIRECTIONAL_CONTRAST, "", harvest)

    def deciding_rows(self, state: flow.Lambda) -> dict[str, dict[str, str]]:
        assert self.seen is not None and state.direction is not None
        names = {slot.index: slot.direction for slot in state.probes}
        return {row.axis.id: {names[index]: cell.value or cell.kind for index, cell in row.cells}
                for row in self.seen.rows if row.axis.id in state.direction.deciding}

    def finish(self, state: flow.Lambda, arm: Arm, relay: str, harvest: dict[str, Any] | None = None) -> Result:
        dispositions: tuple[probes.Disposition, ...] = ()
        if self.substrate is not None:
            dispositions = probes.cleanup_verify(self.git_dir, self.run)
        changed = standing.fingerprint_changes(_without_run_files(self.before, self.git_dir),
                                               _without_run_files(repository_marks(self.root), self.git_dir))
        trace: list[dict[str, Any]] = [{"probe": {"index": d.probe.index, "direction": d.probe.direction,
                            "artifact_ref": d.probe.artifact_ref}, "disposition": d.kind,
                  **({"reason": d.reason} if d.reason else {})} for d in dispositions]
        trace += [{"probe": {"index": index, "direction": slot_direction, "artifact_ref": None},
                   "disposition": ProbeDisposition.NO_FILE_ARTIFACT}
                  for index, slot_direction in ((s.index, s.direction) for s in state.probes)
                  if index in self.narrations]
        trace.sort(key=lambda entry: int(entry["probe"]["index"]))
        for entry in trace:
            self.emit(f"probe {entry['probe']['index']}: {entry['disposition']}"
                      + (f" ({entry['reason']})" if entry.get("reason") else ""))
        failed = [d for d in dispositions if d.kind is ProbeDisposition.DISCARD_FAILED]
        if failed and self.substrate is not None:
            self.emit(f"some probes could not be removed: rm -rf {self.substrate.root}, "
                      f"or git distill preview --cleanup {self.run}")
        self.emit("your repository changed during the preview: " + "; ".join(changed) if changed
                  else "your repository is byte-identical (compared)")
        record = self.record(state, arm, trace, harvest)
        if arm is Arm.DIRECTIONAL_CONTRAST:
            assert record.direction is not None
            preview_note.put_line(self.root, preview_note.REF, self.base,
                                  json.dumps(msgspec.to_builtins(record), sort_keys=True, ensure_ascii=False))
            self.emit(f"direction: {record.direction['direction']} (recorded as a note on {self.base[:12]} "
                      f"under {preview_note.REF}; add 'Distill-Preview: {self.run}' to the commit that realizes it)")

        def close(data: dict[str, Any]) -> None:
            data["status"] = arm.value

        if run_exists(self.git_dir, self.run):
            probes.update_record(self.git_dir, self.run, close)
        report = Done(run=self.run, arm=arm, relay=relay, record=record, contrast=self.contrast_json(),
                      repository_changed=tuple(changed))
        return Result(run=self.run, arm=arm, exit_code=exit_code(arm) if not changed else EXIT_FAILED, report=report)

    def record(self, state: flow.Lambda, arm: Arm, trace: list[dict[str, Any]],
               harvest: dict[str, Any] | None) -> Record:
        return Record(schema=RECORD_SCHEMA, arm=arm, run=self.run, base=self.base, candidates=state.candidates,
                      tier=state.spec.tier, axes=state.spec.axes, fans=state.fans,
                      contrast_map=harvest["deciding_rows"] if harvest else {}, exposed_unknowns=state.unknowns,
                      direction=harvest["direction"] if harvest else None, discard_trace=trace,
                      non_evidence=NON_EVIDENCE, probe_command=ProbeCommand(
                          confinement=Confinement.NAMESPACES if self.confined else Confinement.FINGERPRINT))

    def contrast_json(self) -> dict[str, Any] | None:
        if self.seen is None:
            return None
        return {"rows": [{"axis": row.axis.id, "flagged": row.flagged,
                          "cells": [{"probe": index, "kind": cell.kind, "value": cell.value, "paths": list(cell.paths),
                                     "note": cell.note} for index, cell in row.cells]} for row in self.seen.rows],
                "common_commitments": [{"key": c.key, "value": c.value, "kind": c.kind} for c in self.seen.common],
                "exposed_unknowns": [{"text": u.text, "route": u.route.value} for u in self.seen.unknowns],
                "raised_axes": [{"probe": p, "axis": a} for p, a in self.seen.raised_axes]}

    def pause(self, state: flow.Lambda, item: OpenItem) -> Result:
        saved = {"status": "paused", "items": [msgspec.to_builtins(item)], "next": item.gate,
                 "state": msgspec.to_builtins(state),
                 "before": self.before, "base": self.base,
                 "narrations": {str(k): list(v) for k, v in self.narrations.items()},
                 "session": {"confined": self.confined, "probe_cmd": self.request.probe_cmd,
                             "probe_cmds": {str(k): v for k, v in self.request.probe_cmds.items()},
                             "timeout": self.request.timeout, "jobs": self.request.jobs}}
        if not run_exists(self.git_dir, self.run):
            probes.save_record(self.git_dir, self.run, {"kind": "preview", "run": self.run,
                                                        "candidates": list(state.candidates), "probes": []})
        probes.update_record(self.git_dir, self.run, lambda data: data.update(saved))
        self.emit(item.text)
        self.emit(f"paused at {item.id}: git distill preview --resume {self.run} (with --answers FILE, "
                  "or on a terminal)"
                  + (f"; the probes stay until git distill preview --cleanup {self.run}" if self.substrate else ""))
        return Result(run=self.run, arm=None, exit_code=EXIT_PAUSED,
                      report=PausedAt(run=self.run, items=(item,), contrast=self.contrast_json()))


def _narrated_evidence(index: int, direction: str, text: str) -> ProbeEvidence:
    """A vignette's cells: the 'axis: value' lines before its first blank line."""
    head, _, _ = text.partition("\n\n")
    values = []
    for line in head.splitlines():
        axis_id, colon, value = line.partition(":")
        if colon and value.strip():
            values.append((axis_id.strip(), value.strip(), ()))
    return ProbeEvidence(index=index, direction=direction, status=ProbeStatus.POPULATED, axis_values=tuple(values),
                         narrated=True)


def resume_preview(root: Path, git_dir: Path, run: str, answers: Path | None, terminal: preview_gate.Terminal | None,
                   emit: Callable[[str], None]) -> Result:
    """Continue a run paused at a gate, with its probes as they were left."""
    record = probes.load_record(git_dir, run)
    if record.get("status") != "paused":
        raise BadInput(f"preview run {run} is not paused (it is {record.get('status', 'unknown')}); "
                       "only a paused run can be resumed")
    try:
        state = msgspec.convert(record["state"], flow.Lambda)
        session_data = record["session"]
        start = flow.Next(record["next"])
        request = Request(candidates=state.candidates, probe_cmd=session_data.get("probe_cmd"),
                          probe_cmds={int(k): str(v) for k, v in session_data.get("probe_cmds", {}).items()},
                          timeout=float(session_data["timeout"]), jobs=int(session_data["jobs"]),
                          unconfined=not session_data["confined"])
        before = {str(k): str(v) for k, v in record["before"].items()}
        narrations = {int(k): (str(v[0]), str(v[1])) for k, v in record.get("narrations", {}).items()}
    except (KeyError, TypeError, ValueError) as problem:
        raise BadInput(f"the run file of preview {run} cannot be resumed: {problem!r} is missing or wrong") from None
    if not start.is_gate:
        raise BadInput(f"the run file of preview {run} names no gate to resume at")
    session = _Session(root=root, git_dir=git_dir, run=run, base=str(record["base"]), request=request, emit=emit,
                       confined=not request.unconfined, before=before, narrations=narrations)
    if any(entry.get("artifact_ref") for entry in record.get("probes", [])):
        session.substrate = probes.reopen(root, git_dir, record)
    statuses = {entry["index"]: entry for entry in record.get("probes", [])}
    for slot in state.probes:
        entry = statuses.get(slot.index, {})
        session.outcomes[slot.index] = probes.ProbeOutcome(
            index=slot.index, status=ProbeStatus(entry.get("status", ProbeStatus.POPULATED))
            if slot.index not in narrations else ProbeStatus.POPULATED,
            exit_status=entry.get("exit_status"), seconds=0.0, log_tail="")
        if slot.index in narrations:
            session.evidence[slot.index] = _narrated_evidence(slot.index, slot.direction, narrations[slot.index][0])
        else:
            session.evidence[slot.index] = session.read_probe(slot.index, slot.direction)
    if state.probes:
        session.seen = contrast_mod.contrast(state.spec.axes, tuple(session.evidence[s.index] for s in state.probes),
                                             state.unknowns)
    probes.update_record(git_dir, run, lambda data: data.update({"status": "resumed"}))
    later = preview_gate.chooser(preview_gate.AnswersFile(answers) if answers else None, terminal)
    given = {str(k): v for k, v in record.get("given", {}).items()}  # from git distill answer

    def ask(item: OpenItem) -> GateAnswer | None:
        raw = given.pop(item.gate, None)
        return preview_gate.typed(item.gate, raw) if raw is not None else later(item)

    emit(f"resuming preview {run} at {start}")
    return session.drive(state, ask, start)


def repository_marks(root: Path) -> dict[str, str]:
    """The user's repository as a preview must leave it: refs, HEAD, work-tree state, hooks, config
    and the git configuration it reads (the user's global and system files included)."""
    marks = standing.fingerprint(root)
    code, out, err = gitio.try_git(["config", "--list", "--show-origin", "-z"], root)
    marks["git configuration (global, system and repository)"] = hashlib.sha256(out if code == 0 else err).hexdigest()
    return marks


def _without_run_files(marks: dict[str, str], git_dir: Path) -> dict[str, str]:
    """The fingerprint less diylisis's own run files (the one thing a preview writes there)."""
    ours = f"git-dir {os.path.realpath(git_dir / 'distill')}"
    return {key: value for key, value in marks.items()
            if not (key == ours or key.startswith(ours + os.sep))}


def run_exists(git_dir: Path, run: str) -> bool:
    return os.path.exists(run_files.run_file(git_dir, run))


def _report(data: bytes | None) -> dict[str, Any]:
    """A probe's PREVIEW.toml; an unreadable one counts as none (its cells are UNDIFFERENTIATED)."""
    if data is None:
        return {}
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def cleanup(git_dir: Path, run: str) -> tuple[probes.Disposition, ...]:
    """The backstop after a crash: kill what is left, remove every registered probe, verify."""
    probes.load_record(git_dir, run)
    return probes.cleanup_verify(git_dir, run)
