"""`git distill doctor [--format json]`: is this repository set up to certify and carry certificates?

Says, for commit-msg and pre-push, whether our hook is installed (ours, chained, a foreign
hook, the pre-commit framework's, none) and whether `.pre-commit-config.yaml` names our
hooks; whether the notes ref exists locally and on the remote; whether the configuration
is valid (config.load, the check every command runs: each problem with its file and line);
and which refuter realization certificates will record.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
from msgspec import Struct

from diylisis.commands import options
from diylisis.core.errors import EXIT_FAILED, EXIT_OK, DistillError

_FRAMEWORK_ID = re.compile(r"^\s*(?:-\s*)?id:\s*['\"]?(distill-[\w-]+)", re.MULTILINE)


class Report(Struct, frozen=True, kw_only=True):
    """Everything doctor found, for text and JSON."""

    root: str
    hooks_dir: str
    hooks: dict[str, str]  # hook name -> none | ours | chained | pre-commit | foreign | inactive
    framework_hooks: tuple[str, ...]  # our hook ids named in .pre-commit-config.yaml
    notes_ref: str
    notes_local: str | None
    remote: str | None
    notes_remote: str | None  # tip on the remote, "" when absent there, None when not asked
    remote_error: str | None
    config_source: str | None
    config_error: str | None  # every problem of the configuration, a line each (FILE:LINE: ...)
    config_warnings: tuple[str, ...]  # advice on it, as every command prints it (two config files)
    role: str | None
    refuter: str  # lint-fallback, or the configured command's realization
    refuter_command: tuple[str, ...]
    refuter_source: str | None  # the user's config file the command came from
    refuter_ignored: tuple[str, ...]  # [refuter] keys of the committed config that only the user may set

    @property
    def ok(self) -> bool:
        return self.config_error is None


def diagnose(root: Path, remote: str | None) -> Report:
    """Look at hooks, refs, remote and configuration without changing anything."""
    from diylisis.app.hooks import scripts
    from diylisis.app.sync import default_remote
    from diylisis.edges import config, notes, store

    directory = scripts.hooks_dir(root)
    states = {name: scripts.hook_state(directory, name) for name in scripts.HOOK_NAMES}
    framework = _framework_hooks(root)
    settings = store.settings(root)
    local = notes.ref_tips(root, (settings.notes_ref,))[settings.notes_ref]
    remote = remote or default_remote(root)
    remote_tip, remote_error = (None, None) if remote is None else _remote_tip(root, remote,
                                                                               settings.notes_ref)
    try:
        loaded = config.load(root, warn=False)  # the one validator every command runs
        config_error = None
    except DistillError as error:
        loaded, config_error = None, error.message
    try:
        warnings = config.load_warnings(root)
    except DistillError:
        warnings = ()  # the file that does not parse is config_error already
    command = loaded.refuter.command if loaded else ()
    realization = (loaded.refuter.realization if command else "lint-fallback") if loaded else "unknown"
    return Report(
        root=str(root), hooks_dir=str(directory), hooks=states, framework_hooks=framework,
        notes_ref=settings.notes_ref, notes_local=local, remote=remote, notes_remote=remote_tip,
        remote_error=remote_error, config_source=loaded.source if loaded else None,
        config_error=config_error, config_warnings=warnings, role=loaded.hooks.role if loaded else None,
        refuter=realization, refuter_command=command,
        refuter_source=loaded.refuter.source if loaded else None,
        refuter_ignored=loaded.refuter.ignored if loaded else ())


def _framework_hooks(root: Path) -> tuple[str, ...]:
    path = root / ".pre-commit-config.yaml"
    if not path.is_file():
        return ()
    text = path.read_text(encoding="utf-8", errors="replace")
    return tuple(dict.fromkeys(_FRAMEWORK_ID.findall(text)))


def _remote_tip(root: Path, remote: str, ref: str) -> tuple[str | None, str | None]:
    from diylisis.edges.gitio import first_line, try_git

    # doctor never waits for a password prompt
    code, out, err = try_git(["ls-remote", remote, ref], root, env={"GIT_TERMINAL_PROMPT": "0"})
    if code != 0:
        return None, first_line(err) or f"git ls-remote exit {code}"
    for line in out.decode().splitlines():
        tip, _, name = line.partition("\t")
        if name == ref:
            return tip, None
    return "", None


def render_text(report: Report) -> str:
    """A line per check, each starting ok, warn or FAIL."""
    lines = [f"repository: {report.root}"]
    for name, state in report.hooks.items():
        mark = "ok  " if state in ("ours", "chained") else "warn"
        words = {
            "ours": "git distill's hook is installed",
            "chained": f"git distill's hook is installed and runs {name}.local first",
            "pre-commit": "the pre-commit framework's hook is installed",
            "foreign": "another hook is installed (git distill install-hooks --chain keeps it)",
            "inactive": "git distill's hook is there but not executable (rerun install-hooks)",
            "none": "no hook (git distill install-hooks, or the pre-commit framework)",
        }[state]
        if state == "pre-commit":
            mark = "ok  " if _framework_covers(report, name) else "warn"
            words += (f"; .pre-commit-config.yaml names {', '.join(report.framework_hooks)}"
                      if report.framework_hooks else "; .pre-commit-config.yaml names no distill hook")
        lines.append(f"{mark} {name}: {words} ({report.hooks_dir})")
    if report.framework_hooks and not any(s == "pre-commit" for s in report.hooks.values()):
        lines.append(f"warn .pre-commit-config.yaml names {', '.join(report.framework_hooks)}, "
                     "but pre-commit install has not been run for them")
    if report.notes_local:
        lines.append(f"ok   {report.notes_ref} exists locally ({report.notes_local[:12]})")
    else:
        lines.append(f"warn {report.notes_ref} does not exist locally: no certificate yet, "
                     f"or not fetched (git distill sync)")
    if report.remote is None:
        lines.append("warn no remote: certificates cannot travel yet")
    elif report.remote_error:
        lines.append(f"warn cannot reach {report.remote}: {report.remote_error}")
    elif report.notes_remote:
        same = " (same as local)" if report.notes_remote == report.notes_local else ""
        lines.append(f"ok   {report.notes_ref} exists on {report.remote}{same}")
    else:
        lines.append(f"warn {report.notes_ref} is not on {report.remote} "
                     f"(git distill sync {report.remote} --push)")
    if report.config_error:
        lines += [f"FAIL configuration: {problem}" for problem in report.config_error.splitlines()]
    else:
        source = report.config_source or "built-in defaults (no .distill.toml)"
        lines.append(f"ok   configuration is valid: {source}; hook role {report.role}")
    lines += [f"warn configuration: {warning}" for warning in report.config_warnings]
    if report.refuter == "lint-fallback":
        lines.append("ok   refuter: lint-fallback (built in; no [refuter] command in your own config)")
    elif report.refuter != "unknown":
        lines.append(f"ok   refuter: {report.refuter} via {' '.join(report.refuter_command)} "
                     f"(from {report.refuter_source})")
    lines += [f"warn {warning}" for warning in report.refuter_ignored]
    return "\n".join(lines)


def _framework_covers(report: Report, name: str) -> bool:
    wanted = {"commit-msg": "distill-commit-msg", "post-commit": "distill-post-commit",
              "pre-push": "distill-verify"}[name]
    return wanted in report.framework_hooks


@click.command("doctor")
@click.option("--remote", help="Remote to look for the notes ref on (default: origin).")
@options.output_format()
def command(remote: str | None, output_format: str) -> int:
    """Check hooks, the notes ref (locally and on the remote), configuration and refuter.

    Exit 0 when the configuration is valid (warnings are advice), 1 when it is not (every
    other command refuses it with exit 2).
    """
    from diylisis.core.safe_text import visible_block, visible_json
    from diylisis.edges.gitio import toplevel

    # the report quotes committed files and a remote's errors
    report = diagnose(toplevel("."), remote)
    if output_format == "json":
        from diylisis.core import codec

        payload = codec.encode(report)
        payload["ok"] = report.ok
        click.echo(visible_json(json.dumps(payload, indent=2, sort_keys=True)))
    else:
        click.echo(visible_block(render_text(report)))
    return EXIT_OK if report.ok else EXIT_FAILED
