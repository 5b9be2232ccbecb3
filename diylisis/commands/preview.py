"""`git distill preview --candidate TEXT --candidate TEXT ...`: look at throw-away probes of each
direction before choosing one (Proplasma); `--cleanup RUN` and `--list` for the runs kept."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from diylisis.commands import options
from diylisis.core.errors import EXIT_FAILED, EXIT_OK, BadInput


def _probe_cmd_k(values: tuple[str, ...]) -> dict[int, str]:
    found: dict[int, str] = {}
    for value in values:
        key, equals, cmd = value.partition("=")
        if not equals or not key.strip().isdigit() or not cmd.strip():
            raise BadInput(f"--probe-cmd-k {value!r}: use K=CMD with K the probe number (0, 1, ...)")
        found[int(key)] = cmd
    return found


def _terminal(item: Any) -> str | None:
    click.echo(item.text)
    answer: str = click.prompt(f"{item.id} [{' | '.join(item.options)}]", default="", show_default=False)
    return answer.strip() or None


@click.command()
@click.option("--candidate", "candidates", multiple=True, metavar="TEXT", help="A direction (two to four; repeat).")
@click.option("--axis", "axes", multiple=True, metavar="'ID: QUESTION'",
              help="A divergence axis: a question the directions answer differently (repeat).")
@click.option("--tier", type=click.Choice(["vignette", "mockup"]), default="mockup", show_default=True,
              help="mockup: each probe is a folder of files made by the probe command.")
@click.option("--probe-cmd", metavar="CMD", help="Shell command that builds each probe in its folder.")
@click.option("--probe-cmd-k", "probe_cmd_k", multiple=True, metavar="K=CMD", help="The command of probe K.")
@click.option("--tgt", multiple=True, type=int, metavar="N", help="Probe candidate N (from 1; repeat; 2 to 4).")
@click.option("--base", default="HEAD", show_default=True, help="The commit the probes start from.")
@click.option("--probe-timeout", type=float, default=300.0, show_default=True, help="Seconds per probe.")
@click.option("-j", "--jobs", type=click.IntRange(1, 8), default=4, show_default=True, help="Probes at once.")
@click.option("--unconfined", is_flag=True,
              help="Run probes without namespaces (where there are none); the repository is fingerprinted.")
@click.option("--answers", "answers_file", type=click.Path(dir_okay=False, path_type=Path),
              help="TOML answers: spec = \"approve\", direction = { select = K }, micro = \"confirm\".")
@click.option("--no-input", is_flag=True, help="Never prompt: an unanswered gate pauses (exit 3).")
@click.option("--recognizable", is_flag=True, help="The futures can already be told apart: stand down.")
@click.option("--familiar", is_flag=True, help="A familiar domain carries the futures: route to /ground.")
@click.option("--needs-real-data", is_flag=True, help="Only real data can tell them apart: route to /inquire.")
@click.option("--sibling", type=click.Choice(["ideate", "frame", "elicit"]),
              help="The field is thin, the frame missing, or the coordinates implicit.")
@click.option("--placeholders-distort", is_flag=True, help="Fake data would blur the difference: unfit.")
@click.option("--cleanup", "cleanup_run", metavar="RUN", help="Remove what a killed preview RUN left, verified.")
@click.option("--list", "list_runs", is_flag=True, help="List the preview runs of this repository.")
@click.option("--verify", "verify_revs", multiple=True, metavar="REV",
              help="Re-check the preview records stored on commit REV (repeat).")
@click.option("--resume", "resume_run", metavar="RUN", help="Continue preview RUN, paused at a gate.")
@click.option("--demo", is_flag=True, help="A preview of three cache directions in a throw-away repository.")
@options.output_format()
def command(candidates: tuple[str, ...], axes: tuple[str, ...], tier: str, probe_cmd: str | None,
            probe_cmd_k: tuple[str, ...], tgt: tuple[int, ...], base: str, probe_timeout: float, jobs: int,
            unconfined: bool, answers_file: Path | None, no_input: bool, recognizable: bool, familiar: bool,
            needs_real_data: bool, sibling: str | None, placeholders_distort: bool, cleanup_run: str | None,
            list_runs: bool, verify_revs: tuple[str, ...], resume_run: str | None, demo: bool,
            output_format: str) -> int:
    """Build a throw-away probe of each direction in a private repository, contrast them on the
    axes you settle, choose one; every probe is destroyed and the destruction verified.

    Exit codes: 0 a direction was chosen (or the question dissolved), 1 no direction (withdrawn,
    misdiagnosed, not activated), 2 bad input, 3 paused at a gate.
    """
    from diylisis.app import preview as app
    from diylisis.core.preview.model import DetectSignals, ProbeDisposition, Tier
    from diylisis.core.safe_text import visible
    from diylisis.edges.workspace import Workspace

    if demo:
        from diylisis.app.preview_demo import demo as run_demo

        return run_demo(lambda line: click.echo(visible(line)))
    workspace = Workspace.open()
    root, git_dir = Path(workspace.root), Path(workspace.git_dir)
    as_json = output_format == "json"

    def emit(line: str) -> None:
        if not as_json:
            click.echo(visible(line))

    if list_runs:
        return _list(git_dir, as_json)
    if verify_revs:
        return _verify(root, verify_revs, as_json, emit)
    if cleanup_run is not None:
        dispositions = app.cleanup(git_dir, cleanup_run)
        failed = [d for d in dispositions if d.kind is ProbeDisposition.DISCARD_FAILED]
        if as_json:
            click.echo(json.dumps({"run": cleanup_run, "dispositions": [
                {"index": d.probe.index, "disposition": d.kind, "reason": d.reason} for d in dispositions]}))
        else:
            for d in dispositions:
                emit(f"probe {d.probe.index}: {d.kind}" + (f" ({d.reason})" if d.reason else ""))
            emit(f"preview {cleanup_run}: " + ("some probes are left" if failed else "nothing is left"))
        return EXIT_FAILED if failed else EXIT_OK
    from diylisis.edges.run_files import new_run_id

    terminal = _terminal if not no_input and sys.stdin.isatty() and not as_json else None
    request = app.Request(
        candidates=candidates, axes=axes, tier=Tier(tier), probe_cmd=probe_cmd, probe_cmds=_probe_cmd_k(probe_cmd_k),
        answers=answers_file, terminal=terminal, base=base, timeout=probe_timeout, jobs=jobs, unconfined=unconfined,
        tgt=tgt, signals=DetectSignals(recognizable=recognizable, familiar=familiar, needs_real_data=needs_real_data,
                                       sibling=sibling, placeholders_distort=placeholders_distort))  # type: ignore[arg-type]
    if resume_run is not None:
        result = app.resume_preview(root, git_dir, resume_run, answers_file, terminal, emit)
    else:
        result = app.run_preview(root, git_dir, request, new_run_id(), emit)
    if as_json:
        click.echo(app.report_json(result.report))
    return result.exit_code


def _list(git_dir: Path, as_json: bool) -> int:
    from diylisis.edges import probes

    runs = probes.list_runs(git_dir)
    if as_json:
        click.echo(json.dumps([{"run": r.get("run"), "status": r.get("status"), "root": r.get("root"),
                                "probes": len(r.get("probes", []))} for r in runs]))
        return EXIT_OK
    if not runs:
        click.echo("no preview runs")
    for r in runs:
        left = " (probes left: git distill preview --cleanup RUN)" if r.get("probes") and not r.get("cleaned") else ""
        click.echo(f"{r.get('run')}  {r.get('status')}  {len(r.get('probes', []))} probes{left}")
    return EXIT_OK


def _verify(root: Path, revisions: tuple[str, ...], as_json: bool, emit: Any) -> int:
    from diylisis.app.preview import commit_id
    from diylisis.core.preview.verify import record_problems
    from diylisis.edges import preview_note

    results = []
    for revision in revisions:
        oid = commit_id(root, revision)
        if oid is None:
            raise BadInput(f"{revision!r} is not a commit of this repository")
        lines = preview_note.read_lines(root, preview_note.REF, oid)
        if not lines:
            results.append({"revision": revision, "run": None, "problems": ["no preview record on this commit"]})
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                record = None
            problems = list(record_problems(record))
            results.append({"revision": revision, "run": record.get("run") if isinstance(record, dict) else None,
                            "problems": problems})
    if as_json:
        click.echo(json.dumps(results, ensure_ascii=False))
    for result in results:
        name = f"{result['revision']} preview {result['run']}" if result["run"] else result["revision"]
        emit(f"{name}: " + ("ok" if not result["problems"] else "; ".join(result["problems"])))
    return EXIT_OK if all(not r["problems"] for r in results) else EXIT_FAILED
