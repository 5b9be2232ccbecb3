"""`git distill verify`: does each record still carry a certificate for its current content?"""

from __future__ import annotations

import json

import click

from diylisis.errors import EXIT_FAILED, EXIT_OK, BadInput


@click.command()
@click.argument("targets", nargs=-1)
@click.option("--range", "range_spec", metavar="A..B", help="Verify each commit message in the range.")
@click.option("--merges", is_flag=True, help="With --range, include merge commits.")
@click.option("--role", help="Require a certificate for this role.")
@click.option("--min-realization", type=click.Choice(["lint-fallback", "generic-subagent", "refuter-subagent"]),
              help="Fail certificates whose refuter was weaker than this.")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "sarif"]), default="text",
              show_default=True)
@click.option("-v", "--verbose", is_flag=True, help="Also list the records that verify.")
def command(targets: tuple[str, ...], range_spec: str | None, merges: bool, role: str | None,
            min_realization: str | None, output_format: str, verbose: bool) -> int:
    """Recompute each record's digest, find its certificates, and re-check them.

    Fails (exit 1) naming each problem: missing (no certificate for this content, e.g.
    after an edit), stale (the certificate names other content), unresolved reference
    (a Reference judgment's locator no longer resolves), below (weaker refuter than
    --min-realization). With no TARGET and no --range, verifies HEAD's message.
    """
    from diylisis import certification, records, verification
    from diylisis.model import Realization

    workspace = certification.Workspace.open()
    if targets and range_spec:
        raise BadInput("give targets or --range, not both")
    if range_spec:
        snapshots = list(_range_snapshots(workspace, range_spec, merges))
    else:
        parsed = [records.parse_target(t, workspace.root) for t in (targets or ("HEAD",))]
        snapshots = [certification.read(workspace, target) for target in parsed]
    context = certification.context_for(workspace)
    wanted = Realization(min_realization) if min_realization else None
    from diylisis.render import progress

    checks = list(progress(verification.check_many(workspace.root, snapshots, role, context, wanted),
                           "verifying", len(snapshots)))
    _render(checks, output_format, verbose)
    return EXIT_OK if all(c.ok for c in checks) else EXIT_FAILED


def _range_snapshots(workspace, range_spec: str, merges: bool):
    from diylisis.gitio import history, open_repo
    from diylisis.records.commit import message_snapshot

    repo = open_repo(workspace.root)
    for commit_id, data in history.walk_messages(repo, range_spec, include_merges=merges):
        yield message_snapshot(commit_id, data, workspace.config.max_record_bytes)


def _render(checks, output_format: str, verbose: bool) -> None:
    if output_format == "json":
        click.echo(json.dumps({"ok": all(c.ok for c in checks), "records": [
            {"target": str(c.target), "revision": c.revision, "digest": c.digest, "role": c.role,
             "ok": c.ok, "failures": list(c.failures),
             "realization": c.certificate.realization.value if c.certificate else None}
            for c in checks]}, ensure_ascii=False, indent=2))
        return
    if output_format == "sarif":
        from diylisis.sarif_verify import sarif_for_checks

        click.echo(json.dumps(sarif_for_checks(checks), indent=2))
        return
    failed = [c for c in checks if not c.ok]
    for c in checks:
        if c.ok and verbose:
            click.echo(f"ok  {c.target}  {c.certificate.role} ({c.certificate.realization.value})")
        for failure in c.failures:
            click.echo(f"FAIL {c.target}: {failure}")
    if failed or verbose:
        click.echo(f"{len(checks) - len(failed)} of {len(checks)} record(s) verify")
