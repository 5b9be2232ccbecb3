"""Dispatch of an untrusted program, confined: the one way diylisis runs a command it did not write.

A `Dispatch` names the program, its working directory, its environment, the directories it may
write and the ones it may only read, a timeout and a byte cap on what it prints. `run` starts it
with a private, empty HOME (and XDG directories), without any `GIT_*` variable of ours and
without the user's git configuration. Where Linux user namespaces work (`sandbox_available`) the
program runs in its own user, mount and PID namespaces: the read-only paths are bound onto
themselves read-only and locked by a nested user namespace, the writable ones are bound writable
again inside them, and since the program is the namespace's first process, every process it
leaves behind (a `setsid` child included) dies with it. Where they are not, the caller must
fingerprint what it protects around the dispatch and refuse on any change (`fingerprint`,
`Standing`), and stragglers are found by a tag in their environment and killed by pid and start
time (`kill_tagged`).

Its stdout and stderr together are read up to the cap, and the program's whole process group is
killed at the timeout, at the cap and when it exits. `run_program` is that runner without the
confinement, for the programs git config names and the user trusts (signing: gpg, ssh-keygen).
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from msgspec import Struct, field

KILL_GRACE = 5.0  # seconds to reap a killed process group
OUTPUT_LIMIT = 4 * 1024 * 1024  # default cap on stdout and stderr together
TAG_VARIABLE = "DISTILL_DISPATCH_TAG"  # names every process of one dispatch, for kill_tagged
_CHUNK = 65536
# variables that would lead the child to the user's own files, agents and configuration
PRIVATE_VARIABLES = ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME",
                     "XDG_RUNTIME_DIR", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "GNUPGHOME")

# Runs inside the first (outer) namespaces: bind each protected path onto itself read-only, bind
# each writable path onto itself writable again (a bind inside a read-only bind), enter the
# working directory, then drop into a nested user and mount namespace, where those mounts are
# locked: the program cannot remount them writable or unmount them. The optional paths (PATH
# directories, the hooks directory) go first, each read-only where the mounts allow it and left
# as it was where they do not (the caller's standing check still watches them): bound after the
# repository, an ancestor of it would cover the repository's read-only mount.
_SANDBOX_SETUP = r"""
set -e
cwd=$1; optional=$2; shift 2
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
count=$1; shift
while [ "$count" -gt 0 ]; do
  mount --bind "$1" "$1"
  mount -o remount,rw,bind,nosuid,nodev "$1"
  shift; count=$((count - 1))
done
cd "$cwd"
exec unshare --user --map-root-user --mount -- "$@"
"""
_UNSHARE = ("--user", "--map-root-user", "--mount", "--pid", "--fork", "--mount-proc",
            "--kill-child")

Stop = Literal["timeout", "limit"]


class CannotRun(Exception):
    """The program could not be started at all (not found, not executable)."""

    def __init__(self, program: str, reason: str) -> None:
        super().__init__(f"{program}: {reason}")
        self.program = program
        self.reason = reason


class Dispatch(Struct, frozen=True, kw_only=True):
    """What to run and under which confinement."""

    argv: tuple[str, ...]
    cwd: Path
    env: Mapping[str, str] = field(default_factory=dict)  # added to the cleaned environment
    writable: tuple[Path, ...] = ()
    read_only: tuple[Path, ...] = ()
    optional_read_only: tuple[Path, ...] = ()  # read-only where the mounts allow it
    timeout: float = 60.0
    output_limit: int = OUTPUT_LIMIT
    stdin: bytes = b""
    confined: bool = True  # False: the caller fingerprints around the dispatch instead
    home: Path | None = None  # the private HOME; a fresh temporary one when None
    tag: str = ""  # put in the child's environment as TAG_VARIABLE, for kill_tagged
    # told the leader's pid and start time as soon as it runs, so a caller can record them
    on_start: Callable[[int, int | None], None] | None = None


class Outcome(Struct, frozen=True, kw_only=True):
    """How a dispatch ended: what it printed, its exit status, and why it was stopped if it was."""

    stdout: bytes
    stderr: bytes
    returncode: int | None
    stop: Stop | None
    pid: int
    start_time: int | None  # the leader's start time in clock ticks since boot (Linux), None elsewhere
    seconds: float


def run(dispatch: Dispatch) -> Outcome:
    """Run the program to its end, the timeout or the byte cap; never leaves its group behind."""
    with _home(dispatch.home) as home:
        argv = list(dispatch.argv)
        if dispatch.confined:
            argv = sandboxed(argv, dispatch.cwd, dispatch.read_only, dispatch.writable,
                             dispatch.optional_read_only)
        env = clean_environment(home)
        env.update(dispatch.env)
        if dispatch.tag:
            env[TAG_VARIABLE] = dispatch.tag
        try:
            outcome = run_program(argv, cwd=dispatch.cwd, env=env, stdin=dispatch.stdin, timeout=dispatch.timeout,
                                  output_limit=dispatch.output_limit, on_start=dispatch.on_start)
        except CannotRun as error:
            raise CannotRun(dispatch.argv[0], error.reason) from None
        if dispatch.tag:
            kill_tagged(dispatch.tag)
    return outcome


def run_program(argv: Sequence[str], *, cwd: str | Path | None, env: Mapping[str, str], stdin: bytes = b"",
                timeout: float, output_limit: int = OUTPUT_LIMIT, own_session: bool = True,
                on_start: Callable[[int, int | None], None] | None = None) -> Outcome:
    """Run argv with stdin on its stdin, reading stdout and stderr up to output_limit bytes together,
    to its end or the timeout; the program (its whole process group, when it runs in a session
    of its own) is killed after. own_session=False keeps the caller's terminal, for a program
    that may ask for a passphrase on it. A program that cannot start is CannotRun."""
    began = time.monotonic()
    try:
        process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, start_new_session=own_session)
    except OSError as error:
        raise CannotRun(argv[0], error.strerror or str(error)) from None
    start_time = process_start_time(process.pid)
    try:
        if on_start is not None:
            on_start(process.pid, start_time)
        out, err, stop = exchange(process, stdin, timeout, output_limit)
    finally:
        kill_group(process, group=own_session)  # the leader is done; children it left behind go with its group
    return Outcome(stdout=out, stderr=err, returncode=process.returncode, stop=stop,
                   pid=process.pid, start_time=start_time, seconds=time.monotonic() - began)


def clean_environment(home: Path) -> dict[str, str]:
    """Our environment without GIT_* variables and the user's private ones, with a private home
    and no git configuration of the user's."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith("GIT_") and name not in PRIVATE_VARIABLES and name != TAG_VARIABLE}
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
        # reads only: never refresh the index of a repository the child must not write
        "GIT_OPTIONAL_LOCKS": "0",
    })
    return env


@contextmanager
def _home(given: Path | None) -> Iterator[Path]:
    if given is not None:
        given.mkdir(parents=True, exist_ok=True)
        yield given
        return
    with private_home() as home:
        yield home


@contextmanager
def private_home() -> Iterator[Path]:
    """An empty HOME only the child uses; removed afterwards with whatever it left there."""
    home = Path(tempfile.mkdtemp(prefix="distill-home-"))
    try:
        yield home
    finally:
        remove_tree(home)


def exchange(process: subprocess.Popen[bytes], prompt: bytes, timeout: float,
             limit: int) -> tuple[bytes, bytes, Stop | None]:
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


def kill_group(process: subprocess.Popen[bytes], *, group: bool = True) -> None:
    """Kill the whole process group the program started (only the program when not group), then reap it."""
    if group:
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


def process_start_time(pid: int) -> int | None:
    """The process's start time (clock ticks since boot) from /proc, or None where it cannot be read:
    with the pid it names one process, never a later one that reused the pid."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    # the command name (field 2) may hold spaces and parentheses: count fields after the last ')'
    fields = data[data.rfind(b")") + 2:].split()
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def kill_recorded(pid: int, start_time: int | None) -> bool:
    """Kill the process (and its group) recorded as pid with that start time, if it still is that
    process; True when one was killed."""
    if start_time is None or process_start_time(pid) != start_time:
        return False
    for send in (os.killpg, os.kill):
        try:
            send(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    return True


def tagged_processes(tag: str) -> tuple[tuple[int, int | None], ...]:
    """(pid, start time) of each of our processes whose environment carries TAG_VARIABLE=tag."""
    wanted = f"{TAG_VARIABLE}={tag}".encode()
    found: list[tuple[int, int | None]] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return ()
    for name in names:
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                entries = handle.read().split(b"\0")
        except OSError:
            continue
        if wanted in entries:
            found.append((int(name), process_start_time(int(name))))
    return tuple(found)


def kill_tagged(tag: str) -> int:
    """Kill every process of ours carrying the tag (a `setsid` straggler the group kill missed),
    each by pid and start time; how many were killed."""
    killed = 0
    for _ in range(3):  # a process may fork while we look: look again until none is left
        found = tagged_processes(tag)
        if not found:
            break
        killed += sum(kill_recorded(pid, start) for pid, start in found)
        time.sleep(0.05)
    return killed


def sandboxed(argv: list[str], cwd: Path, read_only: tuple[Path, ...], writable: tuple[Path, ...] = (),
              optional: tuple[Path, ...] = ()) -> list[str]:
    """The argv that runs argv confined: read_only locked read-only, writable bound writable
    inside them, optional read-only where the mounts allow it, in fresh PID namespace."""
    return ["unshare", *_UNSHARE, "--", "sh", "-c", _SANDBOX_SETUP, "distill-confined",
            str(cwd), str(len(optional)), *map(str, optional),
            str(len(read_only)), *map(str, read_only),
            str(len(writable)), *map(str, writable), *argv]


@functools.cache
def sandbox_available() -> bool:
    """User, mount and PID namespaces work here: probe the exact setup once per process."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    probe = Path(tempfile.mkdtemp(prefix="distill-probe-"))
    try:
        inner = probe / "inner"
        inner.mkdir()
        argv = sandboxed(["sh", "-c", "! touch ../probe 2>/dev/null && touch written"], inner,
                         (probe,), (inner,))
        done = subprocess.run(argv, cwd=probe, capture_output=True, timeout=10, check=False)
        return (done.returncode == 0 and not (probe / "probe").exists()
                and (inner / "written").exists())
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        shutil.rmtree(probe, ignore_errors=True)


def remove_tree(top: Path) -> None:
    """Remove top and everything under it without following symlinks, making read-only and
    `chmod 000` folders writable first; a missing top is fine."""
    try:
        info = os.lstat(top)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(top)
        return
    for directory, dirs, _files in os.walk(top, topdown=True, followlinks=False):
        for name in dirs:
            path = os.path.join(directory, name)
            try:
                if not os.path.islink(path):
                    os.chmod(path, stat.S_IRWXU)
            except OSError:
                pass
    try:
        os.chmod(top, stat.S_IRWXU)
    except OSError:
        pass
    # a second walk: a folder that was `chmod 000` could not be listed by the first
    for directory, dirs, _files in os.walk(top, topdown=True, followlinks=False):
        for name in dirs:
            path = os.path.join(directory, name)
            if not os.path.islink(path):
                try:
                    os.chmod(path, stat.S_IRWXU)
                except OSError:
                    pass
    shutil.rmtree(top, ignore_errors=True)
