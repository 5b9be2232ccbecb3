"""`vet --verify`: a stored vet result re-checked, on the repository and on a fresh clone, and
failing by name when the note or a source is changed."""

from __future__ import annotations

import json
from pathlib import Path

from diylisis.app import vet
from diylisis.edges import vet_note
from tests.conftest import commit, distill, git
from tests.vet_fixture import BOTTLENECK_CLAIM, MERGE, TIMEOUT_CLAIM, answers_toml, audit_ids, build, commit_at


def _vetted(repo: Path, tmp_path: Path) -> str:
    build(repo)
    answers = tmp_path / "answers.toml"
    answers.write_text(answers_toml(audit_ids(repo)), encoding="utf-8")
    done = distill(repo, "vet", "--action", "merge feature/retry", "--range", "main..feature/retry",
                   "--answers", str(answers))
    assert done.returncode == 0, done.stderr
    return git(repo, "rev-parse", "HEAD").strip()


def _verify(repo: Path, *args: str) -> tuple[int, dict[str, object]]:
    done = distill(repo, "vet", "--verify", "--format", "json", *args)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def _failed(report: dict[str, object]) -> list[str]:
    checks = report["checks"]
    assert isinstance(checks, list)
    return [f"{c['check']}: {c['detail']}" for c in checks if not c["ok"]]


def test_claims_read_through_different_changed_paths_verify(repo: Path, tmp_path: Path) -> None:
    build(repo)
    commit_at(repo, "2024-03-08", "Add the ops notes and a helper",
              {"src/util.py": "STEPS = 2\n", "docs/ops.md": "Retries in src/retry.py never exceed two.\n\n"
                                                           "Helpers in src/util.py never block.\n"})
    formed = vet.form(repo, MERGE)
    assert {a.stake.reads for a in formed.audits if a.source.path == "docs/ops.md"} == {
        ("the range changes src/retry.py",), ("the range changes src/util.py",)}
    answers = tmp_path / "answers.toml"
    by_audit: dict[str, list[int]] = {}
    for antithesis in formed.antitheses:
        by_audit.setdefault(antithesis.audit, []).append(antithesis.index)
    answers.write_text("\n".join(f"[{audit}]\n" + "".join(f'{index} = {{ verdict = "Read and kept." }}\n'
                                                          for index in indices)
                                 for audit, indices in by_audit.items()), encoding="utf-8")
    done = distill(repo, "vet", "--action", MERGE.action, "--range", "main..feature/retry", "--answers", str(answers))
    assert done.returncode == 0, done.stderr
    code, report = _verify(repo)
    assert code == 0, _failed(report)


def test_a_stored_result_verifies_here_and_on_a_fresh_clone(repo: Path, tmp_path: Path) -> None:
    tip = _vetted(repo, tmp_path)
    code, report = _verify(repo)
    assert code == 0 and report["ok"] is True and report["commit"] == tip, _failed(report)

    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "push", "-q", str(remote), "feature/retry", "main", "refs/notes/distill-vet")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--branch", "feature/retry", str(remote), str(clone))
    git(clone, "fetch", "-q", "origin", "refs/notes/distill-vet:refs/notes/distill-vet")
    code, report = _verify(clone)
    assert code == 0, _failed(report)


def test_tampering_with_the_note_fails_naming_the_field(repo: Path, tmp_path: Path) -> None:
    tip = _vetted(repo, tmp_path)
    line = vet_note.read(repo, tip)[0]
    claims = line["claims"]
    assert isinstance(claims, dict)
    audit = next(iter(claims))
    claims[audit]["tags"]["leverage"] = 2
    vet_note.put(repo, tip, line)
    code, report = _verify(repo)
    assert code == 1
    assert any(f"{audit}: tags.leverage is 2, measured 5" in failure for failure in _failed(report))

    line["formed"] = line["formed"][:1]  # type: ignore[index]
    vet_note.put(repo, tip, line)
    code, report = _verify(repo)
    assert code == 1 and any(f.startswith("structure: dispositions do not cover") for f in _failed(report))


def test_a_changed_source_fails_naming_it(repo: Path, tmp_path: Path) -> None:
    tip = _vetted(repo, tmp_path)
    commit(repo, "Say 60 s in the design", {"docs/design.md": "The cache timeout is 60 s.\n"})
    code, report = _verify(repo, "--at", tip)
    assert code == 1
    assert _failed(report) == ["sources-now: docs/design.md changed since it was vetted: re-vet"]
    text = distill(repo, "vet", "--verify", "--at", tip)
    assert text.returncode == 1 and "FAILED sources-now" in text.stdout


def test_verify_without_a_result_is_exit_two(repo: Path) -> None:
    build(repo)
    done = distill(repo, "vet", "--verify")
    assert done.returncode == 2 and "no vet result" in done.stderr


def _sarif(repo: Path, *args: str) -> tuple[int, dict]:
    import jsonschema

    from tests.conftest import sarif_schema

    done = distill(repo, "vet", "--verify", "--format", "sarif", *args)
    assert done.returncode in (0, 1), done.stderr
    log = json.loads(done.stdout)
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    return done.returncode, log


def test_verify_as_sarif_has_one_result_per_failure_at_the_claim_or_source(repo: Path, tmp_path: Path) -> None:
    tip = _vetted(repo, tmp_path)
    code, log = _sarif(repo)
    assert code == 0 and log["runs"][0]["results"] == []
    assert log["runs"][0]["properties"] == {"commit": tip, "action": "merge feature/retry", "checks": 7, "failed": 0}

    line = vet_note.read(repo, tip)[0]
    claims = line["claims"]
    assert isinstance(claims, dict)
    audit = next(a for a, c in claims.items() if c["text"].startswith("The cache timeout is 30 s"))
    claims[audit]["tags"]["leverage"] = 2
    vet_note.put(repo, tip, line)
    code, log = _sarif(repo)
    assert code == 1
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "distill-vet/tag-facts"
    assert result["message"]["text"] == f"tags: {audit}: tags.leverage is 2, measured 5"
    physical = result["locations"][0]["physicalLocation"]
    assert (physical["artifactLocation"]["uri"], physical["region"]["startLine"]) == ("docs/design.md", 3)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert rules[result["ruleIndex"]]["id"] == "distill-vet/tag-facts"


def test_verify_as_sarif_points_a_changed_source_at_its_file(repo: Path, tmp_path: Path) -> None:
    tip = _vetted(repo, tmp_path)
    commit(repo, "Say 60 s in the design", {"docs/design.md": "The cache timeout is 60 s.\n"})
    code, log = _sarif(repo, "--at", tip)
    assert code == 1
    (result,) = log["runs"][0]["results"]
    assert result["ruleId"] == "distill-vet/re-vet"
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "docs/design.md"
    assert result["partialFingerprints"] == {"distillVetResult/v1": f"{tip}:distill-vet/re-vet:docs/design.md"}


def test_sarif_is_only_for_verify(repo: Path) -> None:
    build(repo)
    done = distill(repo, "vet", "--action", "merge", "--range", "main..feature/retry", "--format", "sarif")
    assert done.returncode == 2 and "--format sarif is for --verify" in done.stderr
    assert not (repo / ".git" / "distill" / "runs").exists()


def test_verify_reports_a_revisit_met_since_and_a_withdrawn_claim_still_leaned_on(repo: Path, tmp_path: Path) -> None:
    build(repo)
    ids = audit_ids(repo)
    (bottleneck, _), (timeout, _) = ids[BOTTLENECK_CLAIM], ids[TIMEOUT_CLAIM]
    answers = tmp_path / "answers.toml"
    answers.write_text(f'[{timeout}]\n1 = {{ verdict = "The code is right.", withdraw = true }}\n'
                       f'[{bottleneck}]\n1 = {{ verdict = "Ask again once the cache code changes.",'
                       ' revisit = "changed:src/cache.py" }\n', encoding="utf-8")
    done = distill(repo, "vet", "--action", "merge feature/retry", "--range", "main..feature/retry",
                   "--answers", str(answers))
    assert done.returncode == 0, done.stderr
    assert "not carried out: Revisit(changed:src/cache.py)" in done.stdout
    tip = git(repo, "rev-parse", "HEAD").strip()

    code, report = _verify(repo)
    assert code == 0, _failed(report)
    assert report["reports"] == [f"src/retry.py still names docs/design.md, whose claim {timeout} was withdrawn: "
                                 f"{TIMEOUT_CLAIM}"]

    commit(repo, "Lower the cache timeout", {"src/cache.py": "TIMEOUT = 45\n"})
    code, report = _verify(repo, "--at", tip)
    assert code == 0, _failed(report)  # reported, not failed: the verdicts are not checked
    assert f"Revisit(changed:src/cache.py) on {bottleneck} is met now; the run that would ask again has ended:" \
           " re-vet" in report["reports"]
    text = distill(repo, "vet", "--verify", "--at", tip)
    assert "note: Revisit(changed:src/cache.py)" in text.stdout
