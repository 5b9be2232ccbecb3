"""`git distill verify`: does each record still carry a certificate for its current content?"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import click

from diylisis.commands import options
from diylisis.core.errors import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from diylisis.app.verification import Check
    from diylisis.edges.workspace import Workspace


@click.command()
@options.targets_or_range("Verify each commit message in the range.", parallel_from=2000)  # verification.PARALLEL_FROM
@click.option("--role", help="Require a certificate for this role.")
@click.option("--min-realization", type=click.Choice(["lint-fallback", "generic-subagent", "refuter-subagent"]),
              help="Fail certificates whose refuter was weaker than this.")
@click.option("--require-signed", is_flag=True,
              help="Fail certificates that are not signed by an allowed signer (default: [verify] require_signed).")
@click.option("--allowed-signers", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Who may sign, in git's ssh allowed-signers format (default: [verify] allowed_signers, "
                   "else git config gpg.ssh.allowedSignersFile).")
@options.output_format("sarif")
@click.option("-v", "--verbose", is_flag=True, help="Also list the records that verify.")
def command(targets: tuple[str, ...], range_spec: str | None, merges: bool, jobs: int, role: str | None,
            min_realization: str | None, require_signed: bool, allowed_signers: Path | None, output_format: str,
            verbose: bool) -> int:
    """Recompute each record's digest, find its certificates, and re-check them.

    Fails (exit 1) naming each problem: missing (no certificate for this content, e.g.
    after an edit), stale (the certificate names other content), unresolved reference
    (a Reference judgment's locator no longer resolves), below (weaker refuter than
    --min-realization), unaccounted (the record has blocking findings the certificate does
    not account for), bad-signature, signer-not-allowed, and unsigned when signatures are
    required. A corrupt note (one that does not parse, or a certificate in it that does not
    decode) fails its record with the reason while the other records are still judged, and
    makes the exit code 2. With no TARGET and no --range, verifies HEAD's message.
    """
    from functools import partial

    from diylisis.app import certification, verification
    from diylisis.core.model import Realization
    from diylisis.edges import records, store
    from diylisis.edges.trust import trust_for

    workspace = _open_workspace()
    if range_spec:
        from diylisis.edges.gitio import open_repo
        from diylisis.edges.gitio.history import start_walk

        walk = start_walk(open_repo(workspace.root), range_spec, merges)  # sorted while the rest is set up
    # Worker processes are forked before the first check. A bar with no total starts after the
    # first checks, so a range (read while it is verified: no total) may use them; a bar with a
    # total already runs its thread by then, and forking beside a thread is unsafe.
    context = certification.context_for(workspace)
    wanted = Realization(min_realization) if min_realization else None
    read_config = partial(store.settings_from, certification.git_values(workspace))  # read with the workspace
    trust = trust_for(workspace, require_signed=require_signed, allowed_signers=allowed_signers)
    if range_spec:
        checks = verification.check_range(workspace.root, walk, role, context, wanted, jobs=jobs,
                                          max_bytes=workspace.config.max_record_bytes, read_config=read_config,
                                          trust=trust, generated=workspace.config.hooks.generated)
        total = None
    else:
        parsed = [records.parse_target(t, workspace.root) for t in (targets or ("HEAD",))]
        snapshots = [certification.read(workspace, target) for target in parsed]
        checks = verification.check_many(workspace.root, snapshots, role, context, wanted, read_config=read_config,
                                         trust=trust, generated=workspace.config.hooks.generated)
        total = len(snapshots)
    from diylisis.edges.render import progress

    corrupt: list[Check] = []
    missing = 0

    def noting_corrupt(checks: Iterable[Check]) -> Iterator[Check]:
        nonlocal missing
        for check in checks:
            if check.corrupt:
                corrupt.append(check)
            missing += any(failure.startswith("missing: ") for failure in check.failures)
            yield check

    passed = _render(noting_corrupt(progress(checks, "verifying", total, show=output_format == "text")),
                     output_format, verbose)
    if missing:
        _hint_unfetched(workspace, read_config().notes_ref)
    if corrupt:  # bad input, not a verdict: exit 2 once every record has been judged
        click.echo(f"git distill: {len(corrupt)} record(s) have a corrupt certificate note, the first "
                   f"{corrupt[0].target}; see the report", err=True)
        return EXIT_BAD_INPUT
    return EXIT_OK if passed else EXIT_FAILED


def _open_workspace() -> Workspace:
    """The repository verify runs in: a work tree, or a bare repository (a CI mirror) as scan accepts."""
    from diylisis.app import certification
    from diylisis.core.errors import GitError

    try:
        return certification.Workspace.open()
    except GitError as error:
        from diylisis.edges.bare_workspace import open_bare

        try:
            return open_bare(".")
        except GitError:
            raise error from None


def _hint_unfetched(workspace: Workspace, notes_ref: str) -> None:
    """Say so when certificates are missing because this clone never fetched the notes ref."""
    from diylisis.app.sync import default_remote
    from diylisis.core.safe_text import visible
    from diylisis.edges import notes

    if notes.ref_tips(workspace.root, (notes_ref,))[notes_ref]:
        return
    remote = default_remote(workspace.root)
    if remote is None:
        return  # nothing to fetch from: no certificate was ever made here
    fetch = (f"git fetch {remote} '+{notes_ref}:{notes_ref}'" if workspace.root == workspace.git_dir
             else f"git distill sync --fetch {remote}")
    click.echo(visible(f"git distill: this repository has no {notes_ref}: its certificates were never fetched "
                       f"from {remote}; fetch them with: {fetch}"), err=True)


def _render(checks: Iterable[Check], output_format: str, verbose: bool) -> bool:
    """Print the report of checks, read once and not kept (a range may be long); True when all are ok."""
    failed = 0

    def tally(checks: Iterable[Check]) -> Iterator[Check]:
        nonlocal failed
        for check in checks:
            failed += not check.ok
            yield check

    from diylisis.core.safe_text import visible_json

    if output_format == "json":
        records = [{"target": str(c.target), "revision": c.revision, "digest": c.digest, "role": c.role,
                    "ok": c.ok, "failures": list(c.failures),
                    "realization": c.realization.value if c.realization else None,
                    "signature": _signature_json(c), "skipped": c.skipped}
                   for c in tally(checks)]
        options.echo_json({"ok": not failed, "records": records})
        return not failed
    if output_format == "sarif":
        from diylisis.edges.sarif_verify import sarif_for_checks

        click.echo(visible_json(json.dumps(sarif_for_checks(tally(checks)), indent=2)))
        return not failed
    count = skipped = 0

    def text_lines() -> Iterator[str]:
        nonlocal count, skipped
        for c in tally(checks):
            count += 1
            if c.skipped is not None:
                skipped += 1
                if verbose:
                    yield f"skip {c.target}  {c.skipped}"
                continue
            if c.ok and verbose:
                signed = f", {c.signature.words()}" if c.signature is not None and c.signature.format else ""
                realization = c.realization.value if c.realization is not None else "realization unknown"
                yield f"ok  {c.target}  {c.certified_role} ({realization}{signed})"
            yield from (f"FAIL {c.target}: {failure}" for failure in c.failures)
        if failed or verbose:
            yield (f"{count - failed - skipped} of {count - skipped} record(s) verify"
                   + (f"; {skipped} generated message(s) skipped ([hooks] check_generated)" if skipped else ""))

    options.echo_lines(text_lines())  # every line quotes a record: escaped there
    return not failed


def _signature_json(check: Check) -> dict[str, str | None] | None:
    """The checked certificate's signature: its state, format, signer, key and the verdict in words."""
    from diylisis.edges.trust import signature_json

    return signature_json(check.signature) if check.signature is not None else None
