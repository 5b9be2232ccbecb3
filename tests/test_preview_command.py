"""`git distill preview` end to end on real repositories: three candidates, a scripted probe command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from diylisis.edges import confinement, probes, run_files
from tests.conftest import commit, distill, git
from tests.edges.user_state import dirty_repository, except_the_preview_note, user_state

needs_namespaces = pytest.mark.skipif(not confinement.sandbox_available(),
                                      reason="no user namespaces on this machine")
STORAGE = Path(__file__).resolve().parent.parent / "fixtures" / "probes" / "storage.sh"
CANDIDATES = ("--candidate", "a SQLite file cache", "--candidate", "a Redis server cache",
              "--candidate", "plain JSON files on disk")
AXES = ("--axis", "failure: what happens when the cache is lost?",
        "--axis", "operations: what must run beside the app?")


def answers(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "answers.toml"
    path.write_text(text, encoding="utf-8")
    return path


def preview(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return distill(repo, "preview", *CANDIDATES, *AXES, "--probe-cmd", f"sh {STORAGE}", "--format", "json", *args)


@needs_namespaces
def test_three_candidates_contrast_select_discard_and_note(repo: Path, tmp_path: Path) -> None:
    dirty_repository(repo)
    before = user_state(repo)
    done = preview(repo, "--answers", str(answers(tmp_path, 'spec = "approve"\n'
                                                  'direction = { select = 1, deciding = ["failure"] }\n')))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    rows = {row["axis"]: row for row in report["contrast"]["rows"]}
    assert [cell["value"] for cell in rows["failure"]["cells"]] == [
        "rebuilt from the file on restart", "lost until the cache warms", "rebuilt from the files on restart"]
    assert not rows["failure"]["flagged"] and not rows["operations"]["flagged"]
    common = {(c["key"], c["kind"]) for c in report["contrast"]["common_commitments"]}
    assert {("NOTICE", "path"), ("language", "declared")} <= common
    record = report["record"]
    assert record["arm"] == "DirectionalContrast"
    assert record["direction"]["direction"] == "a Redis server cache"
    assert record["contrast_map"] == {"failure": {"a SQLite file cache": "rebuilt from the file on restart",
                                                  "a Redis server cache": "lost until the cache warms",
                                                  "plain JSON files on disk": "rebuilt from the files on restart"}}
    assert [e["disposition"] for e in record["discard_trace"]] == ["FileDestroyed"] * 3
    assert {u["route"] for u in record["exposed_unknowns"]} == {"Gap", "Inquire"}
    for entry in record["discard_trace"]:
        assert not os.path.lexists(entry["probe"]["artifact_ref"])
    assert not probes.temp_root(report["run"]).exists()
    head = git(repo, "rev-parse", "HEAD").strip()
    note = git(repo, "notes", "--ref=refs/notes/distill-preview", "show", head)
    assert json.loads(note.strip())["run"] == report["run"]
    verified = distill(repo, "preview", "--verify", "HEAD")
    assert verified.returncode == 0 and f"preview {report['run']}: ok" in verified.stdout
    forged = {**record, "run": "forged", "discard_trace": record["discard_trace"][:2]}
    git(repo, "notes", "--ref=refs/notes/distill-preview", "append", "-m", json.dumps(forged), head)
    refused = distill(repo, "preview", "--verify", "HEAD")
    assert refused.returncode == 1, refused.stdout
    assert "preview forged: the fans made 3 probes but the discard trace declares 2" in refused.stdout
    assert except_the_preview_note(user_state(repo)) == except_the_preview_note(before)
    assert "refs/notes/distill-preview" in user_state(repo)["refs"]


@needs_namespaces
def test_the_text_output_presents_probes_first_then_the_contrast(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Add the app\n\nA first version.\n", {"app.py": "print(1)\n"})
    done = distill(repo, "preview", *CANDIDATES, *AXES, "--probe-cmd", f"sh {STORAGE}", "--answers",
                   str(answers(tmp_path, 'spec = "approve"\ndirection = { synthesize = "SQLite, JSON export" }\n'
                                         'micro = "confirm"\n')))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.index("PLACEHOLDER probe 0") < out.index("PLACEHOLDER probe 2") < out.index("== contrast")
    assert "shared by every probe: NOTICE" in out and "unknown (Gap): who restarts redis at night?" in out
    assert "your repository is byte-identical (compared)" in out
    assert "direction: SQLite, JSON export" in out


def test_fewer_than_two_candidates_is_exit_2_and_creates_nothing(repo: Path) -> None:
    commit(repo, "Add the app\n\nA first version.\n", {"app.py": "print(1)\n"})
    done = distill(repo, "preview", "--candidate", "only", "--candidate", " only ", "--format", "json")
    assert done.returncode == 2
    assert json.loads(done.stdout)["reason"] == "requires_fail"


@pytest.mark.parametrize(("flag", "reason"), [("--recognizable", "no_deficit"), ("--familiar", "route_away"),
                                              ("--needs-real-data", "route_away"),
                                              ("--placeholders-distort", "unfit")])
def test_each_not_activated_exit_is_exit_1_with_its_relay(repo: Path, flag: str, reason: str) -> None:
    commit(repo, "Add the app\n\nA first version.\n", {"app.py": "print(1)\n"})
    before = user_state(repo)
    done = distill(repo, "preview", *CANDIDATES, flag, "--format", "json")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["reason"] == reason and report["relay"]
    assert user_state(repo) == before and not probes.temp_root(report["run"]).exists()


@needs_namespaces
def test_an_unanswered_spec_gate_pauses_before_any_probe(repo: Path) -> None:
    commit(repo, "Add the app\n\nA first version.\n", {"app.py": "print(1)\n"})
    done = preview(repo, "--no-input")
    assert done.returncode == 3, done.stderr
    report = json.loads(done.stdout)
    assert report["status"] == "paused"
    assert report["items"][0]["id"] == "qspec-1" and report["items"][0]["options"] == ["approve", "adjust"]
    assert not probes.temp_root(report["run"]).exists()


@needs_namespaces
def test_a_pause_at_the_direction_gate_keeps_the_probes_until_cleanup(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Add the app\n\nA first version.\n", {"app.py": "print(1)\n"})
    done = preview(repo, "--no-input", "--answers", str(answers(tmp_path, 'spec = "approve"\n')))
    assert done.returncode == 3, done.stderr
    report = json.loads(done.stdout)
    assert report["items"][0]["options"] == ["select:0", "select:1", "select:2", "synthesize"]
    assert probes.temp_root(report["run"]).exists()
    listed = json.loads(distill(repo, "preview", "--list", "--format", "json").stdout)
    assert [r["run"] for r in listed] == [report["run"]]
    cleaned = distill(repo, "preview", "--cleanup", report["run"])
    assert cleaned.returncode == 0 and "nothing is left" in cleaned.stdout
    assert not probes.temp_root(report["run"]).exists()


@needs_namespaces
def test_withdrawing_at_the_direction_gate_is_an_early_exit_with_every_probe_discarded(
        repo: Path, tmp_path: Path) -> None:
    dirty_repository(repo)
    before = user_state(repo)
    done = preview(repo, "--answers", str(answers(tmp_path, 'spec = "approve"\ndirection = "withdraw"\n')))
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    assert report["arm"] == "EarlyExit"
    assert [e["disposition"] for e in report["record"]["discard_trace"]] == ["FileDestroyed"] * 3
    assert user_state(repo) == before


def test_a_bad_answers_file_is_exit_2_before_any_probe(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Add the app\n\nA first version.\n", {"app.py": "print(1)\n"})
    done = distill(repo, "preview", *CANDIDATES, *AXES, "--probe-cmd", "true", "--unconfined",
                   "--answers", str(answers(tmp_path, 'direction = { choose = 1 }\n')))
    assert done.returncode == 2 and "'choose' for 'direction' is not one of select" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_killed_preview_is_cleaned_up_by_cleanup_run(repo: Path) -> None:
    dirty_repository(repo)
    before = user_state(repo)
    (repo.parent / "approve.toml").write_text('spec = "approve"\n')
    driver = subprocess.Popen([sys.executable, "-m", "diylisis", "preview", *CANDIDATES, *AXES, "--unconfined",
                               "--probe-cmd", "setsid sleep 60 & sleep 60", "--no-input", "--answers",
                               str(repo.parent / "approve.toml")], cwd=repo)
    deadline = time.monotonic() + 30
    run = None
    while time.monotonic() < deadline and run is None:
        for found in probes.list_runs(repo / ".git"):
            if len(found.get("probes", [])) == 3 and all(p.get("pid") for p in found["probes"]):
                run = found["run"]
        time.sleep(0.1)
    driver.kill()
    driver.wait()
    assert run is not None
    assert any(confinement.tagged_processes(probes.probe_tag(run, k)) for k in range(3))
    done = distill(repo, "preview", "--cleanup", run)
    assert done.returncode == 0, done.stderr
    assert not probes.temp_root(run).exists()
    assert all(confinement.tagged_processes(probes.probe_tag(run, k)) == () for k in range(3))
    assert user_state(repo) == before


@needs_namespaces
def test_the_note_is_readable_on_a_fresh_clone_after_sync(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Add the app\n\nA first version.\n", {"app.py": "print(1)\n"})
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    git(repo, "remote", "add", "origin", str(origin))
    git(repo, "push", "-q", "origin", "main")
    done = preview(repo, "--answers", str(answers(tmp_path, 'spec = "approve"\ndirection = { select = 0 }\n')))
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)["run"]
    pushed = distill(repo, "sync", "origin")
    assert pushed.returncode == 0, pushed.stderr
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "-b", "main", str(origin), str(clone))
    fetched = distill(clone, "sync", "origin", "--fetch")
    assert fetched.returncode == 0, fetched.stderr
    head = git(clone, "rev-parse", "HEAD").strip()
    record = json.loads(git(clone, "notes", "--ref=refs/notes/distill-preview", "show", head).strip())
    assert record["run"] == run and record["direction"]["direction"] == "a SQLite file cache"
    assert record["non_evidence"] == "evidence for no claim"


@needs_namespaces
def test_a_gap_refan_still_insufficient_is_a_misdiagnosis_exit_with_every_probe_discarded(
        repo: Path, tmp_path: Path) -> None:
    dirty_repository(repo)
    before = user_state(repo)
    done = preview(repo, "--answers", str(answers(tmp_path, 'spec = ["approve", "approve"]\n'
                                                  'direction = ["insufficient", "insufficient"]\n')))
    assert done.returncode == 1, done.stderr
    record = json.loads(done.stdout)["record"]
    assert record["arm"] == "MisdiagnosisExit"
    assert [fan["kind"] for fan in record["fans"]] == ["contrast", "Gap"]
    assert [e["probe"]["index"] for e in record["discard_trace"]] == [0, 1, 2, 3, 4, 5]
    assert {e["disposition"] for e in record["discard_trace"]} == {"FileDestroyed"}
    assert user_state(repo) == before


@needs_namespaces
def test_a_materialized_synthesis_gets_its_own_probe_and_can_be_selected(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Add the app\n\nA first version.\n", {"app.py": "print(1)\n"})
    done = preview(repo, "--answers", str(answers(
        tmp_path, 'spec = "approve"\ndirection = [{ synthesize = "SQLite with a JSON export" }, { select = 3 }]\n'
                  'micro = "materialize"\n')))
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)["record"]
    assert record["fans"][1] == {"kind": "Materialization", "tgt": ["SQLite with a JSON export"]}
    assert record["direction"]["direction"] == "SQLite with a JSON export"
    assert len(record["discard_trace"]) == 4


@needs_namespaces
def test_the_probe_command_gets_its_probe_candidate_axes_and_policy(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Add the app\n\nA first version.\n", {"app.py": "print(1)\n"})
    script = ('printf "%s\\n%s\\n%s\\n%s\\n" "$DISTILL_PROBE" "$DISTILL_CANDIDATE" "$DISTILL_AXES" '
              '"$DISTILL_POLICY" > env.txt; pwd > where.txt')
    done = distill(repo, "preview", *CANDIDATES[:4], *AXES, "--probe-cmd", script, "--format", "json",
                   "--no-input", "--answers", str(answers(tmp_path, 'spec = "approve"\n')))
    assert done.returncode == 3, done.stderr
    run = json.loads(done.stdout)["run"]
    tree = probes.temp_root(run) / "probe-1" / "tree"
    number, candidate, axes_json, policy = (tree / "env.txt").read_text().splitlines()
    assert (number, candidate) == ("1", "a Redis server cache")
    assert [axis["id"] for axis in json.loads(axes_json)] == ["failure", "operations"]
    assert f"DISTILL-PLACEHOLDER-{run}" in policy
    assert (tree / "where.txt").read_text().strip() == str(tree)
    assert distill(repo, "preview", "--cleanup", run).returncode == 0


@needs_namespaces
def test_the_commit_msg_hook_prints_the_gap_unknowns_of_the_named_preview(repo: Path, tmp_path: Path) -> None:
    commit(repo, "Add the app\n\nA first version.\n", {"app.py": "print(1)\n"})
    done = preview(repo, "--answers", str(answers(tmp_path, 'spec = "approve"\ndirection = { select = 1 }\n')))
    assert done.returncode == 0, done.stderr
    run = json.loads(done.stdout)["run"]
    assert distill(repo, "install-hooks").returncode == 0
    (repo / "cache.py").write_text("CACHE = 'redis'\n")
    git(repo, "add", "cache.py")
    message = ("Cache rendered pages in Redis\n\nPages are kept in a Redis server so that every web worker "
               f"shares them.\n\nDistill-Preview: {run}\n")
    on_path = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    committed = subprocess.run(["git", "commit", "-q", "-F", "-"], cwd=repo, input=message, text=True,
                               capture_output=True, check=False, env=on_path)
    assert committed.returncode == 0, committed.stderr
    assert f"check before this commit (preview {run}): who restarts redis at night?" in committed.stderr
    assert "how many files can the folder take?" in committed.stderr
    assert "does the host keep cache.db" not in committed.stderr  # an Inquire unknown, not a check


def test_the_demo_runs_a_whole_preview_and_leaves_nothing(tmp_path: Path) -> None:
    done = distill(tmp_path, "preview", "--demo")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.index("PLACEHOLDER probe 0") < out.index("== contrast") < out.index("probe 2: FileDestroyed")
    assert "direction: a Redis server cache" in out and "verify: ok" in out
    assert "your repository is byte-identical (compared)" in out
    run = out.split("Distill-Preview: ")[1].split("'")[0]
    assert not probes.temp_root(run).exists()
    demo_repo = Path(out.split("A throw-away repository at ")[1].split(",")[0])
    assert not demo_repo.parent.exists()


VIGNETTE = r"""case "$DISTILL_PROBE" in
  0) printf 'failure: rebuilt from the file\n\nThe app restarts; sqlite reopens %s.db.\n' "$DISTILL_PROBE_MARKER" ;;
  *) printf 'failure: lost until warm\n\nThe app restarts; redis is cold. touch test: '
     touch x 2>/dev/null && echo wrote || echo read-only ;;
esac"""


@needs_namespaces
def test_a_vignette_preview_narrates_without_files_and_declares_no_file_artifact(
        repo: Path, tmp_path: Path) -> None:
    dirty_repository(repo)
    before = user_state(repo)
    done = distill(repo, "preview", *CANDIDATES[:4], *AXES[:2], "--tier", "vignette", "--probe-cmd", VIGNETTE,
                   "--answers", str(answers(tmp_path, 'spec = "approve"\ndirection = { select = 0 }\n')))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "sqlite reopens DISTILL-PLACEHOLDER-" in out and "redis is cold. touch test: read-only" in out
    assert "probe 0: rebuilt from the file" in out and "probe 1: lost until warm" in out
    assert "probe 0: NoFileArtifact" in out and "probe 1: NoFileArtifact" in out
    assert "creating" not in out
    assert except_the_preview_note(user_state(repo)) == except_the_preview_note(before)


def _interruptible() -> None:
    # A shell without job control starts background commands with SIGINT ignored, and a child
    # inherits that (Python then installs no Ctrl-C handler): give the driver a terminal's default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@needs_namespaces
def test_ctrl_c_while_probes_run_destroys_them_and_exits_130(repo: Path, tmp_path: Path) -> None:
    dirty_repository(repo)
    before = user_state(repo)
    approve = answers(tmp_path, 'spec = "approve"\n')
    driver = subprocess.Popen([sys.executable, "-m", "diylisis", "preview", *CANDIDATES, *AXES,
                               "--probe-cmd", "setsid sleep 60 & sleep 60", "--answers", str(approve)],
                              cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              preexec_fn=_interruptible)
    deadline = time.monotonic() + 30
    run = None
    while time.monotonic() < deadline and run is None:
        for found in probes.list_runs(repo / ".git"):
            if len(found.get("probes", [])) == 3 and all(p.get("pid") for p in found["probes"]):
                run = found["run"]
        time.sleep(0.1)
    assert run is not None
    driver.send_signal(signal.SIGINT)
    # generous: on a loaded machine the kill rounds and the verified cleanup have taken over 20 s
    out, err = driver.communicate(timeout=120)
    assert driver.returncode == 130, err
    assert out.count("FileDestroyed") == 3
    assert not probes.temp_root(run).exists()
    assert all(confinement.tagged_processes(probes.probe_tag(run, k)) == () for k in range(3))
    assert user_state(repo) == before


@needs_namespaces
def test_on_a_terminal_each_gate_is_asked_and_answered(repo: Path) -> None:
    import pty

    commit(repo, "Add the app\n\nA first version.\n", {"app.py": "print(1)\n"})
    leader, follower = pty.openpty()
    try:
        driver = subprocess.Popen([sys.executable, "-m", "diylisis", "preview", *CANDIDATES, *AXES,
                                   "--probe-cmd", f"sh {STORAGE}"], cwd=repo, stdin=follower,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        os.write(leader, b"adjust tgt 1,2\napprove\nselect 1\n")
        out, err = driver.communicate(timeout=60)
    finally:
        os.close(follower)
        os.close(leader)
    assert driver.returncode == 0, err
    text = out.decode()
    assert "qspec-1 [approve | adjust]" in text and "qspec-2 [approve | adjust]" in text
    assert "qdir [select:0 | select:1 | synthesize]" in text
    assert "not probed 3. plain JSON files on disk" in text
    assert "direction: a Redis server cache" in text


@needs_namespaces
def test_a_run_paused_at_each_gate_resumes_to_a_direction(repo: Path, tmp_path: Path) -> None:
    dirty_repository(repo)
    before = user_state(repo)
    paused = preview(repo, "--no-input")
    assert paused.returncode == 3, paused.stderr
    run = json.loads(paused.stdout)["run"]
    at_qdir = distill(repo, "preview", "--resume", run, "--no-input", "--format", "json",
                      "--answers", str(answers(tmp_path, 'spec = "approve"\n')))
    assert at_qdir.returncode == 3, at_qdir.stderr
    assert json.loads(at_qdir.stdout)["items"][0]["gate"] == "qdir"
    assert probes.temp_root(run).exists()
    at_qmicro = distill(repo, "preview", "--resume", run, "--no-input", "--format", "json", "--answers",
                        str(answers(tmp_path, 'direction = { synthesize = "SQLite with a Redis front" }\n')))
    assert at_qmicro.returncode == 3, at_qmicro.stderr
    assert json.loads(at_qmicro.stdout)["items"][0]["options"] == ["confirm", "materialize"]
    done = distill(repo, "resume", run, "--format", "json",  # git distill resume knows preview runs
                   "--answers", str(answers(tmp_path, 'micro = "confirm"\n')))
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout)["record"]
    assert record["direction"]["direction"] == "SQLite with a Redis front"
    assert [e["disposition"] for e in record["discard_trace"]] == ["FileDestroyed"] * 3
    assert not probes.temp_root(run).exists()
    again = distill(repo, "preview", "--resume", run)
    assert again.returncode == 2 and "is not paused" in again.stderr
    assert except_the_preview_note(user_state(repo)) == except_the_preview_note(before)


ESCAPING = r"""user=$(dirname "$(dirname "$(head -n 1 ../repo.git/objects/info/alternates)")")
echo planted > "$user/planted.txt"
git config --file "$REAL_HOME/.gitconfig" core.hooksPath /nowhere
"""


def test_unconfined_a_probe_that_writes_the_repository_and_global_config_is_declared_exit_1(
        repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dirty_repository(repo)
    home = Path(os.environ["HOME"])
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    before = user_state(repo)
    done = distill(repo, "preview", *CANDIDATES, *AXES, "--unconfined", "--probe-cmd",
                   f"REAL_HOME={home} sh -c '{ESCAPING}'", "--format", "json",
                   "--answers", str(answers(tmp_path, 'spec = "approve"\ndirection = { select = 0 }\n')))
    try:
        assert done.returncode == 1, done.stderr
        changed = " ".join(json.loads(done.stdout)["repository_changed"])
        assert "planted.txt" in changed and "git configuration" in changed
        assert user_state(repo) != before  # declared, never repaired
    finally:
        (home / ".gitconfig").unlink(missing_ok=True)


def test_a_partial_clone_is_refused_with_exit_2(repo: Path) -> None:
    commit(repo, "Add the app\n\nA first version.\n", {"app.py": "print(1)\n"})
    git(repo, "config", "extensions.partialClone", "origin")
    done = distill(repo, "preview", *CANDIDATES, *AXES, "--probe-cmd", "true", "--unconfined")
    assert done.returncode == 2 and "partial clone" in done.stderr


@needs_namespaces
@pytest.mark.parametrize(("answer_text", "arm", "code", "probes_made"), [
    ('spec = { dissolve = "settling the failure axis made SQLite the only fit" }\n', "DissolutionExit", 0, 0),
    ('spec = "withdraw"\n', "EarlyExit", 1, 0),
    ('spec = ["approve", { dissolve = "the contrast settled it" }]\ndirection = "insufficient"\n',
     "DissolutionExit", 0, 3),
    ('spec = ["approve", "approve"]\ndirection = ["insufficient", { synthesize = "x" }]\nmicro = "materialize"\n',
     None, 3, 6),
], ids=["dissolve-first-pass", "withdraw-at-spec", "dissolve-on-re-entry", "materialize-unavailable-pauses"])
def test_every_exit_arm_leaves_the_repository_identical(repo: Path, tmp_path: Path, answer_text: str,
                                                        arm: str | None, code: int, probes_made: int) -> None:
    dirty_repository(repo)
    before = user_state(repo)
    done = preview(repo, "--no-input", "--answers", str(answers(tmp_path, answer_text)))
    assert done.returncode == code, done.stderr
    report = json.loads(done.stdout)
    if arm is None:  # materialize at budget 0 is refused and Qmicro offers confirm only
        assert report["items"][0]["options"] == ["confirm"]
        assert len(json.loads(distill(repo, "preview", "--list", "--format", "json").stdout)[0:1]) == 1
        assert probes.temp_root(report["run"]).exists() and len(
            probes.load_record(repo / ".git", report["run"])["probes"]) == probes_made
        assert distill(repo, "preview", "--cleanup", report["run"]).returncode == 0
    else:
        assert report["arm"] == arm
        trace = report["record"]["discard_trace"]
        assert len(trace) == probes_made and {e["disposition"] for e in trace} <= {"FileDestroyed"}
    assert not probes.temp_root(report["run"]).exists()
    assert user_state(repo) == before


@needs_namespaces
def test_the_direction_gate_shows_each_probes_cells_and_flags_an_insufficient_contrast(repo: Path) -> None:
    commit(repo, "Add the app\n\nA first version.\n", {"app.py": "print(1)\n"})
    same = ('printf \'[axes.failure]\\nvalue = "lost"\\npaths = ["x.py"]\\n\' > PREVIEW.toml; touch x.py')
    done = distill(repo, "preview", *CANDIDATES, "--axis", "failure: what happens when the cache is lost?",
                   "--probe-cmd", same, "--no-input", "--format", "json", "--answers",
                   str(Path(repo.parent, "a.toml")))
    assert done.returncode == 2  # the answers file does not exist yet: bad input, nothing made
    Path(repo.parent, "a.toml").write_text('spec = "approve"\n')
    done = distill(repo, "preview", *CANDIDATES, "--axis", "failure: what happens when the cache is lost?",
                   "--probe-cmd", same, "--no-input", "--format", "json", "--answers", str(Path(repo.parent, "a.toml")))
    assert done.returncode == 3, done.stderr
    item = json.loads(done.stdout)["items"][0]
    assert "the contrast looks insufficient: failure does not tell the probes apart" in item["text"]
    assert "select 2: failure = lost" in item["text"]
    assert distill(repo, "preview", "--cleanup", json.loads(done.stdout)["run"]).returncode == 0


@needs_namespaces
def test_git_distill_answer_runs_and_resume_know_preview_runs(repo: Path) -> None:
    commit(repo, "Add the app\n\nA first version.\n", {"app.py": "print(1)\n"})
    paused = preview(repo, "--no-input")
    assert paused.returncode == 3, paused.stderr
    run = json.loads(paused.stdout)["run"]
    assert distill(repo, "answer", run, "qspec-1", "select", "1").returncode == 2
    answered = distill(repo, "answer", run, "qspec-1", "approve")
    assert answered.returncode == 0, answered.stderr
    listed = distill(repo, "runs")
    assert listed.returncode == 0 and run in listed.stdout, listed.stderr
    resumed = distill(repo, "resume", run, "--no-input", "--format", "json")
    assert resumed.returncode == 3, resumed.stderr
    assert json.loads(resumed.stdout)["items"][0]["gate"] == "qdir"
    aborted = distill(repo, "runs", "abort", run)
    assert aborted.returncode == 0, aborted.stderr
    assert not probes.temp_root(run).exists() and not Path(run_files.run_file(repo / ".git", run)).exists()
