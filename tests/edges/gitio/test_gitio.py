"""gitio: git questions answered with plain values, failures as GitError (exit 2)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import commit, git

from diylisis.core.errors import GitError
from diylisis.edges import gitio


def test_open_repo_discovers_from_a_subdirectory(repo: Path) -> None:
    (repo / "deep" / "er").mkdir(parents=True)
    handle = gitio.open_repo(repo / "deep" / "er")
    assert gitio.workdir(handle).resolve() == repo.resolve()
    assert gitio.git_dir(handle).resolve() == (repo / ".git").resolve()


def test_open_repo_outside_a_repository(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(GitError, match="not a git repository") as caught:
        gitio.open_repo(tmp_path / "plain")
    assert caught.value.exit_code == 2


def test_resolve_commit_errors(repo: Path) -> None:
    handle = gitio.open_repo(repo)
    with pytest.raises(GitError, match="has no commits yet"):
        gitio.resolve_commit(handle, "HEAD")
    first = commit(repo, "First\n")
    git(repo, "tag", "v1")
    handle = gitio.open_repo(repo)
    assert gitio.resolve_commit(handle, "v1") == first
    assert gitio.resolve_commit(handle, first[:8]) == first
    with pytest.raises(GitError, match="unknown revision 'nope'"):
        gitio.resolve_commit(handle, "nope")
    with pytest.raises(GitError, match="names a tree, not a commit"):
        gitio.resolve_commit(handle, "HEAD^{tree}")


def test_commit_message_bytes_are_the_raw_bytes(repo: Path) -> None:
    message = "Subject  \n\n\n  body with trailing blanks   \n\n"
    commit_id = commit(repo, message)  # the fixture commits with cleanup=verbatim
    assert gitio.commit_message_bytes(gitio.open_repo(repo), commit_id) == message.encode()


def test_commit_message_bytes_of_a_latin1_commit_are_not_reencoded(repo: Path) -> None:
    git(repo, "config", "i18n.commitEncoding", "ISO-8859-1")
    commit_id = commit(repo, "placeholder\n")
    raw = b"caf\xe9\n"
    git(repo, "commit", "-q", "--amend", "-F", "-", input=raw)
    commit_id = git(repo, "rev-parse", "HEAD").strip()
    assert gitio.commit_message_bytes(gitio.open_repo(repo), commit_id) == raw


def test_blob_at(repo: Path) -> None:
    commit(repo, "Add docs\n", {"docs/a.md": "alpha\n"})
    commit(repo, "Edit docs\n", {"docs/a.md": "beta\n"})
    handle = gitio.open_repo(repo)
    assert gitio.blob_at(handle, "HEAD~1", "docs/a.md") == b"alpha\n"
    assert gitio.blob_at(handle, "HEAD", "docs/a.md") == b"beta\n"
    with pytest.raises(GitError, match="not tracked"):
        gitio.blob_at(handle, "HEAD", "docs/missing.md")
    with pytest.raises(GitError, match="not a file"):
        gitio.blob_at(handle, "HEAD", "docs")


def test_head_and_shallow_state(repo: Path, tmp_path: Path) -> None:
    first = commit(repo, "One\n")
    commit(repo, "Two\n")
    handle = gitio.open_repo(repo)
    assert not gitio.head_is_detached(handle) and not gitio.is_shallow(handle)
    git(repo, "checkout", "-q", "--detach", first)
    assert gitio.head_is_detached(gitio.open_repo(repo))
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{repo}", str(shallow), "-b", "main")
    shallow_handle = gitio.open_repo(shallow)
    assert gitio.is_shallow(shallow_handle)
    with pytest.raises(GitError, match="shallow"):
        gitio.resolve_commit(shallow_handle, first)


def test_on_remote_tracking_ref(repo: Path, tmp_path: Path) -> None:
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    published = commit(repo, "Published\n")
    git(repo, "remote", "add", "origin", str(bare))
    git(repo, "push", "-q", "origin", "main")
    local = commit(repo, "Local only\n")
    handle = gitio.open_repo(repo)
    assert gitio.on_remote_tracking_ref(handle, published)
    assert not gitio.on_remote_tracking_ref(handle, local)


def test_remote_names_lists_each_remote_and_none_outside_a_repository(repo: Path, tmp_path: Path) -> None:
    assert gitio.remote_names(repo) == ()
    git(repo, "remote", "add", "upstream", "https://example.invalid/up.git")
    git(repo, "remote", "add", "origin", "https://example.invalid/origin.git")
    assert sorted(gitio.remote_names(repo)) == ["origin", "upstream"]
    (tmp_path / "plain").mkdir()
    assert gitio.remote_names(tmp_path / "plain") == ()


def test_run_git_raises_with_gits_reason(repo: Path) -> None:
    assert gitio.run_git(["rev-parse", "--is-inside-work-tree"], repo) == b"true\n"
    with pytest.raises(GitError, match="git rev-parse failed: fatal: "):
        gitio.run_git(["rev-parse", "--verify", "no-such-ref"], repo)
    code, _, _ = gitio.try_git(["rev-parse", "--verify", "-q", "no-such-ref"], repo)
    assert code == 1


def test_toplevel_without_pygit2(repo: Path, tmp_path: Path) -> None:
    (repo / "sub").mkdir()
    assert gitio.toplevel(repo / "sub").resolve() == repo.resolve()
    with pytest.raises(GitError, match="not a git repository"):
        gitio.toplevel(tmp_path)


def test_git_process_exchanges_more_than_a_pipe_holds_both_ways(repo: Path) -> None:
    """cat-file answers while it still reads: neither side may wait on a full pipe."""
    first = commit(repo, "First\n", {"a.txt": "a\n" * 1000})
    queries = f"{first}:a.txt\n".encode() * 5000  # 250 kB of queries in, 10 MB of answers out
    code, out, err = gitio.git_process(["cat-file", "--batch"], repo, input=queries)
    assert (code, err) == (0, b"")
    assert out.count(b"a\n") == 5000 * 1000
    code, out, _ = gitio.git_process(["hash-object", "--stdin"], repo, input=b"x" * 3_000_000)
    assert code == 0 and len(out.strip()) == 40


def test_git_process_runs_in_the_directory_and_reports_failures(repo: Path, tmp_path: Path) -> None:
    (repo / "sub").mkdir()
    code, out, _ = gitio.git_process(["rev-parse", "--show-prefix"], repo / "sub")
    assert (code, out) == (0, b"sub/\n")
    code, out, err = gitio.git_process(["cat-file", "-e", "no-such-object"], repo, input=b"")
    assert code == 128 and out == b"" and b"no-such-object" in err
    with pytest.raises(GitError, match="not a directory"):
        gitio.git_process(["status"], tmp_path / "missing")



def test_config_values_come_from_one_config_command(repo: Path) -> None:
    git(repo, "config", "distill.notesref", "refs/notes/other")
    answer = gitio.try_git(gitio.config_command(["distill.notesref", "user.name"]), repo)
    assert gitio.config_values_from(answer, repo) == {"distill.notesref": "refs/notes/other"}
    assert gitio.config_values(repo, ["distill.notesref"]) == {"distill.notesref": "refs/notes/other"}
    with pytest.raises(GitError, match="cannot read git config"):
        gitio.config_values_from((128, b"", b"fatal: bad config line 3\n"), repo)


def test_a_git_process_runs_while_the_caller_works_and_is_read_later(repo: Path) -> None:
    first = commit(repo, "First\n", {"a.txt": "a\n" * 1000})
    big = gitio.GitProcess(["hash-object", "--stdin"], repo, input=b"x" * 3_000_000)  # more than a pipe holds
    queries = [f"{first}:a.txt"] * 3000 + ["no-such-object"]
    reading = gitio.CatObjects(repo, queries)
    expected = git(repo, "hash-object", "--stdin", input=b"x" * 3_000_000).strip()
    assert big.finish() == (0, (expected + "\n").encode(), b"") and big.finish()[0] == 0
    found = reading.objects()
    assert set(found) == {f"{first}:a.txt"} and found[f"{first}:a.txt"][1] == b"a\n" * 1000
    unused = gitio.CatObjects(repo, ["HEAD"])
    unused.close()
    with pytest.raises(GitError, match="not a directory"):
        gitio.GitProcess(["status"], repo / "missing", input=b"")


def test_our_git_processes_run_no_hook_and_git_config_still_reads_the_users(repo: Path,
                                                                           tmp_path: Path) -> None:
    # a reference-transaction hook fires on every ref update, our notes write included
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    marker = tmp_path / "hook-ran"
    (hooks / "reference-transaction").write_text(f"#!/bin/sh\necho ran >> '{marker}'\n")
    (hooks / "reference-transaction").chmod(0o755)
    git(repo, "config", "core.hooksPath", str(hooks))
    commit(repo, "Start\n")
    assert marker.exists()  # the hook works for the user's own git
    marker.unlink()
    from diylisis.edges import store

    store.put(repo, [b"a record\n"], {"role": "reviewer", "digest": "sha256:0"})
    gitio.run_git(["update-ref", "refs/heads/other", "HEAD"], repo)
    assert not marker.exists()
    assert "refs/notes/distill" in git(repo, "for-each-ref", "refs/notes")
    assert gitio.config_values(repo, ["core.hookspath"]) == {"core.hookspath": str(hooks)}


def test_the_long_lived_cat_file_answers_in_order_and_stays_running(repo: Path) -> None:
    first = commit(repo, "First", {"a.md": "alpha\n"})
    blob = git(repo, "rev-parse", "HEAD:a.md").strip()
    missing = "0123456789abcdef0123456789abcdef01234567"
    answers = list(gitio.read_with_cat_file(gitio.REPOSITORY, str(repo), [blob, missing, first]))
    assert answers[0] == ("blob", b"alpha\n") and answers[1] is None
    assert answers[2] is not None and answers[2][0] == "commit" and b"First" in answers[2][1]
    pipe = gitio._CAT_FILES[gitio.REPOSITORY]
    ids = [blob] * 100  # more than two batches of ids: they are written while answers are read
    assert list(gitio.read_with_cat_file(gitio.REPOSITORY, str(repo), ids)) == [("blob", b"alpha\n")] * 100
    assert gitio._CAT_FILES[gitio.REPOSITORY] is pipe  # the same git answered both requests
    gitio.close_cat_files()
    assert not gitio._CAT_FILES
    with pytest.raises(ChildProcessError):
        os.waitpid(pipe.process_id, os.WNOHANG)  # ended and reaped


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads the command line from /proc")
def test_the_cat_file_runs_with_bounded_pack_memory(repo: Path) -> None:
    commit(repo, "First", {"a.md": "alpha\n"})
    blob = git(repo, "rev-parse", "HEAD:a.md").strip()
    assert list(gitio.read_with_cat_file(gitio.STORE, str(repo / ".git"), [blob])) == [("blob", b"alpha\n")]
    pipe = gitio._CAT_FILES[gitio.STORE]
    argv = Path(f"/proc/{pipe.process_id}/cmdline").read_bytes().decode().split("\0")
    settings = {argv[n + 1] for n, arg in enumerate(argv) if arg == "-c"}
    assert {"core.packedGitLimit=64m", "core.deltaBaseCacheLimit=32m"} <= settings
    assert argv.index("cat-file") > max(n for n, arg in enumerate(argv) if arg == "-c")  # options of git itself
    gitio.close_cat_files()


def test_a_cat_file_that_cannot_start_answers_nothing(repo: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    commit(repo, "First", {"a.md": "alpha\n"})
    blob = git(repo, "rev-parse", "HEAD:a.md").strip()
    gitio.close_cat_files()
    monkeypatch.setenv("PATH", str(tmp_path / "no-such-bin"))
    assert list(gitio.read_with_cat_file(gitio.REPOSITORY, str(repo), [blob])) == []
    assert (os.getpid(), gitio.REPOSITORY, str(repo)) in gitio._CAT_FILE_FAILED


def test_a_background_git_writes_its_answer_into_a_file(repo: Path) -> None:
    first = commit(repo, "First", {"a.md": "alpha\n"})
    second = commit(repo, "Second", {"b.md": "beta\n"})
    revisions = f"{second}\n^{first}\n".encode()
    listing = gitio.BackgroundGit(gitio.REPOSITORY, str(repo), ["rev-list", "--stdin"], revisions)
    assert listing in gitio._BACKGROUND
    assert listing.result() == f"{second}\n".encode()
    assert listing not in gitio._BACKGROUND
    failing = gitio.BackgroundGit(gitio.REPOSITORY, str(repo), ["rev-list", "--stdin"], b"no-such-revision\n")
    assert failing.result() is None


def test_a_background_git_nobody_read_is_stopped_at_exit(repo: Path) -> None:
    commit(repo, "First", {"a.md": "alpha\n"})
    waiting = gitio.BackgroundGit(gitio.REPOSITORY, str(repo), ["cat-file", "--batch"], b"")
    assert waiting.process_id is not None
    gitio._end_git()  # what runs when the interpreter exits
    assert not gitio._BACKGROUND
    with pytest.raises(ChildProcessError):
        os.waitpid(waiting.process_id, os.WNOHANG)
