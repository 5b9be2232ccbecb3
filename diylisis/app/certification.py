"""Wire one certification: a target in a repository, its edges, start, resume and answer.

This is where the engine meets git: the record adapters, the detectors, the refuter,
the gate, the write channel, the run files and the note store.
"""

from __future__ import annotations

import os
import time
from functools import partial

from msgspec.structs import replace

from diylisis.core import codec
from diylisis.core.engine import Edges, Result, run
from diylisis.core.errors import BadInput
from diylisis.core.model import Certificate, RecordKind, Severity, Snapshot, Target, sha256_digest
from diylisis.core.phases import f0_contract, f2_grounding
from diylisis.core.state import RunState, RunStatus

# edges.runs (run files with their pending repairs) is imported where a run file is read or
# written: the commit-msg hook keeps none, and names a run by run_files.new_run_id alone; the
# note store and signing are imported where a certificate is stored or a signer made, which the
# commit-msg hook never does (post-commit stores, and signs if asked)
from diylisis.edges import gitio, records, run_files
from diylisis.edges.certificate_target import check_certificate_target
from diylisis.edges.config import ContractFields
from diylisis.edges.records import msgfile
from diylisis.edges.workspace import Workspace as Workspace  # re-exported: the commands reach it here
from diylisis.edges.workspace import git_values as git_values

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Callable

    from diylisis.core.gate import Answer
    from diylisis.core.gate import Question as GateQuestion
    from diylisis.core.model import Finding, RepoContext, ZeroMemoryVerdict
    from diylisis.core.refuter import RefuterInput
    from diylisis.core.tagging import SupportFacts
    from diylisis.edges import signing
    from diylisis.edges.certify_gate import Gate

    Detect = Callable[[Snapshot, RepoContext | None], tuple[tuple[Finding, ...], tuple[str, ...]]]


def read(workspace: Workspace, target: Target) -> Snapshot:
    """The target's snapshot; a message file is read with the workspace's git facts."""
    if target.kind is RecordKind.MSGFILE:
        cleanup, comment = msgfile.config_from(git_values(workspace))
        facts = msgfile.GitFacts(cleanup=cleanup, comment=comment, head=workspace.head,
                                 editor=msgfile.editor_from(os.environ))
        return msgfile.read(target, workspace.root, max_bytes=workspace.config.max_record_bytes, facts=facts)
    return records.read_snapshot(target, workspace.root, max_bytes=workspace.config.max_record_bytes)


def detector(workspace: Workspace) -> Detect:
    """detect(snapshot, context) -> (findings, suppressions) with the repository's settings."""
    from diylisis.core import detectors

    settings = workspace.config.detect_settings()
    seen: dict[tuple[Snapshot, object], tuple[tuple[Finding, ...], tuple[str, ...]]] = {}

    def detect(snapshot: Snapshot, context: RepoContext | None = None) -> tuple[tuple[Finding, ...], tuple[str, ...]]:
        # the engine asks again for the same snapshot (each pass, then F7's suppressions)
        key = (snapshot, context)
        if key not in seen:
            findings, suppressed = detectors.detect_with_suppressions(snapshot, context, settings)
            # warnings and info are advice (scan shows them); only errors become gate items, and a
            # rule the user raises in [detect] severity reports errors
            findings = tuple(f for f in findings if f.severity is Severity.ERROR)
            seen[key] = (findings, tuple(f"{f.rule_id} at line {f.line}" for f in suppressed))
        return seen[key]

    return detect


def context_for(workspace: Workspace) -> Callable[[Snapshot], RepoContext]:
    """RepoContext per record: pygit2 at the certified revision, or `git` calls on the index for a
    message or staged file being committed (the tree the new commit will have; no pygit2 import)."""
    from diylisis.edges.gitio import context as contexts

    cache: dict[tuple[str | None, str | None, bool], RepoContext] = {}

    def context(snapshot: Snapshot) -> RepoContext:
        on_index = snapshot.target.kind is RecordKind.MSGFILE or snapshot.tree_revision is None
        own_tree_only = snapshot.target.kind is RecordKind.FILE  # a message may name what its change removed
        revision = None if on_index else snapshot.tree_revision
        key = (revision, snapshot.path, own_tree_only)
        if key not in cache:
            if revision is None:
                cache[key] = contexts.GitCommandContext(workspace.root, None, exclude_path=snapshot.path,
                                                        config=dict(git_values(workspace)))
            else:
                from diylisis.edges.workers import open_in_this_process  # one handle per process, not per revision

                cache[key] = contexts.PygitContext(open_in_this_process(workspace.root), revision,
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
    if contract.activation_verb != f0_contract.default_verb(contract.role):
        f0_contract.check_verb_against_target(contract, snapshot().text)
    f0_contract.check_competence_substitution(contract, resolves=lambda locator: f2_grounding.resolves_at(
        locator, context_for(workspace)(snapshot()))[0])
    check_certificate_target(contract, target, workspace.root)
    if check_dirty:
        refuse_dirty(workspace, target)
    return RunState(
        run_id=run_files.new_run_id(), target=target, contract=contract, utterances=utterances,
        contract_provenance=f0_contract.mark_provenance(contract, utterances, ratified_by),
        status=RunStatus.RUNNING)


def _read_once(workspace: Workspace, target: Target) -> Callable[[], Snapshot]:
    """read(workspace, target), on first call, remembered."""
    made: list[Snapshot] = []

    def snapshot() -> Snapshot:
        if not made:
            made.append(read(workspace, target))
        return made[0]

    return snapshot


def refuse_dirty(workspace: Workspace, target: Target) -> None:
    """A file with uncommitted changes is refused up front, so no repair commit mixes them in; so
    is a file with a repair a kill left unfinished, even before that repair touched it (a second
    repair committed now would be undone by an abort of the first)."""
    if target.kind is not RecordKind.FILE or target.revision is not None:
        return
    interrupted = _interrupted_repairs(workspace, target)
    if interrupted:
        run_id = interrupted[0]
        raise BadInput(f"{target.locator} has a repair left unfinished by run {run_id}, which was "
                       f"interrupted; finish it with: git distill resume {run_id}, or undo it with: "
                       f"git distill runs abort {run_id} (git distill runs lists every run)")
    # no optional locks: a certifier of another file may hold the index; status must not wait for it
    status = gitio.run_git(["--no-optional-locks", "status", "--porcelain", "--", target.locator],
                           workspace.root)
    if status.strip():
        raise BadInput(f"{target.locator} has uncommitted changes; commit or stash them first, "
                       "so repair commits hold only the repair")


def _interrupted_repairs(workspace: Workspace, target: Target) -> list[str]:
    """The runs whose repair of target's file a kill left unfinished, newest first."""
    from diylisis.edges import repair_commit, runs

    try:
        path = repair_commit.paths(workspace.root, target.locator)[0]
    except BadInput:
        return []
    found = []
    for run_id in reversed(run_files.run_ids(workspace.git_dir)):
        pending = runs.pending_repair(workspace.git_dir, run_id)
        if pending is not None and pending.path == path:
            found.append(run_id)
    return found


def edges(workspace: Workspace, target: Target, gate: Gate, *, check_only: bool = False,
          certificate_target: str | None = None) -> Edges:
    """The engine's side effects for this target."""
    detect = detector(workspace)
    context = context_for(workspace)
    signer = None if check_only else signer_for(workspace)  # a setting that cannot sign fails before the run
    channel = None if check_only else records.write_channel(target, workspace.root)
    reason = "--check never writes" if check_only else records.no_channel_reason(target, workspace.root)

    def write(new_bytes: bytes, state: RunState) -> str | None:
        if target.kind is RecordKind.FILE:
            from diylisis.edges import repair_commit  # journaled, so a kill at any step is recoverable

            return repair_commit.commit(workspace.root, workspace.git_dir, state, target.locator, new_bytes,
                                        sign=repair_commit.signs_commits(git_values(workspace)))
        records.apply(target, workspace.root, new_bytes)
        return None

    def certified_elsewhere(path: str, role: str) -> bool:
        from diylisis.edges import store

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
        import json  # here: the commit-msg hook stores nothing

        from diylisis.core import secrets
        from diylisis.edges import hook_certificates, signing, store

        # only the reading certified: another way git may store a message file is no record
        # anyone committed, and a snapshot blob of it would travel with the certificates
        entry = hook_certificates.portable(codec.certificate_to_dict(certificate), workspace.root)
        secrets.refuse(snapshot.data, f"{snapshot.target}")
        secrets.refuse(json.dumps(entry, ensure_ascii=False), f"the certificate of {snapshot.target}")
        entries = [(snapshot.data, entry)]
        landing = certificate_target if certificate_target not in (None, "", "notes", "session") else None
        if landing is not None:
            from diylisis.edges import config_trust

            # only the user's own --certificate-target names a place outside by its words; a
            # path into the work tree is checked for links out of it, whoever named it
            outside = config_trust.leaves_repository(landing) and \
                landing != workspace.config.contract.certificate_target
            if not outside:
                config_trust.check_inside(workspace.root, landing)  # before the note: nothing half written
        if signer is not None:
            # a signature holds only for the record it is stored under, its digest included
            entries = [(data, signing.sign(note, sha256_digest(data), signer, workspace.root))
                       for data, note in entries]
        store.put_many(workspace.root, entries, config=store.settings_from(git_values(workspace)))
        if landing is not None:
            # an externally named landing place, besides the note (F7: contract.certificate_target)
            text = json.dumps(entries[0][1], ensure_ascii=False, indent=2) + "\n"
            if outside:
                with open(os.path.join(workspace.root, landing.removeprefix("file:")), "w",
                          encoding="utf-8") as handle:
                    handle.write(text)
            else:
                config_trust.write_inside(workspace.root, landing, text)

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
        save=unsaved if check_only else partial(_save, workspace.git_dir),
        certified_elsewhere=certified_elsewhere,
        read_source=read_source,
        store=store_certificate,
        now=lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        self_ledger=self_ledger,
        support=support_for(workspace),
        no_channel_reason=reason,
        languages=workspace.config.detect_settings().languages,
    )


def support_for(workspace: Workspace) -> Callable[[Snapshot, frozenset[str]], SupportFacts | None]:
    """F3b's measurement of the repository's values, once per revision and key set for this run:
    every pass of a run reads the same revision, and the search costs a grep of the whole tree."""
    cache: dict[tuple[str | None, str | None, frozenset[str]], SupportFacts | None] = {}

    def support(snapshot: Snapshot, keys: frozenset[str]) -> SupportFacts | None:
        if snapshot.target.kind is RecordKind.MSGFILE:
            return None  # a message being written: the commit-msg hook greps no tree on every commit
        from diylisis.edges import record_support  # only a pointer line that gives a value needs git's facts

        key = (snapshot.tree_revision, snapshot.path, keys)
        if key not in cache:
            cache[key] = record_support.measure(workspace.root, snapshot, keys)
        return cache[key]

    return support


def signer_for(workspace: Workspace) -> signing.Signer | None:
    """The signer for this workspace's certificates when the user asked for signing (certify --sign, or
    git config distill.sign), else None. Only git config is read: a committed file cannot start a program."""
    values = git_values(workspace)
    if "distill.sign" not in values:
        return None  # signing is off unless asked for (signing.wanted), and that needs no signing module
    from diylisis.edges import signing

    return signing.signer_from(values) if signing.wanted(values, None) else None


def with_signing(workspace: Workspace, sign: bool | None) -> Workspace:
    """The workspace with certify's --sign/--no-sign in place of git config distill.sign."""
    if sign is None:
        return workspace
    return replace(workspace, git_config={**git_values(workspace), "distill.sign": "true" if sign else "false"})


def refuter_for(workspace: Workspace) -> Callable[[RefuterInput], ZeroMemoryVerdict]:
    """F5 realization from `[refuter]`: the configured command, else the built-in lint."""
    from diylisis.edges import refuter_choice

    return refuter_choice.realization_for(workspace.config.refuter, root=workspace.root)


def _save(git_dir: str, state: RunState) -> None:
    from diylisis.edges import runs

    runs.save(git_dir, state)


def unsaved(state: RunState) -> None:
    """Keep no run file: for --check (it never pauses and never repairs) and for the hooks
    (the message or staged file is what a retry starts from)."""


def certify(workspace: Workspace, state: RunState, gate: Gate, *, check_only: bool = False) -> Result:
    """Run (or continue) a certification to a certificate, a pause or a stop.

    Only a paused run keeps its run file: a certified or stopped run's file is removed, and so
    is the file of a run that fails, unless it holds a repair a kill or an error left unfinished.
    """
    try:
        result = run(state, edges(workspace, state.target, gate, check_only=check_only,
                                  certificate_target=state.contract.certificate_target))
    except BaseException:
        forget(workspace, state.run_id)
        raise
    if result.state.status != RunStatus.PAUSED:
        forget(workspace, state.run_id)
    return result


def forget(workspace: Workspace, run_id: str) -> None:
    """Remove a run's file unless it holds an unfinished repair (resume or abort settles that)."""
    from diylisis.edges import runs

    if runs.pending_repair(workspace.git_dir, run_id) is None:
        run_files.remove(workspace.git_dir, run_id)


def answer_check(workspace: Workspace, target: Target) -> Callable[[GateQuestion, Answer], str | None]:
    """The gate's check of a certify answer when it is given: a route (and a decision's resolve,
    which names its durable record) must resolve now, against the record's own tree, so a run
    never stops on it after repairs were made; the reason says why not."""
    found: list[RepoContext | None] = []

    def context() -> RepoContext | None:
        if not found:
            found.append(context_for(workspace)(read(workspace, target)))
        return found[0]

    def check(question: GateQuestion, answer: Answer) -> str | None:
        names_a_record = answer.option == "route" or (
            answer.option == "resolve" and question.id.startswith("decision-")) or (
            question.id == "qp-authority" and (answer.value or "").strip().lower() not in ("derived", "derived copy"))
        if not names_a_record or not answer.value:
            return None
        holds, detail = f2_grounding.resolves_at(answer.value, context())
        return None if holds else f"{answer.option} {answer.value!r} for {question.id} does not resolve: {detail}"

    return check


def answer(workspace: Workspace, run_id: str, answer: Answer) -> RunState:
    """Record one answer in a paused run (`git distill answer`), checked as the gate checks it."""
    from diylisis.core import gate as core_gate
    from diylisis.edges import runs
    from diylisis.edges.certify_gate import as_gate_question

    state = runs.load(workspace.git_dir, run_id)
    if state.status != RunStatus.PAUSED:
        raise BadInput(f"run {run_id} is {state.status}, not paused")
    question = next((q for q in state.open_questions if q.id == answer.item_id), None)
    if question is None:
        open_ids = ", ".join(q.id for q in state.open_questions) or "none"
        raise BadInput(f"run {run_id} has no open item {answer.item_id}; open: {open_ids}")
    asked = as_gate_question(question)
    wrong = core_gate.problem(asked, answer) or answer_check(workspace, state.target)(asked, answer)
    if wrong is not None:
        raise BadInput(wrong)
    kept = tuple(a for a in state.answers if a.item_id != answer.item_id)
    state = replace(state, answers=kept + (answer,))
    runs.save(workspace.git_dir, state)
    return state


def resume(workspace: Workspace, run_id: str, gate: Gate) -> Result:
    """Continue a paused run from its saved state; a record edited meanwhile re-enters F1."""
    from diylisis.edges import runs

    state, pending = runs.load_with_pending(workspace.git_dir, run_id)
    if state.status not in (RunStatus.PAUSED, RunStatus.RUNNING):
        raise BadInput(f"run {run_id} is {state.status}; start a new certification instead")
    if pending is not None:  # a repair a kill interrupted: complete it before the next pass
        from diylisis.edges import repair_commit

        state = repair_commit.finish(workspace.root, workspace.git_dir, state, pending,
                                     sign=repair_commit.signs_commits(git_values(workspace)))
    refuse_dirty(workspace, state.target)
    return certify(workspace, replace(state, status=RunStatus.RUNNING), gate)
