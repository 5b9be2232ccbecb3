"""verification: each record re-checked against the certificates stored under its content."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest
from conftest import commit, git
from msgspec.structs import replace

from diylisis.app import certification, verification
from diylisis.core import codec
from diylisis.core.model import (
    Realization,
    RecordKind,
    Reference,
    RefKind,
    RouteJudgment,
    StableRef,
    Target,
    TargetIdentity,
    sha256_digest,
)
from diylisis.edges import store
from diylisis.edges.gitio import history, open_repo
from diylisis.edges.records.base import DEFAULT_MAX_BYTES
from diylisis.edges.records.commit import message_snapshot
from tests.core.test_codec import _certificate


def _certify(repo: Path, data: bytes, commit_id: str, *, role: str = "reviewer", digest: str | None = None,
             references: tuple[str, ...] = (), **changes: object) -> dict:
    judgments = _certificate().judgments[:1] + tuple(
        RouteJudgment(item=locator, verdict=Reference(ref=StableRef(kind=RefKind.PATH, locator=locator)),
                      basis="resolves_at held at the certified revision") for locator in references)
    certificate = _certificate(
        target=Target(kind=RecordKind.COMMIT, locator=commit_id), role=role, judgments=judgments,
        identity=TargetIdentity(digest=digest or sha256_digest(data), boundary="message", revision=commit_id),
        outcome="already-portable", deltas=())
    # no granted source or authority location: these repositories do not hold the fixture's paths
    certificate = replace(certificate, authority_copy=None,
                          reception=replace(certificate.reception, role=role, granted_sources=()))
    return {**codec.certificate_to_dict(certificate), **changes}


def _history(repo: Path) -> list[tuple[str, bytes]]:
    """Seven commits, one of each outcome verify knows, certified by hand; (id, message), newest first."""
    outcomes = ["ok", "uncertified", "stale", "corrupt", "references", "other-role", "weaker"]
    entries = []
    for number, outcome in enumerate(outcomes):
        commit(repo, f"Change {number}: {outcome}\n\nThe code is in src/m{number}.py.\n",
               {f"src/m{number}.py": f"N = {number}\n"})
    messages = list(history.walk_messages(open_repo(repo), "HEAD"))
    for (commit_id, data), outcome in zip(messages, reversed(outcomes), strict=True):
        match outcome:
            case "ok":
                entries.append((data, _certify(repo, data, commit_id)))
            case "stale":
                entries.append((data, _certify(repo, data, commit_id, digest=sha256_digest(b"other"))))
            case "corrupt":
                entries.append((data, _certify(repo, data, commit_id, sweep=[])
                                | {"realization": "oracle"}))
            case "references":
                entries.append((data, _certify(repo, data, commit_id,
                                               references=("src/m0.py", "src/gone.py"))))
            case "other-role":
                entries.append((data, _certify(repo, data, commit_id, role="implementer")))
            case "weaker":
                entries.append((data, _certify(repo, data, commit_id,
                                               realization=Realization.LINT_FALLBACK.value)))
    store.put_many(repo, entries)
    return messages


def _checks(repo: Path, snapshots: list, role: str | None, context_for, wanted: Realization | None,
            ranged: bool) -> Iterator[verification.Check]:
    """check_many over the snapshots, or (ranged) check_range over HEAD's history, which they are."""
    if not ranged:
        return verification.check_many(repo, iter(snapshots), role, context_for, wanted)
    walk = history.start_walk(open_repo(repo), "HEAD")
    return verification.check_range(repo, walk, role, context_for, wanted, jobs=2, max_bytes=DEFAULT_MAX_BYTES,
                                    read_config=partial(store.settings, repo))


@pytest.mark.usefixtures("deadline")  # the ranged cases fork workers
@pytest.mark.parametrize(("role", "ranged"), [(None, False), ("reviewer", False), ("implementer", False),
                                              ("reviewer", True)])
def test_checks_in_chunks_equal_one_check_per_record(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                     role: str | None, ranged: bool) -> None:
    messages = _history(repo)
    workspace = certification.Workspace.open(repo)
    snapshots = [message_snapshot(commit_id, data) for commit_id, data in messages]
    context_for = certification.context_for(workspace)
    wanted = Realization.GENERIC_SUBAGENT
    one_by_one = [verification.check(s, store.get(repo, s.data), role, context_for(s), wanted) for s in snapshots]
    # seven records: one, then chunks of 3 and 3, in one process; a range in chunks of one record, in two
    # worker processes
    monkeypatch.setattr(verification, "RANGE_CHUNK" if ranged else "CHUNK", 1 if ranged else 3)
    chunked = list(_checks(repo, snapshots, role, context_for, wanted, ranged))
    assert chunked == one_by_one
    failures = {c.revision: c.failures for c in chunked}
    newest_first = [commit_id for commit_id, _ in messages]
    weaker, other_role, references, corrupt, stale, uncertified, ok = newest_first
    if role == "reviewer":
        assert failures[ok] == ()
        assert failures[uncertified][0].startswith("missing: no certificate for role reviewer")
        assert failures[stale][0].startswith("stale: the certificate names sha256:")
        assert failures[corrupt][0].startswith("corrupt: a certificate on this content does not decode")
        assert [f.split(" (")[0] for f in failures[references]] == ["unresolved reference: src/gone.py"]
        assert "(certified for implementer)" in failures[other_role][0]
        assert failures[weaker] == ("below: refuter lint-fallback is below the required generic-subagent",)


@pytest.mark.usefixtures("deadline")
@pytest.mark.parametrize("ranged", [False, True])
@pytest.mark.parametrize("replaced", [False, True])
def test_a_note_that_is_not_json_fails_its_record_and_the_others_are_judged(
        repo: Path, monkeypatch: pytest.MonkeyPatch, ranged: bool, replaced: bool) -> None:
    messages = _history(repo)
    snapshots = [message_snapshot(commit_id, data) for commit_id, data in messages]
    context_for = certification.context_for(certification.Workspace.open(repo))
    before = [verification.check(s, store.get(repo, s.data), None, context_for(s)) for s in snapshots]
    blob = git(repo, "hash-object", "-w", "--stdin", input=messages[-1][1]).strip()
    if replaced:  # the note's blob is replaced through `git replace`: a range reads it as git does
        note = git(repo, "notes", "--ref=distill", "list", blob).strip()
        git(repo, "replace", note, git(repo, "hash-object", "-w", "--stdin", input=b"{not json\n").strip())
    else:
        git(repo, "notes", "--ref=distill", "add", "-f", "-m", "{not json", blob)
    monkeypatch.setattr(verification, "RANGE_CHUNK" if ranged else "CHUNK", 2)
    checks = list(_checks(repo, snapshots, None, context_for, None, ranged))
    assert checks[:-1] == before[:-1]  # the other six, in the same chunks as the corrupt one, judged as before
    (failure,) = checks[-1].failures
    assert checks[-1].corrupt
    assert failure.startswith("corrupt: the certificate note on this content does not read (line 1 is not JSON")
    assert f"git notes --ref refs/notes/distill show {blob}" in failure


@pytest.mark.usefixtures("deadline")  # --jobs 2 forks workers
def test_the_verify_report_names_every_outcome(repo: Path) -> None:
    from click.testing import CliRunner

    from diylisis.commands.verify import command

    messages = _history(repo)
    runner = CliRunner()

    def verify(*args: str):  # the command's return value is the exit code cli.main gives the process
        return runner.invoke(command, list(args), standalone_mode=False, catch_exceptions=False)

    text = verify("--range", "HEAD", "--role", "reviewer", "-v", "--min-realization", "generic-subagent")
    assert text.return_value == 2  # one certificate does not decode: bad input, reported after every record
    lines = text.stdout.splitlines()
    assert text.stderr == f"git distill: 1 record(s) have a corrupt certificate note, the first " \
                          f"commit:{messages[3][0]}; see the report\n"
    assert lines[0] == f"FAIL commit:{messages[0][0]}: below: refuter lint-fallback is below the required " \
                       "generic-subagent"
    assert lines[-2] == f"ok  commit:{messages[-1][0]}  reviewer (generic-subagent)"
    assert lines[-1] == "1 of 7 record(s) verify"
    report = json.loads(verify("--range", "HEAD", "--format", "json").stdout)
    assert report["ok"] is False
    assert [r["revision"] for r in report["records"]] == [commit_id for commit_id, _ in messages]
    assert [r["ok"] for r in report["records"]] == [True, True, False, False, False, False, True]
    assert [r["realization"] for r in report["records"]][:2] == ["lint-fallback", "generic-subagent"]
    sarif = json.loads(verify("--range", "HEAD", "--format", "sarif").stdout)
    assert sarif["runs"][0]["properties"] == {"records": 7, "verified": 3}
    assert len(sarif["runs"][0]["results"]) == 5
    assert json.loads(verify("--range", "HEAD", "--format", "json", "--jobs", "2").stdout) == report


def test_a_range_reads_its_notes_through_one_git_process(repo: Path, monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    messages = _history(repo)
    snapshots = [message_snapshot(commit_id, data) for commit_id, data in messages]
    context_for = certification.context_for(certification.Workspace.open(repo))
    one_by_one = [verification.check(s, store.get(repo, s.data), None, context_for(s)) for s in snapshots]
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    monkeypatch.setattr(verification, "RANGE_CHUNK", 1)
    walk = history.start_walk(open_repo(repo), "HEAD")
    checks = list(verification.check_range(repo, walk, None, context_for, None, jobs=1,
                                           max_bytes=DEFAULT_MAX_BYTES, read_config=partial(store.settings, repo)))
    assert checks == one_by_one
    started = [json.loads(line) for line in trace.read_text().splitlines()]
    cat_files = {event["sid"] for event in started if event.get("event") == "cmd_name" and event["name"] == "cat-file"}
    assert len(messages) == 7 and len(cat_files) == 1  # seven chunks, one cat-file


def test_nothing_to_verify_reads_no_settings_and_lists_no_notes(repo: Path) -> None:
    _history(repo)
    context_for = certification.context_for(certification.Workspace.open(repo))

    def bad_setting() -> store.Settings:
        raise AssertionError("the settings were read with nothing to verify")

    assert list(verification.check_many(repo, [], None, context_for, read_config=bad_setting)) == []
    walk = history.start_walk(open_repo(repo), "HEAD..HEAD")
    assert list(verification.check_range(repo, walk, None, context_for, jobs=1, max_bytes=DEFAULT_MAX_BYTES,
                                         read_config=bad_setting)) == []


# --- Rule 21 at reception: verify re-resolves each Reference in the tree it verifies --------

ROUTED_TASK = "# Task\n\nAdd a --json flag to the list command.\nWe decided to cache model lists for an hour.\n"
ROUTED_ANSWERS = """\
decision-1 = { resolve = "docs/cache.md" }
qp-consumer = { value = "agent with repository access" }
qp-authority = { value = "derived" }
"""


def test_rule21_verify_reresolves_routed_reference(repo: Path, tmp_path: Path) -> None:
    from conftest import distill

    commit(repo, "Add the task\n", {"TASK.md": ROUTED_TASK, "docs/cache.md": "Model lists are cached.\n"})
    answers = tmp_path / "answers.toml"
    answers.write_text(ROUTED_ANSWERS, encoding="utf-8")
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--yes", "--answers", str(answers),
                   "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    routed = [j["verdict"]["ref"]["locator"] for j in json.loads(done.stdout)["certificate"]["judgments"]
              if j["verdict"]["type"] == "reference"]
    assert routed == ["docs/cache.md"]
    assert distill(repo, "verify", "TASK.md", "--role", "implementer").returncode == 0

    git(repo, "rm", "-q", "docs/cache.md")
    git(repo, "commit", "-q", "-m", "Remove the cache notes")
    for where in (repo, _clone_with_notes(repo, tmp_path / "clone")):
        failed = distill(where, "verify", "TASK.md", "--role", "implementer", "--format", "json")
        assert failed.returncode == 1, failed.stdout
        report = json.loads(failed.stdout)
        assert report["ok"] is False
        assert [f for f in report["records"][0]["failures"] if f.startswith("unresolved reference: docs/cache.md")]


def _clone_with_notes(repo: Path, where: Path) -> Path:
    git(repo.parent, "clone", "-q", str(repo), str(where))
    git(where, "fetch", "-q", "origin", "refs/notes/distill:refs/notes/distill")
    return where


def test_rule21_verify_reresolves_granted_sources_and_the_authority_copy(repo: Path, tmp_path: Path) -> None:
    from conftest import distill

    commit(repo, "Add the task\n", {"TASK.md": "# Task\n\nAdd a --json flag to the list command.\n",
                                    "docs/cli.md": "# CLI\n"})
    answers = tmp_path / "answers.toml"
    answers.write_text('qp-consumer = { value = "an agent" }\nqp-authority = { value = "docs/cli.md" }\n',
                       encoding="utf-8")
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--source", "docs/cli.md",
                   "--certificate-target", "notes", "--utterance", "certify TASK.md; read docs/cli.md",
                   "--yes", "--answers", str(answers))
    assert done.returncode == 0, done.stdout + done.stderr
    assert distill(repo, "verify", "TASK.md", "--role", "implementer").returncode == 0
    git(repo, "rm", "-q", "docs/cli.md")
    git(repo, "commit", "-q", "-m", "Remove the CLI notes")
    failed = distill(repo, "verify", "TASK.md", "--role", "implementer", "--format", "json")
    assert failed.returncode == 1, failed.stdout
    failures = json.loads(failed.stdout)["records"][0]["failures"]
    assert any(f.startswith("unresolved source: docs/cli.md") for f in failures), failures
    assert any(f.startswith("unresolved authority copy: docs/cli.md") for f in failures), failures
