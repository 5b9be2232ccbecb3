"""`git distill vet --action TEXT`: vet the claims the action leans on, one verdict per claim."""

from __future__ import annotations

import json
from pathlib import Path

import click

from diylisis.commands import options
from diylisis.core.errors import EXIT_OK, EXIT_PAUSED, BadInput
from diylisis.core.safe_text import visible

TYPE_CHECKING = False
if TYPE_CHECKING:
    from diylisis.app.vet_session import Outcome


def emit(outcome: Outcome, output_format: str) -> int:
    """Print a run's outcome (paused or vetted) and return its exit code."""
    from diylisis.app.vet_session import Paused, Vetted
    from diylisis.core.safe_text import visible, visible_json
    from diylisis.core.vet import result, text

    match outcome:
        case Paused(run_id=run_id, open_items=items, messages=messages):
            if output_format == "json":
                click.echo(visible_json(json.dumps({
                    "run": run_id, "status": "paused",
                    "items": [result.item_json(i.audit, i.antithesis) for i in items],
                    # the claims settled without asking (handed elsewhere, unattributable, over the
                    # per-source cap), as the text output lists them
                    "messages": list(messages)}, ensure_ascii=False)))
            else:
                for line in [*messages, *text.paused_lines(run_id, [(i.audit, i.antithesis) for i in items])]:
                    click.echo(visible(line))
            return EXIT_PAUSED
        case Vetted(run_id=run_id, result=value, messages=messages):
            if output_format == "json":
                click.echo(visible_json(json.dumps({"run": run_id, "status": "vetted", "result": value},
                                                   ensure_ascii=False)))
            else:
                for line in text.account_lines(value, messages):
                    click.echo(visible(line))
            return EXIT_OK


def emit_verified(root: Path, at: str, output_format: str) -> int:
    """Run `vet --verify` and print each check; exit 0 when all hold, 1 otherwise."""
    from diylisis.app import vet_verify
    from diylisis.core.errors import EXIT_FAILED
    from diylisis.core.safe_text import visible, visible_json

    verified = vet_verify.verify(root, at)
    if output_format == "sarif":
        from diylisis.edges.sarif_vet import sarif_for_vet

        places = {audit: (path, line) for audit, path, line in verified.places}
        options.echo_json(sarif_for_vet(verified.commit, verified.action, verified.checks, places, verified.sources))
    elif output_format == "json":
        click.echo(visible_json(json.dumps({
            "commit": verified.commit, "action": verified.action, "ok": verified.ok,
            "checks": [{"check": c.name, "ok": c.ok, "detail": c.detail} for c in verified.checks],
            "reports": list(verified.reports)}, ensure_ascii=False)))
    else:
        head = "holds" if verified.ok else "does not hold"
        click.echo(visible(f"the vet result on {verified.commit[:12]} ({verified.action}) {head}"))
        for check in verified.checks:
            click.echo(visible(f"  {'ok' if check.ok else 'FAILED'} {check.name}: {check.detail}"))
        for report in verified.reports:
            click.echo(visible(f"  note: {report}"))
    return EXIT_OK if verified.ok else EXIT_FAILED


def run_demo() -> int:
    """Build the scenario of docs/vet.md in a temporary repository, vet its merge, answer, verify."""
    import os
    import shutil
    import tempfile

    from diylisis.app import vet, vet_demo, vet_session, vet_verify
    from diylisis.core.vet import text
    from diylisis.core.vet.model import Pattern
    from diylisis.edges.gate import PausedGate
    from diylisis.edges.gitio import run_git

    folder = Path(tempfile.mkdtemp(prefix="distill-vet-demo-"))
    env = {**os.environ, "GIT_AUTHOR_NAME": "Demo", "GIT_AUTHOR_EMAIL": "demo@example.com",
           "GIT_COMMITTER_NAME": "Demo", "GIT_COMMITTER_EMAIL": "demo@example.com"}
    try:
        run_git(["init", "-q", "-b", "main"], folder, env=env)
        vet_demo.build(folder, env)
        click.secho("1. A design doc says the cache timeout is 30 s; code and config were raised to 60 later,"
                    " and a branch sizes its retry budget from the doc.", bold=True)
        click.echo(f"$ git distill vet --action {vet_demo.ACTION!r} --range {vet_demo.RANGE} --no-input")
        request = vet.VetRequest(action=vet_demo.ACTION, range=vet_demo.RANGE)
        paused = vet_session.start(folder, folder / ".git", request, PausedGate())
        assert isinstance(paused, vet_session.Paused)  # the demo's merge has two open claims
        for line in [*paused.messages, *text.paused_lines(paused.run_id, [(i.audit, i.antithesis)
                                                                          for i in paused.open_items])]:
            click.echo(visible(line))
        click.secho("\n2. Answer each claim in your own words, with at most one instruction.", bold=True)
        for item in paused.open_items:
            if item.antithesis.pattern is Pattern.CROSS_SOURCE_CONSISTENCY:
                verdict, handoff, revisit = "The code is right at 60 s; the doc is out of date.", \
                    "docs/design.md still says 30 s", None
            else:
                verdict, handoff, revisit = "One benchmark run does not make a rule.", None, "changed:src/cache.py"
            flag = f" --handoff {handoff!r}" if handoff else f" --revisit {revisit}"
            click.echo(f"$ git distill answer {paused.run_id} {item.audit.id} --verdict {verdict!r}{flag}")
            vet_session.answer(folder, folder / ".git", paused.run_id, item.audit.id, verdict,
                               antithesis=item.antithesis.index, withdraw=False, revisit=revisit, handoff=handoff)
        click.secho("\n3. Resume: the ledger is stored as a note on the merge's commit.", bold=True)
        done = vet_session.resume(folder, folder / ".git", paused.run_id, PausedGate())
        assert isinstance(done, vet_session.Vetted)  # both claims are answered
        for line in text.account_lines(done.result, done.messages):
            click.echo(visible(line))
        click.secho("\n4. A reviewer or CI re-checks it.", bold=True)
        click.echo("$ git distill vet --verify")
        verified = vet_verify.verify(folder, "HEAD")
        for check in verified.checks:
            click.echo(visible(f"  {'ok' if check.ok else 'FAILED'} {check.name}: {check.detail}"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return EXIT_OK


ANSWERS = click.option("--answers", "answers_file", type=click.Path(dir_okay=False, path_type=Path),
                       help='TOML answers, one table per claim keyed by challenge: [a-ID] 1 = { verdict = "...", '
                            'plus at most one of withdraw = true, revisit = "CONDITION", handoff = "DEFICIT" }.')
NO_INPUT = click.option("--no-input", is_flag=True, help="Never prompt: open claims pause the run (exit 3).")
FORMAT = options.output_format("sarif", help="Output for people or for scripts; sarif only with --verify.")


@click.command()
@click.option("--action", help="The merge, deploy or handoff the sources are vetted for (required).")
@click.option("--source", "sources", multiple=True, help="A record the action leans on: file:PATH[@REV] or PATH.")
@click.option("--range", "range_", metavar="A..B",
              help="Vet the records this range changes, cites, or that name what it changes.")
@click.option("--leans-on", "leans_on", multiple=True, help="A tracked file the action relies on (repeatable).")
@click.option("--at", "at", default="HEAD", show_default=True, help="The action's commit: where the result is stored.")
@click.option("--what-if", "what_if", metavar="TEXT",
              help="A condition that would replace a current one (\"the cache timeout drops to 5 s\"): each claim it "
                   "names is challenged with it (Pattern B).")
@click.option("--demo", is_flag=True, help="Vet a made-up merge in a throw-away repository, step by step.")
@click.option("--verify", "verify", is_flag=True,
              help="Re-check the vet result stored on --at instead of vetting (exit 0 holds, 1 fails).")
@ANSWERS
@NO_INPUT
@FORMAT
def command(action: str | None, sources: tuple[str, ...], range_: str | None, leans_on: tuple[str, ...], at: str,
            what_if: str | None, demo: bool, verify: bool, answers_file: Path | None, no_input: bool,
            output_format: str) -> int:
    """Vet the claims a pending action leans on: find the ones git shows stale, contradicted or
    inferred, put a challenge built from measured facts to each, and record your verdict per claim.

    vet never edits a source, the index or a branch; the result is a note on the action's
    commit under refs/notes/distill-vet. Open claims are asked at a terminal, taken from
    --answers, or left open: the run pauses (exit 3) and `git distill answer RUN ID --verdict
    TEXT` and `git distill resume RUN` continue it.

    Exit 0 vetted, 2 bad input, 3 paused; with --verify, 0 the result holds, 1 it does not.
    """
    from diylisis.app import vet, vet_session
    from diylisis.edges.workspace import Workspace

    if demo:
        return run_demo()
    if verify:
        if action or sources or range_ or leans_on or answers_file or no_input or what_if is not None:
            raise BadInput("--verify takes only --at and --format")
        return emit_verified(Path(Workspace.open().root), at, output_format)

    if output_format == "sarif":
        raise BadInput("--format sarif is for --verify: a vet run prints text or json")
    if not action or not action.strip():
        raise BadInput("--action is required: name the merge, deploy or handoff the sources are vetted for")
    if not sources and not range_:
        raise BadInput("name what the action leans on: --source LOCATOR or --range A..B")
    if what_if is not None and not what_if.strip():
        raise BadInput("--what-if needs a condition: what would replace a current one")
    workspace = Workspace.open()
    request = vet.VetRequest(action=action, sources=sources, range=range_, leans_on=leans_on, at=at,
                             what_if=what_if.strip() if what_if else None)
    from diylisis.edges import vet_gate

    gate = vet_gate.choose(answers_file, no_input)
    outcome = vet_session.start(Path(workspace.root), Path(workspace.git_dir), request, gate)
    return emit(outcome, output_format)
