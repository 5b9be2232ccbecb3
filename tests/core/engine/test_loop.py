"""The whole certification loop on real repositories: gates, repairs as commits, pause and resume."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import RETRY_ANSWERS, RETRY_DOCS, RETRY_TASK, commit, distill, git

FIXTURE, DOCS, ANSWERS = RETRY_TASK, RETRY_DOCS, RETRY_ANSWERS


def _task_repo(repo: Path) -> None:
    commit(repo, "Add the retry task\n", {**DOCS, "TASK.md": FIXTURE.read_text()})


def _all_notes(repo: Path) -> str:
    listing = git(repo, "notes", "--ref=distill", "list").split()
    return "".join(git(repo, "cat-file", "-p", note) for note in listing[0::2])


def test_answers_file_repairs_in_place_and_certifies(repo: Path, tmp_path: Path) -> None:
    _task_repo(repo)
    # the coined term "Fluxgate" is a warning by default, and warnings are not gate items
    commit(repo, "Raise coined terms to errors\n", {".distill.toml": '[detect]\nseverity = { CT801 = "error" }\n'})
    answers = tmp_path / "answers.toml"
    answers.write_text(ANSWERS)
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--yes", "--answers", str(answers),
                   "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout)
    certificate = result["certificate"]
    assert certificate["outcome"] == "repaired"
    assert {d["kind"] for d in certificate["deltas"]} == {"resolution", "excision"}
    assert all(d["added"] is None for d in certificate["deltas"] if d["kind"] == "excision")

    text = (repo / "TASK.md").read_text()
    assert "Task #4" not in text
    assert "/tmp/run3.log" not in text
    assert "docs/retries.md" in text
    assert "the rate limiter that wraps the HTTP client" in text

    repair_commits = git(repo, "log", "--format=%H", "--grep=^Distill-Run:").split()
    assert repair_commits and len(repair_commits) == len(result["evidence"]["repair_commits"])
    for sha in repair_commits:
        trailers = git(repo, "show", "-s", "--format=%(trailers:only)", sha)
        assert f"Distill-Run: {result['run']}" in trailers
        assert "Distill-Pass:" in trailers

    brief = distill(repo, "brief", "TASK.md", "--role", "implementer").stdout
    for channel in (done.stdout, _all_notes(repo), brief, json.dumps(certificate)):
        assert "Task #4" not in channel
    assert distill(repo, "verify", "TASK.md", "--role", "implementer").returncode == 0


def test_pause_answer_resume_reaches_the_same_certificate(repo: Path) -> None:
    _task_repo(repo)
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input", "--format", "json")
    assert paused.returncode == 3, paused.stdout + paused.stderr
    run = json.loads(paused.stdout)["run"]
    assert (repo / ".git" / "distill" / "runs" / f"{run}.json").is_file()
    answers = {
        "as-above": ("resolve", "as described in docs/retries.md"),
        "task-4": ("drop", None),
        "tmp-run3-log": ("route", "docs/retries.md"),
        "fluxgate": ("resolve", "the rate limiter that wraps the HTTP client"),
        "decision-1": ("resolve", "src/upload.py"),
        "qp-consumer": ("value", "an agent with repository access"),
        "qp-authority": ("value", "derived"),
    }
    for _ in range(4):
        if paused.returncode != 3:
            break
        for item in json.loads(paused.stdout)["items"]:
            option, value = answers[item["id"]]
            args = ["answer", run, item["id"], option] + ([value] if value else [])
            assert distill(repo, *args).returncode == 0
        paused = distill(repo, "resume", run, "--no-input", "--yes", "--format", "json")
    assert paused.returncode == 0, paused.stdout
    assert "Task #4" not in (repo / "TASK.md").read_text()
    assert distill(repo, "verify", "TASK.md", "--role", "implementer").returncode == 0


def test_edit_while_paused_reenters_the_loop(repo: Path) -> None:
    _task_repo(repo)
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input", "--format", "json")
    run = json.loads(paused.stdout)["run"]
    first = {item["id"] for item in json.loads(paused.stdout)["items"]}
    (repo / "TASK.md").write_text("Implement the retry described in docs/retries.md.\n"
                                  "The limit is set in src/upload.py.\n")
    dirty = distill(repo, "resume", run, "--no-input")
    assert dirty.returncode == 2 and "uncommitted" in dirty.stderr
    git(repo, "commit", "-q", "-am", "Rewrite the retry task without session references")
    resumed = distill(repo, "resume", run, "--no-input", "--format", "json")
    assert resumed.returncode == 0, resumed.stdout
    assert first  # the first pass found residue; the edited record needed none of those answers
    assert json.loads(resumed.stdout)["certificate"]["outcome"] == "already-portable"


def test_clean_record_has_no_gate_and_no_qp(repo: Path) -> None:
    commit(repo, "Add task\n", {**DOCS, "TASK.md": "Implement the retry policy in docs/retries.md.\n"})
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input", "--format", "json")
    assert done.returncode == 0, done.stdout
    result = json.loads(done.stdout)
    assert result["certificate"]["outcome"] == "already-portable"
    assert result["certificate"]["consumer_profile"] is None
    assert result["evidence"]["ledger"] == []


def test_published_commit_with_residue_is_a_certification_leg_residual(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Fix the upload retry as discussed\n", DOCS)
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "main")
    before = git(repo, "rev-parse", "HEAD")
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input", "--format", "json")
    assert done.returncode == 3
    items = [item for item in json.loads(done.stdout)["items"] if item["gate"] != "premise"]
    assert items and all(item["options"] == ["defer"] for item in items)
    assert all("no write channel (commit" in item["reason"] and "remote-tracking" in item["reason"] for item in items)
    assert git(repo, "rev-parse", "HEAD") == before  # no silent edit
    run = json.loads(done.stdout)["run"]
    for item in items:
        distill(repo, "answer", run, item["id"], "defer", "the reviewer asks the author in the PR")
    done = distill(repo, "resume", run, "--no-input", "--yes", "--answers", str(_qp(tmp_path)), "--format", "json")
    assert done.returncode == 0, done.stdout
    premises = json.loads(done.stdout)["certificate"]["reception"]["premises"]
    assert premises and all("deferred until: the reviewer asks" in p for p in premises)


def _qp(tmp_path: Path) -> Path:
    path = tmp_path / "qp.toml"
    path.write_text('qp-consumer = { value = "a reviewer" }\nqp-authority = { value = "derived" }\n')
    return path


def test_unpublished_head_is_amended(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Fix the upload retry\n\nThe failing run is in /tmp/run3.log.\n", DOCS)
    answers = tmp_path / "a.toml"
    answers.write_text('tmp-run3-log = { route = "docs/retries.md" }\n'
                       'qp-consumer = { value = "a reviewer" }\nqp-authority = { value = "derived" }\n')
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--yes", "--answers", str(answers))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "docs/retries.md" in git(repo, "log", "-1", "--format=%B")
    assert distill(repo, "verify", "HEAD", "--role", "reviewer").returncode == 0


def test_exposure_of_a_dropped_token_surfaces_at_the_gate(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Add task\n", {**DOCS, "TASK.md": "Ship the retry (see /tmp/run3.log).\n",
                                "docs/plan.md": "The retry failed, see /tmp/run3.log for the trace.\n"})
    answers = tmp_path / "a.toml"
    answers.write_text('tmp-run3-log = "drop"\n' + _qp(tmp_path).read_text())
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--source", "docs/plan.md",
                     "--utterance", "certify TASK.md, the implementer may read docs/plan.md",
                     "--yes", "--answers", str(answers), "--format", "json")
    assert paused.returncode == 3, paused.stdout
    (item,) = [i for i in json.loads(paused.stdout)["items"] if i["gate"] != "premise"]
    assert item["id"] == "exposure-docs-plan-md" and item["options"] == ["resolve", "route", "drop", "defer"]
    run = json.loads(paused.stdout)["run"]
    assert distill(repo, "answer", run, item["id"], "defer", "docs/plan.md is rewritten").returncode == 0
    done = distill(repo, "resume", run, "--yes", "--answers", str(answers), "--format", "json")
    assert done.returncode == 0, done.stdout
    premises = json.loads(done.stdout)["certificate"]["reception"]["premises"]
    assert any("docs/plan.md" in p and "rewritten" in p for p in premises)
    assert "/tmp/run3.log" not in done.stdout
    assert "/tmp/run3.log" not in (repo / "TASK.md").read_text()


# --- Rule 32: the Qp answer is Derived or AuthoritativeAt(location), and the location resolves ---


def test_rule32_qp_authority_is_derived_or_a_location_that_resolves(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Add task\n", {**DOCS, "TASK.md": "Implement it as above.\n"})
    answers = tmp_path / "a.toml"
    answers.write_text('as-above = { resolve = "as described in docs/retries.md" }\n'
                       'qp-consumer = { value = "an agent with the repository" }\n'
                       'qp-authority = { value = "/tmp/session/TASK.md" }\n')
    refused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--yes", "--answers", str(answers),
                      "--format", "json")
    assert refused.returncode == 2, refused.stdout + refused.stderr  # checked when given: nothing written
    assert "/tmp/session/TASK.md" in refused.stderr and "does not resolve" in refused.stderr
    assert git(repo, "status", "--porcelain") == ""
    answers.write_text(answers.read_text().replace("/tmp/session/TASK.md", "docs/retries.md"))
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--yes", "--answers", str(answers),
                   "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["certificate"]["authority_copy"] == "docs/retries.md"
    assert "Derived copy, authoritative at docs/retries.md" in json.loads(done.stdout)["brief"]
    commit(repo, "Add a second task\n", {"TASK2.md": "Implement it as above.\n"})
    answers.write_text(answers.read_text().replace('qp-authority = { value = "docs/retries.md" }',
                                                   'qp-authority = { value = "derived" }'))
    derived = distill(repo, "certify", "TASK2.md", "--role", "implementer", "--yes", "--answers", str(answers),
                      "--format", "json")
    assert derived.returncode == 0, derived.stdout + derived.stderr
    brief = json.loads(derived.stdout)["brief"]
    assert "authoritative at derived" not in brief
    assert "Derived copy of file:TASK2.md; the record itself is the authoritative copy" in brief


# --- Rule 31: a premised (deferred) finding is not failed again ------------------------------


def test_rule31_deferred_refuter_finding_is_not_failed_again_on_resume(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Add task\n", {**DOCS, "TASK.md": "Ship the retry described in docs/plan.md.\n",
                                "docs/plan.md": "# Plan\n\nRetry five times.\n"})
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input", "--format", "json")
    assert paused.returncode == 3, paused.stdout + paused.stderr
    (item,) = [i for i in json.loads(paused.stdout)["items"] if i["gate"] != "premise"]
    assert item["id"] == "recurrence-docs-plan-md", item  # an uncertified sibling record
    run = json.loads(paused.stdout)["run"]
    assert distill(repo, "answer", run, item["id"], "defer", "docs/plan.md gets its own certificate").returncode == 0
    done = distill(repo, "resume", run, "--yes", "--answers", str(_qp(tmp_path)), "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    premises = json.loads(done.stdout)["certificate"]["reception"]["premises"]
    assert any("docs/plan.md" in p and "own certificate" in p for p in premises)


# --- Rule 14: exposure and decision items offer Resolve, Route, Drop and Defer -----------------


def test_rule14_exposure_route_replaces_the_exposing_source(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Add task\n", {**DOCS, "TASK.md": "Ship the retry (see /tmp/run3.log).\n",
                                "docs/plan.md": "The retry failed, see /tmp/run3.log for the trace.\n"})
    answers = tmp_path / "a.toml"
    answers.write_text('tmp-run3-log = "drop"\nexposure-docs-plan-md = { route = "docs/retries.md" }\n'
                       + _qp(tmp_path).read_text())
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--source", "docs/plan.md",
                   "--utterance", "certify TASK.md, the implementer may read docs/plan.md",
                   "--yes", "--answers", str(answers), "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["certificate"]["reception"]["granted_sources"] == ["docs/retries.md"]
    assert "/tmp/run3.log" not in done.stdout


def test_rule14_decision_item_offers_route_and_drop(repo: Path, tmp_path: Path) -> None:
    task = "Ship the retry.\nWe decided to retry five times.\n"
    commit(repo, "Add task\n", {**DOCS, "TASK.md": task})
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input", "--format", "json")
    assert paused.returncode == 3, paused.stdout + paused.stderr
    (item,) = [i for i in json.loads(paused.stdout)["items"] if i["gate"] != "premise"]
    assert item["id"] == "decision-1" and item["options"] == ["resolve", "route", "drop", "defer"]
    run = json.loads(paused.stdout)["run"]
    assert distill(repo, "answer", run, "decision-1", "drop").returncode == 0
    done = distill(repo, "resume", run, "--yes", "--answers", str(_qp(tmp_path)), "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "decided" not in (repo / "TASK.md").read_text()
    assert "Ship the retry." in (repo / "TASK.md").read_text()
