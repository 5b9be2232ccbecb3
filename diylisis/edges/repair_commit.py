"""A repair of a work-tree file that a kill at any point leaves recoverable (DESIGN.md, Records become git).

The steps, in order:

1. the file's bytes before and after the repair are written as blobs, and the run file
   records them with HEAD (runs.PendingRepair) before the work tree is touched;
2. the new bytes go to a temporary file under .git/distill/tmp, renamed over the file;
3. the commit is built against a private index (GIT_INDEX_FILE under .git/distill/tmp)
   and HEAD moves with `update-ref` only if it still names the commit the tree was built on
   (else the tree is rebuilt on the new HEAD: another certifier committed meanwhile);
4. the user's index gets the committed blob for that one path.

A kill leaves the file as it was or as repaired, and the run file saying which repair was
meant; `finish` (for `git distill resume`) completes it, `abort` (for `git distill runs
abort`) undoes it, each telling from the commits and the file's bytes how far it got.
Git commands that find the index or a ref locked are retried for up to LOCK_WAIT seconds.
"""

from __future__ import annotations

import errno
import os
import random
import time

from msgspec.structs import replace

from diylisis.core.errors import BadInput, GitError
from diylisis.core.state import RunState
from diylisis.edges import crashpoint, gitio, run_files, runs
from diylisis.edges.records.base import head_commit
from diylisis.edges.runs import PendingRepair

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

LOCK_WAIT = 10.0  # seconds a repair waits for the index or HEAD held by another git process
_LOCKED = (b".lock': File exists", b"cannot lock ref", b"Unable to create", b"Unable to write new index")


def message_for(state: RunState, path: str) -> str:
    """The repair commit's message: what it is, and the trailers that name its run and pass."""
    return (f"distill: repair {path} (pass {state.pass_n})\n\n"
            f"Repairs made by git distill certify for role {state.contract.role}.\n\n"
            f"Distill-Run: {state.run_id}\nDistill-Pass: {state.pass_n}\n")


def signs_commits(git_config: Mapping[str, str]) -> bool:
    """Whether git config commit.gpgSign asks for every commit to be signed; `git commit-tree`
    does not read it, so a repair commit passes -S itself (signed as `git commit` would sign)."""
    return git_config.get("commit.gpgsign", "false").strip().lower() not in ("false", "no", "off", "0")


def commit(root: str, git_dir: str, state: RunState, locator: str, new_bytes: bytes, *,
           sign: bool = False) -> str:
    """Write new_bytes to the work-tree file locator and commit it (steps 1-4), signed when sign
    is set (see signs_commits); the commit id."""
    path, full = paths(root, locator)
    original = _read(full, path)
    pending = PendingRepair(
        path=path, mode=_mode(root, path, full), original_blob=_blob(root, original),
        repaired_blob=_blob(root, new_bytes), head_before=head_commit(root), pass_n=state.pass_n,
        message=message_for(state, path))
    runs.save(git_dir, state, pending)
    crashpoint.reached("repair-journaled")
    _write(git_dir, state.run_id, full, new_bytes)
    crashpoint.reached("repair-written")
    made = _commit(root, git_dir, state.run_id, pending, new_bytes, pending.head_before, sign=sign)
    _refresh_index(root, pending, made)
    crashpoint.reached("repair-index-refreshed")
    return made


def commit_made(root: str, run_id: str, pending: PendingRepair) -> str | None:
    """The repair commit of this run's pass, when HEAD reached it; None when it was not made."""
    since = [f"^{pending.head_before}"] if pending.head_before else []
    code, out, _ = gitio.try_git(
        ["rev-list", "-n", "1", "--all-match", f"--grep=^Distill-Run: {run_id}$",
         f"--grep=^Distill-Pass: {pending.pass_n}$", "HEAD", *since, "--"], root)
    found = out.decode().strip() if code == 0 else ""
    return found or None


def finish(root: str, git_dir: str, state: RunState, pending: PendingRepair, *, sign: bool = False) -> RunState:
    """Complete a repair a kill interrupted: the file repaired, committed, in the index; the run
    state with its commit and no repair in flight (saved)."""
    full = os.path.join(root, pending.path)
    repaired = _cat(root, pending.repaired_blob)
    made = commit_made(root, state.run_id, pending)
    current = _read_or_none(full)
    if made is None:
        if _moved_under(root, pending):
            raise BadInput(f"{pending.path} was committed since run {state.run_id} was interrupted in the "
                           f"middle of a repair, so that repair is superseded and was left alone; "
                           f"remove the run with: git distill runs abort {state.run_id}")
        if current not in (repaired, _cat(root, pending.original_blob)):
            raise BadInput(f"{pending.path} changed after run {state.run_id} was interrupted in the "
                           f"middle of a repair; undo that repair with: git distill runs abort {state.run_id}")
        if current != repaired:
            _write(git_dir, state.run_id, full, repaired)
        made = _commit(root, git_dir, state.run_id, pending, repaired, head_commit(root), sign=sign)
    elif current == _cat(root, pending.original_blob):
        _write(git_dir, state.run_id, full, repaired)
    _refresh_index(root, pending, made)
    if made not in state.repair_commits:
        state = replace(state, repair_commits=state.repair_commits + (made,))
    runs.save(git_dir, state)
    return state


def abort(root: str, git_dir: str, state: RunState, pending: PendingRepair | None) -> tuple[str, ...]:
    """Undo the repair in flight (if its commit was not made) and drop the run; what was done."""
    said = []
    if pending is not None:
        full = os.path.join(root, pending.path)
        made = commit_made(root, state.run_id, pending)
        if made is not None:
            _refresh_index(root, pending, made)
            said.append(f"the repair of {pending.path} was already committed as {made[:12]} and stays "
                        f"(git revert {made[:12]} undoes it)")
        elif _moved_under(root, pending):
            # another commit changed the file since (another run's repair of it, say): writing the
            # text from before this repair back would undo that commit in the work tree
            said.append(f"{pending.path} was committed since the run stopped, so its unfinished repair "
                        f"is superseded; the file is left as it is")
        else:
            current = _read_or_none(full)
            original = _cat(root, pending.original_blob)
            if current == _cat(root, pending.repaired_blob):
                _write(git_dir, state.run_id, full, original)
                said.append(f"restored {pending.path} to its content before the unfinished repair")
            elif current == original:
                said.append(f"{pending.path} still has its content from before the repair")
            else:
                said.append(f"{pending.path} was changed after the run stopped and is left as it is "
                            f"(git checkout -- {pending.path} restores the committed version)")
    earlier = [c[:12] for c in state.repair_commits]
    if earlier:
        said.append(f"earlier repair commits of this run stay: {', '.join(earlier)}")
    run_files.remove(git_dir, state.run_id)
    said.append(f"removed run {state.run_id}")
    return tuple(said)


# --- the steps -----------------------------------------------------------------------------


def paths(root: str, locator: str) -> tuple[str, str]:
    """(repository-relative path git records, absolute path written): an in-repository symlink
    is written and committed at the file it leads to."""
    from diylisis.edges.records.base import repo_relative

    path = repo_relative(locator, root, root)
    real_root = os.path.realpath(root)
    full = os.path.realpath(os.path.join(root, path))
    return os.path.relpath(full, real_root).replace(os.sep, "/"), full


def _read(full: str, path: str) -> bytes:
    try:
        with open(full, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise BadInput(f"cannot read {path}: {error.strerror}") from None


def _read_or_none(full: str) -> bytes | None:
    try:
        with open(full, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def _mode(root: str, path: str, full: str) -> str:
    listed = gitio.try_git(["ls-files", "-s", "--", path], root)[1].split(b" ", 1)[0].decode()
    if listed in ("100644", "100755"):
        return listed
    return "100755" if os.access(full, os.X_OK) else "100644"


def _blob(root: str, data: bytes, path: str | None = None) -> str:
    """Write data as a blob: exactly these bytes, or as `git add` would store them at path."""
    how = [f"--path={path}"] if path else ["--no-filters"]
    return gitio.run_git(["hash-object", "-w", *how, "--stdin"], root, input=data).decode().strip()


def _cat(root: str, blob: str) -> bytes:
    return gitio.run_git(["cat-file", "blob", blob], root)


def _write(git_dir: str, run_id: str, full: str, data: bytes) -> None:
    """Replace the file's bytes by a rename from .git/distill/tmp, keeping its mode."""
    folder = run_files.scratch_dir(git_dir)
    os.makedirs(folder, exist_ok=True)
    temporary = os.path.join(folder, f"{run_id}.{os.getpid()}.new")
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
        if os.path.exists(full):
            os.chmod(temporary, os.stat(full).st_mode & 0o7777)
        try:
            os.replace(temporary, full)
        except OSError as error:
            if error.errno != errno.EXDEV:
                raise
            # the git dir is on another file system: no rename reaches the work tree from it
            with open(full, "wb") as handle:
                handle.write(data)
    except OSError as error:
        raise BadInput(f"cannot write {full}: {error.strerror}") from None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def _moved_under(root: str, pending: PendingRepair) -> bool:
    """Someone committed the file itself since the repair began: HEAD:path is not head_before:path."""
    if pending.head_before is None:  # begun on an unborn branch: any commit of the path since moved it
        return gitio.try_git(["rev-parse", "-q", "--verify", f"HEAD:{pending.path}"], root)[0] == 0
    code, out, _ = gitio.try_git(["rev-parse", f"{pending.head_before}:{pending.path}",
                                  f"HEAD:{pending.path}"], root)
    ids = out.decode().split()
    return code != 0 or len(ids) != 2 or ids[0] != ids[1]


def _commit(root: str, git_dir: str, run_id: str, pending: PendingRepair, data: bytes,
            head: str | None, *, sign: bool) -> str:
    """Commit data at pending.path on head (HEAD as last read) through a private index; HEAD moves
    only from the commit the tree was built on, so a certifier committing meanwhile costs a
    rebuild, not its work."""
    folder = run_files.scratch_dir(git_dir)
    os.makedirs(folder, exist_ok=True)
    index = os.path.join(folder, f"{run_id}.{os.getpid()}.index")
    private = {"GIT_INDEX_FILE": index}
    blob = _blob(root, data, pending.path)
    err = b""
    try:
        for attempt in _lock_waits():
            if attempt:
                head = head_commit(root)  # HEAD moved or was locked: build again on what it names now
            if head != pending.head_before and _moved_under(root, pending):
                raise BadInput(f"{pending.path} was committed by another process during its repair; "
                               f"the repair was not committed: git distill runs abort {run_id}")
            _git_waiting(["read-tree", head] if head else ["read-tree", "--empty"], root, env=private)
            _git_waiting(["update-index", "--add", "--cacheinfo", f"{pending.mode},{blob},{pending.path}"],
                         root, env=private)
            tree = _git_waiting(["write-tree"], root, env=private).decode().strip()
            crashpoint.reached("repair-tree-written")
            parents = ["-p", head] if head else []
            signed = ["-S"] if sign else []
            made = gitio.run_git(["commit-tree", tree, *parents, *signed, "-F", "-"], root,
                                 input=pending.message.encode("utf-8")).decode().strip()
            crashpoint.reached("repair-commit-created")
            old = head or "0" * len(made)
            code, _, err = gitio.try_git(["update-ref", "-m", f"distill: repair {pending.path}", "HEAD",
                                          made, old], root)
            if code == 0:
                crashpoint.reached("repair-ref-updated")
                return made
        raise GitError(f"cannot commit the repair of {pending.path}: HEAD stayed busy for "
                       f"{LOCK_WAIT:.0f} s ({gitio.first_line(err)}); "
                       f"continue with: git distill resume {run_id}")
    finally:
        for leftover in (index, index + ".lock"):
            if os.path.exists(leftover):
                os.unlink(leftover)


def _refresh_index(root: str, pending: PendingRepair, made: str) -> None:
    """The user's index gets the committed blob of that one path (other entries stay as staged)."""
    blob = gitio.run_git(["rev-parse", f"{made}:{pending.path}"], root).decode().strip()
    _git_waiting(["update-index", "--cacheinfo", f"{pending.mode},{blob},{pending.path}"], root)


def _git_waiting(args: list[str], root: str, *, env: dict[str, str] | None = None) -> bytes:
    """run_git, retried while another git process holds a lock it needs (see _lock_waits)."""
    for _ in _lock_waits():
        code, out, err = gitio.try_git(args, root, env=env)
        if code == 0:
            return out
        if not any(sign in err for sign in _LOCKED):
            break
    raise GitError(f"git {args[0]} failed: {gitio.first_line(err) or f'exit status {code}'}")


def _lock_waits() -> Iterator[int]:
    """The attempt numbers 0, 1, ... of one retried step, for up to LOCK_WAIT seconds: a pause before
    each retry, growing from 10 ms to 0.5 s and jittered, so waiting certifiers do not retry in step."""
    deadline = time.monotonic() + LOCK_WAIT
    delay = 0.01
    attempt = 0
    while True:
        yield attempt
        if time.monotonic() >= deadline:
            return
        time.sleep(delay * (0.5 + random.random()))
        delay = min(delay * 2, 0.5)
        attempt += 1
