"""The commit-msg hook: judge the message git is about to store, before it stores it.

Every reading git may store (its cleanup mode and -v are not visible to the hook) is judged;
mechanical repairs are written into the message file, and what needs judgment refuses the
commit with each finding. The certificate waits for the post-commit hook (hook_certificates),
which keys it under the message git actually stored.
"""

from __future__ import annotations

import os

from msgspec.structs import replace

from diylisis.app.hooks.shared import (
    HOOK_RATIFIER,
    Output,
    hook_gate,
    hook_request,
    report_refusal,
    run_skips,
)
from diylisis.core.errors import EXIT_FAILED, EXIT_OK
from diylisis.core.model import RecordKind, Snapshot, Target
from diylisis.core.state import RunState, RunStatus
from diylisis.edges.gitio import try_git

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path
    from typing import Any

    from diylisis.core.engine import Edges, Result
    from diylisis.core.model import Certificate, Finding
    from diylisis.core.secrets import SecretFinding
    from diylisis.edges.certify_gate import Gate
    from diylisis.edges.workspace import Workspace

    Detect = Callable[[Snapshot], tuple[tuple[Finding, ...], tuple[str, ...]]]
    Kept = list[tuple[Certificate, Snapshot]]

REUSE = "git commit -e -F {path}"


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
    kept: Kept = []  # (certificate, snapshot) as the engine would store them
    edges = _hook_edges(workspace, state, hook_gate(settings.role), kept)
    edges = replace(edges, certified_elsewhere=staged_records(workspace, out, edges.certified_elsewhere))
    from diylisis.core import engine

    result = engine.run(state, edges)
    if result.state.status == RunStatus.CERTIFIED and kept:
        certificate, final = kept[-1]
        blocked = _other_readings(final, edges.detect)
        if blocked:
            report_other_readings(out, blocked, fix=REUSE.format(path=message_path))
            return EXIT_FAILED
        values = certification.git_values(workspace)
        if "distill.notesref" in values:  # the only store setting that can be wrong
            from diylisis.edges import store

            store.settings_from(values)  # a bad store setting is exit 2 now, not after the commit
        hook_certificates.keep(workspace.git_dir, workspace.head, _reading_certificates(certificate, final))
        for delta in result.state.repair_deltas:
            out.note(f"git distill: line {delta.line}: wrote {delta.after!r} for {delta.before!r}")
        out.note(f"git distill: message certified for {settings.role} "
                 f"({certificate.realization.value}); stored once git has committed it")
        return EXIT_OK
    if _only_skipped_rules(result, skips.rules):
        out.line(f"git distill: commit message not certified: its findings of {', '.join(sorted(skips.rules))} "
                 "were let through for this commit (DISTILL_SKIP); the pre-push hook and CI will ask for a "
                 "certificate: git distill certify commit:HEAD")
        return EXIT_OK
    report_refusal(out, result, what="commit message", fix=REUSE.format(path=message_path),
                   fix_words="the message you typed is kept; edit and reuse it with")
    return EXIT_FAILED


def _only_skipped_rules(result: Result, rules: frozenset[str]) -> bool:
    """Every open question of a run that did not stop comes from a finding of a rule in rules."""
    from diylisis.core.engine import Stopped  # loaded already: the result came from the engine

    state = result.state
    if not rules or isinstance(result, Stopped) or not state.open_questions:
        return False
    items = {item.id: item for item in state.items}
    return all(question.id in items and items[question.id].rule_id in rules for question in state.open_questions)


def secret_findings(snapshot: Snapshot) -> tuple[tuple[int, SecretFinding], ...]:
    """(reading number, SecretFinding) for every secret in a reading git may store (1: the likely one)."""
    from diylisis.core import secrets

    found: list[tuple[int, SecretFinding]] = []
    for number, data in enumerate((snapshot.data, *snapshot.alternates), 1):
        found += [(number, finding) for finding in secrets.scan(data.decode("utf-8", errors="replace"))]
    return tuple(found)


def _hook_edges(workspace: Workspace, state: RunState, gate: Gate, kept: Kept) -> Edges:
    """The certification edges with no run file and a store that only collects the certificate."""
    from diylisis.app import certification

    edges = certification.edges(workspace, state.target, gate)
    return replace(edges, save=certification.unsaved,
                   store=lambda certificate, snapshot: kept.append((certificate, snapshot)))


def _other_readings(snapshot: Snapshot, detect: Detect) -> tuple[tuple[int, tuple[Finding, ...]], ...]:
    """(reading number, blocking findings) for each other non-empty reading git may store."""
    blocked = []
    for number, data in enumerate(snapshot.alternates, 2):
        if not data.strip():
            continue  # git stores no empty message unless told to, and an empty one has no residue
        findings, _ = detect(replace(snapshot, data=data, alternates=()))  # errors only
        if findings:
            blocked.append((number, findings))
    return tuple(blocked)


def _reading_certificates(certificate: Certificate, snapshot: Snapshot) -> list[tuple[bytes, dict[str, Any]]]:
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


def report_secrets(out: Output, leaks: Sequence[tuple[int, SecretFinding]], *, fix: str) -> None:
    """Each secret-looking value (kind, line, masked), then how to go on; nothing was stored."""
    out.line(out.paint("git distill: commit message not certified: git may store it with "
                       "what looks like a secret", "1;31"))
    for number, finding in leaks:
        reading = "" if number == 1 else f" (as git may store it under another cleanup mode, reading {number})"
        out.line(f"  {finding.describe()}{reading}")
    out.line("  nothing was stored; remove the secret (and revoke it if it was real), then reuse the "
             f"message with: {fix}")


def report_other_readings(out: Output, blocked: Sequence[tuple[int, Sequence[Finding]]], *, fix: str) -> None:
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


def staged_records(workspace: Workspace, out: Output,
                   certified_elsewhere: Callable[[str, str], bool]) -> Callable[[str, str], bool]:
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

        from diylisis.app.hooks.files import certify_staged, staged_blob

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
            if not held and not certify_staged(workspace, path, staged, role, out, in_message=True):
                out.line(f"git distill: {path} is staged in this commit, so the message may name it; "
                         f"it has no certificate until you repair it after the commit")
            decided[(path, role)] = True  # this commit brings the record: its own check is its own
        return decided[(path, role)]

    return certified
