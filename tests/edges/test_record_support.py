"""certify's F3b on the vet fixture: a path that resolves does not support what the record says of
it. The design doc says the cache timeout is 30 s while src/cache.py and config/cache.toml say 60."""

from __future__ import annotations

import json
from pathlib import Path

from diylisis.core.model import RecordKind, Snapshot, Target
from diylisis.edges import record_support
from tests.conftest import commit, distill, git
from tests.vet_fixture import build

KEYS = frozenset({"timeout", "TIMEOUT", "cache"})


def _snapshot(repo: Path, revision: str) -> Snapshot:
    data = (repo / "docs/design.md").read_bytes()
    return Snapshot(target=Target(kind=RecordKind.FILE, locator="docs/design.md"), data=data, boundary="file",
                    tree_revision=revision, path="docs/design.md")


def test_the_support_facts_are_the_code_and_config_values_at_the_revision(repo: Path) -> None:
    fixture = build(repo)
    facts = record_support.measure(repo, _snapshot(repo, fixture.tip), KEYS)
    assert facts is not None and facts.revision == fixture.tip
    assert sorted((f.referent, f.line, f.value.value) for f in facts.code) == [
        ("config/cache.toml:[cache].timeout", 2, 60.0), ("src/cache.py:TIMEOUT", 1, 60.0)]
    assert facts.enforcement == ()

    tested = commit(repo, "Test the timeout", {"tests/test_cache.py": "from src.cache import TIMEOUT\n"})
    facts = record_support.measure(repo, _snapshot(repo, tested), KEYS)
    assert facts is not None
    assert [(e.path, e.line) for e in facts.enforcement] == [("tests/test_cache.py", 1)]
    assert record_support.measure(repo, _snapshot(repo, fixture.written), KEYS) is not None
    unrevisioned = Snapshot(target=Target(kind=RecordKind.MSGFILE, locator="MSG"), data=b"x", boundary="file")
    assert record_support.measure(repo, unrevisioned, KEYS) is None  # read from the index: nothing to measure


def test_certify_does_not_keep_a_pointer_whose_source_contradicts_the_line(repo: Path) -> None:
    build(repo)
    done = distill(repo, "certify", "docs/design.md", "--role", "implementer", "--no-input", "--format", "json")
    assert done.returncode == 3, done.stderr
    paused = json.loads(done.stdout)
    pointer = next(item for item in paused["items"] if item["token"] == "src/cache.py")
    assert pointer["line"] == 3 and pointer["options"] == ["defer"]
    assert pointer["reason"].startswith("ProvisionalAssumption: docs/design.md:3 says 30 s for TIMEOUT, "
                                        "src/cache.py:1 holds `TIMEOUT = 60`")
    assert "config/cache.toml:2 holds `timeout = 60`" in pointer["reason"]
    assert git(repo, "notes", "--ref=distill", "list", check=False) == ""  # nothing certified
    assert distill(repo, "verify", "docs/design.md", "--role", "implementer").returncode != 0


def test_a_line_the_code_agrees_with_is_kept_as_direct_observed(repo: Path) -> None:
    build(repo, raise_timeout=False)  # code and config still hold 30, as the doc says
    done = distill(repo, "certify", "docs/design.md", "--role", "implementer", "--no-input", "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    routed = [j for j in json.loads(done.stdout)["certificate"]["judgments"] if "src/cache.py" in json.dumps(j)]
    assert len(routed) == 1
    assert "DirectObserved: the value is seen at src/cache.py:1, config/cache.toml:2 and agrees" in json.dumps(routed)


def test_a_deferred_contradiction_travels_as_a_premise_not_as_an_observation(repo: Path, tmp_path: Path) -> None:
    build(repo)
    answers = tmp_path / "answers.toml"
    answers.write_text('ref-src-cache-py = { defer = "until docs/design.md says 60 s" }\n'
                       'qp-consumer = { value = "an agent" }\nqp-authority = { value = "derived" }\n',
                       encoding="utf-8")
    done = distill(repo, "certify", "docs/design.md", "--role", "implementer", "--yes", "--answers", str(answers),
                   "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    certificate = json.dumps(json.loads(done.stdout)["certificate"])
    assert "until docs/design.md says 60 s" in certificate
    assert "DirectObserved" not in certificate
