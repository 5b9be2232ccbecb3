"""Hook logic: commit-msg, pre-commit (staged record files) and pre-push (DESIGN.md, hooks).

Each entry point runs the real certification engine and returns an exit code; the click
layer in `diylisis.commands.hook` only parses arguments. The commit-msg path imports
neither pygit2 nor rich nor click (the hook runs on every commit): the engine is reached
through `certification`, and repository questions go to the `git` binary.

The plain git hook scripts (`hooks/commit-msg`, `hooks/pre-push`) are generated from
`hook_script`, so the shipped files and the ones `git distill install-hooks` writes match.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from diylisis.core.errors import EXIT_FAILED, EXIT_OK, BadInput, GitError
from diylisis.core.model import RecordKind, Snapshot, Target
from diylisis.core.state import GateKind, Question, RunState, RunStatus
from diylisis.edges.gitio import cat_objects, run_git, try_git

TYPE_CHECKING = False  # true for type checkers only: the hook never imports typing
if TYPE_CHECKING:
    from pathlib import Path
    from typing import TextIO

    from diylisis.core.generated import GeneratedRule

HOOK_ID = "# diylisis-hook v1"
HOOK_NAMES = ("commit-msg", "post-commit", "pre-push")
CHAINED_SUFFIX = ".local"
REUSE = "git commit -e -F {path}"
REPAIR_FILES = "git distill certify {path}"
ZERO = re.compile(r"^0+$")

# --- output ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Output:
    """Where hook messages go: short lines, colored only on a terminal without NO_COLOR."""

    stream: TextIO
    color: bool
    verbose: bool = False

    @classmethod
    def to(cls, stream: TextIO | None = None, *, verbose: bool = False) -> Output:
        """An Output on stream (stderr by default) that colors only when it is a terminal."""
        stream = stream if stream is not None else sys.stderr
        color = _isatty(stream) and not os.environ.get("NO_COLOR")
        return cls(stream=stream, color=color, verbose=verbose)

    def paint(self, text: str, code: str) -> str:
        """text in an ANSI color (1 bold, 31 red, 33 yellow, 2 dim) when coloring."""
        return f"{_COLOR}[{code}m{text}{_COLOR}[0m" if self.color else text

    def line(self, text: str = "") -> None:
        """Write one line, every control character in it shown as an escape but our colors."""
        from diylisis.core.safe_text import visible

        self.stream.write("\033".join(visible(part) for part in text.split(_COLOR)) + "\n")

    def note(self, text: str) -> None:
        """Write one line only under --verbose."""
        if self.verbose:
            self.line(text)


# paint writes this mark where its color codes need ESC, and line turns the marks into ESC
# after escaping every control character around them: a record, a note or a config can put
# any text in a message, but not a mark it cannot know before the process starts
_COLOR = f"\ufdd0{os.urandom(8).hex()}\ufdd1"


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


# --- generated messages --------------------------------------------------------------------


def generated_kind(message: str) -> str | None:
    """Why a message is one a tool wrote (git, an autosquash workflow, a repair), or None for an
    authored one; the rule that skips such messages is diylisis.core.generated's, shared by every command."""
    from diylisis.core.generated import generated

    found = generated(message)
    return found.words if found is not None else None


def run_skips():
    """What DISTILL_SKIP and SKIP ask this run to skip (diylisis.core.skip); a bad name is exit 2."""
    from diylisis.core.skip import skips_from

    def rule_id(name: str) -> str | None:
        from diylisis.core.detectors import rule_by_key  # only for a name that is no hook

        rule = rule_by_key(name)
        return rule.id if rule is not None else None

    return skips_from(os.environ, rule_id)


def said_skipped(out: Output, hook: str) -> bool:
    """True, having said so, when DISTILL_SKIP or SKIP asks to skip hook for this run."""
    if not run_skips().skips_hook(hook):
        return False
    out.line(f"git distill: {hook} hook skipped for this run (DISTILL_SKIP or SKIP)")
    return True


# --- the gate a hook can offer ------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class HookGate:
    """A hook has no one to ask: residual questions stay open (the run pauses), but the
    premise gate (Qp) is answered from what the hook knows: the recipient reads the commit
    this message creates, in the repository that holds it.
    """

    consumer: str
    authority: str

    def confirm(self, change: str, state: RunState) -> bool:
        """A hook's repairs are mechanical resolutions its report prints."""
        return True

    def ask(self, questions: tuple[Question, ...], state: RunState) -> tuple:
        """Answers for Qp questions only; every other question stays open."""
        from diylisis.core.state import Answer

        values = {"qp-consumer": self.consumer, "qp-authority": self.authority}
        return tuple(Answer(item_id=q.id, option="value", value=values[q.id])
                     for q in questions if q.gate is GateKind.PREMISE and q.id in values)


def hook_gate(role: str) -> HookGate:
    """The gate for a commit-msg or pre-commit hook run for a recipient role."""
    # the record in the repository stays the authoritative copy (Qp: Derived, Rule 32)
    return HookGate(consumer=f"a {role} reading the repository, with repository access", authority="derived")


HOOK_RATIFIER = "the repository's committed configuration"  # confirms, never states (Rule 29)


def hook_request(workspace, role: str):
    """The contract a hook certifies under: the configured role and the config's own fields.

    The repository's configuration file is a person's committed words, so its contract
    fields stand confirmed by it (no one is at the hook to Confirm/Correct them, Rule 29);
    they are still not marked as stated by the user.
    """
    from diylisis.edges.config import ContractFields

    defaults = workspace.config.contract
    return ContractFields(
        role=role, activity=defaults.activity, allowed_sources=defaults.allowed_sources,
        scope=defaults.scope, verification=defaults.verification, stop=defaults.stop,
        certificate_target=defaults.certificate_target,
        activation_verb=defaults.activation_verb)


# --- commit-msg ----------------------------------------------------------------------------


def commit_msg(path: str | Path, *, out: Output, cwd: str | Path = ".") -> int:
    """The commit-msg hook: judge every reading of msgfile:PATH git may store, write mechanical
    repairs, refuse what needs judgment; the certificate waits for post-commit (hook_certificates)."""
    from diylisis.edges.workspace import start_open

    skips = run_skips()
    if skips.skips_hook("commit-msg"):
        out.line("git distill: commit-msg hook skipped for this run (DISTILL_SKIP or SKIP)")
        return EXIT_OK
    opening = start_open(cwd)  # git answers while the engine is imported
    from diylisis.app import certification
    from diylisis.edges import hook_certificates

    workspace = opening.finish()
    hook_certificates.discard(workspace.git_dir)  # an earlier, unfinished commit's certificate
    message_path = os.path.abspath(os.path.join(cwd, path))
    target = Target(kind=RecordKind.MSGFILE, locator=message_path)
    snapshot = certification.read(workspace, target)
    if not snapshot.data.strip():
        return EXIT_OK  # every reading is empty: git refuses an empty message itself, with its own words
    if b"Distill-Preview:" in snapshot.data:  # the checks a preview handed to this commit
        from pathlib import Path

        from diylisis.edges.preview_trailer import gap_lines

        for line in gap_lines(Path(workspace.root), Path(workspace.git_dir), snapshot.text):
            out.line(line)
    settings = workspace.config.hooks
    skipped = settings.generated.skips(snapshot.text)
    if skipped is not None:
        out.note(f"git distill: skipped {skipped.words} (set [hooks] check_generated = true to check it)")
        return EXIT_OK
    leaks = secret_findings(snapshot)
    if leaks:
        report_secrets(out, leaks, fix=REUSE.format(path=message_path))
        return EXIT_FAILED
    state = certification.start(workspace, target, hook_request(workspace, settings.role), (),
                                check_dirty=False, ratified_by=HOOK_RATIFIER)
    kept: list = []  # (certificate, snapshot) as the engine would store them
    edges = _hook_edges(workspace, state, hook_gate(settings.role), kept)
    edges = replace(edges, certified_elsewhere=staged_records(workspace, out, edges.certified_elsewhere))
    from diylisis.core import engine

    result = engine.run(state, edges)
    forget_run(workspace, result.state)
    if result.state.status == RunStatus.CERTIFIED and kept:
        certificate, final = kept[-1]
        blocked = _other_readings(final, edges.detect)
        if blocked:
            report_other_readings(out, blocked, fix=REUSE.format(path=message_path))
            return EXIT_FAILED
        from diylisis.edges import store

        # a bad store setting is exit 2 now, not after the commit
        store.settings_from(certification.git_values(workspace))
        hook_certificates.keep(workspace.git_dir, workspace.head, _reading_certificates(certificate, final))
        for delta in result.state.repair_deltas:
            out.note(f"git distill: line {delta.line}: wrote {delta.after!r} for {delta.before!r}")
        out.note(f"git distill: message certified for {settings.role} "
                 f"({result.certificate.realization.value}); stored once git has committed it")
        return EXIT_OK
    if _only_skipped_rules(result.state, skips.rules):
        out.line(f"git distill: commit message not certified: its findings of {', '.join(sorted(skips.rules))} "
                 "were let through for this commit (DISTILL_SKIP); the pre-push hook and CI will ask for a "
                 "certificate: git distill certify commit:HEAD")
        return EXIT_OK
    report_refusal(out, result.state, what="commit message", fix=REUSE.format(path=message_path),
                   fix_words="the message you typed is kept; edit and reuse it with")
    return EXIT_FAILED


def _only_skipped_rules(state: RunState, rules: frozenset[str]) -> bool:
    """Every open question of a paused run comes from a finding of a rule in rules."""
    if not rules or state.status == RunStatus.STOPPED or not state.open_questions:
        return False
    items = {item.id: item for item in state.items}
    return all(question.id in items and items[question.id].rule_id in rules for question in state.open_questions)


def secret_findings(snapshot: Snapshot) -> tuple[tuple[int, object], ...]:
    """(reading number, SecretFinding) for every secret in a reading git may store (1: the likely one)."""
    from diylisis.core import secrets

    found = []
    for number, data in enumerate((snapshot.data, *snapshot.alternates), 1):
        found += [(number, finding) for finding in secrets.scan(data.decode("utf-8", errors="replace"))]
    return tuple(found)


def _hook_edges(workspace, state: RunState, gate, kept: list):
    """The certification edges with no run file and a store that only collects the certificate."""
    from diylisis.app import certification

    edges = certification.edges(workspace, state.target, gate)
    return replace(edges, save=certification.unsaved,
                   store=lambda certificate, snapshot: kept.append((certificate, snapshot)))


def _other_readings(snapshot: Snapshot, detect) -> tuple[tuple[int, tuple], ...]:
    """(reading number, blocking findings) for each other non-empty reading git may store."""
    blocked = []
    for number, data in enumerate(snapshot.alternates, 2):
        if not data.strip():
            continue  # git stores no empty message unless told to, and an empty one has no residue
        findings, _ = detect(replace(snapshot, data=data, alternates=()))  # errors only
        if findings:
            blocked.append((number, findings))
    return tuple(blocked)


def _reading_certificates(certificate, snapshot: Snapshot) -> list[tuple[bytes, dict]]:
    """The certificate for each reading git may store, under that reading's own digest."""
    from diylisis.core import codec

    entries = [(snapshot.data, codec.certificate_to_dict(certificate))]
    for data in snapshot.alternates:
        if not data.strip():
            continue
        other = replace(snapshot, data=data, alternates=())
        identity = replace(certificate.identity, digest=other.digest,
                           boundary=certificate.identity.boundary + " (another cleanup mode)")
        entries.append((data, codec.certificate_to_dict(replace(certificate, identity=identity))))
    return entries


def report_secrets(out: Output, leaks, *, fix: str) -> None:
    """Each secret-looking value (kind, line, masked), then how to go on; nothing was stored."""
    out.line(out.paint("git distill: commit message not certified: git may store it with "
                       "what looks like a secret", "1;31"))
    for number, finding in leaks:
        reading = "" if number == 1 else f" (as git may store it under another cleanup mode, reading {number})"
        out.line(f"  {finding.describe()}{reading}")
    out.line("  nothing was stored; remove the secret (and revoke it if it was real), then reuse the "
             f"message with: {fix}")


def report_other_readings(out: Output, blocked, *, fix: str) -> None:
    """Findings in a reading git may store that the likely one does not hold."""
    count = sum(len(findings) for _, findings in blocked)
    out.line(out.paint(f"git distill: commit message not portable: git may store it another way "
                       f"(its cleanup mode or -v are not visible to the hook), and that reading has "
                       f"{count} finding(s)", "1;31"))
    for number, findings in blocked:
        for finding in findings:
            out.line(f"  reading {number}, line {finding.line}: {out.paint(repr(finding.token), '33')} "
                     f"[{finding.rule_id}] {finding.why}")
    out.line(f"  the message you typed is kept; edit and reuse it with: {fix}")


def post_commit(*, out: Output, cwd: str | Path = ".") -> int:
    """The post-commit hook: store the certificate the commit-msg hook made, keyed by the stored message."""
    from diylisis.edges import hook_certificates

    if said_skipped(out, "post-commit"):
        return EXIT_OK
    code, listing, _ = try_git(["rev-parse", "--show-toplevel", "--absolute-git-dir"], cwd)
    lines = listing.decode("utf-8", errors="surrogateescape").splitlines()
    if code != 0 or len(lines) < 2:
        return EXIT_OK  # not in a work tree: nothing the commit-msg hook could have left
    return hook_certificates.post_commit(lines[0], lines[1], out)


def _run(workspace, state: RunState, gate, *, read=None, check_only: bool = False, pending=None):
    """The engine with the certification edges (a `read` override for staged content, a
    store.start_put for the certificate).

    No run file is saved: forget_run drops it after every hook run anyway, so writing it
    after each pass would only cost an encode and a file write per pass.
    """
    from diylisis.app import certification
    from diylisis.core import engine

    edges = certification.edges(workspace, state.target, gate, check_only=check_only, pending=pending)
    edges = replace(edges, save=certification.unsaved)
    if read is not None:
        edges = replace(edges, read=read)
    return engine.run(state, edges)


def forget_run(workspace, state: RunState) -> None:
    """Drop the run file a hook run left: the message or staged file is what a retry starts
    from, and a hook runs on every commit, so its run files would only pile up."""
    from diylisis.edges import run_files

    try:
        os.unlink(run_files.run_file(workspace.git_dir, state.run_id))
    except FileNotFoundError:
        pass


def report_refusal(out: Output, state: RunState, *, what: str, fix: str, fix_words: str) -> None:
    """Each finding (token, line, rule id, why, what would fix it), then how to go on."""
    items = {item.id: item for item in state.items}
    findings = tuple(q for q in state.open_questions if q.gate is not GateKind.PREMISE)  # questions, not findings
    if state.status == RunStatus.STOPPED:
        out.line(out.paint(f"git distill: {what} not certified: ", "1;31") + (state.stop_reason or ""))
    else:
        count = len(findings)
        out.line(out.paint(f"git distill: {what} not portable for {state.contract.role}: "
                           f"{count} finding(s) need your judgment", "1;31"))
    for question in findings:
        item = items.get(question.id)
        rule = item.rule_id if item is not None and item.rule_id else question.gate.value
        why = (item.why if item is not None and item.why else question.reason)
        line = question.line or (item.line if item is not None else 0)
        where = f"line {line}" if line else "record"
        out.line(f"  {where}: {out.paint(repr(question.token), '33')} [{rule}] {why}")
        repair = item.fix if item is not None and item.fix else ""
        if repair:
            out.line(f"    fix: {repair}")
        out.line(out.paint(f"    item {question.id}", "2"))
    out.line(f"  {fix_words}: {fix}")


# --- pre-commit: staged record files -------------------------------------------------------


def staged_files(paths: Sequence[str], *, out: Output, cwd: str | Path = ".") -> int:
    """The pre-commit hook: certify the staged content (index blob) of each record file."""
    from diylisis.app import certification

    if said_skipped(out, "files"):
        return EXIT_OK
    workspace = certification.Workspace.open(cwd)
    import fnmatch  # the pre-commit file hook, not the commit-msg path

    settings = workspace.config.hooks
    failed = 0
    for path in paths:
        relative = _repo_path(workspace.root, cwd, path)
        if settings.files and not any(fnmatch.fnmatch(relative, glob) for glob in settings.files):
            out.note(f"git distill: {relative} is outside [hooks] files; skipped")
            continue
        data = staged_blob(workspace.root, relative)
        if data is None:
            continue  # deleted or not staged: nothing will be committed under this path
        if not _certify_staged(workspace, relative, data, settings.role, out):
            failed += 1
    return EXIT_FAILED if failed else EXIT_OK


def staged_records(workspace, out: Output, certified_elsewhere):
    """certified_elsewhere for a message being committed: a record file the message names is
    judged as this commit will hold it, as distill-files judges it.

    A file outside `[hooks] files` (when set) is no record here, as distill-files skips it. One
    this commit adds or changes is certified from its staged content (never edited); its
    certificate is keyed by those bytes, so it holds once the commit is made. When that content
    is not portable its findings are printed and the message may still name it: `certify PATH`
    repairs only a committed file, so refusing would leave no way to commit either. Any other
    file is asked about as before (a certificate for its committed content)."""
    settings = workspace.config.hooks
    decided: dict[tuple[str, str], bool] = {}

    def certified(path: str, role: str) -> bool:
        if (path, role) in decided:
            return decided[(path, role)]
        import fnmatch  # a message that names a record file, not the common commit

        if settings.files and not any(fnmatch.fnmatch(path, glob) for glob in settings.files):
            out.note(f"git distill: {path} is outside [hooks] files; not asked for a certificate")
            decided[(path, role)] = True
            return True
        staged = staged_blob(workspace.root, path)
        code, committed, _ = try_git(["cat-file", "blob", f"HEAD:{path}"], workspace.root)
        if staged is None or (code == 0 and committed == staged):
            decided[(path, role)] = certified_elsewhere(path, role)
        else:
            from diylisis.edges import store

            held = any(c.get("role") == role for c in store.get(workspace.root, staged))
            if not held and not _certify_staged(workspace, path, staged, role, out, in_message=True):
                out.line(f"git distill: {path} is staged in this commit, so the message may name it; "
                         f"it has no certificate until you repair it after the commit")
            decided[(path, role)] = True  # this commit brings the record: its own check is its own
        return decided[(path, role)]

    return certified


def _repo_path(root: str | Path, cwd: str | Path, path: str) -> str:
    relative = os.path.relpath(os.path.abspath(os.path.join(cwd, path)), os.path.abspath(root))
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        raise BadInput(f"{path} is outside the repository at {root}")
    return relative.replace(os.sep, "/")


def staged_blob(root: Path, path: str) -> bytes | None:
    """The bytes the index holds for path (stage 0), or None when the index has no entry."""
    code, out, _ = try_git(["cat-file", "blob", f":{path}"], root)
    return out if code == 0 else None


def _certify_staged(workspace, path: str, data: bytes, role: str, out: Output, *, in_message: bool = False) -> bool:
    from diylisis.app import certification
    from diylisis.edges.records.base import check_record

    check_record(data, f"the staged content of {path}", workspace.config.max_record_bytes)
    target = Target(kind=RecordKind.FILE, locator=path)
    # no revision and no tree revision: the staged content belongs to no commit yet, and its
    # paths resolve against the index (certification.context_for)
    snapshot = Snapshot(target=target, data=data,
                        boundary=f"the staged content of {path} (index blob)",
                        revision=None, tree_revision=None, path=path)
    state = certification.start(workspace, target, hook_request(workspace, role), (), check_dirty=False,
                                ratified_by=HOOK_RATIFIER)
    # check_only: no write channel, so the hook never modifies a tracked file
    result = _run(workspace, state, hook_gate(role), read=lambda: snapshot, check_only=True)
    forget_run(workspace, result.state)
    if result.state.status == RunStatus.CERTIFIED:
        out.note(f"git distill: {path} certified for {role}")
        return True
    report_refusal(out, result.state, what=path, fix=REPAIR_FILES.format(path=path),
                   fix_words=("once this commit is made, repair it with" if in_message
                              else "this hook never edits files; repair it with"))
    return False


# --- pre-push ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PushedRef:
    """One line git gives a pre-push hook on stdin."""

    local_ref: str
    local_id: str
    remote_ref: str
    remote_id: str


def parse_push_lines(text: str) -> tuple[PushedRef, ...]:
    """`<local ref> <local id> <remote ref> <remote id>` lines; a malformed line is exit 2."""
    refs = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split()
        if len(parts) != 4:
            raise BadInput(f"pre-push input line {number} is not '<local ref> <id> <remote ref> <id>'")
        refs.append(PushedRef(local_ref=parts[0], local_id=parts[1], remote_ref=parts[2],
                              remote_id=parts[3]))
    return tuple(refs)


def framework_refs(root: Path, environ) -> tuple[str | None, tuple[PushedRef, ...]]:
    """(remote, refs) when the pre-commit framework runs us at pre-push or by hand (manual).

    The framework reads git's ref lines itself and hands hooks PRE_COMMIT_FROM_REF /
    PRE_COMMIT_TO_REF, or only PRE_COMMIT_LOCAL_BRANCH when the remote lacks the branch's
    history; by hand (no variables) the commits on no remote-tracking ref are checked.
    """
    remote = environ.get("PRE_COMMIT_REMOTE_NAME") or None
    zero = "0" * 40
    to_ref = environ.get("PRE_COMMIT_TO_REF")
    local = environ.get("PRE_COMMIT_LOCAL_BRANCH") or "HEAD"
    if to_ref:
        from_ref = environ.get("PRE_COMMIT_FROM_REF") or zero
        return remote, (PushedRef(local_ref=local, local_id=_rev(root, to_ref),
                                  remote_ref=environ.get("PRE_COMMIT_REMOTE_BRANCH", local),
                                  remote_id=_rev(root, from_ref) if from_ref != zero else zero),)
    code, _, _ = try_git(["rev-parse", "--verify", "-q", f"{local}^{{commit}}"], root)
    if code != 0:
        return remote, ()  # an unborn branch: nothing to check
    return remote, (PushedRef(local_ref=local, local_id=_rev(root, local),
                              remote_ref=environ.get("PRE_COMMIT_REMOTE_BRANCH", local),
                              remote_id=zero),)


def _rev(root: Path, rev: str) -> str:
    return run_git(["rev-parse", "--verify", f"{rev}^{{commit}}"], root).decode().strip()


def pushed_commits(root: Path, remote: str | None,
                   refs: Iterable[PushedRef]) -> tuple[str, ...]:
    """Commits the push sends that the remote lacks, oldest first, merges left out."""
    wanted: list[str] = []
    for ref in refs:
        if ZERO.match(ref.local_id):
            continue  # a deletion sends no commits
        if ref.local_ref.startswith(("refs/notes/", "refs/distill/")):
            continue  # certificate refs travel with the commits; they are not records
        if not ZERO.match(ref.remote_id) and _has_object(root, ref.remote_id):
            exclude = [f"^{ref.remote_id}"]
        elif remote is not None and _is_remote_name(root, remote):
            exclude = ["--not", f"--remotes={remote}"]
        else:  # a URL or no remote: what no remote-tracking ref holds is new
            exclude = ["--not", "--remotes"]
        listing = run_git(["rev-list", "--reverse", "--no-merges", f"{ref.local_id}^{{commit}}",
                           *exclude], root).decode()
        wanted += listing.split()
    return tuple(dict.fromkeys(wanted))


def _has_object(root: Path, object_id: str) -> bool:
    code, _, _ = try_git(["cat-file", "-e", f"{object_id}^{{commit}}"], root)
    return code == 0


def _is_remote_name(root: Path, remote: str) -> bool:
    code, out, _ = try_git(["remote"], root)
    return code == 0 and remote in out.decode().split()


def commit_messages(root: Path, commit_ids: Sequence[str]) -> dict[str, bytes]:
    """The message bytes (after the header) of each commit, from one `git cat-file --batch`."""
    found = cat_objects(root, commit_ids)
    messages: dict[str, bytes] = {}
    for commit_id in commit_ids:
        kind, body, _ = found.get(commit_id, ("missing", b"", ""))
        if kind != "commit":
            raise GitError(f"{commit_id} is not a commit in this repository")
        _, sep, message = body.partition(b"\n\n")
        messages[commit_id] = message if sep else b""
    return messages


def commit_snapshots(root: Path, commit_ids: Sequence[str], max_bytes: int,
                     *, rule: GeneratedRule) -> tuple[tuple[Snapshot, ...], tuple[str, ...]]:
    """Snapshots of the commits' messages, and the ids skipped as generated messages."""
    from diylisis.edges.records.commit import message_snapshot

    snapshots, skipped = [], []
    for commit_id, data in commit_messages(root, commit_ids).items():
        snapshot = message_snapshot(commit_id, data, max_bytes)
        if rule.skips(snapshot.text) is not None:
            skipped.append(commit_id)
            continue
        snapshots.append(snapshot)
    return tuple(snapshots), tuple(skipped)


def pre_push(remote: str | None, refs: tuple[PushedRef, ...], *, out: Output,
             cwd: str | Path = ".", push_notes: bool = True) -> int:
    """The pre-push hook: verify the pushed commits' certificates, then push the certificate refs."""
    from functools import partial

    from diylisis.app import certification, verification
    from diylisis.edges import store
    from diylisis.edges.trust import trust_for

    if said_skipped(out, "pre-push"):
        return EXIT_OK
    workspace = certification.Workspace.open(cwd)
    commits = pushed_commits(workspace.root, remote, refs)
    snapshots, skipped = commit_snapshots(
        workspace.root, commits, workspace.config.max_record_bytes,
        rule=workspace.config.hooks.generated)
    read_config = partial(store.settings_from, certification.git_values(workspace))  # read with the workspace
    # the repository's [verify] policy and rules, as CI will apply them to these commits
    checks = list(verification.check_many(workspace.root, snapshots, None, certification.context_for(workspace),
                                          read_config=read_config, trust=trust_for(workspace) if snapshots else None))
    failed = [c for c in checks if not c.ok]
    if failed:
        subjects = snapshots_by_id(snapshots)
        out.line(out.paint(f"git distill: {len(failed)} of {len(checks)} pushed commit(s) "
                           "fail verification; nothing was pushed", "1;31"))
        for check in failed:
            out.line(f"  {(check.revision or '')[:12]} {subjects.get(check.revision or '', '')}")
            for failure in check.failures:
                out.line(f"    {failure}")
        out.line("  certify each with: git distill certify commit:ID "
                 "(or push with --no-verify to skip this check)")
        return EXIT_FAILED
    out.note(f"git distill: {len(checks)} pushed commit(s) verify"
             + (f"; {len(skipped)} generated message(s) skipped" if skipped else ""))
    if push_notes and remote is not None and any(not ZERO.match(r.local_id) for r in refs):
        pushed = push_certificates(workspace.root, remote)
        if pushed:
            out.note(f"git distill: pushed {', '.join(pushed)} to {remote}")
    return EXIT_OK


def snapshots_by_id(snapshots: Iterable[Snapshot]) -> dict[str, str]:
    """Commit id -> subject line, for failure lines."""
    return {s.revision or "": s.text.split("\n", 1)[0][:60] for s in snapshots}


def push_certificates(root: Path, remote: str) -> tuple[str, ...]:
    """Push every certificate ref beside the commits, by the routine `git distill sync` uses
    (diylisis.app.sync): the remote's are fetched and merged first when it moved."""
    from diylisis.app.sync import push_certificates as push
    from diylisis.edges import store

    pushed, _ = push(root, remote, store.settings(root), merge=True)
    return pushed


# --- hook scripts --------------------------------------------------------------------------

_SCRIPT = """#!/bin/sh
{hook_id} ({name})
# {purpose}
# Installed by `git distill install-hooks`. A hook this replaced with --chain lives
# beside it as {name}{suffix} and runs first; its failure stops the commit or push.
{saved}hook_dir=$(dirname "$0")
{body}"""

_COMMIT_MSG_BODY = """if [ -x "$hook_dir/commit-msg{suffix}" ]; then
    "$hook_dir/commit-msg{suffix}" "$@" || exit $?
fi
{interpreter}if command -v git-distill >/dev/null 2>&1; then
    exec git-distill hook commit-msg "$@"
fi
if python3 -c 'import diylisis' 2>/dev/null; then
    exec python3 -m diylisis hook commit-msg "$@"
fi
echo "{missing}" >&2
exit 1
"""

_POST_COMMIT_BODY = """if [ -x "$hook_dir/post-commit{suffix}" ]; then
    "$hook_dir/post-commit{suffix}" "$@"
fi
{interpreter}if command -v git-distill >/dev/null 2>&1; then
    exec git-distill hook post-commit
fi
if python3 -c 'import diylisis' 2>/dev/null; then
    exec python3 -m diylisis hook post-commit
fi
echo "{missing}" >&2
exit 0
"""

_PRE_PUSH_BODY = """# git gives the pushed refs on stdin; keep them for both hooks
refs=$(cat)
if [ -x "$hook_dir/pre-push{suffix}" ]; then
    printf '%s\\n' "$refs" | "$hook_dir/pre-push{suffix}" "$@" || exit $?
fi
{interpreter}if command -v git-distill >/dev/null 2>&1; then
    printf '%s\\n' "$refs" | git-distill hook pre-push "$@"
    exit $?
fi
if python3 -c 'import diylisis' 2>/dev/null; then
    printf '%s\\n' "$refs" | python3 -m diylisis hook pre-push "$@"
    exit $?
fi
echo "{missing}" >&2
exit 1
"""

# the interpreter install-hooks ran under, tried first: the hook works once its venv is not active
_INTERPRETER = """interpreter={quoted}
if [ -x "$interpreter" ]; then
    {run}
fi
"""
_RUN = {
    "commit-msg": 'exec "$interpreter" -m diylisis hook commit-msg "$@"',
    "post-commit": 'exec "$interpreter" -m diylisis hook post-commit',
    "pre-push": 'printf \'%s\\n\' "$refs" | "$interpreter" -m diylisis hook pre-push "$@"\n    exit $?',
}
SAVED_MARK = "# diylisis-saved: "  # the hook install-hooks moved aside, which uninstall-hooks puts back

_PURPOSE = {
    "commit-msg": "Certify the commit message with git distill before git records it.",
    "post-commit": "Store the certificate of the message git just committed (keyed by its bytes).",
    "pre-push": "Verify the pushed commits' certificates and push refs/notes/distill beside them.",
}


def hook_script(name: str, *, interpreter: str | None = None, saved: str | None = None) -> str:
    """The POSIX sh shim for a hook name (commit-msg, post-commit or pre-push), carrying HOOK_ID.

    interpreter: the Python that runs diylisis, tried before git-distill on PATH; saved: the
    file name a hook this one replaced was moved to (uninstall-hooks restores it)."""
    if name not in HOOK_NAMES:
        raise BadInput(f"no diylisis hook named {name!r}; known: {', '.join(HOOK_NAMES)}")
    body = {"commit-msg": _COMMIT_MSG_BODY, "post-commit": _POST_COMMIT_BODY}.get(name, _PRE_PUSH_BODY)
    missing = (f"{name}: git distill is not installed (no git-distill on PATH, and python3 "
               "cannot import diylisis); install it, or skip this hook once with --no-verify")
    first = ""
    if interpreter is not None:
        import shlex  # install-hooks only

        first = _INTERPRETER.format(quoted=shlex.quote(interpreter), run=_RUN[name])
    return _SCRIPT.format(hook_id=HOOK_ID, name=name, purpose=_PURPOSE[name],
                          suffix=CHAINED_SUFFIX, saved=f"{SAVED_MARK}{saved}\n" if saved else "",
                          body=body.format(suffix=CHAINED_SUFFIX, missing=missing, interpreter=first))


def saved_hook(text: str) -> str | None:
    """The file name our hook script says it moved aside at install, or None."""
    for line in text.splitlines()[:8]:
        if line.startswith(SAVED_MARK):
            return line[len(SAVED_MARK):].strip() or None
    return None


def is_ours(text: str) -> bool:
    """The hook file was written by diylisis (it carries the id line)."""
    return any(line.startswith(HOOK_ID) for line in text.splitlines()[:3])


# --- installed hooks -----------------------------------------------------------------------


def hooks_dir(root: str | Path) -> Path:
    """The directory git runs hooks from: core.hooksPath when set, else the git dir's hooks."""
    from pathlib import Path  # not on the commit-msg path

    code, out, _ = try_git(["config", "--get", "core.hooksPath"], root)
    configured = out.decode("utf-8", errors="surrogateescape").strip() if code == 0 else ""
    if configured:
        path = Path(os.path.expanduser(configured))
        return path if path.is_absolute() else Path(root) / path  # hooks run from the work-tree root
    common = run_git(["rev-parse", "--git-common-dir"], root).decode().strip()
    base = Path(common) if Path(common).is_absolute() else Path(root) / common
    return base / "hooks"


def hook_state(directory: Path, name: str) -> str:
    """What is installed as hook name: none, ours, chained, pre-commit, foreign or inactive."""
    path = directory / name
    if not path.exists():
        return "none"
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "foreign"
    if is_ours(text):
        if not os.access(path, os.X_OK):
            return "inactive"  # git skips a hook that is not executable
        return "chained" if (directory / f"{name}{CHAINED_SUFFIX}").exists() else "ours"
    if "File generated by pre-commit" in text:
        return "pre-commit"
    return "foreign"
