"""gate: the answers file (`--answers FILE.toml`) read into answers, or one line naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import commit, distill

from diylisis.core.errors import BadInput
from diylisis.edges import answers_file
from diylisis.edges import certify_gate as gate

CLEAN = """Retry failed uploads with exponential backoff

Uploads that fail with a 5xx response are retried up to five times.
The limit is in src/upload.py.
"""


BAD_ANSWERS = [
    ('answers = "drop"\n', "answers must be a table of item = answer, not a string"),
    ("answers = [1, 2]\n", "answers must be a table of item = answer, not an array"),
    ("contract-stop = 3\n", "'contract-stop' must be an option or {option = value}, not an integer"),
    ("contract-stop = [\"defer\"]\n", "'contract-stop' must be an option or {option = value}, not an array"),
    ("contract-stop = {resolve = {text = 1}}\n", "the 'resolve' answer of 'contract-stop' must be a string"),
    ("contract-stop = {resolve = \"a\", drop = \"b\"}\n", "must be an option or {option = value}, not a table"),
    ("contract-stop = \"frobnicate\"\n", "'frobnicate' for 'contract-stop' is not one of resolve, route"),
    ("contract-stop = {defer = \" \"}\n", "answer defer for 'contract-stop' needs a value"),
    ("[answers]\n\"a\\nb\" = 1\n", "'a\\nb' must be an option or {option = value}, not an integer"),
    ("contract-stop = \n", "does not parse: Invalid value (at line 1, column 17)"),
    ("x = " + "[" * 5000 + "]" * 5000 + "\n", "nests arrays or tables too deeply to read"),
    (b"contract-stop = \"caf\xe9\"\n", "is not UTF-8 text (byte 20)"),
]


@pytest.mark.parametrize(("text", "message"), BAD_ANSWERS, ids=range(len(BAD_ANSWERS)))
def test_a_bad_answers_file_is_one_line_naming_the_file(repo: Path, tmp_path: Path, text: str | bytes,
                                                        message: str) -> None:
    commit(repo, CLEAN, {"src/upload.py": "MAX = 5\n"})
    answers = tmp_path / "answers.toml"
    answers.write_bytes(text if isinstance(text, bytes) else text.encode())
    done = distill(repo, "certify", "HEAD", "--role", "reviewer", "--activity", "review it", "--answers",
                   str(answers))
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"git distill: answers file {answers}")
    assert message in done.stderr
    assert not (repo / ".git" / "distill").exists()


def test_an_answers_file_reads_at_the_top_level_or_in_an_answers_table(tmp_path: Path) -> None:
    written = tmp_path / "answers.toml"
    written.write_text('contract-stop = { resolve = " when the tests pass " }\nref-1 = "DROP"\n', encoding="utf-8")
    expected = (gate.Answer(item_id="contract-stop", option="resolve", value="when the tests pass"),
                gate.Answer(item_id="ref-1", option="drop"))
    assert gate.load_answers(written) == expected
    in_a_table = '[answers]\ncontract-stop = {resolve = " when the tests pass "}\nref-1 = "drop"\n'
    assert answers_file.parse(in_a_table, "a.toml", gate.template_for) == expected


def test_an_answers_file_that_cannot_be_read_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match=f"answers file {tmp_path / 'none.toml'} does not exist"):
        gate.load_answers(tmp_path / "none.toml")
    with pytest.raises(BadInput, match=f"answers file {tmp_path} cannot be read"):
        gate.load_answers(tmp_path)
