"""`git distill scan [TARGET... | --range A..B]`: detection only, no gate and no certificate."""

from __future__ import annotations

import click

from diylisis.commands import options

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    import pygit2

    from diylisis.app.scan import ScanResult
    from diylisis.core.model import RepoContext, Snapshot


@click.command()
@options.targets_or_range("Scan each commit message in the range, in one pass.",
                          parallel_from=1000)  # scan.PARALLEL_FROM (importing it loads detectors)
@options.output_format("sarif")
def command(targets: tuple[str, ...], range_spec: str | None, merges: bool, jobs: int, output_format: str) -> int:
    """Find session residue in records (F1-F2 only): commit messages, files, PR bodies.

    TARGET is commit:REV, file:PATH[@REV], msgfile:PATH or prbody:PATH (a bare path means
    file:, a bare revision commit:); with none and no --range, HEAD's message. Exit 0 when
    no record has blocking residue, 1 when some does, 2 on bad input. Warnings and issue
    numbers the origin host resolves are reported but do not fail.
    """
    from pathlib import Path

    from diylisis.core.errors import GitError
    from diylisis.edges import config
    from diylisis.edges.gitio import open_repo, toplevel

    try:
        root = toplevel(".")
    except GitError:
        repo = open_repo(".")  # a bare repository has no work tree (nor .distill.toml), but it has history
        root = Path(repo.path)
        settings = None
    else:
        settings = config.load(root)
        repo = open_repo(root)
    from diylisis.edges.gitio.history import start_walk

    # libgit2 sorts the range in a background thread while the detectors are imported
    try:
        walk = start_walk(repo, range_spec, merges) if range_spec else None
    except GitError:
        if settings is not None:
            settings.detect_settings()  # a bad [detect] table is reported before a bad range
        raise
    from diylisis.app import scan
    from diylisis.core.detectors import DetectSettings
    from diylisis.edges import records

    detect_settings = settings.detect_settings() if settings is not None else DetectSettings()
    if walk is not None:
        from diylisis.edges.render import progress

        generated = settings.hooks.generated if settings is not None else None
        results = progress(scan.scan_range(repo, walk, detect_settings, jobs=jobs, generated=generated),
                           "scanning", show=output_format == "text")
    else:
        parsed = [records.parse_target(t, root) for t in (targets or ("HEAD",))]
        snapshots = [records.read_snapshot(t, root) for t in parsed]
        results = scan.scan_snapshots(snapshots, _context_for(repo), detect_settings)
    return _render(results, output_format)


def _context_for(repo: pygit2.Repository) -> Callable[[Snapshot], RepoContext | None]:
    """A pygit2 context per certified revision (HEAD for work-tree files), cached."""
    from diylisis.edges.gitio.context import PygitContext

    cache: dict[tuple[str, str | None], RepoContext] = {}

    def context(snapshot: Snapshot) -> RepoContext | None:
        revision = snapshot.tree_revision or snapshot.revision or ("HEAD" if not repo.head_is_unborn else None)
        if revision is None:
            return None
        key = (revision, snapshot.path)
        if key not in cache:
            cache[key] = PygitContext(repo, revision, exclude_path=snapshot.path)
        return cache[key]

    return context


def _render(results: Iterable[ScanResult], output_format: str) -> int:
    """Print the report of results (text as each record is judged) and return the exit code."""
    from diylisis.app import scan

    # every line quotes a record: its control characters are printed as escapes (echo_lines)
    if output_format == "json":
        kept = list(results)
        options.echo_json(scan.to_json(kept))
        return scan.exit_code(kept)
    if output_format == "sarif":
        from importlib.metadata import version

        from diylisis.edges.sarif import scan_sarif

        kept = list(results)
        options.echo_json(scan_sarif(kept, version("diylisis")))
        return scan.exit_code(kept)
    from diylisis.core.errors import EXIT_FAILED, EXIT_OK

    blocked = False

    def noting_blocked(results: Iterable[ScanResult]) -> Iterator[ScanResult]:
        nonlocal blocked
        for result in results:
            blocked = blocked or bool(result.blocking)
            yield result

    options.echo_lines(scan.text_lines(noting_blocked(results)))
    return EXIT_FAILED if blocked else EXIT_OK
