"""bench/agreement.py on two tiny labelings written for this test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHA = "0123456789abcdef0123456789abcdef01234567"


def _record(rid: str, text: str, labels: list[dict[str, object]]) -> dict[str, object]:
    portable = all(
        label["category"] == "bare-issue-ref" and label.get("resolvable_on_host") is True for label in labels
    )
    return {
        "id": rid,
        "repo": "example/widgets",
        "sha": SHA,
        "kind": "commit-message",
        "lang": "en",
        "text": text,
        "portable_for_reviewer": portable,
        "labels": labels,
    }


TEXTS = {
    "w1": "Fix the gauge (#12)\n\nAll checks pass on my laptop.",
    "w2": "Rename the dial\n\nSee the plan from yesterday's call.",
    "w3": "Tidy imports (#14)",
    "w4": "Speed up the loader\n\nRoughly twice as fast here.",
}
FIRST = [
    _record(
        "w1",
        TEXTS["w1"],
        [
            {"token": "#12", "category": "bare-issue-ref", "resolvable_on_host": True},
            {"token": "All checks pass on my laptop", "category": "unverifiable-claim"},
        ],
    ),
    _record("w2", TEXTS["w2"], [{"token": "the plan from yesterday's call", "category": "ephemeral-ref"}]),
    _record("w3", TEXTS["w3"], [{"token": "#14", "category": "bare-issue-ref", "resolvable_on_host": True}]),
    _record("w4", TEXTS["w4"], []),
]
SECOND = [
    _record(
        "w1",
        TEXTS["w1"],
        [
            {"token": "#12", "category": "bare-issue-ref", "resolvable_on_host": True},
            {"token": "All checks pass", "category": "unverifiable-claim"},
        ],
    ),
    _record("w2", TEXTS["w2"], []),
    _record("w3", TEXTS["w3"], [{"token": "#14", "category": "bare-issue-ref", "resolvable_on_host": True}]),
    _record("w4", TEXTS["w4"], [{"token": "twice as fast", "category": "unverifiable-claim"}]),
]


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _run(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "agreement.py"), *args], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_compare_reports_kappa_and_token_agreement(tmp_path: Path) -> None:
    first = _write(tmp_path / "first.jsonl", FIRST)
    second = _write(tmp_path / "second.jsonl", SECOND)
    out = _run("compare", str(first), str(second), "--list")
    # Record level: w1 and w3 agree (not portable, portable), w2 and w4 flip: 2 of 4.
    # Both say "not portable" for half the records, so chance agreement is 0.5 and kappa 0.
    last = out.strip().splitlines()[-1]
    assert last.startswith("agreement: records=4 record_agree=0.500 kappa=0.000 ")
    # Residue labels: first has 2, second has 2; no pair is identical, one overlaps (w1).
    assert "residue_exact=0.000" in last
    assert "residue_overlap=0.500" in last
    assert "--- w2 portable first=False second=True" in out
    assert "--- w3" not in out


def test_identical_labelings_agree_fully(tmp_path: Path) -> None:
    first = _write(tmp_path / "first.jsonl", FIRST)
    out = _run("compare", str(first), str(first))
    assert "record_agree=1.000 kappa=1.000 residue_exact=1.000 residue_overlap=1.000" in out


def test_blind_prints_every_nth_record_without_labels(tmp_path: Path) -> None:
    first = _write(tmp_path / "first.jsonl", FIRST)
    out = _run("blind", str(first), "--every", "2")
    assert TEXTS["w2"] in out and TEXTS["w4"] in out
    assert TEXTS["w1"] not in out
    assert "unverifiable-claim" not in out and "portable" not in out and "w2" not in out
