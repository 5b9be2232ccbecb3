"""Wire one certification: a target in a repository, its edges, start, resume and answer.

This is where the engine meets git: the record adapters, the detectors, the refuter,
the gate, the write channel, the run files and the note store.
"""

from __future__ import annotations

import os
import time

from diylisis import codec, gitio, records, runs, store
from diylisis.config import ContractFields
from diylisis.engine import Edges, Result, run
from diylisis.errors import BadInput
from diylisis.frozen import replace
from diylisis.model import Certificate, RecordKind, Snapshot, Target
from diylisis.phases import f0_contract, f2_grounding
from diylisis.records import msgfile
from diylisis.state import Answer, RunState
from diylisis.workspace import Workspace, git_values

TYPE_CHECKING = False  # true for type checkers only: the hook never imports typing
if TYPE_CHECKING:
    from diylisis.gate import Gate


def read(workspace: Workspace, target: Target) -> Snapshot:
    """The target's snapshot; a message file is read with the workspace's git facts."""
    if target.kind is RecordKind.MSGFILE:
        cleanup, comment = msgfile.config_from(git_values(workspace))
        facts = msgfile.GitFacts(cleanup=cleanup, comment=comment, head=workspace.head)
        return msgfile.read(target, workspace.root, max_bytes=workspace.config.max_record_bytes, facts=facts)
    return records.read_snapshot(target, workspace.root, max_bytes=workspace.config.max_record_bytes)


def detector(workspace: Workspace):
    """detect(snapshot, context) -> (findings, suppressions) with the repository's settings."""
    from diylisis import detectors

    settings = workspace.config.detect_settings()
    seen: dict[tuple[Snapshot, object], tuple[tuple, tuple[str, ...]]] = {}

    def detect(snapshot: Snapshot, context=None) -> tuple[tuple, tuple[str, ...]]:
        # the engine asks again for the same snapshot (each pass, then F7's suppressions)
        key = (snapshot, context)
        if key not in seen:
            findings, suppressed = detectors.detect_with_suppressions(snapshot, context, settings)
            seen[key] = (findings, tuple(f"{f.rule_id} at line {f.line}" for f in suppressed))
        return seen[key]

    return detect


def context_for(workspace: Workspace):
    """RepoContext per record: pygit2 at the certified revision, or `git` calls on the index for a
    message or staged file being committed (the tree the new commit will have; no pygit2 import)."""
    from diylisis.gitio import context as contexts

    cache: dict[tuple[str | None, str | None, bool], object] = {}

    def context(snapshot: Snapshot):
        on_index = snapshot.target.kind is RecordKind.MSGFILE or snapshot.tree_revision is None
        own_tree_only = snapshot.target.kind is RecordKind.FILE  # a message may name what its change removed
        key = (None if on_index else snapshot.tree_revision, snapshot.path, own_tree_only)
        if key not in cache:
            if on_index:
                cache[key] = contexts.GitCommandContext(workspace.root, None, exclude_path=snapshot.path,
                                                        config=git_values(workspace))
            else:
                from diylisis.workers import open_in_this_process  # one handle per process, not per revision

                cache[key] = contexts.PygitContext(open_in_this_process(workspace.root), snapshot.tree_revision,
                                                   exclude_path=snapshot.path, first_parent=not own_tree_only)
        return cache[key]

    return context


def start(workspace: Workspace, target: Target, request: ContractFields,
          utterances: tuple[str, ...], check_dirty: bool = True, *,
          ratified_by: str | None = None) -> RunState:
    """F0: declare the contract, run its guards, and open a run; ratified_by: who stands behind
    fields the utterance does not carry, where no one can be asked (a hook's committed config)."""
    contract, _ = f0_contract.declare(request, workspace.config.contract)
    snapshot = _read_once(workspace, target)  # only a guard that needs the record reads it
    f0_contract.check_content_free(contract, ())
    if contract.activation_verb != f0_contract.DEFAULT_VERB:
        f0_contract.check_verb_against_target(contract, snapshot().text)
    f0_contract.check_competence_substitution(contract, resolves=lambda locator: f2_grounding.resolves_at(
        locator, context_for(workspace)(snapshot()))[0])
    f0_contract.check_certificate_target(contract, target, workspace.root)
    if check_dirty:
        refuse_dirty(workspace, target)
    return RunState(
        run_id=runs.new_run_id(), target=target, contract=contract, utterances=utterances,
        contract_provenance=f0_contract.mark_provenance(contract, utterances, ratified_by),
        status="running")


def _read_once(workspace: Workspace, target: Target):
    """read(workspace, target), on first call, remembered."""
    made: list[Snapshot] = []

    def snapshot() -> Snapshot:
        if not made:
            made.append(read(workspace, target))
        return made[0]

    return snapshot


def refuse_dirty(workspace: Workspace, target: Target) -> None:
    """A file with uncommitted changes is refused up front, so no repair commit mixes them in."""
    if target.kind is not RecordKind.FILE or target.revision is not None:
        return
    status = gitio.run_git(["status", "--porcelain", "--", target.locator], workspace.root)
    if status.strip():
        raise BadInput(f"{target.locator} has uncommitted changes; commit or stash them first, "
                       "so repair commits hold only the repair")


def edges(workspace: Workspace, target: Target, gate: Gate, *, check_only: bool = False,
          certificate_target: str | None = None, pending: store.PendingPut | None = None) -> Edges:
    """The engine's side effects for this target; pending: a store.start_put begun for its snapshot."""
    detect = detector(workspace)
    context = context_for(workspace)
    channel = None if check_only else records.write_channel(target, workspace.root)
    reason = "--check never writes" if check_only else records.no_channel_reason(target, workspace.root)

    def write(new_bytes: bytes, state: RunState) -> str | None:
        records.apply(target, workspace.root, new_bytes)
        if target.kind is RecordKind.FILE:
            message = (f"distill: repair {target.locator} (pass {state.pass_n})\n\n"
                       f"Repairs made by git distill certify for role {state.contract.role}.\n\n"
                       f"Distill-Run: {state.run_id}\nDistill-Pass: {state.pass_n}\n")
            gitio.run_git(["add", "--", target.locator], workspace.root)
            gitio.run_git(["commit", "-q", "--no-verify", "-F", "-", "--", target.locator],
                          workspace.root, input=message.encode("utf-8"))
            return gitio.run_git(["rev-parse", "HEAD"], workspace.root).decode().strip()
        return None

    def certified_elsewhere(path: str, role: str) -> bool:
        try:
            with open(os.path.join(workspace.root, path), "rb") as handle:
                data = handle.read()
        except OSError:
            return False
        return any(c.get("role") == role for c in store.get(workspace.root, data))

    def read_source(locator: str, snapshot: Snapshot) -> str | None:
        if locator.startswith(("http://", "https://")):
            return None  # never fetched: its contents cannot show that it exposes nothing (F6)
        path = locator.split(":", 1)[0]
        where = f"{snapshot.tree_revision}:{path}" if snapshot.tree_revision else f":{path}"
        code, out, _ = gitio.try_git(["cat-file", "blob", where], workspace.root)
        return out.decode("utf-8", "replace") if code == 0 else None

    def store_certificate(certificate: Certificate, snapshot: Snapshot) -> None:
        entries = [(snapshot.data, codec.certificate_to_dict(certificate))]
        for alternate in snapshot.alternates:
            # another way git may store this message: certified only if it is clean too,
            # and under its own digest, so verify re-checks exactly those bytes
            candidate = replace(snapshot, data=alternate, alternates=())
            findings, _ = detect(candidate, context(candidate))
            if any(f.severity.value == "error" for f in findings):
                continue
            identity = replace(certificate.identity, digest=candidate.digest,
                               boundary=certificate.identity.boundary + " (another cleanup mode)")
            entries.append((alternate, codec.certificate_to_dict(replace(certificate, identity=identity))))
        config = pending.config if pending is not None else store.settings_from(git_values(workspace))
        store.put_many(workspace.root, entries, config=config, pending=pending)
        if certificate_target and certificate_target not in ("notes", "session"):
            # an externally named landing place, besides the note (F7: contract.certificate_target)
            landing = os.path.join(workspace.root, certificate_target.removeprefix("file:"))
            import json

            with open(landing, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(entries[0][1], ensure_ascii=False, indent=2) + "\n")

    def self_ledger(snapshot: Snapshot) -> str | None:
        # a commit message is itself the durable record of the decisions it states
        if target.kind is RecordKind.COMMIT:
            return snapshot.revision
        if target.kind is RecordKind.MSGFILE:
            return "the commit this message creates"
        return None

    return Edges(
        read=lambda: read(workspace, target),
        context=context,
        detect=lambda snapshot: detect(snapshot, context(snapshot)),
        refute=refuter_for(workspace),
        gate=gate,
        write=write if channel is not None else None,
        save=(lambda state: None) if check_only else (lambda state: runs.save(workspace.git_dir, state)),
        certified_elsewhere=certified_elsewhere,
        read_source=read_source,
        store=store_certificate,
        now=lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        self_ledger=self_ledger,
        no_channel_reason=reason,
    )


def refuter_for(workspace: Workspace):
    """F5 realization from `[refuter]`: the configured command, else the built-in lint."""
    from diylisis import refuter

    return refuter.realization_for(workspace.config.refuter, root=workspace.root)


def certify(workspace: Workspace, state: RunState, gate: Gate, *, check_only: bool = False) -> Result:
    """Run (or continue) a certification to a certificate, a pause or a stop."""
    return run(state, edges(workspace, state.target, gate, check_only=check_only,
                            certificate_target=state.contract.certificate_target))


def answer(workspace: Workspace, run_id: str, answer: Answer) -> RunState:
    """Record one answer in a paused run (`git distill answer`)."""
    state = runs.load(workspace.git_dir, run_id)
    if state.status != "paused":
        raise BadInput(f"run {run_id} is {state.status}, not paused")
    question = next((q for q in state.open_questions if q.id == answer.item_id), None)
    if question is None:
        open_ids = ", ".join(q.id for q in state.open_questions) or "none"
        raise BadInput(f"run {run_id} has no open item {answer.item_id}; open: {open_ids}")
    if answer.option not in question.options:
        raise BadInput(f"{answer.item_id} takes {' | '.join(question.options)}, not {answer.option}")
    kept = tuple(a for a in state.answers if a.item_id != answer.item_id)
    state = replace(state, answers=kept + (answer,))
    runs.save(workspace.git_dir, state)
    return state


def resume(workspace: Workspace, run_id: str, gate: Gate) -> Result:
    """Continue a paused run from its saved state; a record edited meanwhile re-enters F1."""
    state = runs.load(workspace.git_dir, run_id)
    if state.status not in ("paused", "running"):
        raise BadInput(f"run {run_id} is {state.status}; start a new certification instead")
    refuse_dirty(workspace, state.target)
    return certify(workspace, replace(state, status="running"), gate)
