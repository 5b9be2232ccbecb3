"""Standing checks around a dispatched program: what must read the same after it ran.

Where the program ran confined these catch what the mounts could not forbid (a moved repository,
a changed global config, a planted program on PATH); where it ran unconfined, `fingerprint` of
the repository is compared before and after and any change is refused (fingerprint-and-refuse).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from msgspec import Struct

from diylisis.edges import gitio


class Standing(Struct, frozen=True, kw_only=True):
    """What must not change while a dispatched program runs: the directories the repository paths name
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
                   user_config=_user_config(), programs=program_marks(watched, programs))

    def changes(self, root: Path, protected: tuple[Path, ...], who: str = "the refuter") -> str | None:
        """What changed since, in words (who names the program that ran); None when nothing did."""
        now = _identities((root, *protected))
        for (path, *was), (_, *is_now) in zip(self.directories, now, strict=True):
            if was != is_now:
                return (f"the repository folder {path} is no longer the folder it was when "
                        f"{who} started (it was moved, replaced or removed); check where your "
                        "repository is now")
        if _git_config(root) != self.git_config:
            return (f"git's configuration changed while {who} ran (a global, system or "
                    "repository config file); compare `git config --list --show-origin` with "
                    "what you expect")
        if _user_config() != self.user_config:
            from diylisis.edges.config import user_config_path

            return (f"your own config {user_config_path()} changed while {who} ran; check "
                    "which refuter command it names now")
        now_marks = dict(program_marks(tuple(Path(path) for path, _ in self.programs), ()))
        for path, mark in self.programs:
            if now_marks.get(path) != mark:
                return (f"{path} changed while {who} ran (a program there, or one diylisis "
                        "runs next, may have been planted or replaced); check it before you run "
                        "git or diylisis again")
        return None


def program_marks(watched: tuple[Path, ...], programs: tuple[str, ...]) -> tuple[tuple[str, tuple[int, ...]], ...]:
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
    marks: dict[str, tuple[int, ...]] = {}
    for path in paths:
        try:
            info = os.lstat(path)
            marks[path] = (info.st_dev, info.st_ino, info.st_mode, info.st_size, info.st_mtime_ns,
                           info.st_ctime_ns)
        except OSError:
            marks[path] = (-1,)
    return tuple(sorted(marks.items()))


def resolve_programs(root: Path) -> tuple[str, ...]:
    """git and the signing programs of git config, resolved to absolute paths now, before any
    dispatch, so that what runs after a refuter is what PATH named before it (gitio.program_path)."""
    from diylisis.edges import signing

    code, out, _ = gitio.try_git(["config", "-z", "--get-regexp", r"^gpg\..*program$"], root)
    values = {}
    for entry in out.split(b"\0") if code == 0 else ():
        key, _, value = entry.decode("utf-8", "surrogateescape").partition("\n")
        if key:
            values[key.lower()] = value
    return (gitio.git_program(), *(signing.program_for(name, values) for name in signing.FORMATS))


def watched_directories(root: Path, protected: tuple[Path, ...]) -> tuple[Path, ...]:
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


def optional_read_only(watched: tuple[Path, ...], protected: tuple[Path, ...]) -> tuple[Path, ...]:
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
    from diylisis.edges.config import user_config_path

    try:
        with open(user_config_path(), "rb") as handle:
            return handle.read()
    except OSError:
        return None


def _git_config(root: Path) -> bytes:
    code, out, err = gitio.try_git(["config", "--list", "--show-origin", "-z"], root)
    return out if code == 0 else b"unreadable " + err


def protected_paths(root: Path) -> tuple[Path, ...]:
    """The work tree, the git directory and the common git directory (linked worktrees)."""
    paths = {Path(root).resolve(), *git_dirs(root)}
    return tuple(sorted(paths, key=lambda p: (len(p.parts), str(p))))


def git_dirs(root: Path) -> tuple[Path, ...]:
    """The git directory and the common git directory (one path when they are the same)."""
    out = gitio.run_git(["rev-parse", "--absolute-git-dir", "--git-common-dir"], root)
    git_dir, common = out.decode("utf-8", "surrogateescape").splitlines()[:2]
    common_path = Path(common) if Path(common).is_absolute() else root / common
    return tuple(dict.fromkeys((Path(git_dir).resolve(), common_path.resolve())))

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
    for git_dir in git_dirs(root):
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


def fingerprint_changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    keys = before.keys() | after.keys()
    changed = sorted(key for key in keys if before.get(key) != after.get(key))
    return changed[:5] + ([f"and {len(changed) - 5} more"] if len(changed) > 5 else [])
