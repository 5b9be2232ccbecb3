"""`git distill sync`: certificates travel through a real bare remote between clones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import commit, git

from diylisis.app.sync import sync
from diylisis.cli import group
from diylisis.core.errors import GitError
from diylisis.edges import store


@pytest.fixture
def remote(repo: Path, tmp_path: Path) -> Path:
    """A bare remote 'origin' of repo, holding its main branch."""
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    commit(repo, "Start the history\n")
    git(repo, "remote", "add", "origin", str(bare))
    git(repo, "push", "-q", "origin", "main")
    return bare


def _clone(remote: Path, where: Path) -> Path:
    git(remote.parent, "clone", "-q", str(remote), str(where))
    return where


def _cert(role: str, **fields: object) -> dict[str, object]:
    return {"role": role, **fields}


def test_push_then_fetch_in_a_fresh_clone(repo: Path, remote: Path, tmp_path: Path) -> None:
    store.put(repo, [b"portable record\n"], _cert("reviewer"))
    pushed = sync(repo, "origin", fetch=False, push=True)
    assert pushed.pushed == (store.DEFAULT_NOTES_REF, store.SNAPSHOTS_REF)
    clone = _clone(remote, tmp_path / "b")
    assert store.get(clone, b"portable record\n") == []  # clone does not carry notes
    fetched = sync(clone, "origin", fetch=True, push=False)
    assert set(fetched.fetched) == {store.DEFAULT_NOTES_REF, store.SNAPSHOTS_REF}
    assert store.get(clone, b"portable record\n") == [_cert("reviewer")]
    git(clone, "gc", "-q", "--prune=now")
    git(clone, "notes", "--ref=distill", "prune")
    assert store.get(clone, b"portable record\n") == [_cert("reviewer")]


def test_divergent_certificates_merge_without_loss(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    clone = _clone(remote, tmp_path / "b")
    store.put(repo, [b"shared record\n"], _cert("reviewer", side="a"))
    store.put(repo, [b"only in a\n"], _cert("reviewer"))
    store.put(clone, [b"shared record\n"], _cert("ci-agent", side="b"))
    store.put(clone, [b"shared record\n"], _cert("reviewer", side="b"))
    store.put(clone, [b"only in b\n"], _cert("reviewer"))
    sync(repo, "origin")
    sync(clone, "origin")  # fetch and merge a's, push the union
    sync(repo, "origin", push=False)
    for side in (repo, clone):
        shared = store.get(side, b"shared record\n")
        assert sorted((c["role"], c["side"]) for c in shared) == [
            ("ci-agent", "b"),
            ("reviewer", "a"),
            ("reviewer", "b"),
        ]
        assert store.get(side, b"only in a\n") == [_cert("reviewer")]
        assert store.get(side, b"only in b\n") == [_cert("reviewer")]
        tree = git(side, "ls-tree", "-r", "--name-only", store.SNAPSHOTS_REF).split()
        assert len(tree) == 3  # the union of both sides' snapshot blobs
        git(side, "gc", "-q", "--prune=now")
        git(side, "notes", "--ref=distill", "prune")
        assert store.get(side, b"only in a\n") == [_cert("reviewer")]
    # after merging, putting a role again replaces both divergent lines of that role
    store.put(repo, [b"shared record\n"], _cert("reviewer", side="final"))
    assert sorted(c["side"] for c in store.get(repo, b"shared record\n")) == ["b", "final"]


def test_push_only_is_refused_when_the_remote_moved(
    repo: Path, remote: Path, tmp_path: Path
) -> None:
    clone = _clone(remote, tmp_path / "b")
    store.put(clone, [b"from b\n"], _cert("reviewer"))
    sync(clone, "origin", fetch=False)
    store.put(repo, [b"from a\n"], _cert("reviewer"))
    with pytest.raises(GitError, match="fetch and merge"):
        sync(repo, "origin", fetch=False)
    sync(repo, "origin")  # fetch, merge, then the push fast-forwards
    sync(clone, "origin", push=False)
    assert store.get(clone, b"from a\n") == [_cert("reviewer")]


def test_missing_remote_is_a_clear_error(repo: Path) -> None:
    commit(repo, "Start\n")
    with pytest.raises(GitError, match="no remote named 'upstream'") as caught:
        sync(repo, "upstream")
    assert caught.value.exit_code == 2


def test_nothing_to_move(repo: Path, remote: Path) -> None:
    result = sync(repo, "origin")
    assert (result.fetched, result.pushed, result.certified_blobs) == ((), (), 0)


def test_cli_json_output(repo: Path, remote: Path, tmp_path: Path) -> None:
    store.put(repo, [b"record\n"], _cert("reviewer"))
    runner = CliRunner()
    done = runner.invoke(group, ["sync", "--push", "--format", "json"], standalone_mode=False)
    assert done.exception is None, done.output
    assert done.return_value == 0
    payload = json.loads(done.output)
    assert payload["pushed"] == [store.DEFAULT_NOTES_REF, store.SNAPSHOTS_REF]
    assert payload["remote"] == "origin" and payload["certified_blobs"] == 1
    listed = git(remote, "for-each-ref", "--format=%(refname)").split()
    assert store.DEFAULT_NOTES_REF in listed and store.SNAPSHOTS_REF in listed


def test_cli_missing_remote_exits_2_with_one_line(repo: Path) -> None:
    commit(repo, "Start\n")
    done = subprocess.run(
        [sys.executable, "-m", "diylisis", "sync", "upstream"], cwd=repo, capture_output=True
    )
    assert done.returncode == 2
    assert done.stderr.decode().splitlines() == [
        "git distill: no remote named 'upstream' (remotes: none); "
        "add one with git remote add upstream URL"
    ]
