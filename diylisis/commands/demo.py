"""`git distill demo`: a guided walk through certify and verify in a throw-away repository."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import click

CLEAN_MESSAGE = """\
Retry failed uploads with exponential backoff

Uploads that fail with a 5xx response are retried up to five times,
waiting 1, 2, 4, 8 and 16 seconds. The limit is in src/upload.py.
"""

TASK = """\
Implement the retry as above (Task #4).
The failing run is in /tmp/run3.log.
"""

ANSWERS = """\
# gate answers keyed by item id (the ids `certify --no-input` prints)
as-above = { resolve = "as described in docs/retries.md" }
task-4 = "drop"
tmp-run3-log = { route = "docs/retries.md" }
qp-consumer = { value = "an agent with repository access" }
qp-authority = { value = "derived" }
"""


@click.command()
@click.option("--keep", is_flag=True, help="Keep the demo repository and print its path.")
def command(keep: bool) -> int:
    """Make a throw-away repository and walk through certify, verify, an edit and verify again."""
    folder = Path(tempfile.mkdtemp(prefix="distill-demo-"))
    env = {**os.environ, "GIT_AUTHOR_NAME": "Demo", "GIT_AUTHOR_EMAIL": "demo@example.com",
           "GIT_COMMITTER_NAME": "Demo", "GIT_COMMITTER_EMAIL": "demo@example.com", "NO_COLOR": "1"}
    try:
        _walk(folder, env)
    finally:
        if keep:
            click.echo(f"\nThe demo repository is kept at {folder}")
        else:
            import shutil

            shutil.rmtree(folder, ignore_errors=True)
    return 0


def _walk(folder: Path, env: dict[str, str]) -> None:
    def git(*args: str, input: str | None = None) -> None:
        from diylisis.edges.gitio import git_argv

        subprocess.run(git_argv(args), cwd=folder, env=env, check=True, capture_output=True,
                       input=input.encode() if input else None)

    def distill(*args: str, note: str) -> int:
        click.secho(f"\n# {note}", bold=True)
        click.echo(f"$ git distill {shlex.join(args)}")
        done = subprocess.run([sys.executable, "-m", "diylisis", *args], cwd=folder, env=env,
                              capture_output=True, text=True)
        output = (done.stdout + done.stderr).rstrip()
        if output:
            click.echo(output)
        click.echo(f"(exit {done.returncode})")
        return done.returncode

    def shell(line: str, note: str, *args: str, input: str | None = None) -> None:
        click.secho(f"\n# {note}", bold=True)
        click.echo(f"$ {line}")
        git(*args, input=input)

    click.secho(f"A throw-away repository: {folder}", bold=True)
    git("init", "-q", "-b", "main")
    (folder / "src").mkdir()
    (folder / "docs").mkdir()
    (folder / "src" / "upload.py").write_text("MAX_RETRIES = 5\n")
    (folder / "docs" / "retries.md").write_text("# Retries\n\nFive attempts, doubling waits.\n")
    (folder / "TASK.md").write_text(TASK)
    (folder / "answers.toml").write_text(ANSWERS)
    git("add", "src", "docs", "TASK.md")
    git("commit", "-q", "-F", "-", input=CLEAN_MESSAGE)

    distill("certify", "HEAD", "--role", "reviewer",
            note="1. Certify a commit message that is already portable for a reviewer.")
    distill("verify", "HEAD", "--role", "reviewer", "--verbose",
            note="2. Verify: the certificate is a git note keyed by the message's content.")
    edited = CLEAN_MESSAGE.replace("five times", "six times")
    shell("git commit --amend -F message.txt   # one word changed", "3. Edit the message.",
          "commit", "-q", "--amend", "-F", "-", input=edited)
    distill("verify", "HEAD", "--role", "reviewer", note="4. Verify again: the edited content has no certificate.")
    shell("git commit --amend -F message.txt   # the original text", "5. Put the original text back.",
          "commit", "-q", "--amend", "-F", "-", input=CLEAN_MESSAGE)
    distill("verify", "HEAD", "--role", "reviewer", note="6. Same bytes, same certificate: verify passes.")
    distill("certify", "TASK.md", "--role", "implementer", "--no-input",
            note="7. A task file with session residue: the run pauses for your judgment (exit 3).")
    distill("certify", "TASK.md", "--role", "implementer", "--answers", "answers.toml",
            note="8. Answer from a file: repairs are committed, then the file is certified.")
    distill("verify", "TASK.md", "--role", "implementer", "--verbose",
            note="9. A fresh reader (or CI) re-checks the repaired file's certificate.")
    distill("brief", "TASK.md", "--role", "implementer",
            note="10. The reception procedure to hand the implementer.")
