"""One configuration check for every command and doctor: each error with its file and line,
unknown rule ids refused, two configuration files warned about, gitignore-style globs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import commit, distill

CLEAN = "Reject negative offsets in the archive reader\n\nThe reader now stops with exit code 2 on a negative offset.\n"


def _commands_refuse(repo: Path) -> list[str]:
    """stderr lines of scan and certify, after checking that both exit 2."""
    outputs = []
    for args in (("scan", "HEAD"), ("certify", "HEAD", "--role", "reviewer", "--no-input")):
        done = distill(repo, *args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        outputs.append(done.stderr)
    assert outputs[0] == outputs[1]  # the same check, the same words
    return outputs[0].splitlines()


@pytest.mark.parametrize("table, expected", [
    ('[detect]\nglossary = "x"\n', ".distill.toml:2: [detect] glossary must be a list of non-empty strings"),
    ('[detect]\nseverity = { CT801 = "loud" }\n',
     ".distill.toml:2: [detect] severity: CT801 = 'loud' is not error, warning or info"),
    ('[detect]\nper_path = [{ disable = ["DX101"] }]\n',
     ".distill.toml:2: [detect] per_path: each entry needs a glob (a non-empty string)"),
])
def test_doctor_fails_what_every_command_refuses(repo: Path, table: str, expected: str) -> None:
    commit(repo, CLEAN, {".distill.toml": "# settings\n" + table})
    expected = expected.replace(".distill.toml:2:", ".distill.toml:3:")  # the comment line shifts it
    assert _commands_refuse(repo) == [f"git distill: {expected}"]
    done = distill(repo, "doctor")
    assert done.returncode == 1 and f"FAIL configuration: {expected}" in done.stdout
    assert "configuration is valid" not in done.stdout
    report = json.loads(distill(repo, "doctor", "--format", "json").stdout)
    assert report["ok"] is False and report["config_error"] == expected


def test_every_error_is_a_line_with_its_file_line_and_key(repo: Path) -> None:
    commit(repo, CLEAN, {".distill.toml": (
        "[detect]\n"                                          # 1
        'disable = [\n  "DX101",\n  "DX999",\n]\n'            # 2-5
        'severity = { session-deixis = "warning" }\n'         # 6
        "per_path = [\n"                                      # 7
        '  { glob = "docs/*.md", disable = ["QQ111"] },\n'    # 8
        "]\n"                                                 # 9
        "\n[hooks]\n"                                         # 10-11
        'rol = "implementer"\n'                               # 12
    )})
    assert _commands_refuse(repo) == [
        "git distill: .distill.toml:4: [detect] disable: unknown rule id 'DX999' (git distill rules lists them)",
        ".distill.toml:6: [detect] severity: unknown rule id 'session-deixis' (did you mean DX101?)",
        ".distill.toml:8: [detect] per_path disable: unknown rule id 'QQ111' (git distill rules lists them)",
        ".distill.toml:12: [hooks] unknown key 'rol'; known: role, files, check_generated",
    ]


def test_errors_in_pyproject_are_named_with_its_lines(repo: Path) -> None:
    commit(repo, CLEAN, {"pyproject.toml": '[project]\nname = "x"\n\n[tool.diylisis.detect]\ndisable = ["DX999"]\n'})
    assert _commands_refuse(repo) == [
        "git distill: pyproject.toml:5: [detect] disable: unknown rule id 'DX999' (git distill rules lists them)"]


def test_a_file_that_does_not_parse_names_its_line(repo: Path) -> None:
    commit(repo, CLEAN, {".distill.toml": '[detect]\ndisable = ["DX101"]\n[hooks\n'})
    (line,) = _commands_refuse(repo)
    assert line.startswith("git distill: .distill.toml:3: does not parse: ")


def test_a_valid_configuration_is_accepted_by_commands_and_doctor(repo: Path) -> None:
    commit(repo, CLEAN, {".distill.toml": '[detect]\ndisable = ["DX104"]\nseverity = { CT801 = "error" }\n'
                                          'per_path = [{ glob = "docs/**", disable = ["UC701"] }]\n'})
    assert distill(repo, "scan", "HEAD").returncode == 0
    done = distill(repo, "doctor")
    assert done.returncode == 0 and "ok   configuration is valid: .distill.toml" in done.stdout


def test_two_configuration_files_are_warned_about_and_distill_toml_wins(repo: Path) -> None:
    commit(repo, CLEAN, {
        ".distill.toml": '[hooks]\nrole = "reviewer"\n',
        "pyproject.toml": '[project]\nname = "x"\n\n[tool.diylisis.hooks]\nrole = "implementer"\n',
    })
    warning = ("warning: both .distill.toml and pyproject.toml [tool.diylisis] configure git distill; "
               ".distill.toml is used and [tool.diylisis] is ignored (keep one of them)")
    done = distill(repo, "scan", "HEAD")
    assert done.returncode == 0 and done.stderr.splitlines() == [warning]
    done = distill(repo, "doctor")
    assert done.returncode == 0
    assert "ok   configuration is valid: .distill.toml; hook role reviewer" in done.stdout
    assert f"warn configuration: {warning.removeprefix('warning: ')}" in done.stdout
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    assert distill(repo, "scan", "HEAD").stderr == ""  # one source: nothing to say


GLOB_TEXT = "# Notes\n\nAll tests pass.\n"


@pytest.mark.parametrize("glob, disabled_in", [
    ("docs/*.md", {"docs/top.md"}),
    ("docs/**/*.md", {"docs/top.md", "docs/sub/deep.md"}),
    ("docs/", {"docs/top.md", "docs/sub/deep.md"}),
    ("deep.md", {"docs/sub/deep.md"}),  # no slash: the name at any depth, as in .gitignore
])
def test_per_path_globs_have_gitignore_semantics(repo: Path, glob: str, disabled_in: set[str]) -> None:
    files = {name: GLOB_TEXT for name in ("docs/top.md", "docs/sub/deep.md", "notes.md")}
    commit(repo, CLEAN, {**files, ".distill.toml":
                         f'[detect]\nper_path = [{{ glob = "{glob}", disable = ["UC701"] }}]\n'})
    done = distill(repo, "scan", *files, "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    flagged = {record["path"]: [f["rule"] for f in record["findings"]]
               for record in json.loads(done.stdout)["records"]}
    assert set(flagged) == set(files)
    quiet = {path for path, rules in flagged.items() if "UC701" not in rules}
    assert quiet == disabled_in


def test_a_negated_glob_is_refused(repo: Path) -> None:
    commit(repo, CLEAN, {".distill.toml": '[detect]\nper_path = [{ glob = "!docs/*.md", disable = ["UC701"] }]\n'})
    (line,) = _commands_refuse(repo)
    assert line.startswith("git distill: .distill.toml:2: [detect] per_path: glob '!docs/*.md' is a negation")
