"""Smoke tests of bench/perf.py's input builders (the benchmark itself never runs in the suite)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import git

BENCH = Path(__file__).resolve().parent.parent / "bench" / "perf.py"
HANGUL = re.compile(r"[\uac00-\ud7a3]")


@pytest.fixture(scope="module")
def perf():
    """bench/perf.py as a module (bench/ is not a package)."""
    spec = importlib.util.spec_from_file_location("perf_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def test_messages_are_reproducible_from_the_seed_and_varied(perf):
    first = perf.make_messages(400, seed=11)
    assert first == perf.make_messages(400, seed=11)
    assert first != perf.make_messages(400, seed=12)
    korean = [m for m in first if HANGUL.search(m)]
    assert 0.1 < len(korean) / len(first) < 0.4
    assert any("\n\n" in m for m in first) and any("\n\n" not in m for m in first)
    assert any("-by: " in m for m in first)
    assert any(re.match(r"^[a-z]+: ", m) for m in first)
    assert len(set(first)) > 300
    assert all(m.endswith("\n") and not m.startswith("\n") for m in first)


def test_residue_share_controls_residue_tokens(perf):
    residue = re.compile(r"#\d|/tmp/|as discussed|see above|per our chat|I ran the tests|yesterday|agreed on"
                         r"|previous session|아까|위에서|지난 세션")
    clean = perf.make_messages(300, seed=3, residue_share=0.0)
    dirty = perf.make_messages(300, seed=3, residue_share=1.0)
    assert not any(residue.search(m) for m in clean)
    assert all(residue.search(m) for m in dirty)


def test_typical_message_is_clean_and_has_a_body(perf):
    message = perf.typical_message(7)
    assert message == perf.typical_message(7)
    assert message.count("\n\n") >= 2
    from diylisis.core.detectors import DetectSettings, detect_text

    findings, _ = detect_text(message, None, DetectSettings.from_mapping({}))
    assert findings == ()


def test_fast_import_history_holds_each_message_exactly(perf, tmp_path):
    messages = perf.make_messages(25, seed=5)
    env = perf.git_env(tmp_path / "home", Path(sys.executable).parent)
    repo = tmp_path / "history"
    perf.build_history(repo, messages, env)
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "25"
    raw = subprocess.run(["git", "log", "-z", "--reverse", "--format=%B"], cwd=repo, capture_output=True,
                         check=True).stdout.decode("utf-8")
    # %B adds one newline after each message
    assert [m[:-1] if m.endswith("\n\n") else m for m in raw.split("\0") if m] == messages
    assert not git(repo, "status", "--porcelain").strip()


def test_certified_history_verifies_every_commit(perf, tmp_path):
    env = perf.git_env(tmp_path / "home", Path(sys.executable).parent)
    repo = tmp_path / "certified"
    perf.build_history(repo, perf.clean_messages(6, seed=9), env)
    entries, refused = perf.certify_history(repo)
    assert (len(entries), refused) == (6, 0)
    perf.write_certificates(repo, entries, env)

    from diylisis.edges import store

    data, certificate = entries[0]
    assert store.get(repo, data) == [json.loads(json.dumps(certificate))]  # as JSON reads it: arrays as lists
    done = subprocess.run(["git", "distill", "verify", "--range", "HEAD"], cwd=repo, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    # an uncertified commit on top fails verify: the notes are keyed by content, not copied labels
    subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "Add an uncertified change"], cwd=repo, env=env,
                   check=True)
    again = subprocess.run(["git", "distill", "verify", "--range", "HEAD"], cwd=repo, env=env,
                           capture_output=True, text=True, check=False)
    assert again.returncode == 1


def test_commands_run_in_turn_and_a_failing_one_drops_out(perf, tmp_path):
    log = tmp_path / "order.txt"

    def command(name: str, code: int = 0, **options):
        script = f"open({str(log)!r}, 'a').write({name!r}); raise SystemExit({code})"
        return perf.Command(argv=(sys.executable, "-S", "-c", script), cwd=tmp_path, **options)

    timed = perf.measure_in_turn(
        {"a": command("a"), "b": command("b"), "peer": command("p", runs=1, warmup=0), "bad": command("x", 3)},
        env={}, runs=3, warmup=1)
    # one warmup round (the peer skips it, the failing command stops there), three timed rounds,
    # then one more run of each command that worked, for its peak RSS
    assert log.read_text() == "abx" + "abp" + "ab" + "ab" + "abp"
    assert (timed["a"].runs, timed["b"].runs, timed["peer"].runs, timed["bad"].runs) == (3, 3, 1, 0)
    assert timed["a"].median > 0 and timed["bad"].median != timed["bad"].median


def test_real_histories_are_skipped_with_a_note_when_no_mirror_is_there(perf, tmp_path, capsys):
    figures = perf.measure_real_histories(tmp_path, {}, sys.executable, 1)
    out = capsys.readouterr().out
    assert "real history git/git: skipped" in out and "real history steveyegge/beads: skipped" in out
    assert figures == {f"{label}{suffix}_{figure}": "n/a" for label in ("git", "beads") for suffix in ("", "_j1")
                       for figure in ("vs_floor", "rss_mb")}
    assert "perf-real: git_vs_floor=n/a" in out


def test_a_real_range_starts_at_the_given_first_parent_commit(perf, repo):
    from tests.conftest import commit

    made = [commit(repo, f"Change {n}\n") for n in range(5)]
    env = dict(__import__("os").environ)
    history = perf.RealHistory(label="x", owner="o", name="n", first_parent_start=3)
    assert perf.real_range(repo, env, history) == f"{made[2]}..HEAD"
    whole = perf.RealHistory(label="x", owner="o", name="n", first_parent_start=None)
    assert perf.real_range(repo, env, whole) == "HEAD"
