"""The command realization of F5: a fresh process of a configured tool reads the prompt.

The prompt goes to stdin and the verdict comes back on stdout. The process runs in a
temporary read-only export of the certified revision, with the repository's git
variables removed and `DISTILL_*` variables naming the target, role, revision and
repository. Where Linux user namespaces are available the process runs in its own mount
and PID namespaces in which the repository (work tree and git directory) and the export
are mounted read-only and locked, so it cannot change the user's files or refs; where
they are not, the refs, the work tree and the git directory's hooks, info, objects/info,
distill and config are fingerprinted around each dispatch and any change stops the run.
A non-zero exit, a timeout or an invalid verdict is no verdict: the command is asked
again up to `retries` times, then the run stops without a certificate, each rejection
named (Rule 9: fail closed, never a silent Pass).

The process gets a private, empty HOME (and XDG directories) and no git configuration of the
user's (GIT_CONFIG_GLOBAL names a file in that home, GIT_CONFIG_NOSYSTEM=1); its stdout
and stderr together are read up to OUTPUT_LIMIT, and its whole process group is killed at
the timeout, at the limit and when it exits. After each dispatch the repository must still
be the directory it was (device and inode), git's configuration must read as it did, and the PATH directories,
the hooks directory and the programs resolved before it (git, the signing programs) must be
unchanged, or nothing is written (docs/security.md, Dispatched programs).
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import stat
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from diylisis import gitio
from diylisis.config import RefuterSettings
from diylisis.errors import EXIT_FAILED, ConfigError, DistillError, GitError
from diylisis.model import Realization, ZeroMemoryVerdict
from diylisis.refuter import RefuterInput
from diylisis.refuter.prompt import build
from diylisis.refuter.verdict import InvalidVerdict, parse

KILL_GRACE = 5.0  # seconds to reap a killed process group
OUTPUT_LIMIT = 4 * 1024 * 1024  # bytes of stdout and stderr together; a verdict is a few KB
_CHUNK = 65536
# variables that would lead the child to the user's own files, agents and configuration
_PRIVATE_VARIABLES = ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
                      "XDG_RUNTIME_DIR", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "GNUPGHOME")

# Runs inside the first (outer) namespaces: bind each protected path onto itself
# read-only, enter the export, then drop into a nested user and mount namespace, where
# those mounts are locked: the refuter cannot remount them writable or unmount them.
# The optional paths (PATH directories, the hooks directory) go first, each read-only where the
# mounts allow it and left as it was where they do not (the standing check still watches them):
# bound after the repository, an ancestor of it would cover the repository's read-only mount.
_SANDBOX_SETUP = r"""
set -e
export_dir=$1; optional=$2; shift 2
while [ "$optional" -gt 0 ]; do
  if mount --bind "$1" "$1" 2>/dev/null; then
    mount -o remount,ro,bind,nosuid,nodev "$1" 2>/dev/null || umount "$1" 2>/dev/null || true
  fi
  shift; optional=$((optional - 1))
done
count=$1; shift
while [ "$count" -gt 0 ]; do
  mount --bind "$1" "$1"
  mount -o remount,ro,bind,nosuid,nodev "$1" 2>/dev/null \
    || mount -o remount,ro,bind,nosuid,nodev,noexec "$1"
  shift; count=$((count - 1))
done
cd "$export_dir"
exec unshare --user --map-root-user --mount -- "$@"
"""
_UNSHARE = ("--user", "--map-root-user", "--mount", "--pid", "--fork", "--mount-proc",
            "--kill-child")


class NoVerdict(DistillError):
    """The refuter command gave no valid verdict: the run stops without a certificate."""

    exit_code = EXIT_FAILED

    def __init__(self, reasons: tuple[str, ...], attempts: int) -> None:
        lines = "\n".join(f"  - {reason}" for reason in reasons)
        super().__init__(f"the refuter command gave no valid verdict in {attempts} attempt(s); "
                         f"no certificate was issued:\n{lines}")
        self.reasons = reasons


def realization(settings: RefuterSettings,
                root: Path) -> Callable[[RefuterInput], ZeroMemoryVerdict]:
    """The F5 callable that dispatches to the configured command (issue 6, item 3)."""
    if not settings.command:
        raise ConfigError("no refuter command is configured: set [refuter] command = [...] "
                          "in your own config (docs/refuters.md), or use the built-in lint")

    def refute(request: RefuterInput) -> ZeroMemoryVerdict:
        return dispatch(request, settings, root)

    return refute


def dispatch(request: RefuterInput, settings: RefuterSettings, root: Path, *,
             sandbox: bool | None = None) -> ZeroMemoryVerdict:
    """F5 dispatch with re-dispatch: a verdict, or NoVerdict naming every rejection."""
    root = Path(os.path.abspath(root))
    settings = _resolved(settings, root)
    expected = Realization(settings.realization)
    prompt = build(request, expected).encode("utf-8")
    use_sandbox = sandbox_available() if sandbox is None else sandbox
    protected = _protected_paths(root)
    programs = _resolve_programs(root)
    watched = _watched_directories(root, protected)
    standing = Standing.of(root, protected, watched, programs)
    reasons: list[str] = []
    attempts = settings.retries + 1
    for attempt in range(1, attempts + 1):
        before = None if use_sandbox else fingerprint(root)
        output, problem = _run_once(settings, request, root, prompt, protected, use_sandbox, watched)
        moved = standing.changes(root, protected)
        if moved:
            reasons.append(f"attempt {attempt}: {moved}; nothing was written")
            raise NoVerdict(tuple(reasons), attempt)
        if before is not None:
            changed = _changes(before, fingerprint(root))
            if changed:
                reasons.append(f"attempt {attempt}: the refuter process changed the repository "
                               f"({'; '.join(changed)}); inspect it (git reflog, git status)")
                raise NoVerdict(tuple(reasons), attempt)
        if problem is None:
            try:
                return parse(output, expected)
            except InvalidVerdict as invalid:
                reasons += [f"attempt {attempt}: {reason}" for reason in invalid.reasons]
                continue
        reasons.append(f"attempt {attempt}: {problem}")
    raise NoVerdict(tuple(reasons), attempts)


def _resolved(settings: RefuterSettings, root: Path) -> RefuterSettings:
    """argv[0] as a program on PATH or an absolute path; a relative path would let each repository
    choose the program the user's config runs, so it is refused (docs/security.md)."""
    program = settings.command[0]
    if "/" not in program:
        if shutil.which(program) is None:
            raise ConfigError(f"[refuter] command {program!r} cannot be run: not found on PATH")
        return settings
    path = Path(program)
    if not path.is_absolute():
        raise ConfigError(f"[refuter] command {program!r} is a relative path: name a program on "
                          "PATH or give an absolute path (a path inside the repository would let "
                          "the repository choose the program)")
    if not path.is_file():
        raise ConfigError(f"[refuter] command {program!r} cannot be run: no such file {path}")
    if not os.access(path, os.X_OK):
        raise ConfigError(f"[refuter] command {program!r} cannot be run: the file is not executable "
                          f"(chmod +x {path}, or name the interpreter first)")
    return settings


def _run_once(settings: RefuterSettings, request: RefuterInput, root: Path, prompt: bytes,
              protected: tuple[Path, ...], use_sandbox: bool,
              watched: tuple[Path, ...] = ()) -> tuple[str, str | None]:
    """One dispatch: (stdout, None) or ('', the reason it is no verdict)."""
    with export(root, request.revision) as tree, private_home() as home:
        argv = list(settings.command)
        if use_sandbox:
            argv = _sandboxed(argv, tree, protected, _optional_read_only(watched, protected))
        try:
            process = subprocess.Popen(argv, cwd=tree, env=environment(request, root, settings, home),
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, start_new_session=True)
        except OSError as error:
            raise ConfigError(f"[refuter] command {settings.command[0]!r} cannot be run: "
                              f"{error.strerror or error}") from None
        try:
            out, err, stop = _exchange(process, prompt, settings.timeout, OUTPUT_LIMIT)
        except BaseException:
            _kill(process)
            raise
        _kill(process)  # the leader is done; children it left behind go with its group
    if stop == "timeout":
        return "", f"no answer within {settings.timeout:g} s; the process group was killed"
    if stop == "limit":
        return "", (f"it printed more than {OUTPUT_LIMIT // (1024 * 1024)} MiB on stdout and stderr; "
                    "the process group was killed")
    if process.returncode != 0:
        tail = " / ".join(err.decode("utf-8", "replace").strip().splitlines()[-3:])
        return "", f"exit status {process.returncode}" + (f" ({tail})" if tail else "")
    try:
        return out.decode("utf-8"), None
    except UnicodeDecodeError:
        return "", "the verdict on stdout is not UTF-8 text"


def _exchange(process: subprocess.Popen[bytes], prompt: bytes, timeout: float,
              limit: int) -> tuple[bytes, bytes, str | None]:
    """Write the prompt and read stdout and stderr as they come, until the process exits:
    (stdout, stderr, None), or what was read and "timeout" or "limit" when it had to stop.
    Never more than limit bytes are held, however much the process prints."""
    import selectors

    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    deadline = time.monotonic() + timeout
    read = {process.stdout.fileno(): bytearray(), process.stderr.fileno(): bytearray()}
    selector = selectors.DefaultSelector()
    for fd in read:
        selector.register(fd, selectors.EVENT_READ)
    stdin = process.stdin.fileno()
    view, offset = memoryview(prompt), 0
    if prompt:
        os.set_blocking(stdin, False)
        selector.register(stdin, selectors.EVENT_WRITE)
    else:
        process.stdin.close()
    try:
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return bytes(read[process.stdout.fileno()]), bytes(read[process.stderr.fileno()]), "timeout"
            for key, _ in selector.select(remaining):
                fd = key.fd
                if fd == stdin:
                    try:
                        offset += os.write(fd, view[offset:offset + _CHUNK])
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:  # it stopped reading: its exit status says why
                        offset = len(view)
                    if offset >= len(view):
                        selector.unregister(fd)
                        process.stdin.close()
                    continue
                chunk = os.read(fd, _CHUNK)
                if not chunk:
                    selector.unregister(fd)
                    continue
                read[fd] += chunk
                if sum(map(len, read.values())) > limit:
                    return b"", b"", "limit"
        try:
            process.wait(timeout=max(deadline - time.monotonic(), 0.01))
        except subprocess.TimeoutExpired:
            return bytes(read[process.stdout.fileno()]), bytes(read[process.stderr.fileno()]), "timeout"
    finally:
        selector.close()
    return bytes(read[process.stdout.fileno()]), bytes(read[process.stderr.fileno()]), None


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Kill the whole process group the refuter started, then reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if process.returncode is None:
        process.kill()
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass
    try:
        process.wait(timeout=KILL_GRACE)
    except subprocess.TimeoutExpired:
        pass


@contextmanager
def private_home() -> Iterator[Path]:
    """An empty HOME only the refuter uses; removed afterwards with whatever it left there."""
    home = Path(tempfile.mkdtemp(prefix="distill-refuter-home-"))
    try:
        yield home
    finally:
        _set_writable(home, True)
        shutil.rmtree(home, ignore_errors=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class Standing:
    """What must not change while a refuter runs: the directories the repository paths name
    (device and inode, so a moved repository with a copy planted at its path is seen), git's
    configuration as `git config --list --show-origin` reads it in the repository (the user's
    global and system files and their includes, and the repository's own), and the user's own
    diylisis config, which chooses the refuter of the next run."""

    directories: tuple[tuple[str, int, int], ...]
    git_config: bytes
    user_config: bytes | None  # the user's own diylisis config, which names the next refuter
    # PATH directories, the hooks directory and the programs resolved before dispatch (git,
    # the signing programs): what runs after the refuter, by the path it will be found at
    programs: tuple[tuple[str, tuple[int, ...]], ...] = ()

    @classmethod
    def of(cls, root: Path, protected: tuple[Path, ...], watched: tuple[Path, ...] = (),
           programs: tuple[str, ...] = ()) -> Standing:
        """The standing of the repository at root now."""
        return cls(directories=_identities((root, *protected)), git_config=_git_config(root),
                   user_config=_user_config(), programs=_program_marks(watched, programs))

    def changes(self, root: Path, protected: tuple[Path, ...]) -> str | None:
        """What changed since, in words; None when nothing did."""
        now = _identities((root, *protected))
        for (path, *was), (_, *is_now) in zip(self.directories, now, strict=True):
            if was != is_now:
                return (f"the repository folder {path} is no longer the folder it was when the "
                        "refuter started (it was moved, replaced or removed); check where your "
                        "repository is now")
        if _git_config(root) != self.git_config:
            return ("git's configuration changed while the refuter ran (a global, system or "
                    "repository config file); compare `git config --list --show-origin` with "
                    "what you expect")
        if _user_config() != self.user_config:
            from diylisis.config import user_config_path

            return (f"your own config {user_config_path()} changed while the refuter ran; check "
                    "which refuter command it names now")
        now_marks = dict(_program_marks(tuple(Path(path) for path, _ in self.programs), ()))
        for path, mark in self.programs:
            if now_marks.get(path) != mark:
                return (f"{path} changed while the refuter ran (a program there, or one diylisis "
                        "runs next, may have been planted or replaced); check it before you run "
                        "git or diylisis again")
        return None


def _program_marks(watched: tuple[Path, ...], programs: tuple[str, ...]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """A mark of each watched directory, of each entry of the ones you can write, and of each
    resolved program: device, inode, mode, size, mtime and ctime (ctime no process can set back)."""
    paths: list[str] = []
    for directory in watched:
        paths.append(str(directory))
        if os.access(directory, os.W_OK):
            try:
                paths += sorted(os.path.join(directory, name) for name in os.listdir(directory))
            except OSError:
                pass
    paths += [program for program in programs if os.path.isabs(program)]
    marks = {}
    for path in paths:
        try:
            info = os.lstat(path)
            marks[path] = (info.st_dev, info.st_ino, info.st_mode, info.st_size, info.st_mtime_ns,
                           info.st_ctime_ns)
        except OSError:
            marks[path] = (-1,)
    return tuple(sorted(marks.items()))


def _resolve_programs(root: Path) -> tuple[str, ...]:
    """git and the signing programs of git config, resolved to absolute paths now, before any
    dispatch, so that what runs after a refuter is what PATH named before it (gitio.program_path)."""
    from diylisis import signing

    code, out, _ = gitio.try_git(["config", "-z", "--get-regexp", r"^gpg\..*program$"], root)
    values = {}
    for entry in out.split(b"\0") if code == 0 else ():
        key, _, value = entry.decode("utf-8", "surrogateescape").partition("\n")
        if key:
            values[key.lower()] = value
    return (gitio.git_program(), *(signing.program_for(name, values) for name in signing.FORMATS))


def _watched_directories(root: Path, protected: tuple[Path, ...]) -> tuple[Path, ...]:
    """The existing absolute PATH directories and the hooks directory git config names (its
    core.hooksPath, the user's usually): where a planted program would run after the refuter."""
    found: list[Path] = []
    for entry in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if os.path.isabs(entry) and os.path.isdir(entry):
            found.append(Path(os.path.realpath(entry)))
    code, out, _ = gitio.try_git(["config", "--get", "core.hooksPath"], root)
    hooks = out.decode("utf-8", "surrogateescape").strip() if code == 0 else ""
    if hooks:
        hooks_dir = Path(root, os.path.expanduser(hooks))
        if hooks_dir.is_dir():
            found.append(Path(os.path.realpath(hooks_dir)))
    unique = dict.fromkeys(path for path in found
                           if not any(path.is_relative_to(inside) for inside in protected))
    return tuple(unique)


def _optional_read_only(watched: tuple[Path, ...], protected: tuple[Path, ...]) -> tuple[Path, ...]:
    """The watched directories the sandbox may mount read-only: not the temporary folder's
    ancestors (the export and the private home live there), not a protected path's ancestor
    (mounted first, it would stay below the repository's read-only mount, but it is left alone)."""
    temporary = Path(os.path.realpath(tempfile.gettempdir()))
    return tuple(path for path in watched
                 if not temporary.is_relative_to(path)
                 and not any(inside.is_relative_to(path) for inside in protected))


def _identities(paths: tuple[Path, ...]) -> tuple[tuple[str, int, int], ...]:
    found = []
    for path in paths:
        try:
            info = os.stat(path)
            found.append((str(path), info.st_dev, info.st_ino))
        except OSError:
            found.append((str(path), -1, -1))
    return tuple(found)


def _user_config() -> bytes | None:
    from diylisis.config import user_config_path

    try:
        with open(user_config_path(), "rb") as handle:
            return handle.read()
    except OSError:
        return None


def _git_config(root: Path) -> bytes:
    code, out, err = gitio.try_git(["config", "--list", "--show-origin", "-z"], root)
    return out if code == 0 else b"unreadable " + err


def environment(request: RefuterInput, root: Path, settings: RefuterSettings,
                home: Path) -> dict[str, str]:
    """The child's environment: no GIT_* variable of ours, a private home, no git config of the
    user's, and the DISTILL_* names."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith("GIT_") and name not in _PRIVATE_VARIABLES}
    env.update({
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        # a file that does not exist, in the private home: not os.devnull, which a
        # `git config --global` run as root would replace with a regular file
        "GIT_CONFIG_GLOBAL": str(home / ".gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "DISTILL_TARGET": str(request.target),
        "DISTILL_ROLE": request.contract.role,
        "DISTILL_REPOSITORY": str(root),
        "DISTILL_REVISION": request.revision or "",
        "DISTILL_REALIZATION": settings.realization,
        # reads only: never refresh the index of a repository the child must not write
        "GIT_OPTIONAL_LOCKS": "0",
    })
    return env


@contextmanager
def export(root: Path, revision: str | None) -> Iterator[Path]:
    """A temporary read-only copy of the revision's tracked files; removed afterwards."""
    holder = Path(tempfile.mkdtemp(prefix="distill-refuter-"))
    tree = holder / "tree"
    tree.mkdir()
    try:
        if revision:
            _extract(root, revision, tree)
        _set_writable(tree, False)
        yield tree
    finally:
        _set_writable(holder, True)
        shutil.rmtree(holder, ignore_errors=True)


def _extract(root: Path, revision: str, tree: Path) -> None:
    """Stream `git archive` of the revision into tree (no whole-archive copy in memory)."""
    archive = subprocess.Popen(gitio.git_argv(["archive", "--format=tar", revision]), cwd=root,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert archive.stdout is not None and archive.stderr is not None
    try:
        with tarfile.open(fileobj=archive.stdout, mode="r|") as bundle:
            bundle.extractall(tree, filter=_inside)
    except tarfile.ReadError:
        pass  # an empty or failed archive: the exit status below says which
    finally:
        archive.stdout.close()
        error = archive.stderr.read().decode("utf-8", "replace").strip()
        archive.stderr.close()
        archive.wait()
    if archive.returncode != 0:
        raise GitError(f"git archive {revision} failed: {error.splitlines()[0] if error else ''}"
                       .rstrip(": "))


def _inside(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
    """tarfile's data filter, skipping (not failing on) links that leave the export."""
    try:
        return tarfile.data_filter(member, path)
    except tarfile.FilterError:
        return None


def _set_writable(top: Path, writable: bool) -> None:
    for directory, dirs, files in os.walk(top):
        for name in [*files, *dirs, None]:
            path = Path(directory, name) if name else Path(directory)
            if path.is_symlink():
                continue
            mode = path.stat().st_mode
            bits = stat.S_IWUSR if writable else ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
            path.chmod(mode | bits if writable else mode & bits)


def _protected_paths(root: Path) -> tuple[Path, ...]:
    """The work tree, the git directory and the common git directory (linked worktrees)."""
    paths = {Path(root).resolve(), *_git_dirs(root)}
    return tuple(sorted(paths, key=lambda p: (len(p.parts), str(p))))


def _git_dirs(root: Path) -> tuple[Path, ...]:
    """The git directory and the common git directory (one path when they are the same)."""
    out = gitio.run_git(["rev-parse", "--absolute-git-dir", "--git-common-dir"], root)
    git_dir, common = out.decode("utf-8", "surrogateescape").splitlines()[:2]
    common_path = Path(common) if Path(common).is_absolute() else root / common
    return tuple(dict.fromkeys((Path(git_dir).resolve(), common_path.resolve())))


def _sandboxed(argv: list[str], tree: Path, protected: tuple[Path, ...],
               optional: tuple[Path, ...] = ()) -> list[str]:
    paths = [str(p) for p in (*protected, tree)]
    return ["unshare", *_UNSHARE, "--", "sh", "-c", _SANDBOX_SETUP, "distill-refuter",
            str(tree), str(len(optional)), *map(str, optional), str(len(paths)), *paths, *argv]


@functools.cache
def sandbox_available() -> bool:
    """User and mount namespaces work here: probe the exact setup once per process."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    probe = Path(tempfile.mkdtemp(prefix="distill-probe-"))
    try:
        argv = _sandboxed(["sh", "-c", "! touch probe 2>/dev/null"], probe, (probe,))
        done = subprocess.run(argv, cwd=probe, capture_output=True, timeout=10, check=False)
        return done.returncode == 0 and not (probe / "probe").exists()
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        shutil.rmtree(probe, ignore_errors=True)


# what of a git directory runs or is read as trusted later: hooks, attributes and excludes,
# alternates (where objects are read from), diylisis's own run files, and the config file
_GIT_DIR_PARTS = ("hooks", "info", os.path.join("objects", "info"), "distill", "config")


def fingerprint(root: Path) -> dict[str, str]:
    """Refs, HEAD, work-tree state and the git directories' _GIT_DIR_PARTS, to detect a change
    made during an unsandboxed dispatch."""
    env = {"GIT_OPTIONAL_LOCKS": "0"}
    refs = gitio.run_git(["for-each-ref", "--format=%(refname) %(objectname) %(symref)"],
                         root, env=env).decode("utf-8", "replace")
    head = gitio.try_git(["symbolic-ref", "-q", "HEAD"], root, env=env)[1] + b" " + \
        gitio.try_git(["rev-parse", "-q", "--verify", "HEAD"], root, env=env)[1]
    status = gitio.run_git(["status", "--porcelain=v1", "-z", "--untracked-files=all"],
                           root, env=env)
    marks = {f"ref {line.split(' ', 1)[0]}": line for line in refs.splitlines() if line}
    marks["HEAD"] = head.decode("utf-8", "replace").strip()
    for entry in filter(None, status.split(b"\0")):
        path = entry[3:].decode("utf-8", "surrogateescape")
        try:
            info = (Path(root) / path).lstat()
            mark = f"{entry[:2].decode()} {info.st_size} {info.st_mtime_ns}"
        except OSError:
            mark = f"{entry[:2].decode()} absent"
        marks[f"path {path}"] = mark
    marks.update(_git_dir_marks(root))
    return marks


def _git_dir_marks(root: Path) -> dict[str, str]:
    """A mark of each file under the git directories' _GIT_DIR_PARTS: mode, size, mtime and
    ctime (a process can set mtime back, not ctime)."""
    marks = {}
    for git_dir in _git_dirs(root):
        for part in _GIT_DIR_PARTS:
            top = os.path.join(git_dir, part)
            paths = [top]
            for directory, dirs, files in os.walk(top):
                dirs.sort()
                paths += [os.path.join(directory, name) for name in (*dirs, *files)]
            for path in paths:
                try:
                    info = os.lstat(path)
                    mark = f"{info.st_mode} {info.st_size} {info.st_mtime_ns} {info.st_ctime_ns}"
                except OSError:
                    mark = "absent"
                marks[f"git-dir {path}"] = mark
    return marks


def _changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    keys = before.keys() | after.keys()
    changed = sorted(key for key in keys if before.get(key) != after.get(key))
    return changed[:5] + ([f"and {len(changed) - 5} more"] if len(changed) > 5 else [])
