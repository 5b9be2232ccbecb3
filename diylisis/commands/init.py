"""`git distill init`: write a commented starter `.distill.toml` (never overwrites)."""

from __future__ import annotations

from pathlib import Path

import click

from diylisis.core.errors import BadInput

HEADER = """\
# diylisis configuration: `git distill` reads this file from the repository root.
# Command-line flags override it. Delete what you do not need.
#
# [contract]  defaults for `git distill certify`: the recipient role and what it does.
# [detect]    glossary (accepted terms), reject (always flagged), disable (rule ids),
#             severity (rule id -> error|warning|info), trackers (key prefix -> URL),
#             per_path (gitignore-style glob -> disable/severity); see docs/rules.md.
# [hooks]     the role the commit-msg hook certifies for, and the record files it checks.
# [refuter]   timeout and retries; the refuter command itself goes in your own
#             ~/.config/diylisis/config.toml (a committed file may not name one).
# [limits]    max_record_bytes: larger records are refused.
# [verify]    require_signed, and allowed_signers: a file inside the repository in git's ssh
#             allowed-signers format naming who may sign certificates (docs/certificate.md).
"""


@click.command()
@click.option("--force", is_flag=True, help="Overwrite an existing .distill.toml.")
def command(force: bool) -> int:
    """Write a commented starter .distill.toml at the repository root."""
    import tomli_w

    from diylisis.edges import gitio

    root = gitio.workdir(gitio.open_repo("."))
    path = Path(root) / ".distill.toml"
    if path.exists() and not force:
        raise BadInput(f"{path.name} exists; pass --force to overwrite it")
    starter = {
        "contract": {"role": "reviewer"},
        "detect": {"glossary": [], "reject": [], "disable": [], "severity": {}, "trackers": {}},
        "hooks": {"role": "reviewer", "files": ["TASK*.md", "docs/design/*.md"]},
        "refuter": {"timeout": 300, "retries": 2},
        "limits": {"max_record_bytes": 1048576},
        "verify": {"require_signed": False},
    }
    path.write_text(HEADER + "\n" + tomli_w.dumps(starter), encoding="utf-8")
    click.echo(f"wrote {path.name}")
    return 0
