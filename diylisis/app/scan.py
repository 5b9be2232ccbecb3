"""`git distill scan`: detection only (F1-F2; no gate, no certificate), fast enough for a whole history.

One pass over a range with pygit2 (scan_range, over a gitio.history.Walk); each
commit's message is judged against its own tree (PygitContext at that commit) with the
repository's [detect] settings. Results are plain values that the text, JSON and SARIF renderers share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from diylisis.core.detectors import DetectSettings, detect_text, detect_with_suppressions, is_blocking
from diylisis.core.errors import EXIT_FAILED, EXIT_OK
from diylisis.core.model import Finding, RecordKind, RepoContext, Snapshot, sha256_digest

if TYPE_CHECKING:
    from diylisis.core.generated import GeneratedRule
    from diylisis.edges.gitio.history import Walk


class ScanResult(Struct, frozen=True, kw_only=True):
    """The findings of one record."""

    target: str  # the record as a target string: commit:<id>, file:<path>, ...
    kind: RecordKind
    label: str  # how text output names it: a path, or commit:<short id>
    digest: str  # sha256 of the bytes scanned
    findings: tuple[Finding, ...]
    suppressed: tuple[Finding, ...] = ()
    path: str | None = None
    revision: str | None = None
    coverage: tuple[str, ...] = ()  # what could not run: "language zh: only language-neutral rules ran"
    skipped: str | None = None  # a generated message the configured rule leaves unjudged: what wrote it

    @property
    def blocking(self) -> tuple[Finding, ...]:
        """Findings that make the record not portable (errors no mechanical resolution repairs)."""
        return tuple(f for f in self.findings if is_blocking(f))


def _commit_result(
    commit_id: str,
    digest: str,
    findings: tuple[Finding, ...],
    suppressed: tuple[Finding, ...],
    coverage: tuple[str, ...] = (),
    skipped: str | None = None,
) -> ScanResult:
    return ScanResult(
        target=f"commit:{commit_id}",
        kind=RecordKind.COMMIT,
        label=f"commit:{commit_id[:12]}",
        digest=digest,
        findings=findings,
        suppressed=suppressed,
        revision=commit_id,
        coverage=coverage,
        skipped=skipped,
    )


# A range this long is shared out among worker processes; below it starting them costs more than it
# saves. Two CPUs are enough for them to pay: two workers spend about the CPU time one process
# does (synthetic 20,000 commits 3.4 s against 3.0 s, steveyegge/beads 33.6 s against 33.2 s,
# git/git's last 2,862 commits 13.9 s against 12.7 s), in half the time when nothing else runs.
PARALLEL_FROM = 1000
_CHUNK = 250


def scan_range(
    repo: Any, walk: Walk, settings: DetectSettings, *, jobs: int = 0, generated: GeneratedRule | None = None
) -> Iterator[ScanResult]:
    """Scan the commit messages of a range (a started gitio.history.Walk), each against its own tree, in order.

    jobs > 1 judges them in that many worker processes (diylisis.edges.workers), fed while messages
    are still being read; 0 chooses one per usable CPU when there are PARALLEL_FROM messages
    or more, else 1. While libgit2 sorts the range, the
    messages along the tip's first-parent line are judged here, and those the range holds are
    not judged again. The results are the same either way. A message the generated rule skips
    is not judged: its result says what wrote it.
    """
    import functools

    from diylisis.edges import workers
    from diylisis.edges.gitio.context import PygitContext

    origin = PygitContext(repo, "HEAD").origin() if not repo.is_empty and not repo.head_is_unborn else None
    judge = functools.partial(_judge_messages, repo.path, origin, settings, generated)
    for commit_id, digest, findings, suppressed, coverage, skipped in workers.walk_in_order(
        walk, judge, early_batch=1, jobs=jobs, chunk=_CHUNK, parallel_from=PARALLEL_FROM
    ):
        yield _commit_result(commit_id, digest, findings, suppressed, coverage, skipped)


def _judge_messages(
    path: str,
    origin: tuple[str, str, str] | None,
    settings: DetectSettings,
    generated: GeneratedRule | None,
    chunk: list[tuple[str, bytes]],
) -> list[tuple[str, str, tuple[Finding, ...], tuple[Finding, ...], tuple[str, ...], str | None]]:
    """(commit id, digest, findings, suppressed, coverage notes, what wrote it when skipped) of
    each message of a chunk, in whichever process runs it."""
    from diylisis.core.detectors.coverage import coverage_notes
    from diylisis.edges import workers
    from diylisis.edges.gitio.context import PygitContext

    repo = workers.open_in_this_process(path)
    out: list[tuple[str, str, tuple[Finding, ...], tuple[Finding, ...], tuple[str, ...], str | None]] = []
    for commit_id, data in chunk:
        context = PygitContext(repo, commit_id, origin=origin, origin_known=True, walked=True)
        text = data.decode("utf-8", errors="replace")
        skipped = generated.skips(text) if generated is not None else None
        if skipped is not None:
            out.append((commit_id, sha256_digest(data), (), (), (), skipped.words))
            continue
        findings, suppressed = detect_text(text, context, settings, record=f"commit:{commit_id}")
        out.append(
            (commit_id, sha256_digest(data), findings, suppressed, coverage_notes(text, settings.languages), None)
        )
    return out


def scan_snapshots(
    snapshots: Iterable[Snapshot],
    context_for: Callable[[Snapshot], RepoContext | None],
    settings: DetectSettings,
) -> Iterator[ScanResult]:
    """Scan records read through the record adapters (commit:, file:, msgfile:, prbody:)."""
    from diylisis.core.detectors.coverage import coverage_notes

    for snapshot in snapshots:
        text = snapshot.data.decode("utf-8", errors="replace")
        findings, suppressed = detect_with_suppressions(snapshot, context_for(snapshot), settings)
        if snapshot.target.kind is RecordKind.COMMIT and snapshot.revision:
            label = f"commit:{snapshot.revision[:12]}"
        else:
            label = snapshot.path or str(snapshot.target)
        yield ScanResult(
            target=str(snapshot.target),
            kind=snapshot.target.kind,
            label=label,
            digest=snapshot.digest,
            findings=findings,
            suppressed=suppressed,
            path=snapshot.path,
            revision=snapshot.revision,
            coverage=coverage_notes(text, settings.languages),
        )


def exit_code(results: Iterable[ScanResult]) -> int:
    """1 when some record carries blocking residue, else 0 (warnings and resolvable #N do not fail)."""
    return EXIT_FAILED if any(r.blocking for r in results) else EXIT_OK


def not_blocking_why(finding: Finding) -> str:
    """Why a finding does not fail the record: it is a warning (or a note), or the origin host resolves it."""
    if finding.severity.value != "error":
        return finding.severity.value
    return "resolvable"


def text_lines(results: Iterable[ScanResult]) -> Iterator[str]:
    """Per record, its blocking findings, then the others marked `[not blocking: why]`; one line each,
    `target:line:col: RULE category token — why (fix)`; then a summary with a count of each.

    The lines of a record are given as soon as it is judged, so a long range prints as it goes.
    """
    records = blocking = other = skipped = 0
    for result in results:
        records += 1
        skipped += result.skipped is not None
        stops = [f for f in result.findings if is_blocking(f)]
        passes = [f for f in result.findings if not is_blocking(f)]
        blocking += len(stops)
        other += len(passes)
        for f in stops:
            yield _finding_line(result, f, "")
        for f in passes:
            yield _finding_line(result, f, f" [not blocking: {not_blocking_why(f)}]")
        for f in result.suppressed:
            yield f"{result.label}:{f.line}:{f.column}: {f.rule_id} suppressed by an inline ignore"
        for note in result.coverage:
            yield f"{result.label}: {note}"
    extra = f"; {skipped} generated message(s) skipped ([hooks] check_generated)" if skipped else ""
    yield (f"scan: {blocking + other} finding(s), {blocking} blocking, {other} not blocking, "
           f"in {records} record(s){extra}")


def _finding_line(result: ScanResult, f: Finding, mark: str) -> str:
    fix = f"write {f.resolution}" if f.resolution else f.fix
    return (f"{result.label}:{f.line}:{f.column}: {f.rule_id} {f.category.value} "
            f"{_one_line(f.token)} — {f.why} ({fix}){mark}")


def to_json(results: Iterable[ScanResult]) -> dict[str, Any]:
    """The JSON document of `scan --format json`."""
    out: list[dict[str, Any]] = []
    for result in results:
        out.append(
            {
                "target": result.target,
                "kind": result.kind.value,
                "path": result.path,
                "revision": result.revision,
                "digest": result.digest,
                "portable": not result.blocking,
                "findings": [finding_dict(f) for f in result.findings],
                "suppressed": [finding_dict(f) for f in result.suppressed],
                "coverage": list(result.coverage),
                "skipped": result.skipped,
            }
        )
    return {
        "schema": "diylisis.scan/1",
        "records": out,
        "summary": {
            "records": len(out),
            "findings": sum(len(r["findings"]) for r in out),
            "not_portable": sum(not r["portable"] for r in out),
            "skipped": sum(r["skipped"] is not None for r in out),
        },
    }


def finding_dict(f: Finding) -> dict[str, Any]:
    """A finding as JSON."""
    return {
        "rule": f.rule_id,
        "category": f.category.value,
        "severity": f.severity.value,
        "token": f.token,
        "line": f.line,
        "column": f.column,
        "why": f.why,
        "fix": f.fix,
        "resolution": f.resolution,
        "blocking": is_blocking(f),
    }


def _one_line(token: str) -> str:
    return " ".join(token.split())
