"""note_text: certificate notes no line splitter breaks, and one bounded decoder for every note read.

Each case runs the real commands on a real repository: a certificate holding a line-break
character still reads back; a malformed note and a notes ref that is not a commit are each
one line and exit 2, with nothing written.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import commit, distill, git

from diylisis.edges import note_text, store

CLEAN = """Retry failed uploads with exponential backoff

Uploads that fail with a 5xx response are retried up to five times.
The limit is in src/upload.py.
"""

# every character str.splitlines() breaks a line on, besides "\n" itself
LINE_BREAKS = "\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


def _message_blob(repo: Path) -> str:
    """The blob id of HEAD's message: the key its certificates are stored under."""
    message = git(repo, "cat-file", "commit", "HEAD").split("\n\n", 1)[1]
    return git(repo, "hash-object", "--stdin", input=message.encode()).strip()


def _written(repo: Path) -> tuple[str, str, bool]:
    """What a command could have written: the refs, the loose objects, whether a run file exists."""
    refs = git(repo, "for-each-ref", "--format=%(refname) %(objectname)")
    objects = git(repo, "count-objects", "-v")
    return refs, objects, (repo / ".git" / "distill" / "runs").exists()


def _one_line(done) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_line_break_characters_in_every_field_leave_every_certificate_readable(repo: Path) -> None:
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    fields = {"--activity": "review\u2028the change", "--stop": "when\u2029the tests pass",
              "--scope": "src/\x85only", "--verify": "pytest\u2028-q"}
    utterance = "; ".join(fields.values())  # the user's own words carry every field (Rule 29)
    certified = distill(repo, "certify", "HEAD", "--role", "reviewer", "--utterance", utterance,
                        *[part for pair in fields.items() for part in pair], "--no-input")
    assert certified.returncode == 0, certified.stdout + certified.stderr
    assert distill(repo, "certify", "HEAD", "--role", "implementer", "--no-input").returncode == 0
    for args in (("show", "HEAD"), ("verify", "HEAD", "--role", "reviewer"), ("verify", "--range", "HEAD"),
                 ("brief", "HEAD", "--role", "reviewer")):
        done = distill(repo, *args)
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    note = git(repo, "notes", "--ref=distill", "show", _message_blob(repo))
    assert len(note.splitlines()) == 2  # one line per role, by any splitter
    assert not set(LINE_BREAKS) & set(note)
    reviewer = next(json.loads(line) for line in note.splitlines() if '"role":"reviewer"' in line)
    assert reviewer["activity"] == "review\u2028the change"
    assert reviewer["reception"]["stop"] == "when\u2029the tests pass"
    assert reviewer["reception"]["scope"] == "src/\x85only"
    shown = json.loads(distill(repo, "show", "HEAD", "--format", "json").stdout)
    assert sorted(c["role"] for c in shown["certificates"]) == ["implementer", "reviewer"]


def test_a_note_written_before_the_escaping_still_reads(repo: Path) -> None:
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input").returncode == 0
    blob = _message_blob(repo)
    line = git(repo, "notes", "--ref=distill", "show", blob).strip()
    # as the store wrote it before: the character itself inside the JSON string
    old = json.dumps({**json.loads(line), "activity": "read\u2028it\x85 all\u2029"}, ensure_ascii=False,
                     sort_keys=True, separators=(",", ":"))
    git(repo, "notes", "--ref=distill", "add", "-f", "-F", "-", blob, input=(old + "\n").encode())
    assert [c["activity"] for c in store.get(repo, CLEAN.encode())] == ["read\u2028it\x85 all\u2029"]
    assert distill(repo, "verify", "--range", "HEAD", "--role", "reviewer").returncode == 0
    assert distill(repo, "show", "HEAD").returncode == 0
    assert distill(repo, "certify", "HEAD", "--role", "implementer", "--no-input").returncode == 0
    note = git(repo, "notes", "--ref=distill", "show", blob)
    assert sorted(json.loads(line)["role"] for line in note.split("\n") if line) == ["implementer", "reviewer"]


# (name, note bytes, whether certify reads it as corrupt too: a certificate it does not decode but
# that is a JSON object with a role is another role's line, which certify keeps as it is)
CORRUPT_NOTES = [
    ("wrong-schema", b'{"role":"reviewer","schema":"diylisis.certificate/9"}\n', False),
    ("wrong-shape", b'{"role":"reviewer","schema":"diylisis.certificate/1","sweep":{"a":[[]]}}\n', False),
    ("invalid-utf-8", b'{"role":"reviewer","activity":"caf\xe9"}\n', True),
    ("nested-100000-deep", b'{"role":"reviewer","x":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n", True),
    ("unbalanced-100000-deep", b"[" * 100_000 + b"}" * 100_000 + b"\n", True),
    ("50-MB-of-junk", b'{"role":"reviewer","junk":"' + b"j" * 50_000_000 + b'"}\n', True),
    ("an-array", b"[1, 2, 3]\n", True),
    ("a-number", b"42\n", True),
    ("no-role", b'{"schema":"diylisis.certificate/1"}\n', True),
    ("a-5000-digit-number", b'{"role":"reviewer","n":' + b"7" * 5000 + b"}\n", True),
    ("not-json", b"{not json\n", True),
]


@pytest.mark.parametrize(("content", "certify_reads_it"), [case[1:] for case in CORRUPT_NOTES],
                         ids=[case[0] for case in CORRUPT_NOTES])
def test_a_corrupt_note_is_one_line_and_exit_2_naming_the_record(repo: Path, content: bytes,
                                                                 certify_reads_it: bool) -> None:
    head = commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    blob = git(repo, "hash-object", "-w", "--stdin", input=CLEAN.encode()).strip()
    note = git(repo, "hash-object", "-w", "--stdin", input=content).strip()
    git(repo, "notes", "--ref=distill", "add", "-C", note, blob)
    for args in (("show", "HEAD"), ("show", "HEAD", "--format", "json"), ("brief", "HEAD", "--role", "reviewer"),
                 ("verify", "HEAD"), ("verify", "--range", "HEAD", "--format", "json")):
        done = distill(repo, *args)
        assert done.returncode == 2, (args, done.stdout, done.stderr[-500:])
        line = _one_line(done)
        assert "corrupt certificate note" in line and "Traceback" not in done.stderr
        assert "commit:HEAD" in line or head in line  # the record
    verified = json.loads(distill(repo, "verify", "--range", "HEAD", "--format", "json").stdout)
    failure = verified["records"][0]["failures"][0]
    assert failure.startswith("corrupt: ") and (blob in failure or not certify_reads_it)
    before = _written(repo)
    certified = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input")
    if certify_reads_it:
        assert certified.returncode == 2, (certified.stdout, certified.stderr[-500:])
        assert blob in _one_line(certified) and "commit:HEAD" in certified.stderr
        assert _written(repo) == before  # no run file, no objects, no ref moved
    else:  # the reviewer's line it cannot decode is replaced by a good one
        assert certified.returncode == 0, certified.stderr
        assert distill(repo, "verify", "HEAD", "--role", "reviewer").returncode == 0


def test_a_range_with_a_corrupt_note_judges_every_other_record(repo: Path) -> None:
    first = commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input").returncode == 0
    corrupt = commit(repo, "Document the retry limit\n\nThe limit lives in src/upload.py.\n", {"docs/a.md": "x\n"})
    assert distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input").returncode == 0
    git(repo, "notes", "--ref=distill", "add", "-f", "-m", '{"role":"reviewer","x":' + "[" * 5000 + "]" * 5000 + "}",
        _message_blob(repo))
    last = commit(repo, "Name the retry limit\n\nsrc/upload.py calls it MAX.\n", {"docs/b.md": "y\n"})
    done = distill(repo, "verify", "--range", f"{first}~0..HEAD", "--role", "reviewer", "--format", "json")
    assert done.returncode == 2
    assert _one_line(done) == (f"git distill: 1 record(s) have a corrupt certificate note, the first "
                               f"commit:{corrupt}; see the report")
    records = {r["revision"]: r for r in json.loads(done.stdout)["records"]}
    assert records[corrupt]["failures"][0].startswith(
        "corrupt: the certificate note on this content does not read (line 1 is nested more than 64 levels deep)")
    assert records[last]["failures"][0].startswith("missing: no certificate for role reviewer")
    text = distill(repo, "verify", "--range", f"{first}..HEAD", "--role", "reviewer").stdout.splitlines()
    assert text[-1] == "0 of 2 record(s) verify"


@pytest.mark.parametrize("points_at", ["blob", "tree", "missing"])
def test_a_notes_ref_that_is_not_a_commit_is_one_error_and_nothing_is_written(repo: Path, points_at: str) -> None:
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    target = {"blob": lambda: git(repo, "hash-object", "-w", "--stdin", input=b"junk\n").strip(),
              "tree": lambda: git(repo, "write-tree").strip(),
              "missing": lambda: "1234567890" * 4}[points_at]()
    if points_at == "missing":  # update-ref refuses a missing object: write the loose ref as a crash might leave it
        (repo / ".git" / "refs" / "notes").mkdir(parents=True)
        (repo / ".git" / "refs" / "notes" / "distill").write_text(target + "\n")
    else:
        git(repo, "update-ref", "refs/notes/distill", target)
    before = _written(repo)
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input")
    assert done.returncode == 2, done.stderr
    line = _one_line(done)
    assert line.startswith("git distill: refs/notes/distill points at ") and "wrote nothing" in line
    assert _written(repo) == before  # no retries' objects, no run file, the ref as it was
    with pytest.raises(store.BadInput, match="refs/notes/distill points at"):
        store.put(repo, [b"r\n"], {"role": "reviewer"})
    assert _written(repo) == before
    if points_at != "tree":  # git notes itself reads a tree there as the notes' tree
        for args in (("show", "HEAD"), ("verify", "HEAD"), ("verify", "--range", "HEAD")):
            shown = distill(repo, *args)
            assert shown.returncode == 2 and "refs/notes/distill points at" in _one_line(shown), args


def test_a_snapshots_ref_that_is_not_a_commit_stops_certify_before_it_writes(repo: Path) -> None:
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    git(repo, "update-ref", store.SNAPSHOTS_REF, git(repo, "hash-object", "-w", "--stdin", input=b"x\n").strip())
    before = _written(repo)
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--no-input")
    assert done.returncode == 2 and f"{store.SNAPSHOTS_REF} points at a blob" in _one_line(done)
    assert _written(repo) == before


def test_the_line_encoding_escapes_only_what_a_splitter_breaks_on() -> None:
    line = note_text.encode_line({"role": "r", "text": "\u00fcber\u2028\x85\u2029\n\r\udcff\U0001f600"})
    assert line == '{"role":"r","text":"\u00fcber\\u2028\\u0085\\u2029\\n\\r\\udcff\U0001f600"}'
    assert line.splitlines() == [line] and line.encode("utf-8")
    assert json.loads(line)["text"] == "\u00fcber\u2028\x85\u2029\n\r\udcff\U0001f600"


@pytest.mark.parametrize("noise", ['"', '"[{\\"\\\\', "\u2028\\u005b", "\\\\"])
def test_the_depth_limit_counts_only_the_brackets_json_reads(noise: str) -> None:
    def nested(depth: int) -> str:
        value: object = {"s": noise + "[[[{{{" + noise}
        for level in range(depth - 1):
            value = [value, noise] if level % 2 else {"k]": value, "t": "}}]]" + noise}
        return json.dumps({"role": "r", "v": value}, ensure_ascii=False)

    at_the_limit, over_it = nested(note_text.MAX_DEPTH - 1), nested(note_text.MAX_DEPTH)
    assert len(note_text.decode_text(at_the_limit, "b", "r")) == 1
    with pytest.raises(note_text.CorruptNote, match=f"line 1 is nested more than {note_text.MAX_DEPTH} levels deep"):
        note_text.decode_text(over_it, "b", "r")


def test_an_argument_that_is_not_utf_8_is_bad_input_before_anything_is_written(repo: Path) -> None:
    import subprocess
    import sys

    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    done = subprocess.run([sys.executable, "-m", "diylisis", "certify", "HEAD", "--role", "reviewer", "--stop",
                           "done", "--activity", b"review \xff it"], cwd=repo, capture_output=True, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.decode().strip() == ("git distill: --activity is not UTF-8 text (character 8 stands for "
                                            "a byte that is not UTF-8)")
    assert not (repo / ".git" / "distill").exists() and git(repo, "notes", "--ref=distill", "list") == ""
