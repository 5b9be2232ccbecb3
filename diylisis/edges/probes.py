"""The isolation substrate of `git distill preview`: throw-away probe repositories, never the user's.

Each probe gets its own repository under `$TMPDIR/distill-preview-<run>/probe-<k>/`: a bare
`repo.git` that reads the user's objects through `objects/info/alternates` (hooks off, no
fsmonitor, no gc) and a work tree `tree/` checked out detached at the base commit, stamped with
a visible `PREVIEW-PLACEHOLDER.txt`. A linked worktree of the user's repository would not do:
a probe's commits, stashes, tags, config and hooks would land in the user's repository.

Every path is written to the run file (`<git dir>/distill/runs/<run>.json`, kind "preview", fsynced)
BEFORE it is created, so `cleanup(RUN)` after a crash finds everything. The probes are read
only through our own `inspect.git` with the probe's tree as GIT_WORK_TREE and global and system
config off: a probe's planted config, fsmonitor, filters or a rewritten `.git` file never run or
redirect us. `cleanup_verify` kills what is left (by pid and start time, and by the tag each
probe's processes carry), removes each probe directory, checks it is gone and nothing of it
runs, once more after a second, retries once, and declares `DiscardFailed` with what is left.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from msgspec import Struct

from diylisis.core.errors import BadInput, GitError
from diylisis.core.preview.model import ProbeDisposition, ProbeStatus
from diylisis.edges import confinement, gitio, run_files

STAMP = "PREVIEW-PLACEHOLDER.txt"


class ProbeRef(Struct, frozen=True, kw_only=True):
    """What was (or will be) destroyed and where it lived."""

    index: int
    direction: str
    artifact_ref: str | None  # the probe's directory; None for a probe with no files (Vignette)


class ProbeOutcome(Struct, frozen=True, kw_only=True):
    """How a probe command ended."""

    index: int
    status: ProbeStatus
    exit_status: int | None
    seconds: float
    log_tail: str


class ProbeChange(Struct, frozen=True, kw_only=True):
    """What a probe changed against the base, read through our own git directory."""

    index: int
    tree: str  # the id of the probe's tree as we hashed it
    files: tuple[tuple[str, str], ...]  # (status letter, path)
    diffstat: tuple[tuple[str, int | None, int | None], ...]  # (path, added, deleted); None: binary
    blobs: Mapping[str, str]  # path -> blob id of each changed, present path
    stamp_intact: bool


class Disposition(Struct, frozen=True, kw_only=True):
    """The declared end of one probe."""

    probe: ProbeRef
    kind: ProbeDisposition
    reason: str = ""


class Substrate(Struct, frozen=True, kw_only=True):
    """One run's temporary root and the user's repository it was made from."""

    run: str
    user_root: Path  # the user's work tree
    git_dir: Path  # the user's git directory (run files live there)
    objects: Path  # the user's object directory, read by every probe through alternates
    base: str  # the base commit id
    root: Path  # $TMPDIR/distill-preview-<run>

    def probe_dir(self, index: int) -> Path:
        return self.root / f"probe-{index}"

    def tree(self, index: int) -> Path:
        return self.probe_dir(index) / "tree"


KIND = "preview"  # the kind of run this module saves (diylisis.edges.run_files)


def load_record(git_dir: Path, run: str) -> dict[str, Any]:
    """The run file's content, its kind included; BadInput when there is no such preview run."""
    stored = run_files.load(git_dir, run)
    if stored.kind != KIND:
        raise BadInput(f"run {run!r} is not a preview run")
    return {"kind": KIND, **stored.data}


def save_record(git_dir: Path, run: str, data: Mapping[str, Any]) -> None:
    """Write the run file atomically and durably (run_files.save, then an fsync of its folder)."""
    path = run_files.save(git_dir, KIND, run, dict(data))
    folder = os.open(os.path.dirname(path), os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def update_record(git_dir: Path, run: str, change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    data = load_record(git_dir, run)
    change(data)
    save_record(git_dir, run, data)
    return data


def list_runs(git_dir: Path) -> tuple[dict[str, Any], ...]:
    """Every readable preview run file of the repository, oldest first."""
    found = []
    for run in run_files.run_ids(git_dir):
        try:
            found.append(load_record(git_dir, run))
        except BadInput:
            continue
    return tuple(found)


def our_git_env(**extra: str) -> dict[str, str]:
    """The environment of our own git calls: none of the user's GIT_* variables, no global or
    system config, no optional locks (a read never rewrites the user's index)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    env.update({"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_OPTIONAL_LOCKS": "0",
                "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **extra})
    return env


def git(args: Sequence[str], cwd: Path, **extra: str) -> bytes:
    code, out, err = gitio.git_process(args, cwd, env=our_git_env(**extra))
    if code != 0:
        raise GitError(f"git {args[0]} failed: {gitio.first_line(err) or f'exit status {code}'}")
    return out


def temp_root(run: str) -> Path:
    return Path(os.path.realpath(tempfile.gettempdir())) / f"distill-preview-{run}"


def begin(user_root: Path, git_dir: Path, base: str, run: str, record: Mapping[str, Any]) -> Substrate:
    """Register the run's root in the run file, then create it 0700 (never inside the work tree)."""
    root = temp_root(run)
    user = Path(os.path.realpath(user_root))
    if root.is_relative_to(user):
        raise BadInput(f"the temporary folder {root.parent} is inside your work tree; set TMPDIR elsewhere")
    common = Path(git(["rev-parse", "--git-common-dir"], user_root).decode().strip())
    objects = (common if common.is_absolute() else user / common).resolve() / "objects"
    substrate = Substrate(run=run, user_root=user, git_dir=git_dir, objects=objects, base=base, root=root)
    save_record(git_dir, run, {**record, "kind": "preview", "run": run, "root": str(root), "base": base,
                               "status": "instantiating", "probes": []})
    os.mkdir(root, 0o700)
    (root / "logs").mkdir()
    _init_private(root / "inspect.git", objects)
    return substrate


def reopen(user_root: Path, git_dir: Path, record: Mapping[str, Any]) -> Substrate:
    """The substrate of a run file's record, for a run resumed in a later process."""
    user = Path(os.path.realpath(user_root))
    common = Path(git(["rev-parse", "--git-common-dir"], user_root).decode().strip())
    objects = (common if common.is_absolute() else user / common).resolve() / "objects"
    root = Path(str(record["root"]))
    if not root.is_dir():
        raise BadInput(f"the probes of preview {record.get('run')} are gone ({root}); start a new preview")
    return Substrate(run=str(record["run"]), user_root=user, git_dir=git_dir, objects=objects,
                     base=str(record["base"]), root=root)


def _init_private(git_dir: Path, objects: Path, *extra_objects: Path) -> None:
    git(["init", "-q", "--bare", str(git_dir)], git_dir.parent)
    for key, value in (("core.hooksPath", os.devnull), ("core.fsmonitor", "false"), ("gc.auto", "0"),
                       ("core.untrackedCache", "false"), ("maintenance.auto", "false")):
        git(["--git-dir", str(git_dir), "config", key, value], git_dir.parent)
    alternates = git_dir / "objects" / "info" / "alternates"
    alternates.write_text("".join(f"{path}\n" for path in (objects, *extra_objects)), encoding="utf-8")


def create_probe(substrate: Substrate, index: int, direction: str, marker: str) -> ProbeRef:
    """Register probe k (fsync), then make its repository and tree at the base and stamp it."""
    directory = substrate.probe_dir(index)
    probe = ProbeRef(index=index, direction=direction, artifact_ref=str(directory))

    def register(data: dict[str, Any]) -> None:
        data["probes"].append({"index": index, "direction": direction, "artifact_ref": str(directory),
                               "status": ProbeStatus.REGISTERED})

    update_record(substrate.git_dir, substrate.run, register)
    directory.mkdir(0o700)
    repo = directory / "repo.git"
    _init_private(repo, substrate.objects)
    git(["--git-dir", str(repo), "update-ref", "HEAD", substrate.base], directory)
    git(["--git-dir", str(repo), "worktree", "add", "-q", "--detach", str(directory / "tree"), substrate.base],
        directory, GIT_LFS_SKIP_SMUDGE="1")
    index_file = repo / "worktrees" / "tree" / "index"
    (substrate.root / f"index-{index}").write_bytes(index_file.read_bytes())
    stamp = stamp_text(substrate.run, index, direction, marker)
    (directory / "tree" / STAMP).write_text(stamp, encoding="utf-8")
    (directory / "home").mkdir()
    _set_probe(substrate, index, status=ProbeStatus.CREATED, stamp_sha256=hashlib.sha256(stamp.encode()).hexdigest())
    return probe


def stamp_text(run: str, index: int, direction: str, marker: str) -> str:
    return (f"PLACEHOLDER PROBE {index} of preview run {run}: {direction}\n"
            "Everything in this folder is a throw-away placeholder, evidence for no claim.\n"
            f"It will be deleted when the preview ends. Marker: {marker}\n")


def _set_probe(substrate: Substrate, index: int, **values: Any) -> None:
    def change(data: dict[str, Any]) -> None:
        for entry in data["probes"]:
            if entry["index"] == index:
                entry.update(values)

    update_record(substrate.git_dir, substrate.run, change)


def probe_tag(run: str, index: int) -> str:
    return f"preview-{run}-probe-{index}"


def run_probes(substrate: Substrate, commands: Mapping[int, str], env: Mapping[int, Mapping[str, str]], *,
               timeout: float, confined: bool, jobs: int = 4) -> tuple[ProbeOutcome, ...]:
    """Run each probe's command (a shell command line) in its tree, in parallel, confined: the
    user's repository and the temporary root read-only, the probe's own folder writable."""
    read_only = tuple(dict.fromkeys((substrate.user_root, substrate.git_dir, substrate.objects.parent,
                                     substrate.root)))
    lock = threading.Lock()

    def one(index: int) -> ProbeOutcome:
        directory = substrate.probe_dir(index)

        def started(pid: int, start_time: int | None) -> None:
            with lock:
                _set_probe(substrate, index, pid=pid, start_time=start_time)

        outcome = confinement.run(confinement.Dispatch(
            argv=("sh", "-c", commands[index]), cwd=directory / "tree",
            env={**env[index], "DISTILL_PREVIEW_RUN": substrate.run}, writable=(directory,),
            read_only=read_only, timeout=timeout, output_limit=1024 * 1024, confined=confined,
            home=directory / "home", tag=probe_tag(substrate.run, index), on_start=started))
        log = outcome.stdout + outcome.stderr
        (substrate.root / "logs" / f"probe-{index}.log").write_bytes(log)
        tail = " / ".join(log.decode("utf-8", "replace").strip().splitlines()[-3:])
        status = (ProbeStatus.TIMED_OUT if outcome.stop == "timeout"
                  else ProbeStatus.POPULATED if outcome.returncode == 0 else ProbeStatus.FAILED)
        with lock:
            _set_probe(substrate, index, status=status, exit_status=outcome.returncode)
        return ProbeOutcome(index=index, status=status, exit_status=outcome.returncode,
                            seconds=outcome.seconds, log_tail=tail)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(one, index) for index in sorted(commands)]
        try:
            return tuple(future.result() for future in futures)
        except BaseException:  # Ctrl-C: end the probes now, or the pool waits for their timeouts
            for future in futures:
                future.cancel()
            for _ in range(3):
                for index in commands:
                    confinement.kill_tagged(probe_tag(substrate.run, index))
                time.sleep(0.1)
            raise


def harvest_changes(substrate: Substrate, index: int) -> ProbeChange:
    """What probe k changed against the base: hashed by our inspect.git with the probe's tree as
    work tree (its `.git`, config and hooks never read), the stamp left out and re-checked."""
    tree_dir = substrate.tree(index)
    env = {"GIT_DIR": str(substrate.root / "inspect.git"), "GIT_WORK_TREE": str(tree_dir),
           "GIT_INDEX_FILE": str(substrate.root / f"index-{index}")}
    inspect = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=" + os.devnull]
    git([*inspect, "add", "-A", "--force", "--", ".", f":(exclude){STAMP}"], substrate.root, **env)
    tree = git([*inspect, "write-tree"], substrate.root, **env).decode().strip()
    names = git(["diff-tree", "-r", "-z", "--no-renames", "--name-status", substrate.base, tree],
                substrate.root, **env).split(b"\0")
    files = tuple((names[i].decode(), names[i + 1].decode("utf-8", "surrogateescape"))
                  for i in range(0, len(names) - 1, 2))
    numstat = git(["diff-tree", "-r", "-z", "--no-renames", "--numstat", substrate.base, tree],
                  substrate.root, **env).split(b"\0")
    diffstat = []
    for entry in filter(None, numstat):
        added, deleted, path = entry.decode("utf-8", "surrogateescape").split("\t", 2)
        diffstat.append((path, None if added == "-" else int(added), None if deleted == "-" else int(deleted)))
    listing = git(["ls-tree", "-r", "-z", tree], substrate.root, **env).split(b"\0")
    changed = {path for _, path in files}
    blobs = {}
    for entry in filter(None, listing):
        meta, path = entry.decode("utf-8", "surrogateescape").split("\t", 1)
        if path in changed:
            blobs[path] = meta.split()[2]
    stamp_ok = _stamp_intact(substrate, index)
    return ProbeChange(index=index, tree=tree, files=files, diffstat=tuple(diffstat), blobs=blobs,
                       stamp_intact=stamp_ok)


def read_blob(substrate: Substrate, tree: str, path: str) -> bytes | None:
    """A file of a hashed probe tree, read from our own object store; None when absent."""
    env = {"GIT_DIR": str(substrate.root / "inspect.git")}
    code, out, _ = gitio.git_process(["cat-file", "blob", f"{tree}:{path}"], substrate.root,
                                     env=our_git_env(**env))
    return out if code == 0 else None


def _stamp_intact(substrate: Substrate, index: int) -> bool:
    expected = next((entry.get("stamp_sha256") for entry in load_record(substrate.git_dir, substrate.run)["probes"]
                     if entry["index"] == index), None)
    path = substrate.tree(index) / STAMP
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        return hashlib.sha256(path.read_bytes()).hexdigest() == expected
    except OSError:
        return False


def cleanup_verify(git_dir: Path, run: str) -> tuple[Disposition, ...]:
    """Destroy every registered probe of the run and verify it is gone, then the root; one retry;
    each probe's Disposition, saved in the run file."""
    data = load_record(git_dir, run)
    probes = data.get("probes", [])
    for _attempt in range(2):
        for entry in probes:
            _destroy(run, entry)
        time.sleep(1.0)  # a straggler the kill missed would re-create its folder by now
        left = {entry["index"]: _what_is_left(run, entry) for entry in probes}
        if not any(left.values()):
            break
    dispositions = []
    for entry in probes:
        probe = ProbeRef(index=entry["index"], direction=entry["direction"], artifact_ref=entry["artifact_ref"])
        reason = left[entry["index"]]
        if reason:
            dispositions.append(Disposition(probe=probe, kind=ProbeDisposition.DISCARD_FAILED, reason=reason))
        elif entry.get("status") == ProbeStatus.REGISTERED:
            dispositions.append(Disposition(probe=probe, kind=ProbeDisposition.FILE_DESTROYED,
                                            reason="absent, interrupted before it was created"))
        else:
            dispositions.append(Disposition(probe=probe, kind=ProbeDisposition.FILE_DESTROYED))
    root = Path(data["root"]) if data.get("root") else None
    if root is not None and not any(d.kind is ProbeDisposition.DISCARD_FAILED for d in dispositions):
        confinement.remove_tree(root)
    root_left = root is not None and os.path.lexists(root)

    def record(saved: dict[str, Any]) -> None:
        saved["dispositions"] = [{"probe": {"index": d.probe.index, "direction": d.probe.direction,
                                            "artifact_ref": d.probe.artifact_ref},
                                  "disposition": d.kind, "reason": d.reason} for d in dispositions]
        saved["root_left"] = root_left
        saved["cleaned"] = True

    update_record(git_dir, run, record)
    return tuple(dispositions)


def _destroy(run: str, entry: Mapping[str, Any]) -> None:
    if entry.get("pid"):
        confinement.kill_recorded(int(entry["pid"]), entry.get("start_time"))
    confinement.kill_tagged(probe_tag(run, entry["index"]))
    if entry.get("artifact_ref"):
        confinement.remove_tree(Path(entry["artifact_ref"]))


def _what_is_left(run: str, entry: Mapping[str, Any]) -> str:
    left = []
    if entry.get("artifact_ref") and os.path.lexists(entry["artifact_ref"]):
        left.append(f"{entry['artifact_ref']} still exists")
    running = confinement.tagged_processes(probe_tag(run, entry["index"]))
    if running:
        left.append("still running: pid " + ", ".join(str(pid) for pid, _ in running))
    return "; ".join(left)
