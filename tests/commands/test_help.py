"""`git distill help [COMMAND]` and the man page git shows for `git distill --help`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import distill

from diylisis.commands.manpage import manpage

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def test_help_lists_every_command(repo: Path) -> None:
    from diylisis.cli import COMMANDS

    done = distill(repo, "help")
    assert done.returncode == 0, done.stderr
    for name in COMMANDS:
        assert name in done.stdout


def test_help_of_one_command_is_its_usage(repo: Path) -> None:
    done = distill(repo, "help", "verify")
    assert done.returncode == 0, done.stderr
    assert "Usage: git distill verify" in done.stdout
    assert "--range" in done.stdout


def test_help_of_an_unknown_command_is_bad_input(repo: Path) -> None:
    done = distill(repo, "help", "nosuch")
    assert done.returncode == 2
    assert "no command 'nosuch'" in done.stderr


def test_shipped_man_page_is_up_to_date() -> None:
    current = (ROOT / "man" / "git-distill.1").read_text(encoding="utf-8")
    assert current == manpage(), "man/git-distill.1 is stale: python -m diylisis.commands.manpage > man/git-distill.1"


_HELP_FIRST_UNDER_A_DEFAULT_CONTEXT = """
import click
from diylisis.cli import COMMANDS, group
from diylisis.commands.manpage import manpage
for name in COMMANDS:
    command = group.get_command(click.Context(group), name)
    command.get_help(click.Context(command))
print(manpage(), end="")
"""


def test_the_man_page_does_not_depend_on_what_ran_before_in_the_process() -> None:
    """click keeps a command's help option as first built; a help first built under click's default
    context (only --help) must not change the page. A fresh process, so no earlier test built them."""
    done = subprocess.run([sys.executable, "-c", _HELP_FIRST_UNDER_A_DEFAULT_CONTEXT], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (ROOT / "man" / "git-distill.1").read_text(encoding="utf-8")


def _installed_editable() -> bool:
    import sysconfig

    return any(Path(sysconfig.get_paths()["purelib"]).glob("__editable__*diylisis*"))


@pytest.mark.skipif(shutil.which("man") is None is None, reason="no man on this machine")
def test_git_distill_dash_dash_help_shows_the_installed_man_page(repo: Path) -> None:
    # git turns `git distill --help` into `man git-distill`; man finds the page the package
    # installed under <prefix>/share/man through the PATH entry <prefix>/bin
    if _installed_editable():
        pytest.skip("an editable install (pip install -e) does not install data files such as the man page")
    if not (BIN.parent / "share" / "man" / "man1" / "git-distill.1").exists():
        pytest.fail(f"the package did not install its man page under {BIN.parent / 'share/man/man1'}")
    env = {key: value for key, value in os.environ.items() if key != "MANPATH"}
    env.update(PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}", MANPAGER="cat", PAGER="cat", MANWIDTH="80")
    done = subprocess.run(["git", "distill", "--help"], cwd=repo, capture_output=True, text=True, env=env,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "No manual entry" not in done.stderr
    assert "git distill manual" in done.stdout or "GIT-DISTILL(1)" in done.stdout
