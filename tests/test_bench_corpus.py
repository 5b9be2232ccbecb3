"""Checks on the labeled records in bench/corpus/.

Every ``*.jsonl`` file there holds one JSON object per line, labeled by the
rules of the shared corpus README (see bench/corpus/README.md). These tests
keep the files well formed: schema, label tokens that occur in the text,
known categories, portability that agrees with the labels, unique ids, and
no e-mail addresses left in any text.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parent.parent / "bench" / "corpus"
FILES = sorted(CORPUS.glob("*.jsonl"))
# Second readings of records already in a file above: same ids, other labels. They sit in a
# folder of their own so that `bench/corpus/labeled-*.jsonl` does not count a record twice.
SECOND = sorted((CORPUS / "second-reading").glob("*.jsonl"))

CATEGORIES = {
    "deictic",
    "session-id",
    "bare-issue-ref",
    "coined-term",
    "ephemeral-ref",
    "process-narration",
    "unverifiable-claim",
}
# The categories that the shared corpus README defines (its "Categories"
# section lists these seven; bare-issue-ref is the one that can be portable).
KINDS = {"commit-message", "pr-body", "task-file"}
LANGS = {"en", "ko", "zh", "ja", "mixed", "de"}
AUTHORSHIP = {"ai-agent", "human", "unknown"}
SHA = re.compile(r"^[0-9a-f]{40}$")
EMAIL = re.compile(r"[\w.+%\[\]-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b")


def _records():
    for path in FILES + SECOND:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if line.strip():
                    yield path.name, number, line


RECORDS = list(_records())


def _load(line):
    return json.loads(line)


def test_corpus_has_files():
    assert FILES, "bench/corpus/ holds no .jsonl file"


@pytest.mark.parametrize("name,number,line", RECORDS, ids=lambda v: str(v)[:40])
def test_record_follows_schema(name, number, line):
    rec = _load(line)
    where = f"{name}:{number}"
    for field in ("id", "repo", "kind", "lang", "text", "portable_for_reviewer", "labels"):
        assert field in rec, f"{where}: missing {field}"
    assert isinstance(rec["id"], str) and rec["id"], where
    assert re.fullmatch(r"[\w.-]+/[\w.-]+", rec["repo"]), f"{where}: repo {rec['repo']!r}"
    assert rec["kind"] in KINDS, f"{where}: kind {rec['kind']!r}"
    assert rec["lang"] in LANGS, f"{where}: lang {rec['lang']!r}"
    assert isinstance(rec["text"], str) and rec["text"].strip(), f"{where}: empty text"
    assert isinstance(rec["portable_for_reviewer"], bool), where
    assert isinstance(rec["labels"], list), where
    if rec["kind"] == "pr-body":
        assert isinstance(rec.get("pr"), int), f"{where}: pr-body needs an integer pr"
        assert str(rec.get("url", "")).startswith("https://github.com/"), f"{where}: url"
    else:
        assert SHA.match(rec.get("sha") or ""), f"{where}: sha {rec.get('sha')!r}"
    if rec["kind"] == "task-file":
        assert isinstance(rec.get("path"), str) and rec["path"], f"{where}: task-file needs path"
    if "authorship" in rec:
        assert rec["authorship"] in AUTHORSHIP, f"{where}: authorship {rec['authorship']!r}"
        assert str(rec.get("authorship_basis", "")).strip(), f"{where}: authorship_basis"


@pytest.mark.parametrize("name,number,line", RECORDS, ids=lambda v: str(v)[:40])
def test_labels_are_exact_and_known(name, number, line):
    rec = _load(line)
    where = f"{name}:{number}"
    seen = set()
    for label in rec["labels"]:
        token, category = label.get("token"), label.get("category")
        assert isinstance(token, str) and token, f"{where}: empty token"
        assert token in rec["text"], f"{where}: token {token!r} is not in the text"
        assert category in CATEGORIES, f"{where}: category {category!r}"
        if category == "bare-issue-ref":
            assert isinstance(label.get("resolvable_on_host"), bool), (
                f"{where}: bare-issue-ref {token!r} needs resolvable_on_host"
            )
        else:
            assert "resolvable_on_host" not in label, f"{where}: {token!r}"
        key = (token, category)
        assert key not in seen, f"{where}: duplicate label {key}"
        seen.add(key)


@pytest.mark.parametrize("name,number,line", RECORDS, ids=lambda v: str(v)[:40])
def test_portability_agrees_with_labels(name, number, line):
    rec = _load(line)
    expected = all(
        label["category"] == "bare-issue-ref" and label.get("resolvable_on_host") is True
        for label in rec["labels"]
    )
    assert rec["portable_for_reviewer"] is expected, f"{name}:{number}: portable_for_reviewer"


@pytest.mark.parametrize("name,number,line", RECORDS, ids=lambda v: str(v)[:40])
def test_no_email_address_in_text(name, number, line):
    rec = _load(line)
    found = EMAIL.findall(rec["text"])
    assert not found, f"{name}:{number}: e-mail address left in text: {found[:3]}"


def test_ids_are_unique():
    ids = [_load(line)["id"] for name, _, line in RECORDS if name in {p.name for p in FILES}]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    assert not dupes, f"duplicate ids: {dupes[:10]}"


@pytest.mark.parametrize("path", SECOND, ids=lambda p: p.name)
def test_second_reading_matches_a_first_record(path):
    first = {}
    for name, _, line in RECORDS:
        if name in {p.name for p in FILES}:
            rec = _load(line)
            first[rec["id"]] = rec
    ids = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            rec = json.loads(line)
            where = f"{path.name}:{number}"
            assert rec.get("reading") == "second", f"{where}: reading must be 'second'"
            assert rec["id"] in first, f"{where}: no first reading of {rec['id']}"
            for field in ("repo", "sha", "kind", "text"):
                assert rec[field] == first[rec["id"]][field], f"{where}: {field} differs from the first"
            ids.append(rec["id"])
    assert len(ids) == len(set(ids)), f"{path.name}: an id is read twice"
