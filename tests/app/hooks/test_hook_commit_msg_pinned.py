"""The commit-msg hook's whole answer, pinned: exit code, every output line, the message file
after the run and the certificate it leaves for post-commit.

The hook's start-up is tuned for speed (lazy patterns, lazy imports, fewer git processes);
none of that may change what the hook says or keeps. Each case runs the documented command
in a fresh process in a real repository that has an origin remote; the last ones commit with
real `git commit` through the installed hooks and read what the post-commit hook stored. The lines a rule writes
(why, fix) are compared with the rule's own words from the detectors, so a rule may be
reworded; which tokens are found, on which lines, by which rule, and everything the hook
itself writes are fixed here.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hookutil import CLEAN, committed_repo, distill, ok, run

from diylisis.core.detectors import detect_text
from diylisis.core.detectors.settings import DetectSettings
from diylisis.edges import store

FAKE_GITHUB_TOKEN = "ghp_" + "EXAMPLE" + "0" * 8 + "fakeTokenForTests" + "0" * 4
RESIDUE = """Fix the flaky upload test as discussed above

The fix from /tmp/upload-debug.log is in place, and all tests pass now.
"""
VERIFY_STEP = "git distill verify msgfile:MSG --role reviewer  # identity re-check first"
REPAIRABLE = """Stop the uploader from retrying forever

The retry loop now ends after five attempts; closes #12.
"""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    repo = committed_repo(tmp_path / "work")
    ok(repo, "git", "remote", "add", "origin", "https://github.com/example/widget.git")
    return repo


def _hook(repo: Path, text: str) -> tuple[int, str, str, str]:
    """(exit code, stdout, stderr with the message path as MSG, the message file afterwards)."""
    path = repo / ".git" / "COMMIT_EDITMSG"
    path.write_text(text, encoding="utf-8")
    done = distill(repo, "hook", "commit-msg", str(path))
    return done.returncode, done.stdout, done.stderr.replace(str(path), "MSG"), path.read_text(encoding="utf-8")


def _pending(repo: Path) -> list[dict]:
    """The certificates left for post-commit, without the issue time and with the message path as MSG."""
    path = repo / ".git" / "distill" / "hook-certificate.json"
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8").replace(str(repo / ".git" / "COMMIT_EDITMSG"), "MSG")
    entries = json.loads(text)["entries"]
    for entry in entries:
        del entry["certificate"]["issued_at"]
    return entries


def _sweep(locator: str) -> list[dict]:
    checked = {
        1: "0 watched session terms and every undisposed coined names without in-target definition token in the "
           "current text",
        2: "0 watched session terms and every undisposed session identifiers token in the current text",
        3: "0 watched session terms and every undisposed deictic anchors token in the current text",
        4: "undisposed references in the text and resolves_at of 0 Reference judgment(s) at the certified revision",
        5: "0 watched session terms and every undisposed rendering accidents token in the current text",
        6: "0 granted source(s) resolve; each of 0 Reference judgment(s) has a receiver-executable dereference step",
        7: "the basis of each of 1 judgment(s) against its verdict, and undisposed process narration and unverified "
           "claims",
        8: f"verb 'Read {{locator}} and review it' is minimal and the locator names {locator}",
        9: "whether a judgment-bearing activity prescribes its method without a verified artifact",
        10: "0 tracked contract field(s) against 0 utterance(s) and the F0 confirmation record",
        11: "routed record files (task, design and plan files) for their own certificate",
    }
    return [{"category": number, "checked": text, "status": "clear"} for number, text in checked.items()]


def _clean_certificate(digest: str, subject: str) -> dict:
    return {
        "activation_edge": {"locator": "msgfile:MSG", "verb": "Read {locator} and review it"},
        "activity": None, "authority_copy": None, "consumer_profile": None, "coverage": [], "deltas": [],
        "identity": {"boundary": "the commit message as git stores it (commit.cleanup=default)", "digest": digest,
                     "revision": None},
        "judgments": [{"basis": "observed: the record's own text (its first line stands for it)", "item": "record",
                       "verdict": {"evidence": {"content": subject}, "type": "value"}}],
        "outcome": "already-portable", "realization": "lint-fallback",
        "reception": {"dereference_steps": [VERIFY_STEP], "granted_sources": [], "premises": [], "role": "reviewer",
                      "scope": None, "stop": None, "verification": []},
        "role": "reviewer", "schema": "diylisis.certificate/1", "suppressions": [], "sweep": _sweep("msgfile:MSG"),
        "target": {"kind": "msgfile", "locator": "MSG", "revision": None}, "tool_version": "0.1.0",
    }


def test_a_clean_message_is_silent_and_leaves_its_certificate(work: Path) -> None:
    assert _hook(work, CLEAN) == (0, "", "", CLEAN)
    digest = "sha256:" + hashlib.sha256(CLEAN.encode("utf-8")).hexdigest()
    assert _pending(work) == [{"certificate": _clean_certificate(digest, CLEAN.splitlines()[0]),
                               "digest": digest}]


def test_a_repairable_reference_is_rewritten_and_certified_as_repaired(work: Path) -> None:
    url = "https://github.com/example/widget/issues/12"
    repaired = REPAIRABLE.replace("#12", url)
    assert _hook(work, REPAIRABLE) == (0, "", "", repaired)
    [entry] = _pending(work)
    certificate = entry["certificate"]
    assert entry["digest"] == certificate["identity"]["digest"] == "sha256:" + hashlib.sha256(
        repaired.encode("utf-8")).hexdigest()
    reference = {"ref": {"kind": "url", "locator": url}, "type": "reference"}
    assert (certificate["outcome"], certificate["deltas"], certificate["judgments"]) == (
        "repaired",
        [{"added": url, "kind": "resolution", "location": "line 3, pass 1"}],
        [{"basis": f"observed: resolves_at({url}) held at F1", "item": "ref-https-github-com-example-widget-issues-1",
          "verdict": reference},
         {"basis": "observed: the record's own text (its first line stands for it)", "item": "record",
          "verdict": {"evidence": {"content": REPAIRABLE.splitlines()[0]}, "type": "value"}},
         {"basis": f"observed: mechanical resolution to {url}", "item": "12", "verdict": reference}],
    )
    assert certificate["reception"]["dereference_steps"] == [
        VERIFY_STEP, f"open {url}"]
    assert (certificate["consumer_profile"], certificate["authority_copy"]) == (
        "a reviewer reading the repository, with repository access", "derived")
    assert [row["status"] for row in certificate["sweep"]] == ["clear"] * 11


def test_residue_is_refused_line_by_line(work: Path) -> None:
    code, out, err, message = _hook(work, RESIDUE)
    words = {(finding.line, finding.token): finding for finding in detect_text(RESIDUE, None, DetectSettings())[0]}

    def finding_lines(line: int, token: str, rule: str, item: str) -> list[str]:
        found = words[(line, token)]
        assert found.rule_id == rule
        return [f"  line {line}: {token!r} [{rule}] {found.why}", f"    fix: {found.fix}", f"    item {item}"]

    assert (code, out, message) == (1, "", RESIDUE)
    assert err.splitlines() == [
        "git distill: commit message not portable for reviewer: 3 finding(s) need your judgment",
        *finding_lines(1, "discussed above", "DX103", "discussed-above"),
        *finding_lines(3, "/tmp/upload-debug.log", "EP505", "tmp-upload-debug-log"),
        *finding_lines(3, "all tests pass", "UC701", "all-tests-pass"),
        "  the message you typed is kept; edit and reuse it with: git commit -e -F MSG",
    ]
    assert _pending(work) == []


def test_a_secret_is_refused_masked_and_nothing_is_kept(work: Path) -> None:
    text = f"{CLEAN}\nDeploy with token={FAKE_GITHUB_TOKEN} for now.\n"
    assert _hook(work, text) == (1, "", "\n".join([
        "git distill: commit message not certified: git may store it with what looks like a secret",
        "  line 6: a GitHub token (ghp_…, 40 characters)",
        "  nothing was stored; remove the secret (and revoke it if it was real), then reuse the message with: "
        "git commit -e -F MSG",
    ]) + "\n", text)
    assert _pending(work) == []


def _git_commit(repo: Path, text: str) -> tuple[int, str, str]:
    """(exit code, HEAD afterwards, stderr with the message file as MSG) of `git commit -F -`."""
    done = run(repo, "git", "commit", "-q", "--allow-empty", "-F", "-", input=text)
    head = ok(repo, "git", "rev-parse", "HEAD").strip()
    return done.returncode, head, done.stderr.replace(str(repo / ".git" / "COMMIT_EDITMSG"), "MSG")


@pytest.fixture
def hooked(work: Path) -> Path:
    installed = distill(work, "install-hooks")
    assert installed.returncode == 0, installed.stderr
    return work


def test_git_commit_of_a_clean_message_stores_its_certificate_under_the_commit(hooked: Path) -> None:
    code, head, err = _git_commit(hooked, CLEAN)
    assert (code, err) == (0, "")
    message = ok(hooked, "git", "cat-file", "commit", head).split("\n\n", 1)[1].encode("utf-8")
    assert message == CLEAN.encode("utf-8")
    [certificate] = store.get(hooked, message)
    digest = "sha256:" + hashlib.sha256(message).hexdigest()
    assert (certificate["target"], certificate["identity"]["digest"], certificate["identity"]["revision"]) == (
        {"kind": "commit", "locator": head, "revision": None}, digest, head)
    assert (certificate["outcome"], certificate["realization"], certificate["role"]) == (
        "already-portable", "lint-fallback", "reviewer")
    assert not (hooked / ".git" / "distill" / "hook-certificate.json").exists()


def test_git_commit_of_residue_is_refused_with_the_hooks_words(hooked: Path) -> None:
    before = ok(hooked, "git", "rev-parse", "HEAD").strip()
    code, out, hook_err, _ = _hook(hooked, RESIDUE)
    committed, head, err = _git_commit(hooked, RESIDUE)
    assert (committed, head) == (1, before)
    assert err == hook_err and err.startswith("git distill: commit message not portable for reviewer: 3 finding(s)")
    assert store.get(hooked, RESIDUE.encode("utf-8")) == []
    assert _pending(hooked) == []


def test_git_commit_of_a_secret_is_refused_and_stores_nothing(hooked: Path) -> None:
    before = ok(hooked, "git", "rev-parse", "HEAD").strip()
    text = f"{CLEAN}\nDeploy with token={FAKE_GITHUB_TOKEN} for now.\n"
    committed, head, err = _git_commit(hooked, text)
    assert (committed, head) == (1, before)
    assert err.splitlines()[:2] == [
        "git distill: commit message not certified: git may store it with what looks like a secret",
        "  line 6: a GitHub token (ghp_…, 40 characters)",
    ]
    assert FAKE_GITHUB_TOKEN not in err
    assert ok(hooked, "git", "notes", "--ref", store.DEFAULT_NOTES_REF, "list") == ""
    assert _pending(hooked) == []
