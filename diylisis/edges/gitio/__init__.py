"""Git questions as small functions with plain return values (STYLE.md, gitio).

The only package that imports pygit2, and it does so lazily inside the functions that
need it: `run_git` and the helpers built on it stay importable from the commit-msg
hook's fast path without paying for pygit2 (DESIGN.md, read channel). Every git failure
becomes a `GitError` with an actionable one-line sentence, never a raw pygit2 error.

The git binary is started by `git_process` with `os.posix_spawnp` and pipes read through
`select.poll`: importing `subprocess` (signal, threading, locale, selectors) would cost the
hook about 5 ms on every commit, more than one git process does. The long-lived
`git cat-file --batch` of a process (CatFile, read_with_cat_file) and the gits that answer
into a file in the background (BackgroundGit) start the same way (_start).
"""

from __future__ import annotations

import os
import select
from collections.abc import Iterator, Mapping, Sequence

from diylisis.core.errors import GitError

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from pathlib import Path

    import pygit2


def _read_as_git_reads() -> None:
    """Set pygit2 up to read objects as git does (called before each use: the call costs nothing)."""
    import pygit2

    # libgit2 hashes every object it reads again to check its id, with collision-detecting
    # SHA-1: a fifth of reading a history's commits. git checks ids on fetch and in fsck, not
    # on each read; a repository opened here reads as git reads it.
    pygit2.option(pygit2.enums.Option.ENABLE_STRICT_HASH_VERIFICATION, False)
    # libgit2 maps pack files in windows of 1 GiB, up to 8 GiB, and keeps what it mapped: reading
    # the trees of a long history touches most of a large pack, and git.git's 500 MB pack stayed
    # resident. In smaller windows it unmaps the least used past the limit.
    pygit2.settings.mwindow_size = _PACK_WINDOW
    pygit2.settings.mwindow_mapped_limit = _PACK_MAPPED_LIMIT
    # libgit2 keeps every tree it parsed of up to 4 KB in its object cache: the trees a scan of
    # steveyegge/beads reads held 100 MB there, beside the bounded listings gitio.context keeps.
    pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.TREE, 0)


_PACK_WINDOW = 16 * 1024 * 1024
_PACK_MAPPED_LIMIT = 64 * 1024 * 1024


def open_repo(path: str | Path = ".") -> pygit2.Repository:
    """Open the repository containing path, discovering it from a subdirectory."""
    from pathlib import Path  # pathlib (and urllib.parse under it) is not on the hook's path

    import pygit2

    _read_as_git_reads()
    start = Path(path)
    try:
        found = pygit2.discover_repository(str(start))
    except (pygit2.GitError, OSError, ValueError):
        found = None
    if found is None:
        raise GitError(
            f"not a git repository: {start} (run inside a repository or create one with `git init`)"
        )
    try:
        return pygit2.Repository(found)
    except (pygit2.GitError, OSError, ValueError) as error:
        raise GitError(
            f"cannot open the repository at {found}: {first_line(str(error))}"
        ) from None


def resolve_commit(repo: pygit2.Repository, rev: str) -> str:
    """Full id of the commit rev names (a branch, tag, abbreviated id, HEAD~2...)."""
    return str(_commit(repo, rev).id)


def _commit(repo: pygit2.Repository, rev: str) -> pygit2.Commit:
    import pygit2

    _read_as_git_reads()
    if not rev or rev.startswith("-"):
        raise GitError(f"not a revision: {rev!r}")
    if repo.head_is_unborn:
        no_branches = not any(name.startswith("refs/heads/") for name in repo.references)
        if no_branches or rev in ("HEAD", "@"):
            raise GitError(
                f"the current branch has no commits yet, so {rev!r} names nothing; commit first"
            )
    try:
        obj = repo.revparse_single(rev)
    except (KeyError, ValueError, pygit2.GitError):
        hint = " (this clone is shallow: git fetch --unshallow)" if repo.is_shallow else ""
        raise GitError(
            f"unknown revision {rev!r}: no branch, tag or commit id here matches it{hint}"
        ) from None
    try:
        commit = obj.peel(pygit2.Commit)
    except (pygit2.GitError, ValueError, TypeError):
        kind = getattr(obj, "type_str", "object")
        raise GitError(f"revision {rev!r} names a {kind}, not a commit") from None
    return commit


def commit_message_bytes(repo: pygit2.Repository, commit_id: str) -> bytes:
    """The exact bytes after the commit object's header (the commit: snapshot boundary)."""
    import pygit2

    _read_as_git_reads()
    try:
        kind, raw = repo.odb.read(pygit2.Oid(hex=commit_id))
    except (KeyError, ValueError, pygit2.GitError):
        raise GitError(f"commit {commit_id} is not in the object database") from None
    if kind != pygit2.enums.ObjectType.COMMIT:
        raise GitError(f"object {commit_id} is not a commit")
    # The header ends at the first empty line; signature continuation lines start with a space.
    _, sep, message = raw.partition(b"\n\n")
    return message if sep else b""


def blob_at(repo: pygit2.Repository, rev: str, path: str) -> bytes:
    """Content of the file at path in the tree of the commit rev names."""
    import pygit2

    _read_as_git_reads()
    commit = _commit(repo, rev)
    try:
        entry = commit.tree[path]
    except (KeyError, ValueError, pygit2.GitError):
        raise GitError(f"{path} is not tracked at {rev} ({str(commit.id)[:12]})") from None
    obj = repo[entry.id]
    if not isinstance(obj, pygit2.Blob):
        raise GitError(f"{path} at {rev} is a {obj.type_str}, not a file")
    return bytes(obj.data)


def is_shallow(repo: pygit2.Repository) -> bool:
    """The clone is shallow: history beyond its graft points is missing."""
    return bool(repo.is_shallow)


def head_is_detached(repo: pygit2.Repository) -> bool:
    """HEAD points at a commit directly rather than at a branch."""
    return bool(repo.head_is_detached)


def workdir(repo: pygit2.Repository) -> Path:
    """The work-tree root; a bare repository has none."""
    if repo.workdir is None:
        raise GitError(f"the repository at {repo.path} is bare and has no work tree")
    from pathlib import Path

    return Path(repo.workdir)


def git_dir(repo: pygit2.Repository) -> Path:
    """The repository's git directory (.git, or the bare repository itself)."""
    from pathlib import Path

    return Path(repo.path)


def on_remote_tracking_ref(repo: pygit2.Repository, commit_id: str) -> bool:
    """The commit is reachable from a refs/remotes/* ref, so rewriting it rewrites history."""
    import pygit2

    _read_as_git_reads()
    try:
        wanted = pygit2.Oid(hex=commit_id)
    except ValueError:
        raise GitError(f"not a full commit id: {commit_id!r}") from None
    for name in repo.references:
        if not name.startswith("refs/remotes/"):
            continue
        try:
            tip = repo.references[name].resolve().peel(pygit2.Commit).id
        except (KeyError, ValueError, pygit2.GitError):
            continue  # a dangling remote HEAD or a ref to a non-commit publishes nothing
        if tip == wanted or repo.descendant_of(tip, wanted):
            return True
    return False


def try_git(
    args: Sequence[str],
    cwd: str | Path,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[int, bytes, bytes]:
    """Run the git binary and return (exit status, stdout, stderr) for callers that branch on it."""
    return git_process(args, cwd, input=input, env={**os.environ, **(env or {}), "LC_ALL": "C"})


_CHUNK = 65536


def git_process(args: Sequence[str], cwd: str | Path, *, input: bytes | None = None,
                env: Mapping[str, str] | None = None) -> tuple[int, bytes, bytes]:
    """`git -C cwd ARGS` with env (this process's when None), input on its stdin (stdin is
    inherited when None); (exit status, stdout, stderr), the status negative for a signal."""
    return _finish(_start_git(args, cwd, input, env), input or b"")


class GitProcess:
    """try_git started now and finished later, so that git starts up (and works on what it was
    sent) while the caller does something else. send() writes input as far as the pipe takes it
    without waiting; finish() writes the rest and any last input, ends stdin, reads both outputs
    to their ends and reaps the process."""

    def __init__(self, args: Sequence[str], cwd: str | Path, *, input: bytes = b"",
                 env: Mapping[str, str] | None = None) -> None:
        self._started = _start_git(args, cwd, b"", {**os.environ, **(env or {}), "LC_ALL": "C"})
        os.set_blocking(self._started[3], False)
        self._rest = b""
        self._result: tuple[int, bytes, bytes] | None = None
        self.send(input)

    def send(self, data: bytes) -> None:
        """Write data after what was sent before, as much as the pipe takes now."""
        self._rest += data
        written = 0
        try:
            while written < len(self._rest):
                written += os.write(self._started[3], self._rest[written:written + _CHUNK])
        except BlockingIOError:
            pass
        except BrokenPipeError:  # git stopped reading: finish() gives its exit status
            written = len(self._rest)
        self._rest = self._rest[written:]

    def finish(self, input: bytes = b"") -> tuple[int, bytes, bytes]:
        """(exit status, stdout, stderr), as try_git gives them, after input; the same on every call."""
        if self._result is None:
            self._result = _finish(self._started, self._rest + input)
        return self._result


# Every git process of ours runs no hook and no fsmonitor program: our plumbing is not a user's
# commit (`update-ref --stdin` alone fires reference-transaction), and a program a dispatched
# refuter planted in a config or hooks directory must not run with our rights (docs/security.md).
# `git config` runs neither, and would report these values as set, so it goes without them.
HARDENED = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")


_PROGRAMS: dict[tuple[str, str], str] = {}


def program_path(name: str) -> str:
    """The absolute path PATH gives a program's name, looked up once per process and PATH value:
    a dispatched refuter that plants a program of that name in a PATH directory afterwards does
    not choose what runs next. A name with a slash, or one not found, comes back as given (its
    start then fails as it would have)."""
    if "/" in name:
        return name
    search = os.environ.get("PATH", os.defpath)
    key = (name, search)
    found = _PROGRAMS.get(key)
    if found is None:
        found = name
        for directory in search.split(os.pathsep):
            candidate = os.path.join(directory, name)
            # a relative PATH entry would name a program of the current directory: not followed
            if os.path.isabs(directory) and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
                found = candidate
                break
        _PROGRAMS[key] = found
    return found


def git_program() -> str:
    """The git binary every git process of ours runs (program_path)."""
    return program_path("git")


def git_argv(args: Sequence[str], cwd: str | Path | None = None) -> list[str]:
    """The argv of `git [-C cwd] ARGS` with the HARDENED settings (none for `git config`)."""
    where = ["-C", os.fspath(cwd)] if cwd is not None else []
    settings = () if args and args[0] == "config" else HARDENED
    return [git_program(), *where, *settings, *args]


def _start_git(args: Sequence[str], cwd: str | Path, input: bytes | None,
               env: Mapping[str, str] | None) -> tuple[int, int, int, int]:
    """`git -C cwd ARGS` started with pipes (_start), after checking that cwd is a directory."""
    if not os.path.isdir(cwd):
        raise GitError(f"not a directory: {cwd}")
    return _start(git_argv(args, cwd), input, env)


def _finish(started: tuple[int, int, int, int], data: bytes) -> tuple[int, bytes, bytes]:
    """(exit status, stdout, stderr) of a started git, after data on its stdin; the process is reaped."""
    try:
        out, err = _exchange(started, data)
    finally:
        _, status = os.waitpid(started[0], 0)
    return os.waitstatus_to_exitcode(status), out, err


def _start(argv: list[str], input: bytes | None, env: Mapping[str, str] | None, *, quiet: bool = False,
           stdout: int | None = None) -> tuple[int, int, int, int]:
    """(pid, stdout to read, stderr to read, stdin to write) of argv started with pipes, -1 for a
    pipe not made: stdin when input is None (it is inherited), stderr when quiet (it goes to
    /dev/null), stdout when stdout is given (a file descriptor the output goes into)."""
    opened: list[int] = []
    actions: list[tuple[int, ...] | tuple[int, int, str, int, int]] = []
    out_read = err_read = in_write = -1
    child_ends: list[int] = []
    try:
        if stdout is None:
            out_read, out_write = os.pipe()
            opened += (out_read, out_write)
            child_ends.append(out_write)
            actions.append((os.POSIX_SPAWN_DUP2, out_write, 1))
        else:
            actions.append((os.POSIX_SPAWN_DUP2, stdout, 1))
        if quiet:
            actions.append((os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0))
        else:
            err_read, err_write = os.pipe()
            opened += (err_read, err_write)
            child_ends.append(err_write)
            actions.append((os.POSIX_SPAWN_DUP2, err_write, 2))
        if input is not None:
            in_read, in_write = os.pipe()
            opened += (in_read, in_write)
            child_ends.append(in_read)
            actions.append((os.POSIX_SPAWN_DUP2, in_read, 0))
        pid = os.posix_spawnp(argv[0], argv, os.environ if env is None else env, file_actions=actions,
                              setsigdef=_DEFAULT_SIGNALS)
    except FileNotFoundError:
        for fd in opened:
            os.close(fd)
        raise GitError("the git binary is not on PATH; install git") from None
    except BaseException:
        for fd in opened:
            os.close(fd)
        raise
    for fd in child_ends:
        os.close(fd)
    return pid, out_read, err_read, in_write


def _default_signals() -> tuple[int, ...]:
    """The signals Python ignores for itself (SIGPIPE, SIGXFSZ), which a child gets back at their
    defaults, as subprocess restores them: a git writing into a closed pipe then stops."""
    # what the signal module re-exports; loaded at interpreter start, unlike signal (no stub in typeshed)
    import _signal  # type: ignore[import-not-found]

    return tuple(getattr(_signal, name) for name in ("SIGPIPE", "SIGXFSZ") if hasattr(_signal, name))


_DEFAULT_SIGNALS = _default_signals()


def _exchange(started: tuple[int, int, int, int], data: bytes) -> tuple[bytes, bytes]:
    """Write data to the process's stdin (when it has a pipe there) while reading its stdout and
    stderr to their ends; every pipe is closed after."""
    _, out_read, err_read, in_write = started
    chunks: dict[int, list[bytes]] = {out_read: [], err_read: []}
    poller = select.poll()
    for fd in chunks:
        poller.register(fd, select.POLLIN)
    view, offset = memoryview(data), 0
    if in_write >= 0:
        os.set_blocking(in_write, False)  # write what fits; poll says when more does
        poller.register(in_write, select.POLLOUT)
    open_fds = set(chunks) | ({in_write} if in_write >= 0 else set())
    try:
        while open_fds:
            for fd, _ in poller.poll():
                if fd == in_write:
                    try:
                        offset += os.write(fd, view[offset:offset + _CHUNK])
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:  # git stopped reading: its exit status says why
                        offset = len(view)
                    if offset < len(view):
                        continue
                else:
                    chunk = os.read(fd, _CHUNK)
                    if chunk:
                        chunks[fd].append(chunk)
                        continue
                poller.unregister(fd)
                open_fds.discard(fd)
                os.close(fd)
    finally:
        for fd in open_fds:
            os.close(fd)
    return b"".join(chunks[out_read]), b"".join(chunks[err_read])


def run_git(
    args: Sequence[str],
    cwd: str | Path,
    input: bytes | None = None,
    env: Mapping[str, str] | None = None,
) -> bytes:
    """Run the git binary for plumbing pygit2 lacks (update-ref CAS, notes, push); stdout bytes."""
    code, out, err = try_git(args, cwd, input=input, env=env)
    if code != 0:
        reason = first_line(err) or f"exit status {code}"
        raise GitError(f"git {args[0] if args else ''} failed: {reason}")
    return out


def config_command(keys: Sequence[str]) -> list[str]:
    """The `git config` arguments that print the set values of keys (lower-case names), NUL-separated."""
    return ["config", "-z", "--get-regexp", "^(" + "|".join(key.replace(".", r"\.") for key in keys) + ")$"]


def config_values_from(answer: tuple[int, bytes, bytes], root: str | Path) -> dict[str, str]:
    """Key -> value from a config_command's (exit status, stdout, stderr); the last value wins, as git
    reads it."""
    code, out, err = answer
    if code not in (0, 1):  # 1: none of the keys is set
        reason = first_line(err) or f"exit status {code}"
        raise GitError(f"cannot read git config in {root}: {reason}")
    values: dict[str, str] = {}
    for entry in out.split(b"\0"):
        if entry:
            key, _, value = entry.decode("utf-8", errors="replace").partition("\n")
            values[key.lower()] = value
    return values


def config_values(root: str | Path, keys: Sequence[str]) -> dict[str, str]:
    """The set values of keys (lower-case names) from one `git config` call."""
    return config_values_from(try_git(config_command(keys), root), root)


def remote_names(root: str | Path) -> tuple[str, ...]:
    """The names of the repository's remotes (`git remote`); none when git cannot list them."""
    code, out, _ = try_git(["remote"], root)
    return tuple(out.decode("utf-8", errors="replace").split()) if code == 0 else ()


def cat_objects(root: str | Path, queries: Sequence[str]) -> dict[str, tuple[str, bytes, str]]:
    """(type, content, id) per query from one `git cat-file --batch`; missing ones are left out."""
    if not queries:
        return {}
    return CatObjects(root, queries).objects()


class CatObjects:
    """A `git cat-file --batch` over queries, started at once and answered by objects(): the git
    process works while the caller does something else. close() ends one whose answer is not needed."""

    def __init__(self, root: str | Path, queries: Sequence[str]) -> None:
        self.queries = tuple(queries)
        self._process = GitProcess(["cat-file", "--batch"], root,
                                   input="".join(f"{q}\n" for q in self.queries).encode())
        self._found: dict[str, tuple[str, bytes, str]] | None = None

    def objects(self) -> dict[str, tuple[str, bytes, str]]:
        """(type, content, id) per query; missing ones are left out."""
        if self._found is None:
            code, raw, err = self._process.finish()
            if code != 0:
                reason = first_line(err) or f"exit status {code}"
                raise GitError(f"git cat-file failed: {reason}")
            self._found = _batch_answers(self.queries, raw)
        return self._found

    def close(self) -> None:
        """Let the process end (its answer read and dropped) without raising."""
        self._process.finish()


def _batch_answers(queries: Sequence[str], raw: bytes) -> dict[str, tuple[str, bytes, str]]:
    found: dict[str, tuple[str, bytes, str]] = {}
    at = 0
    for query in queries:
        end = raw.index(b"\n", at)
        header = raw[at:end].decode().split()
        at = end + 1
        if len(header) != 3:
            continue  # "<query> missing" (or ambiguous): nothing there
        size = int(header[2])
        found[query] = (header[1], raw[at : at + size], header[0])
        at += size + 1
    return found


# --- long-lived and background git processes ---------------------------------------------------

STORE, REPOSITORY = "store", "repository"  # where a CatFile reads, and a BackgroundGit runs

# What could make git read other objects than those pygit2 opened at a git directory.
_STORE_VARIABLES = frozenset({
    "GIT_DIR", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_GRAFT_FILE",
    "GIT_SHALLOW_FILE", "GIT_REPLACE_REF_BASE",
})


def _argv_and_env(view: str, where: str, args: Sequence[str]) -> tuple[list[str], Mapping[str, str]]:
    """How git is started in a view: STORE, on the object store pygit2 opened at the git directory
    where (a bare one too), whatever the environment says, without replace refs; REPOSITORY, in the
    work tree where as the user's git sees it."""
    if view == STORE:
        env = {name: value for name, value in os.environ.items() if name not in _STORE_VARIABLES}
        return git_argv(["--git-dir=.", "--no-replace-objects", *args], where), env
    return git_argv(args, where), os.environ


# A scan reads much of a large pack through cat-file: by default git maps up to 8 GB of it and
# keeps 96 MB of delta bases, so on git.git the cat-file grew past the scanning process.
_CAT_FILE_MEMORY = ("-c", "core.packedGitLimit=64m", "-c", "core.packedGitWindowSize=16m",
                    "-c", "core.deltaBaseCacheLimit=32m")


class PipeBroken(Exception):
    """A long-lived git process ended or answered out of turn."""


class CatFile:
    """This process's long-lived `git cat-file --batch` in one view (STORE or REPOSITORY, see
    _argv_and_env), asked for objects many times; git's stderr goes to /dev/null.

    In the STORE view it reads the blobs of the trees pygit2 read: git resolves a pack's deltas
    with a larger cache of delta bases than libgit2, and it works beside this process. The 12k
    blobs (262 MB) a scan of git.git v2.40.0..v2.45.0 reads cost 1.0 s in this process through
    pygit2, 0.2 s here and 0.7 s in git through cat-file. A forked worker never uses its
    parent's (their answers would interleave): cat_file starts one per process and view.
    """

    # Ids per write. Two batches at most are waiting (the one being answered and the next):
    # their 2.5 KB (3.9 KB for SHA-256 ids) fit a pipe of one page, the least Linux gives, so a
    # write never blocks while git is blocked writing answers this process has not read yet.
    _BATCH = 30
    _PIPE_SIZE = 1024 * 1024

    def __init__(self, view: str, where: str) -> None:
        self.view = view
        self.where = where  # the git directory (STORE) or the work tree (REPOSITORY)
        self.pid = os.getpid()
        argv, env = _argv_and_env(view, where, [*_CAT_FILE_MEMORY, "cat-file", "--batch"])
        self.process_id, out_read, _, self._stdin = _start(argv, b"", env, quiet=True)
        try:  # room for git to read ahead while this process works on what it read (Linux)
            import fcntl

            fcntl.fcntl(out_read, fcntl.F_SETPIPE_SZ, self._PIPE_SIZE)
        except (ImportError, AttributeError, OSError):
            pass  # another system, or a user over the pipe size limit: the default size works too
        self._stdout = open(out_read, "rb")  # noqa: SIM115 - open as long as the process

    def read(self, ids: Sequence[str]) -> Iterator[tuple[str, bytes] | None]:
        """The type and raw bytes of each object, in order (None for a missing one); PipeBroken
        when git ended or answered out of turn."""
        stdout = self._stdout
        batches = [ids[start:start + self._BATCH] for start in range(0, len(ids), self._BATCH)]
        if not batches:
            return
        self._ask(batches[0])
        for number, batch in enumerate(batches):
            if number + 1 < len(batches):
                self._ask(batches[number + 1])  # git works on the next batch while this one is read
            for oid in batch:
                fields = stdout.readline().split()
                if not fields or fields[0].decode("ascii", "replace") != oid:
                    raise PipeBroken
                if len(fields) != 3:
                    yield None  # "<id> missing"
                    continue
                size = int(fields[2])
                data = stdout.read(size)
                if len(data) != size or stdout.read(1) != b"\n":
                    raise PipeBroken
                yield fields[1].decode("ascii", "replace"), data

    def _ask(self, batch: Sequence[str]) -> None:
        data = "".join(f"{oid}\n" for oid in batch).encode("ascii")
        try:
            while data:
                data = data[os.write(self._stdin, data):]
        except OSError:
            raise PipeBroken from None

    def close(self) -> None:
        """End the process (this process's own) or let go of a parent's inherited pipes."""
        try:
            os.close(self._stdin)
        except OSError:
            pass
        self._stdout.close()
        if self.pid == os.getpid():
            _reap(self.process_id)


def _reap(pid: int, patience: float = 5.0) -> None:
    """Wait for a git whose stdin was closed to end (it ends unless a forked process holds the pipe
    open), killing it after patience seconds."""
    import time

    deadline = time.monotonic() + patience
    try:
        while os.waitpid(pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                return
            time.sleep(0.01)
    except ChildProcessError:
        pass  # reaped already


_CAT_FILES: dict[str, CatFile] = {}  # view -> the cat-file on the repository this process read last in it
_CAT_FILE_FAILED: set[tuple[int, str, str]] = set()  # (process, view, where) where git did not start or broke off


def read_with_cat_file(view: str, where: str, ids: Sequence[str]) -> Iterator[tuple[str, bytes] | None]:
    """(type, content) of each object, or None for a missing one, in order, through this process's
    cat-file in the view, which stays running for the next call. The answers stop early where git
    cannot serve them (not started, or broken off): the caller reads the rest another way."""
    pipe = cat_file(view, where)
    if pipe is None:
        return
    try:
        yield from pipe.read(ids)
    except PipeBroken:
        close_cat_files(pipe, broken=True)


def cat_file(view: str, where: str) -> CatFile | None:
    """This process's cat-file in a view (STORE: where is a git directory; REPOSITORY: a work tree),
    started on first use; None when git cannot serve it."""
    pid = os.getpid()
    for inherited in [pipe for pipe in _CAT_FILES.values() if pipe.pid != pid]:
        close_cat_files(inherited)  # a forked process only lets go of its parent's pipes
    pipe = _CAT_FILES.get(view)
    if pipe is not None:
        if pipe.where == where:
            return pipe
        close_cat_files(pipe)
    if (pid, view, where) in _CAT_FILE_FAILED:
        return None
    try:
        pipe = CatFile(view, where)
    except (OSError, GitError):
        _CAT_FILE_FAILED.add((pid, view, where))
        return None
    _end_at_exit()
    _CAT_FILES[view] = pipe
    return pipe


def close_cat_files(pipe: CatFile | None = None, broken: bool = False) -> None:
    """End one of this process's cat-files, or all (a forked worker only closes the pipes it inherited)."""
    for view, open_pipe in list(_CAT_FILES.items()):
        if pipe is None or open_pipe is pipe:
            del _CAT_FILES[view]
            if broken:
                _CAT_FILE_FAILED.add((os.getpid(), view, open_pipe.where))
            open_pipe.close()


class BackgroundGit:
    """git started now in a view (_argv_and_env) with input on its stdin and its output going into a
    temporary file, not a pipe: it writes all of its answer without waiting for this process,
    which reads it when it wants it (result). A git nobody read is stopped when the interpreter exits."""

    def __init__(self, view: str, where: str, args: Sequence[str], input: bytes) -> None:
        import tempfile

        self.pid = os.getpid()
        self.process_id: int | None = None
        self.output = tempfile.TemporaryFile()
        argv, env = _argv_and_env(view, where, args)
        try:
            self.process_id, _, _, stdin = _start(argv, b"", env, quiet=True, stdout=self.output.fileno())
        except (OSError, GitError):
            return  # git is missing: result() says None
        try:
            view_of = memoryview(input)
            while view_of:
                view_of = view_of[os.write(stdin, view_of):]
        except OSError:
            pass  # git stopped reading: its exit status says why
        finally:
            os.close(stdin)
        _end_at_exit()
        _BACKGROUND.append(self)

    def result(self) -> bytes | None:
        """git's output once it is done; None if it failed or was started by another process."""
        if self.process_id is None or self.pid != os.getpid():
            return None
        if self in _BACKGROUND:
            _BACKGROUND.remove(self)
        _, status = os.waitpid(self.process_id, 0)
        with self.output:
            self.output.seek(0)
            listed = self.output.read()
        return listed if os.waitstatus_to_exitcode(status) == 0 else None

    def stop(self) -> None:
        """Kill git if it still runs (this process's own), and reap it."""
        if self.process_id is not None and self.pid == os.getpid():
            try:
                os.kill(self.process_id, 9)
                os.waitpid(self.process_id, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        self.output.close()


_BACKGROUND: list[BackgroundGit] = []  # started and not read yet


_AT_EXIT: list[bool] = []


def _end_at_exit() -> None:
    """Have _end_git run when the interpreter exits (registered once)."""
    if not _AT_EXIT:
        import atexit

        atexit.register(_end_git)
        _AT_EXIT.append(True)


def _end_git() -> None:
    """End this process's cat-files, and stop the background gits nobody read: none outlives us."""
    close_cat_files()
    while _BACKGROUND:
        _BACKGROUND.pop().stop()


def toplevel(path: str | Path = ".") -> Path:
    """The work-tree root containing path, found with the git binary (no pygit2 import)."""
    code, out, _ = try_git(["rev-parse", "--show-toplevel"], path)
    if code != 0 or not out.strip():
        raise GitError(
            f"not a git repository with a work tree: {path} "
            "(run inside a repository, or create one with git init)"
        )
    from pathlib import Path

    return Path(out.decode("utf-8", errors="surrogateescape").strip())


def first_line(text: str | bytes) -> str:
    """The first non-blank line of a message from git (stderr bytes or text), stripped; "" when none."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    for line in text.splitlines():
        if line.strip():
            return line.strip()
    return ""
