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

import os
import shutil
import stat
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from diylisis.core.errors import EXIT_FAILED, ConfigError, DistillError, GitError
from diylisis.core.model import Realization, ZeroMemoryVerdict
from diylisis.core.refuter import RefuterInput
from diylisis.core.refuter.verdict import InvalidVerdict, parse
from diylisis.edges import confinement, gitio
from diylisis.edges.config import RefuterSettings
from diylisis.edges.confinement import private_home, sandbox_available
from diylisis.edges.refuter.prompt import build
from diylisis.edges.standing import (
    Standing,
    fingerprint,
    fingerprint_changes,
    optional_read_only,
    protected_paths,
    resolve_programs,
    watched_directories,
)

OUTPUT_LIMIT = confinement.OUTPUT_LIMIT  # bytes of stdout and stderr together; a verdict is a few KB


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
    protected = protected_paths(root)
    programs = resolve_programs(root)
    watched = watched_directories(root, protected)
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
            changed = fingerprint_changes(before, fingerprint(root))
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
        try:
            outcome = confinement.run(confinement.Dispatch(
                argv=tuple(settings.command), cwd=tree,
                env=environment(request, root, settings, home), read_only=(*protected, tree),
                optional_read_only=optional_read_only(watched, protected),
                timeout=settings.timeout, output_limit=OUTPUT_LIMIT, stdin=prompt,
                confined=use_sandbox, home=home))
        except confinement.CannotRun as error:
            raise ConfigError(f"[refuter] command {settings.command[0]!r} cannot be run: "
                              f"{error.reason}") from None
    stop, out, err = outcome.stop, outcome.stdout, outcome.stderr
    if stop == "timeout":
        return "", f"no answer within {settings.timeout:g} s; the process group was killed"
    if stop == "limit":
        return "", (f"it printed more than {OUTPUT_LIMIT // (1024 * 1024)} MiB on stdout and stderr; "
                    "the process group was killed")
    if outcome.returncode != 0:
        tail = " / ".join(err.decode("utf-8", "replace").strip().splitlines()[-3:])
        return "", f"exit status {outcome.returncode}" + (f" ({tail})" if tail else "")
    try:
        return out.decode("utf-8"), None
    except UnicodeDecodeError:
        return "", "the verdict on stdout is not UTF-8 text"


def environment(request: RefuterInput, root: Path, settings: RefuterSettings,
                home: Path) -> dict[str, str]:
    """The child's environment: no GIT_* variable of ours, a private home, no git config of the
    user's, and the DISTILL_* names."""
    env = confinement.clean_environment(home)
    env.update({
        "DISTILL_TARGET": str(request.target),
        "DISTILL_ROLE": request.contract.role,
        "DISTILL_REPOSITORY": str(root),
        "DISTILL_REVISION": request.revision or "",
        "DISTILL_REALIZATION": settings.realization,
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


