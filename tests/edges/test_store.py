"""The certificate store: notes keyed by snapshot content, on real repositories."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import commit, git

from diylisis.core.errors import BadInput, GitError
from diylisis.edges import gitio, notes, store


def _cert(role: str, **fields: object) -> dict[str, object]:
    return {"role": role, "outcome": "already-portable", **fields}


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_blob_id_matches_git(tmp_path: Path, object_format: str) -> None:
    path = tmp_path / object_format
    git(tmp_path, "init", "-q", f"--object-format={object_format}", str(path))
    for data in (b"", b"hello\n", "caf\u00e9\n".encode(), b"x" * 70000):
        expected = git(path, "hash-object", "--stdin", input=data).strip()
        assert store.blob_id(data, store.settings(path).object_format) == expected


def test_put_then_get_by_content(repo: Path) -> None:
    store.put(repo, [b"Subject\n"], _cert("reviewer", note="caf\u00e9"))
    assert store.get(repo, b"Subject\n") == [_cert("reviewer", note="caf\u00e9")]
    assert store.get(repo, b"Subject\n\n") == []  # any edit: no certificate


def test_roles_coexist_and_a_role_is_replaced(repo: Path) -> None:
    store.put(repo, [b"record\n"], _cert("reviewer", n=1))
    store.put(repo, [b"record\n"], _cert("ci-agent"))
    store.put(repo, [b"record\n"], _cert("reviewer", n=2))
    found = store.get(repo, b"record\n")
    assert sorted(c["role"] for c in found) == ["ci-agent", "reviewer"]
    assert [c["n"] for c in found if c["role"] == "reviewer"] == [2]


def test_every_key_carries_the_certificate(repo: Path) -> None:
    keys = [b"stripped\n", b"stripped\n# kept comment\n"]
    store.put(repo, keys, _cert("reviewer"))
    found = store.get_many(repo, [*keys, b"other\n"])
    ids = [store.blob_id(k) for k in keys]
    assert [len(found[i]) for i in ids] == [1, 1]
    assert found[store.blob_id(b"other\n")] == []


def test_same_message_after_amend_keeps_its_certificate(repo: Path) -> None:
    first = commit(repo, "Explain the parser change\n", {"a.txt": "1\n"})
    handle = gitio.open_repo(repo)
    store.put(repo, [gitio.commit_message_bytes(handle, first)], _cert("reviewer"))
    (repo / "b.txt").write_text("2\n", encoding="utf-8")
    git(repo, "add", "b.txt")
    git(repo, "commit", "-q", "--amend", "--no-edit")
    amended = git(repo, "rev-parse", "HEAD").strip()
    assert amended != first
    handle = gitio.open_repo(repo)
    assert store.get(repo, gitio.commit_message_bytes(handle, amended)) == [_cert("reviewer")]
    git(repo, "commit", "-q", "--amend", "-m", "Explain the parser change, edited")
    edited = git(repo, "rev-parse", "HEAD").strip()
    assert store.get(repo, gitio.commit_message_bytes(gitio.open_repo(repo), edited)) == []


def test_note_is_readable_json_lines(repo: Path) -> None:
    store.put(repo, [b"r\n"], _cert("b-role", text="\u00fcber"))
    store.put(repo, [b"r\n"], _cert("a-role"))
    shown = git(repo, "notes", "--ref=distill", "show", store.blob_id(b"r\n"))
    lines = shown.splitlines()
    assert [json.loads(line)["role"] for line in lines] == ["a-role", "b-role"]
    assert "\u00fcber" in shown and ": " not in shown  # compact, not ASCII-escaped


def test_corrupt_note_is_an_error_naming_the_blob(repo: Path) -> None:
    blob = git(repo, "hash-object", "-w", "--stdin", input=b"r\n").strip()
    git(repo, "notes", "--ref=distill", "add", "-m", '{"role": "x"}\nnot json', blob)
    with pytest.raises(store.CorruptNote, match=blob) as caught:
        store.get(repo, b"r\n")
    assert caught.value.exit_code == 2
    with pytest.raises(store.CorruptNote):
        store.put(repo, [b"r\n"], _cert("reviewer"))  # never overwrite what it cannot read


def test_notes_ref_is_configurable(repo: Path) -> None:
    assert store.settings(repo).notes_ref == "refs/notes/distill"
    git(repo, "config", "distill.notesRef", "certs")
    assert store.settings(repo).notes_ref == "refs/notes/certs"
    store.put(repo, [b"r\n"], _cert("reviewer"))
    assert git(repo, "for-each-ref", "--format=%(refname)", "refs/notes/").split() == [
        "refs/notes/certs"
    ]
    git(repo, "config", "distill.notesRef", "refs/heads/main")
    with pytest.raises(BadInput, match="refs/notes/"):
        store.settings(repo)


def test_bad_certificates_and_keys_are_refused(repo: Path) -> None:
    with pytest.raises(BadInput, match="role"):
        store.put(repo, [b"r\n"], {"outcome": "repaired"})
    with pytest.raises(BadInput, match="snapshot"):
        store.put(repo, [], _cert("reviewer"))
    assert git(repo, "for-each-ref") == ""  # nothing written


def test_writes_without_a_configured_identity(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ("NAME", "EMAIL"):
        monkeypatch.delenv(f"GIT_AUTHOR_{variable}")
        monkeypatch.delenv(f"GIT_COMMITTER_{variable}")
    store.put(repo, [b"r\n"], _cert("reviewer"))
    assert store.get(repo, b"r\n") == [_cert("reviewer")]


def test_eight_concurrent_writers_lose_nothing(repo: Path) -> None:
    code = (
        "import sys\nfrom diylisis.edges import store\n"
        "n = sys.argv[1]\n"
        "store.put('.', [f'record {n}\\n'.encode(), b'shared\\n'], {'role': f'role-{n}'})\n"
        "assert 'pygit2' not in sys.modules\n"
    )
    writers = [
        subprocess.Popen([sys.executable, "-c", code, str(n)], cwd=repo, stderr=subprocess.PIPE)
        for n in range(8)
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err.decode()
    for n in range(8):
        assert store.get(repo, f"record {n}\n".encode()) == [{"role": f"role-{n}"}]
    shared = store.get(repo, b"shared\n")
    assert sorted(c["role"] for c in shared) == [f"role-{n}" for n in range(8)]
    assert git(repo, "for-each-ref", "refs/notes/distill-tmp/") == ""  # temporary refs cleaned


def test_gc_and_notes_prune_keep_certificates(repo: Path) -> None:
    commit(repo, "Start\n")
    store.put(repo, [b"kept alive\n"], _cert("reviewer"))
    git(repo, "gc", "-q", "--prune=now")
    git(repo, "notes", "--ref=distill", "prune")
    assert store.get(repo, b"kept alive\n") == [_cert("reviewer")]


def test_without_the_snapshots_ref_prune_would_drop_them(repo: Path) -> None:
    # the control: the snapshots ref is what keeps the keyed blobs alive
    commit(repo, "Start\n")
    store.put(repo, [b"unprotected\n"], _cert("reviewer"))
    git(repo, "update-ref", "-d", store.SNAPSHOTS_REF)
    git(repo, "reflog", "expire", "--expire=now", "--all")
    git(repo, "gc", "-q", "--prune=now")
    git(repo, "notes", "--ref=distill", "prune")
    assert store.get(repo, b"unprotected\n") == []


def test_put_and_get_in_a_sha256_repository(tmp_path: Path) -> None:
    path = tmp_path / "sha256"
    git(tmp_path, "init", "-q", "--object-format=sha256", str(path))
    store.put(path, [b"record\n"], _cert("reviewer"))
    store.put(path, [b"record\n"], _cert("ci-agent"))
    assert sorted(c["role"] for c in store.get(path, b"record\n")) == ["ci-agent", "reviewer"]
    assert len(git(path, "rev-parse", store.SNAPSHOTS_REF).strip()) == 64


def test_a_certificate_put_by_the_commit_msg_hook_finds_the_commit(repo: Path) -> None:
    git(repo, "config", "--unset", "commit.cleanup")
    commit(repo, "Start\n")
    hook = repo / ".git" / "hooks" / "commit-msg"
    hook.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "from diylisis.edges import store\n"
        "from diylisis.core.model import RecordKind, Target\n"
        "from diylisis.edges.records import read_snapshot\n"
        "snap = read_snapshot(Target(kind=RecordKind.MSGFILE, locator=sys.argv[1]), '.')\n"
        "store.put('.', [snap.data, *snap.alternates], {'role': 'reviewer'})\n",
        encoding="utf-8",
    )
    hook.chmod(0o755)
    editor = repo.parent / "editor.sh"
    editor.write_text(
        '#!/bin/sh\nprintf \'Explain the change\\n\\nBody   \\n\' | cat - "$1" > "$1.n"\n'
        'mv "$1.n" "$1"\n',
        encoding="utf-8",
    )
    editor.chmod(0o755)
    for args in ((), ("-v",), ("-m", "Explain the change\n\n\nBody  \n\n")):
        (repo / "a.txt").write_text(" ".join(args) + "\n", encoding="utf-8")
        git(repo, "add", "a.txt")
        done = subprocess.run(
            ["git", "commit", "-q", *args],
            cwd=repo,
            env={**os.environ, "GIT_EDITOR": str(editor)},
            capture_output=True,
        )
        assert done.returncode == 0, done.stderr.decode()
        head = gitio.resolve_commit(gitio.open_repo(repo), "HEAD")
        message = gitio.commit_message_bytes(gitio.open_repo(repo), head)
        assert message == b"Explain the change\n\nBody\n"
        assert store.get(repo, message) == [{"role": "reviewer"}]


def _masked(raw: str) -> tuple[str, list[int]]:
    """A commit object's text with its author and committer seconds taken out, and those seconds."""
    seconds = [int(part) for part in re.findall(r"^(?:author|committer) .*> (\d+) [+-]\d{4}$", raw, re.M)]
    return re.sub(r"^((?:author|committer) .*>) \d+ ", r"\1 T ", raw, flags=re.M), seconds


def _same_commit_as_git_writes(repo: Path) -> str:
    """The notes commit the store wrote, checked against `git commit-tree` on the same tree,
    parent and message in the same environment (the store's fallback identity included)."""
    written = git(repo, "cat-file", "commit", store.DEFAULT_NOTES_REF)
    tree = git(repo, "rev-parse", f"{store.DEFAULT_NOTES_REF}^{{tree}}").strip()
    parent = git(repo, "rev-parse", "-q", "--verify", f"{store.DEFAULT_NOTES_REF}^", check=False).strip()
    env = {**os.environ, **dict(store.settings(repo).identity_env)}
    made = subprocess.run(["git", "commit-tree", tree, *(["-p", parent] if parent else []), "-F", "-"],
                          cwd=repo, env=env, input=notes.NOTES_MESSAGE.encode(), capture_output=True, check=True)
    expected = git(repo, "cat-file", "commit", made.stdout.decode().strip())
    (mine, my_seconds), (theirs, their_seconds) = _masked(written), _masked(expected)
    assert mine == theirs
    assert all(abs(a - b) <= 5 for a, b in zip(my_seconds, their_seconds, strict=True))
    return written


@pytest.mark.parametrize("setup", ["environment", "user-config", "role-config", "crud", "no-identity"])
@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata", "America/St_Johns"])
def test_the_notes_commit_is_the_one_git_commit_tree_writes(
        repo: Path, monkeypatch: pytest.MonkeyPatch, setup: str, zone: str) -> None:
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    if setup != "environment":
        for variable in ("NAME", "EMAIL"):
            monkeypatch.delenv(f"GIT_AUTHOR_{variable}")
            monkeypatch.delenv(f"GIT_COMMITTER_{variable}")
    if setup in ("user-config", "role-config"):
        git(repo, "config", "user.name", "Config User")
        git(repo, "config", "user.email", "user@example.com")
    if setup == "role-config":
        git(repo, "config", "author.name", "Config Author")
        git(repo, "config", "committer.email", "committer@example.com")
        git(repo, "config", "author.email", "")  # empty: git falls back to user.email
    if setup == "crud":
        monkeypatch.setenv("GIT_AUTHOR_NAME", ' ,"Ann <Q> Example";: ')
        monkeypatch.setenv("GIT_COMMITTER_EMAIL", "<committer@example.com>\n")
    try:
        store.put(repo, [b"first\n"], _cert("reviewer"))
        store.put(repo, [b"second\n"], _cert("reviewer"))  # a commit with a parent
        _same_commit_as_git_writes(repo)
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_the_notes_commit_keeps_the_author_date_git_commit_gives_its_hooks(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_AUTHOR_DATE", "@1700000000 -0130")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "@1700000100 +0000")
    store.put(repo, [b"r\n"], _cert("reviewer"))
    written = _same_commit_as_git_writes(repo)
    assert "> 1700000000 -0130\n" in written and "> 1700000100 +0000\n" in written


@pytest.mark.parametrize("config, environment", [
    (("i18n.commitEncoding", "ISO-8859-1"), None),  # git adds an encoding header
    (None, ("GIT_COMMITTER_DATE", "2020-01-02 03:04:05 +0100")),  # only git parses this form
    (None, ("GIT_AUTHOR_NAME", "Ann Example Jr.")),  # git versions differ on a trailing dot
])
def test_the_notes_commit_follows_git_where_its_rules_are_subtle(
        repo: Path, monkeypatch: pytest.MonkeyPatch, config: tuple[str, str] | None,
        environment: tuple[str, str] | None) -> None:
    if config:
        git(repo, "config", *config)
    if environment:
        monkeypatch.setenv(*environment)
    store.put(repo, [b"r\n"], _cert("reviewer"))
    assert store.get(repo, b"r\n") == [_cert("reviewer")]
    _same_commit_as_git_writes(repo)


def test_a_pending_write_that_cannot_start_every_process_ends_those_it_started(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[gitio.GitProcess] = []
    real = gitio.GitProcess

    def start(args: list[str], cwd: Path, **kwargs: object) -> gitio.GitProcess:
        if args[0] == "update-ref":  # as if git went missing after the first two started
            raise GitError("the git binary is not on PATH; install git")
        started.append(real(args, cwd, **kwargs))  # type: ignore[arg-type]
        return started[-1]

    monkeypatch.setattr(notes, "GitProcess", start)
    monkeypatch.setattr(gitio, "GitProcess", start)  # the cat-file client's
    with pytest.raises(GitError, match="not on PATH"):
        notes.AttemptProcesses(repo, notes.write_queries(store.SNAPSHOTS_REF, []))
    assert len(started) == 3  # cat-file, var and fast-import, all waited for:
    for process in started:  # (other children of this process, a scan's long-lived git, are not ours)
        with pytest.raises(ChildProcessError):
            os.waitpid(process._started[0], os.WNOHANG)  # already reaped: nothing left to wait for


def test_temporary_index_is_a_fresh_file_git_writes_and_is_removed_after(repo: Path) -> None:
    blob = git(repo, "hash-object", "-w", "--stdin", input=b"kept\n").strip()
    with store.temporary_index(dict(os.environ)) as env:
        index = Path(env["GIT_INDEX_FILE"])
        assert not index.exists()
        gitio.run_git(["update-index", "--add", "--cacheinfo", f"100644,{blob},kept.txt"], repo, env=env)
        tree = gitio.run_git(["write-tree"], repo, env=env).decode().strip()
        assert index.exists()
    assert not index.exists()
    assert git(repo, "ls-tree", "--name-only", tree).split() == ["kept.txt"]
    with pytest.raises(RuntimeError), store.temporary_index({}) as env:
        Path(env["GIT_INDEX_FILE"]).write_bytes(b"")
        raise RuntimeError("left early")
    assert not Path(env["GIT_INDEX_FILE"]).exists()
