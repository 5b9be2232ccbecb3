"""Git questions as small functions with plain return values (STYLE.md, gitio).

The only package that imports pygit2, and it does so lazily inside the functions that
need it: `run_git` and the helpers built on it stay importable from the commit-msg
hook's fast path without paying for pygit2 (DESIGN.md, read channel). Every git failure
becomes a `GitError` with an actionable one-line sentence, never a raw pygit2 error.

The git binary is started by `git_process` with `os.posix_spawnp` and pipes read through
`select.poll`: importing `subprocess` (signal, threading, locale, selectors) would cost the
hook about 5 ms on every commit, more than one git process does.
"""

from __future__ import annotations

import os
import select
from collections.abc import Mapping, Sequence

from diylisis.core.errors import GitError

TYPE_CHECKING = False  # true for type checkers only: the hook never imports typing
if TYPE_CHECKING:
    from pathlib import Path

    import pygit2


def _pygit2():  # type: ignore[no-untyped-def]
    import pygit2

    # libgit2 hashes every object it reads again to check its id, with collision-detecting
    # SHA-1: a fifth of reading a history's commits. git checks ids on fetch and in fsck, not
    # on each read; a repository opened here reads as git reads it.
    pygit2.option(pygit2.enums.Option.ENABLE_STRICT_HASH_VERIFICATION, False)
    return pygit2


def open_repo(path: str | Path = ".") -> pygit2.Repository:
    """Open the repository containing path, discovering it from a subdirectory."""
    from pathlib import Path  # pathlib (and urllib.parse under it) is not on the hook's path

    pygit2 = _pygit2()
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
    pygit2 = _pygit2()
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
    pygit2 = _pygit2()
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
    pygit2 = _pygit2()
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
    pygit2 = _pygit2()
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


def config_get(repo: pygit2.Repository, key: str) -> str | None:
    """The effective value of a git config key, or None when unset."""
    pygit2 = _pygit2()
    try:
        return str(repo.config[key])
    except KeyError:
        return None
    except pygit2.GitError as error:
        raise GitError(f"cannot read git config {key}: {first_line(str(error))}") from None


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


def _start(argv: list[str], input: bytes | None, env: Mapping[str, str] | None) -> tuple[int, int, int, int]:
    """(pid, stdout to read, stderr to read, stdin to write or -1) of argv started with pipes."""
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    actions = [(os.POSIX_SPAWN_DUP2, out_write, 1), (os.POSIX_SPAWN_DUP2, err_write, 2)]
    in_read = in_write = -1
    if input is not None:
        in_read, in_write = os.pipe()
        actions.append((os.POSIX_SPAWN_DUP2, in_read, 0))
    try:
        pid = os.posix_spawnp(argv[0], argv, os.environ if env is None else env, file_actions=actions,
                              setsigdef=_DEFAULT_SIGNALS)
    except FileNotFoundError:
        for fd in (out_read, out_write, err_read, err_write, in_read, in_write):
            if fd >= 0:
                os.close(fd)
        raise GitError("the git binary is not on PATH; install git") from None
    for fd in (out_write, err_write, in_read):
        if fd >= 0:
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
