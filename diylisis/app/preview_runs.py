"""The `preview` kind of run for `git distill answer`, `resume` and `runs` (diylisis.app.run_kinds).

A paused preview waits on one gate (spec, direction or micro). `answer RUN ITEM OPTION [VALUE]`
checks the answer against that gate and keeps it in the run file; `resume RUN` continues the
run with it (then with an answers file or the terminal); `runs abort RUN` destroys the run's
probes, verified, and removes its file.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from diylisis.app import preview_gate
from diylisis.core import gate
from diylisis.core.errors import BadInput
from diylisis.core.preview.model import ProbeDisposition
from diylisis.edges import probes, run_files


def _paused(git_dir: Path, run_id: str) -> dict[str, Any]:
    record = probes.load_record(git_dir, run_id)
    if record.get("status") != "paused" or not record.get("items"):
        raise BadInput(f"preview run {run_id} is not paused at a gate (it is {record.get('status', 'unknown')})")
    return record


class PreviewRuns:
    name = "preview"

    def open_questions(self, workspace: Any, run_id: str) -> tuple[gate.Question, ...]:
        record = _paused(Path(workspace.git_dir), run_id)
        item = record["items"][0]
        offered = set(item.get("options", ()))
        options = tuple(option for option in preview_gate.OPTIONS[item["gate"]]
                        if item["gate"] != "qmicro" or option.name in offered)
        return (preview_gate.question(item["gate"], item["id"], subject=f"preview {run_id}",
                                      evidence=tuple(str(item.get("text", "")).splitlines()), options=options),)

    def record_answer(self, workspace: Any, run_id: str, answer: gate.Answer) -> tuple[str, ...]:
        git_dir = Path(workspace.git_dir)
        record = _paused(git_dir, run_id)
        item = record["items"][0]
        if answer.item_id != item["id"]:
            raise BadInput(f"preview run {run_id} waits on {item['id']}, not {answer.item_id}")
        raw = answer.option + (f" {answer.value}" if answer.value else "")
        preview_gate.read(item["gate"], answer)  # a misfit is exit 2, nothing written
        probes.update_record(git_dir, run_id, lambda data: data.update({"given": {item["gate"]: raw}}))
        return ()

    def resume(self, workspace: Any, run_id: str, request: Any) -> int:
        import click

        from diylisis.app import preview as app
        from diylisis.commands.preview import _terminal
        from diylisis.core.safe_text import visible

        as_json = request.output_format == "json"
        terminal = _terminal if not request.no_input and sys.stdin.isatty() and not as_json else None
        result = app.resume_preview(Path(workspace.root), Path(workspace.git_dir), run_id, request.answers_file,
                                    terminal, lambda line: None if as_json else click.echo(visible(line)))
        if as_json:
            click.echo(app.report_json(result.report))
        return result.exit_code

    def describe(self, workspace: Any, run_id: str) -> dict[str, Any]:
        record = probes.load_record(Path(workspace.git_dir), run_id)
        items = record.get("items", []) if record.get("status") == "paused" else []
        left = [p for p in record.get("probes", []) if p.get("artifact_ref")] if not record.get("cleaned") else []
        return {"run": run_id, "kind": "preview", "record": " | ".join(record.get("candidates", [])),
                "status": record.get("status", "unknown"),
                "age_seconds": run_files.age_seconds(workspace.git_dir, run_id),
                "what": f"a preview of {len(record.get('candidates', []))} directions"
                        + (f", {len(left)} probes kept" if left else ""),
                "open_items": [item["id"] for item in items],
                "next": [f"git distill resume {run_id}" if items else f"git distill runs abort {run_id}"]}

    def abort(self, workspace: Any, run_id: str) -> tuple[str, ...]:
        git_dir = Path(workspace.git_dir)
        dispositions = probes.cleanup_verify(git_dir, run_id)
        said = [f"probe {d.probe.index}: {d.kind}" + (f" ({d.reason})" if d.reason else "") for d in dispositions]
        if any(d.kind is ProbeDisposition.DISCARD_FAILED for d in dispositions):
            return (*said, f"some probes are left; the run file is kept: git distill preview --cleanup {run_id}")
        run_files.remove(git_dir, run_id)
        return (*said, f"removed preview run {run_id}")


KIND = PreviewRuns()
