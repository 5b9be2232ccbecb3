"""The per-claim gate of a vet run: three realizations giving the same J, pause, answer and resume,
stale answers, and a repository left exactly as it was."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from diylisis.app import vet, vet_session
from diylisis.core.errors import BadInput
from diylisis.core.vet import judgment
from diylisis.edges import answers_file, run_files, vet_gate, vet_note
from diylisis.edges.gate import PausedGate
from tests.conftest import distill, git
from tests.terminal import converse
from tests.vet_fixture import BOTTLENECK_CLAIM, MERGE, TIMEOUT_CLAIM, VERDICTS, answers_toml, audit_ids, build


def _git_dir(repo: Path) -> Path:
    return repo / ".git"


def _ledger_of(result: object) -> tuple[object, object]:
    assert isinstance(result, dict)
    return result["dispositions"], [(h["audit"], h["antithesis"]) for h in result["history"]]


def _snapshot(repo: Path) -> tuple[str, str, str]:
    """The work tree, the index and every ref other than vet's notes, as bytes git reports them."""
    refs = "\n".join(line for line in git(repo, "for-each-ref", "--format=%(refname) %(objectname)").splitlines()
                     if not line.startswith("refs/notes/distill-vet"))
    return git(repo, "status", "--porcelain", "--ignored", "--untracked-files=all"), git(repo, "ls-files", "-s"), refs


def test_terminal_answers_file_and_pause_answer_resume_give_the_same_ledger(repo: Path, tmp_path: Path) -> None:
    build(repo)
    ids = audit_ids(repo)
    before = _snapshot(repo)
    head = git(repo, "rev-parse", "HEAD").strip()

    # the terminal on a pseudo-terminal: an empty instruction and "withdraw this" are refused (no default)
    choices = "[withdraw/revisit/handoff/nothing]"
    code, screen = converse(repo, [sys.executable, "-m", "diylisis", "vet", "--action", MERGE.action,
                                   "--range", str(MERGE.range)],
                            [("your verdict", VERDICTS[TIMEOUT_CLAIM][0]), (choices, ""),
                             ("Please select one of the available options", "withdraw"),
                             ("your verdict", VERDICTS[BOTTLENECK_CLAIM][0]), (choices, "withdraw this"),
                             ("Please select one of the available options", "nothing")])
    assert code == 0, screen
    assert screen.count(judgment.REACH_NOTE) == 1  # once per batch
    assert "withdraw: records that the source does not stand for this claim; vet edits nothing" in screen
    terminal = vet_note.read(repo, head)[0]
    assert terminal["realization"] == "terminal"

    answers = tmp_path / "answers.toml"
    answers.write_text(answers_toml(ids), encoding="utf-8")
    from_file = vet_session.start(repo, _git_dir(repo), MERGE, vet_gate.choose(answers, no_input=True))
    assert isinstance(from_file, vet_session.Vetted) and from_file.result["realization"] == "answers-file"

    paused = vet_session.start(repo, _git_dir(repo), MERGE, PausedGate())
    assert isinstance(paused, vet_session.Paused) and len(paused.open_items) == 2
    for claim, (verdict, instruction) in VERDICTS.items():
        audit, index = ids[claim]
        vet_session.answer(repo, _git_dir(repo), paused.run_id, audit, verdict, antithesis=index,
                           withdraw=instruction == "withdraw", revisit=None, handoff=None)
    resumed = vet_session.resume(repo, _git_dir(repo), paused.run_id, PausedGate())
    assert isinstance(resumed, vet_session.Vetted)
    assert not Path(run_files.run_file(_git_dir(repo), paused.run_id)).exists()

    assert _ledger_of(terminal) == _ledger_of(from_file.result) == _ledger_of(resumed.result)
    dispositions, _ = _ledger_of(terminal)
    assert isinstance(dispositions, dict)
    bottleneck = dispositions[ids[BOTTLENECK_CLAIM][0]]["judged"]
    assert bottleneck["instruction"] is None  # "withdraw this" in a verdict is never an instruction
    assert _snapshot(repo) == before
    # one note line per action on the action's commit, the newest replacing the older
    assert len(vet_note.read(repo, head)) == 1


def test_a_stale_antithesis_index_is_refused_and_the_slot_stays_open(repo: Path) -> None:
    build(repo)
    ids = audit_ids(repo)
    paused = vet_session.start(repo, _git_dir(repo), MERGE, PausedGate())
    audit, index = ids[TIMEOUT_CLAIM]
    with pytest.raises(BadInput, match="challenge 1 is the one open"):
        vet_session.answer(repo, _git_dir(repo), paused.run_id, audit, "fine", antithesis=index + 1,
                           withdraw=False, revisit=None, handoff=None)
    left = vet_session.answer(repo, _git_dir(repo), paused.run_id, ids[BOTTLENECK_CLAIM][0], "fine",
                              antithesis=1, withdraw=False, revisit=None, handoff=None)
    assert left == (audit,)


def test_an_answer_needs_a_verdict_and_at_most_one_instruction() -> None:
    with pytest.raises(BadInput, match="verdict is required"):
        judgment.judged("a-1", 1, "  ")
    with pytest.raises(BadInput, match="at most one"):
        judgment.judged("a-1", 1, "ok", withdraw=True, handoff="owner unknown")
    with pytest.raises(BadInput, match="needs a condition"):
        judgment.judged("a-1", 1, "ok", revisit=" ")
    audit = "a-0123456789"
    with pytest.raises(BadInput, match="'confirmed' for 'a-0123456789.1' is not one of withdraw, revisit, handoff"):
        answers_file.parse(f'[{audit}]\n1 = {{ verdict = "ok", confirmed = true }}\n', "answers.toml",
                           vet_gate.template_for)
    with pytest.raises(BadInput, match="at most one of withdraw, revisit, handoff"):
        answers_file.parse(f'[{audit}]\n1 = {{ verdict = "ok", withdraw = true, handoff = "x" }}\n',
                           "answers.toml", vet_gate.template_for)
    with pytest.raises(BadInput, match="'a-0123456789' is not an item this run asks about"):
        answers_file.parse(f'[{audit}]\nverdict = "ok"\n', "answers.toml", vet_gate.template_for)


def test_batches_hold_at_most_four_claims_in_order() -> None:
    assert judgment.batches([f"a-{n}" for n in range(9)]) == (
        ("a-0", "a-1", "a-2", "a-3"), ("a-4", "a-5", "a-6", "a-7"), ("a-8",))


def test_the_command_pauses_with_json_items_then_answer_and_resume_finish(repo: Path, tmp_path: Path) -> None:
    build(repo)
    ids = audit_ids(repo)
    before = _snapshot(repo)
    done = distill(repo, "vet", "--action", "merge feature/retry", "--range", "main..feature/retry",
                   "--no-input", "--format", "json")
    assert done.returncode == 3, done.stderr
    paused = json.loads(done.stdout)
    assert paused["status"] == "paused"
    assert set(paused["items"][0]) >= {"id", "source", "line", "claim", "pattern", "antithesis", "evidence",
                                       "instructions"}
    timeout = next(i for i in paused["items"] if i["claim"] == TIMEOUT_CLAIM)
    assert timeout["pattern"] == "C" and timeout["line"] == 3 and timeout["source"] == "docs/design.md"
    assert [i["instruction"] for i in timeout["instructions"]] == [
        "withdraw", "revisit CONDITION", "handoff DEFICIT", "nothing"]

    answers = tmp_path / "answers.toml"
    answers.write_text(answers_toml(ids), encoding="utf-8")
    done = distill(repo, "vet", "--action", "merge feature/retry", "--range", "main..feature/retry",
                   "--answers", str(answers), "--format", "json")
    assert done.returncode == 0, done.stderr
    vetted = json.loads(done.stdout)
    assert vetted["status"] == "vetted"
    assert set(vetted["result"]["dispositions"]) == set(vetted["result"]["formed"])
    assert _snapshot(repo) == before

    stale = tmp_path / "stale.toml"
    stale.write_text(answers_toml(ids).replace("1 = {", "2 = {"), encoding="utf-8")
    done = distill(repo, "vet", "--action", "merge", "--range", "main..feature/retry", "--answers", str(stale))
    assert done.returncode == 2 and "challenge 1 is the one open" in done.stderr


def test_missing_action_or_sources_is_exit_two_and_writes_nothing(repo: Path) -> None:
    build(repo)
    before = _snapshot(repo)
    assert distill(repo, "vet", "--range", "main..feature/retry").returncode == 2
    assert distill(repo, "vet", "--action", "merge").returncode == 2
    assert _snapshot(repo) == before
    assert not (repo / ".git" / "distill" / "runs").exists()


def test_an_uncited_fresh_record_is_no_candidate(repo: Path) -> None:
    build(repo)
    outcome = vet_session.start(repo, _git_dir(repo), vet.VetRequest(action="deploy", sources=("tasks/cache-1.md",)),
                                PausedGate())
    assert isinstance(outcome, vet_session.Vetted) and outcome.messages == (vet_session.NO_CANDIDATE,)
    assert outcome.result is not None and outcome.result["dispositions"] == {} and outcome.result["trace"] == {}


def test_the_demo_runs_in_a_throw_away_repository(tmp_path: Path) -> None:
    done = distill(tmp_path, "vet", "--demo")
    assert done.returncode == 0, done.stderr
    assert "5 files rest on docs/design.md" in done.stdout
    assert "not carried out: Revisit(changed:src/cache.py)" in done.stdout
    assert "FAILED" not in done.stdout and "ok tags: every tag fact measured again" in done.stdout
    assert list(tmp_path.iterdir()) == []


def test_answer_and_resume_commands_continue_a_paused_vet_run(repo: Path) -> None:
    build(repo)
    ids = audit_ids(repo)
    done = distill(repo, "vet", "--action", "merge feature/retry", "--range", "main..feature/retry", "--no-input",
                   "--format", "json")
    assert done.returncode == 3, done.stderr
    run = json.loads(done.stdout)["run"]
    timeout, bottleneck = ids[TIMEOUT_CLAIM][0], ids[BOTTLENECK_CLAIM][0]
    both = distill(repo, "answer", run, timeout, "--verdict", "60 s is right", "--withdraw", "--handoff", "x")
    assert both.returncode == 2  # at most one instruction
    first = distill(repo, "answer", run, timeout, "--verdict", "60 s is right", "--handoff", "the doc owner")
    assert first.returncode == 0, first.stderr
    assert bottleneck in first.stdout  # still open
    listed = distill(repo, "runs", "--format", "json")
    assert listed.returncode == 0 and run in listed.stdout
    shown = distill(repo, "runs", "show", run)
    assert shown.returncode == 0, shown.stderr
    assert f"  next: git distill resume {run}" in shown.stdout.splitlines()
    second = distill(repo, "answer", run, bottleneck, "--verdict", "one run proves nothing")
    assert second.returncode == 0, second.stderr
    finished = distill(repo, "resume", run, "--format", "json")
    assert finished.returncode == 0, finished.stderr
    result = json.loads(finished.stdout)["result"]
    assert result["dispositions"][timeout]["judged"]["instruction"] == {
        "kind": "handoff", "text": "the doc owner", "anchor": None}
    assert result["dispositions"][bottleneck]["judged"]["instruction"] is None
    assert distill(repo, "resume", run).returncode == 2  # the run ended


@pytest.mark.parametrize("field, value", [("sources", [{"locator": "x", "path": "x", "blob": "0", "origin": "?"}]),
                                          ("antitheses", [{"audit": "a", "index": "1"}]), ("reads", [["x"]])])
def test_a_paused_run_keeps_its_sources_and_antitheses_and_a_damaged_field_is_bad_input(
        repo: Path, field: str, value: object) -> None:
    from diylisis.edges import vet_runs

    build(repo)
    paused = vet_session.start(repo, _git_dir(repo), MERGE, PausedGate())
    saved = vet_runs.load(_git_dir(repo), paused.run_id)
    assert saved.sources and saved.antitheses and saved.reads
    vet_runs.save(_git_dir(repo), saved)
    assert vet_runs.load(_git_dir(repo), paused.run_id) == saved  # written and read back unchanged
    path = Path(run_files.run_file(_git_dir(repo), paused.run_id))
    stored = json.loads(path.read_text(encoding="utf-8"))
    assert stored["antitheses"][0]["pattern"] in "ABCD" and set(stored["sources"][0]) == {
        "locator", "path", "blob", "origin"}
    stored[field] = value
    path.write_text(json.dumps(stored), encoding="utf-8")
    with pytest.raises(BadInput, match="file is damaged"):
        vet_runs.load(_git_dir(repo), paused.run_id)
