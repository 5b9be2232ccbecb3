"""F0 guards and F5 backstops, on real repositories."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import commit, distill
from msgspec.structs import replace

from diylisis.app import certification
from diylisis.core import engine
from diylisis.core.model import CHECKLIST, Realization, RecordKind, RefuterFinding, SweepRow, Target, ZeroMemoryVerdict
from diylisis.core.state import RunStatus
from diylisis.edges import runs
from diylisis.edges.certify_gate import PausedGate
from diylisis.edges.config import ContractFields

CLEAN_TASK = "Implement the retry policy in docs/retries.md.\n"
FILES = {"docs/retries.md": "# Retries\n", "TASK.md": CLEAN_TASK}


def test_ai_authored_contract_field_needs_confirm_or_correct(repo: Path) -> None:
    commit(repo, "Add task\n", {**FILES, ".distill.toml": '[contract]\nactivity = "rewrite the uploader"\n'
                                                           'stop = "the tests in tests/ pass"\n'})
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input", "--format", "json")
    assert paused.returncode == 3
    items = json.loads(paused.stdout)["items"]
    assert {i["id"] for i in items} == {"contract-activity", "contract-stop"}
    assert all(i["gate"] == "contract" and i["options"] == ["confirm", "correct"] for i in items)
    run = json.loads(paused.stdout)["run"]
    assert distill(repo, "answer", run, "contract-activity", "correct", "implement the retry policy").returncode == 0
    assert distill(repo, "answer", run, "contract-stop", "confirm").returncode == 0
    done = distill(repo, "resume", run, "--no-input", "--format", "json")
    assert done.returncode == 0, done.stdout
    assert json.loads(done.stdout)["certificate"]["activity"] == "implement the retry policy"


def test_utterance_that_states_the_fields_needs_no_contract_gate(repo: Path) -> None:
    commit(repo, "Add task\n", {**FILES, ".distill.toml": '[contract]\nactivity = "rewrite the uploader"\n'
                                                           'stop = "uploader tests pass"\n'})
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--no-input",
                   "--utterance", "please rewrite the uploader and stop once the uploader tests pass")
    assert done.returncode == 0, done.stdout


def test_competence_substitution_stops_before_f1(repo: Path) -> None:
    commit(repo, "Add task\n", FILES)
    done = distill(repo, "certify", "TASK.md", "--role", "reviewer",
                   "--activity", "review the patch using the author's checklist script")
    assert done.returncode == 2
    assert "owns the method" in done.stderr and "--activity 'review the patch'" in done.stderr
    fine = distill(repo, "certify", "TASK.md", "--role", "reviewer", "--activity", "review the patch",
                   "--stop", "a verdict is written", "--no-input",
                   "--utterance", "review the patch and stop once a verdict is written")
    assert fine.returncode == 0, fine.stdout + fine.stderr


def test_content_bearing_activation_verb_is_refused(repo: Path) -> None:
    commit(repo, "Add task\n", FILES)
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--activity", "implement retries",
                   "--verb", "Implement retries from {locator}")
    assert done.returncode == 2 and "activation verb" in done.stderr


def test_certificate_target_must_be_another_referent(repo: Path) -> None:
    commit(repo, "Add task\n", FILES)
    for alias in ("TASK.md", "./TASK.md", "docs/../TASK.md", str(repo / "TASK.md")):
        done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--certificate-target", alias)
        assert done.returncode == 2, alias
        assert "record being certified" in done.stderr


def test_unmet_stop_is_asked_at_the_gate(repo: Path) -> None:
    commit(repo, "Add task\n", FILES)
    paused = distill(repo, "certify", "TASK.md", "--role", "implementer", "--activity", "implement it",
                     "--utterance", "implement it", "--no-input", "--format", "json")
    assert paused.returncode == 3
    assert [i["id"] for i in json.loads(paused.stdout)["items"]] == ["contract-stop"]


def _backstop_run(repo: Path, category: int) -> engine.Result:
    workspace = certification.Workspace.open(repo)
    target = Target(kind=RecordKind.FILE, locator="TASK.md")
    state = certification.start(workspace, target, ContractFields(role="implementer"), ())
    finding = RefuterFinding(token="implement", location="contract.activity", category=category,
                             why="the refuter found a contract defect", advisory="Resolve", repair="re-declare")
    sweep = tuple(SweepRow(category=n, status="finding" if n == category else "clear", checked="read it")
                  for n in CHECKLIST)
    verdict = ZeroMemoryVerdict(passed=False, realization=Realization.GENERIC_SUBAGENT, sweep=sweep,
                                findings=(finding,))
    edges = replace(certification.edges(workspace, target, PausedGate()), refute=lambda _request: verdict)
    return engine.run(state, edges)


def test_operative_procedure_finding_trips_the_competence_backstop(repo: Path) -> None:
    commit(repo, "Add task\n", FILES)
    result = _backstop_run(repo, 9)
    assert isinstance(result, engine.Stopped) and result.state.status == "stopped"
    assert "competence-substitution backstop" in result.reason
    assert "re-declare the contract" in result.reason


def test_contract_misfit_finding_trips_the_provenance_backstop(repo: Path) -> None:
    commit(repo, "Add task\n", FILES)
    result = _backstop_run(repo, 10)
    assert isinstance(result, engine.Stopped) and result.state.status == "stopped"
    assert "contract-provenance backstop" in result.reason
    saved = runs.load(repo / ".git", result.state.run_id)  # the stopped run's file keeps why it stopped
    assert saved.status is RunStatus.STOPPED and saved.stop_reason == result.reason


def _scripted_refuter(finding: RefuterFinding):
    """A refuter that fails on `finding` until the run carries it as a premise, then passes."""

    def refute(request):
        premised = any(finding.token in premise.claim for premise in request.premises)
        failed = not premised and not any(item.id.endswith("upload-is-2x-faster") for item in request.open_items)
        sweep = tuple(SweepRow(category=n, status="finding" if failed and n == finding.category else "clear",
                               checked="read the record") for n in CHECKLIST)
        return ZeroMemoryVerdict(passed=not failed, realization=Realization.GENERIC_SUBAGENT, sweep=sweep,
                                 findings=(finding,) if failed else ())

    return refute


def _run_with(repo: Path, refute, answers=()) -> engine.Result:
    from diylisis.edges.certify_gate import AnswersGate

    workspace = certification.Workspace.open(repo)
    target = Target(kind=RecordKind.FILE, locator="TASK.md")
    state = certification.start(workspace, target, ContractFields(role="implementer"), ())
    edges = replace(certification.edges(workspace, target, AnswersGate(answers=tuple(answers), yes=True)),
                    refute=refute)
    return engine.run(state, edges)


def test_claim_repair_finding_relays_to_the_premises(repo: Path) -> None:
    commit(repo, "Add task\n", {**FILES, "TASK.md": "Upload is 2x faster with the new pool (`make bench-upload`).\n"})
    claim = RefuterFinding(token="Upload is 2x faster", location="line 1", category=7,
                           why="a measured claim with no evidence", advisory="Defer", repair="cite a benchmark")
    from diylisis.core.gate import Answer

    qp = (Answer(item_id="qp-consumer", option="value", value="a reviewer"),
          Answer(item_id="qp-authority", option="value", value="derived"))
    result = _run_with(repo, _scripted_refuter(claim), qp)
    assert isinstance(result, engine.Certified), result
    assert any("Upload is 2x faster" in p and "no evidence" in p for p in result.certificate.reception.premises)
    expected = "Upload is 2x faster with the new pool (`make bench-upload`).\n"
    assert (repo / "TASK.md").read_text() == expected  # no claim edited


def test_unmatched_finding_becomes_an_item_of_its_own(repo: Path) -> None:
    commit(repo, "Add task\n", {**FILES, "TASK.md": "Upload is 2x faster with the new pool.\n"})
    gap = RefuterFinding(token="the new pool", location="line 1", category=1,
                         why="which pool is meant is never said", advisory="Resolve", repair="name it")
    result = _run_with(repo, _scripted_refuter(gap))
    assert result.state.status == "paused"
    question = next(q for q in result.state.open_questions if q.id == "refuter-the-new-pool")
    assert question.options == ("resolve", "route", "drop", "defer") and question.line == 1


def test_certificate_lands_at_a_named_target_too(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Add task\n", FILES)
    answers = tmp_path / "qp.toml"
    answers.write_text('qp-consumer = { value = "a reviewer" }\nqp-authority = { value = "derived" }\n')
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--certificate-target",
                   "build/TASK.certificate.json", "--yes", "--answers", str(answers))
    assert done.returncode == 2 and "cannot be written" in done.stderr
    (repo / "build").mkdir()
    done = distill(repo, "certify", "TASK.md", "--role", "implementer", "--certificate-target",
                   "build/TASK.certificate.json", "--yes", "--answers", str(answers))
    assert done.returncode == 0, done.stdout + done.stderr
    landed = json.loads((repo / "build" / "TASK.certificate.json").read_text())
    assert landed["role"] == "implementer" and landed["authority_copy"] == "derived"
