"""Speed side by side with the peers: the commit-msg hook, history scans and verify.

Usage: python bench/perf.py [--commits N] [--runs N] [--seed S] [--cache DIR] [--no-peers]
                            [--repos-root DIR] [--real-only]

Everything is built here and kept under the cache folder (bench/.cache by default): a
synthetic history made with `git fast-import` (varied English and Korean messages,
reproducible from --seed), a typical message file, a history in which every commit carries a
certificate, and the peers installed from their registries (gitlint from PyPI into a venv;
commitlint with @commitlint/config-conventional from npm, skipped with a note where npm is
missing). Each figure is a ratio against its peer measured in the same run, because absolute
seconds on a shared machine mean little. The last line is

    perf: hook_vs_gitlint=R hook_vs_python=R installed_hook_vs_gitlint=R installed_hook_vs_python=R
          scan_vs_commitlint=R scan_vs_gitlint=R scan_vs_floor=R verify_vs_scan=R hook_rss_mb=M

(on one line): time ratios are ours over theirs, scan ratios are our commits per second over
theirs. The hook is timed two ways: `git distill hook commit-msg FILE`, through git's
dispatcher, and `PYTHON -m diylisis hook commit-msg FILE`, the command the script that
`git distill install-hooks` writes runs (installed_hook_*). A figure whose command does not
exist (yet) or whose peer is missing reads `n/a`.

Real histories (--repos-root DIR, laid out as bench/quality.py reads it: DIR/<owner>+<name>/repo
is a git directory): `git distill scan --range` over git/git from its 3,000th first-parent commit
to HEAD and over the whole of steveyegge/beads, each with the default workers and with -j 1
against one `git log -z` read of the same range in the same run, with peak RSS. A missing
mirror is skipped with a note. The line

    perf-real: git_vs_floor=R git_rss_mb=M git_j1_vs_floor=R git_j1_rss_mb=M
               beads_vs_floor=R beads_rss_mb=M beads_j1_vs_floor=R beads_j1_rss_mb=M

(on one line) gives our commits per second over the floor's, and our peak RSS (of the largest
process: a worker's, when there are workers). --real-only measures only these.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct
from msgspec.structs import replace

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CACHE = ROOT / "bench" / ".cache"
GENERATOR_VERSION = 1  # bump when the messages or the repository layout change: the cache key holds it
EPOCH = 1_600_000_000
IDENTITY = {
    "GIT_AUTHOR_NAME": "Bench Author",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench Author",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}
OK_CODES = (0, 1)  # 1 is "findings" / "not portable" / "violations": the run itself worked
GITLINT_OK = tuple(range(251))  # gitlint exits with its violation count; 251 and up are its errors
GITLINT_COMMITS = 1000  # gitlint spawns git processes per commit: minutes on the whole history

# --- messages ------------------------------------------------------------------------------
# Vocabulary written for this benchmark. Clean messages say what changed and why in the
# repository's own words; residue messages carry the session-bound tokens the detectors exist
# for (deixis to a conversation, task numbers, scratch paths, narration of test runs).

EN_PARTS = (
    "config loader", "tokenizer", "upload queue", "cache layer", "date parser", "report writer",
    "command-line flags", "log rotation", "index builder", "search ranking", "retry policy",
    "export format", "error messages", "progress bar", "locale fallback", "checksum step",
    "archive reader", "plugin registry", "rate limiter", "thumbnail renderer",
)
EN_VERBS = (
    "Add", "Fix", "Remove", "Rename", "Simplify", "Document", "Guard", "Validate", "Cache",
    "Split", "Handle", "Report", "Speed up", "Test", "Harden",
)
EN_DETAILS = (
    "empty input", "trailing whitespace", "very long lines", "missing keys", "duplicate entries",
    "timeouts on slow disks", "unicode file names", "zero-length files", "negative offsets",
    "nested sections", "windows line endings", "partial writes", "expired tokens",
)
EN_BEHAVIORS = (
    "returns an empty result instead of raising", "reports the offending line number",
    "keeps the previous value", "stops after three attempts", "writes the file atomically",
    "skips the entry with a warning", "sorts the output by name", "rejects the input with exit code 2",
    "reuses the compiled patterns", "reads the data in one pass",
)
EN_CONSEQUENCES = (
    "users saw a stack trace", "the nightly export stopped halfway", "two runs wrote different output",
    "the cache grew without bound", "tests failed on machines with a different locale",
    "the error named the wrong file", "large inputs took minutes",
)
EN_TYPES = ("feat", "fix", "docs", "refactor", "perf", "test", "chore", "build")
EN_RESIDUE = (
    "as discussed earlier", "see above", "per our chat", "Task #{n}", "/tmp/build-{n}.log",
    "I ran the tests and they pass", "the v{n} shim from yesterday", "the approach we agreed on",
    "the fix from the previous session",
)
KO_PARTS = (
    "설정 로더", "토크나이저", "업로드 대기열", "캐시 계층", "날짜 파서", "보고서 작성기",
    "명령줄 옵션", "로그 순환", "색인 생성기", "검색 순위", "재시도 정책", "내보내기 형식",
)
KO_SUBJECT_VERBS = ("추가", "수정", "제거", "정리", "문서화", "검증 강화", "속도 개선", "테스트 추가")
KO_DETAILS = (
    "빈 입력", "줄 끝 공백", "아주 긴 줄", "누락된 키", "중복 항목", "느린 디스크의 시간 초과",
    "유니코드 파일 이름", "크기가 0인 파일", "중첩된 섹션",
)
KO_BEHAVIORS = (
    "예외 대신 빈 결과를 돌려줍니다", "문제가 된 줄 번호를 알려줍니다", "이전 값을 유지합니다",
    "세 번 시도한 뒤 멈춥니다", "파일을 원자적으로 씁니다", "경고와 함께 항목을 건너뜁니다",
    "출력을 이름순으로 정렬합니다", "종료 코드 2로 입력을 거부합니다",
)
KO_CONSEQUENCES = (
    "사용자가 스택 추적을 보았습니다", "야간 내보내기가 중간에 멈췄습니다",
    "두 번의 실행이 서로 다른 결과를 냈습니다", "캐시가 끝없이 커졌습니다",
    "다른 로캘의 기기에서 테스트가 실패했습니다",
)
KO_RESIDUE = ("아까 논의한 대로", "위에서 말한 방식으로", "지난 세션에서 정한 대로", "작업 #{n}", "/tmp/run{n}.log")
TRAILERS = (
    "Signed-off-by: Bench Author <bench@example.com>",
    "Reviewed-by: Second Reviewer <reviewer@example.com>",
    "Co-authored-by: Pair Partner <pair@example.com>",
)


def _wrap(text: str) -> str:
    return "\n".join(textwrap.wrap(text, width=72, break_long_words=False, break_on_hyphens=False))


def _residue(rng: random.Random, pool: Sequence[str]) -> str:
    return rng.choice(pool).format(n=rng.randint(2, 99))


def english_message(rng: random.Random, residue: bool) -> str:
    """One English commit message: subject, zero to three body paragraphs, maybe trailers."""
    part, detail = rng.choice(EN_PARTS), rng.choice(EN_DETAILS)
    verb = rng.choice(EN_VERBS)
    if rng.random() < 0.35:
        subject = f"{rng.choice(EN_TYPES)}: {verb.lower()} {detail} in the {part}"
    else:
        subject = f"{verb} {detail} in the {part}"
    paragraphs = []
    for _ in range(rng.choice((0, 1, 1, 2, 2, 3))):
        shape = rng.randrange(3)
        if shape == 0:
            text = (f"The {part} now {rng.choice(EN_BEHAVIORS)} when it meets {detail}. "
                    f"Before this change {rng.choice(EN_CONSEQUENCES)}.")
        elif shape == 1:
            text = (f"With {rng.choice(EN_DETAILS)} the {rng.choice(EN_PARTS)} {rng.choice(EN_BEHAVIORS)}, "
                    f"where before {rng.choice(EN_CONSEQUENCES)}.")
        else:
            text = "\n".join(f"- {rng.choice(EN_PARTS)}: {rng.choice(EN_BEHAVIORS)}"
                             for _ in range(rng.randint(2, 4)))
            paragraphs.append(text)
            continue
        paragraphs.append(_wrap(text))
    if residue:
        token = _residue(rng, EN_RESIDUE)
        sentence = f"This follows {token}." if rng.random() < 0.5 else f"Done {token}, see the log."
        if paragraphs and rng.random() < 0.5:
            paragraphs[-1] += "\n" + _wrap(sentence)
        else:
            paragraphs.append(_wrap(sentence))
    return _assemble(rng, subject, paragraphs)


def korean_message(rng: random.Random, residue: bool) -> str:
    """One Korean commit message (a few technical words stay in English, as people write them)."""
    part, detail = rng.choice(KO_PARTS), rng.choice(KO_DETAILS)
    subject = f"{part}의 {detail} 처리 {rng.choice(KO_SUBJECT_VERBS)}"
    paragraphs = []
    for _ in range(rng.choice((0, 1, 1, 2))):
        if rng.random() < 0.5:
            text = f"{detail}을 만나면 {part}가 이제 {rng.choice(KO_BEHAVIORS)}. 이전에는 {rng.choice(KO_CONSEQUENCES)}"
        else:
            text = f"{rng.choice(KO_PARTS)}는 {rng.choice(KO_DETAILS)}에서도 {rng.choice(KO_BEHAVIORS)}."
        paragraphs.append(_wrap(text))
    if residue:
        token = _residue(rng, KO_RESIDUE)
        paragraphs.append(_wrap(f"{token} 변경했습니다."))
    return _assemble(rng, subject, paragraphs)


def _assemble(rng: random.Random, subject: str, paragraphs: list[str]) -> str:
    trailers = []
    if rng.random() < 0.25:
        trailers = rng.sample(TRAILERS, rng.randint(1, 2))
    blocks = [subject, *paragraphs] + (["\n".join(trailers)] if trailers else [])
    return "\n\n".join(blocks) + "\n"


def make_messages(count: int, seed: int, *, residue_share: float = 0.3, korean_share: float = 0.25) -> list[str]:
    """count messages reproducible from seed; residue_share of them carry residue tokens."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        residue = rng.random() < residue_share
        korean = rng.random() < korean_share
        out.append(korean_message(rng, residue) if korean else english_message(rng, residue))
    return out


def typical_message(seed: int) -> str:
    """The hook's input: a clean English message with a subject and a two-paragraph body."""
    rng = random.Random(seed)
    while True:
        message = english_message(rng, residue=False)
        if message.count("\n\n") >= 2 and "-by:" not in message:
            return message


# --- repositories --------------------------------------------------------------------------

FILES = tuple(f"src/{name.replace(' ', '_').replace('-', '_')}.py" for name in EN_PARTS) + ("README.md",)


def git_env(home: Path, bindir: Path) -> dict[str, str]:
    """An environment isolated from this machine's git configuration, with a fixed identity.

    Bytecode is cached under home/../pycache for every Python program measured (ours and
    gitlint alike): an installed package has its .pyc files, and a PYTHONDONTWRITEBYTECODE
    left in the environment would otherwise make each run compile every module again
    (about 50 ms, a fifth of the hook's run, on the machine this was written on).
    """
    env = dict(os.environ)
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "PYTHONDONTWRITEBYTECODE"):
        env.pop(name, None)
    env.update(IDENTITY)
    env.update({"HOME": str(home), "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
                "NO_COLOR": "1", "LC_ALL": "C.UTF-8", "PYTHONPYCACHEPREFIX": str(home.parent / "pycache")})
    env["PATH"] = str(bindir) + os.pathsep + env.get("PATH", "")
    return env


def _data(payload: bytes) -> bytes:
    return b"data %d\n" % len(payload) + payload + b"\n"


def fast_import_stream(messages: Sequence[str], ref: str = "refs/heads/main") -> bytes:
    """A linear history, one commit per message, each touching one small file of a fixed set."""
    chunks = []
    who = f"{IDENTITY['GIT_AUTHOR_NAME']} <{IDENTITY['GIT_AUTHOR_EMAIL']}>"
    for number, message in enumerate(messages, start=1):
        when = f"{EPOCH + number * 60} +0000"
        path = FILES[number % len(FILES)]
        body = f"# revision {number} of {path}\nVALUE = {number}\n".encode()
        chunks.append(f"commit {ref}\nmark :{number}\nauthor {who} {when}\ncommitter {who} {when}\n".encode())
        chunks.append(_data(message.encode("utf-8")))
        if number > 1:
            chunks.append(f"from :{number - 1}\n".encode())
        chunks.append(f"M 100644 inline {path}\n".encode() + _data(body))
    chunks.append(b"done\n")
    return b"".join(chunks)


def git(path: Path, env: dict[str, str], *args: str, input: bytes | None = None) -> bytes:
    """Run git in path; a failure stops the benchmark with git's own words."""
    done = subprocess.run(["git", *args], cwd=path, env=env, input=input, capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"perf: git {' '.join(args)} failed: {done.stderr.decode(errors='replace').strip()}")
    return done.stdout


def build_history(path: Path, messages: Sequence[str], env: dict[str, str]) -> None:
    """A fresh repository at path holding one commit per message (git fast-import, then checkout)."""
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    git(path, env, "init", "-q", "-b", "main")
    git(path, env, "config", "commit.cleanup", "verbatim")
    git(path, env, "config", "core.quotePath", "false")
    git(path, env, "fast-import", "--quiet", "--done", input=fast_import_stream(messages))
    git(path, env, "checkout", "-q", "-f", "main")


def cached_history(cache: Path, name: str, messages: Sequence[str], env: dict[str, str], key: str) -> Path:
    """The repository for key, built once and reused while its stamp matches."""
    path = cache / name
    stamp = path / ".git" / "perf-stamp"
    if stamp.exists() and stamp.read_text() == key:
        return path
    started = time.perf_counter()
    build_history(path, messages, env)
    stamp.write_text(key)
    print(f"built {name}: {len(messages)} commits in {time.perf_counter() - started:.1f}s", flush=True)
    return path


# --- the certified history -----------------------------------------------------------------


def certify_history(path: Path) -> tuple[list[tuple[bytes, dict]], int]:
    """Certify every commit message of path in this process with the real engine.

    The engine runs with the edges `git distill certify` uses (detectors, refuter, gate answers
    a hook gives), except that the record is read from the walk and the certificate is captured
    instead of written one `git notes` transaction at a time; `write_certificates` stores them
    all at once. Returns ((message bytes, certificate dict) per certified commit, count refused).
    """
    from diylisis.app import certification
    from diylisis.app.hooks import shared as hooks
    from diylisis.core import codec, engine
    from diylisis.core.model import RecordKind, Snapshot, Target
    from diylisis.edges.gitio import history, open_repo

    workspace = certification.Workspace.open(path)
    role = workspace.config.hooks.role
    gate = hooks.hook_gate(role)
    request = hooks.hook_request(workspace, role)
    certified: list[tuple[bytes, dict]] = []
    refused = 0
    for commit_id, data in history.walk_messages(open_repo(path), "HEAD"):
        target = Target(kind=RecordKind.COMMIT, locator=commit_id)
        snapshot = Snapshot(target=target, data=data, boundary=f"message bytes after the header of commit {commit_id}",
                            revision=commit_id, tree_revision=commit_id)
        captured: list[dict] = []
        edges = replace(certification.edges(workspace, target, gate, check_only=True),
                        read=lambda snapshot=snapshot: snapshot, save=lambda state: None,
                        store=lambda cert, snap, captured=captured: captured.append(codec.certificate_to_dict(cert)))
        state = certification.start(workspace, target, request, (), check_dirty=False)
        result = engine.run(state, edges)
        if result.state.status == "certified" and captured:
            certified.append((data, captured[0]))
        else:
            refused += 1
    return certified, refused


def write_certificates(path: Path, entries: Sequence[tuple[bytes, dict]], env: dict[str, str]) -> None:
    """Store certificates as `diylisis.edges.store.put` lays them out, in one git fast-import.

    One note per snapshot blob under the notes ref (the line `store.serialize` makes, keyed by
    `store.blob_id`), and every snapshot blob kept reachable from refs/distill/snapshots.
    """
    from diylisis.edges import store

    config = store.settings(path)
    who = f"{IDENTITY['GIT_COMMITTER_NAME']} <{IDENTITY['GIT_COMMITTER_EMAIL']}> {EPOCH} +0000"
    blobs = []
    chunks = []
    for number, (data, _certificate) in enumerate(entries, start=1):
        chunks.append(b"blob\nmark :%d\n" % number + _data(data))
        blobs.append(store.blob_id(data, config.object_format))
    notes = [f"commit {config.notes_ref}\ncommitter {who}\n".encode(), _data(b"distill: certificates\n")]
    tree = [f"commit {store.SNAPSHOTS_REF}\ncommitter {who}\n".encode(), _data(b"distill: keep snapshots\n")]
    for blob, (_, certificate) in zip(blobs, entries, strict=True):
        line = store.serialize(certificate) + "\n"
        # fast-import's N command annotates commits only; a note is a tree entry named by the
        # annotated object's id, here with the one-level fan-out git uses at this many notes
        notes.append(f"M 100644 inline {blob[:2]}/{blob[2:]}\n".encode() + _data(line.encode("utf-8")))
        tree.append(f"M 100644 {blob} {blob[:2]}/{blob[2:]}\n".encode())
    stream = b"".join(chunks) + b"".join(notes) + b"\n" + b"".join(tree) + b"\ndone\n"
    git(path, env, "fast-import", "--quiet", "--done", input=stream)


def certified_history(cache: Path, messages: Sequence[str], env: dict[str, str], key: str) -> tuple[Path, str]:
    """A history whose commits all carry certificates; (path, how many certified of how many)."""
    path = cache / "certified"
    stamp = path / ".git" / "perf-certified"
    if not (stamp.exists() and stamp.read_text().startswith(key + "\n")):
        build_history(path, messages, env)
        started = time.perf_counter()
        entries, refused = certify_history(path)
        write_certificates(path, entries, env)
        summary = f"{len(entries)} of {len(entries) + refused} commits certified"
        stamp.write_text(f"{key}\n{summary}")
        print(f"certified history: {summary} in {time.perf_counter() - started:.1f}s", flush=True)
    return path, stamp.read_text().split("\n", 1)[1]


def clean_messages(count: int, seed: int) -> list[str]:
    """Messages without residue tokens that the detectors find nothing in."""
    from diylisis.core.detectors import DetectSettings, detect_text, is_blocking

    settings = DetectSettings.from_mapping({})
    rng_seed = seed
    out: list[str] = []
    while len(out) < count:
        for message in make_messages(count, rng_seed, residue_share=0.0):
            findings, _ = detect_text(message, None, settings)
            if not any(is_blocking(f) for f in findings):
                out.append(message)
                if len(out) == count:
                    break
        rng_seed += 1_000_003
    return out


# --- peers ---------------------------------------------------------------------------------


def install_ours(cache: Path) -> Path:
    """The bin folder of a venv holding diylisis installed from this checkout as the README installs it.

    A regular install, not the editable one a development venv has: an editable install adds
    an import hook to every interpreter start (about 10 ms), which users do not pay. The venv
    is reinstalled whenever the package source changes; its python is also the bare-python
    peer, so both start the same interpreter with the same site-packages.
    """
    venv = cache / "peers" / "ours"
    bindir = venv / "bin"
    stamp = venv / "source-digest"
    digest = hashlib.sha256()
    for path in [ROOT / "pyproject.toml", *sorted((ROOT / "diylisis").rglob("*"))]:
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(f"{path.relative_to(ROOT)}\n".encode() + path.read_bytes())
    if stamp.exists() and stamp.read_text() == digest.hexdigest() and (bindir / "git-distill").exists():
        return bindir
    started = time.perf_counter()
    fresh = not (bindir / "python").exists()
    if fresh:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    # pip reinstalls a package from a local folder even at the same version, and brings any
    # runtime dependency added since the venv was made
    done = subprocess.run([str(bindir / "pip"), "install", "-q", str(ROOT)], capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"perf: installing diylisis failed: {done.stderr.decode(errors='replace').strip()[-300:]}")
    stamp.write_text(digest.hexdigest())
    print(f"installed diylisis from {ROOT.name} into the benchmark venv in {time.perf_counter() - started:.1f}s",
          flush=True)
    return bindir


def install_gitlint(cache: Path) -> Path | None:
    """gitlint from PyPI in a venv of its own under the cache; None (with a note) when it fails."""
    venv = cache / "peers" / "gitlint"
    exe = venv / "bin" / "gitlint"
    if exe.exists():
        return exe
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "gitlint"], check=True, capture_output=True)
    except subprocess.CalledProcessError as error:
        print(f"note: gitlint could not be installed ({error.stderr.decode(errors='replace').strip()[-200:]})")
        return None
    return exe if exe.exists() else None


def install_commitlint(cache: Path) -> tuple[Path, Path] | None:
    """(commitlint, config file) from the npm registry under the cache; None where npm is missing."""
    npm = shutil.which("npm")
    folder = cache / "peers" / "commitlint"
    exe = folder / "node_modules" / ".bin" / "commitlint"
    config = folder / "commitlint.config.js"
    if not exe.exists():
        if npm is None or shutil.which("node") is None:
            print("note: npm is missing here; commitlint is skipped (scan_vs_commitlint=n/a)")
            return None
        folder.mkdir(parents=True, exist_ok=True)
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund", "--silent",
                               "@commitlint/cli", "@commitlint/config-conventional"],
                              cwd=folder, capture_output=True, check=False)
        if done.returncode != 0 or not exe.exists():
            print(f"note: commitlint could not be installed ({done.stderr.decode(errors='replace').strip()[-200:]})")
            return None
    config.write_text("module.exports = { extends: ['@commitlint/config-conventional'] };\n")
    return exe, config


# --- measuring -----------------------------------------------------------------------------


class Timing(Struct, frozen=True, kw_only=True):
    """A command's median wall time over its runs and the largest peak RSS of any run."""

    median: float
    rss_mb: float
    runs: int


def run_once(argv: Sequence[str], cwd: Path, env: dict[str, str], ok: Sequence[int]) -> tuple[float, int]:
    """(wall seconds, exit code) of one run, its output discarded; a failure prints its last line."""
    started = time.perf_counter()
    done = subprocess.run(list(argv), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in ok:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or [""]
        print(f"  {' '.join(map(str, argv))[:100]}: exit {done.returncode}: {tail[0][:200]}")
    return elapsed, done.returncode


def peak_rss_mb(argv: Sequence[str], cwd: Path, env: dict[str, str]) -> float:
    """Peak RSS in MiB of one more run, the process and the children it waited for.

    Measured under /usr/bin/time: a child forked from this (large) benchmark process would
    carry its high-water mark into wait4's ru_maxrss and into RUSAGE_CHILDREN. Where
    /usr/bin/time is missing, RUSAGE_CHILDREN is read in a small python launcher instead.
    """
    if os.access(TIME, os.X_OK):
        with tempfile.NamedTemporaryFile(prefix="perf-rss-", suffix=".txt") as out:
            subprocess.run([TIME, "-f", "%M", "-o", out.name, *argv], cwd=cwd, env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            text = Path(out.name).read_text().strip().splitlines()
        return int(text[-1]) / 1024 if text and text[-1].isdigit() else float("nan")
    done = subprocess.run([sys.executable, "-S", "-c", RSS_LAUNCHER, *argv], cwd=cwd, env=env,
                          capture_output=True, check=False)
    lines = done.stdout.decode().split()
    return int(lines[-1]) / 1024 if lines and lines[-1].isdigit() else float("nan")


TIME = "/usr/bin/time"
RSS_LAUNCHER = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


class Command(Struct, frozen=True, kw_only=True):
    """One command to time: its arguments, where it runs, and the exit codes that mean it worked."""

    argv: tuple[str, ...]
    cwd: Path
    ok: tuple[int, ...] = OK_CODES
    runs: int | None = None  # timed runs, when fewer than the others' (a peer that takes seconds)
    warmup: int | None = None  # untimed runs, when fewer than the others'


def measure_in_turn(commands: dict[str, Command], env: dict[str, str], runs: int, warmup: int) -> dict[str, Timing]:
    """Each command's median wall time, then the peak RSS of one more run of each.

    The runs are taken in turn: each round runs every command once (warmup rounds first,
    untimed), so load that comes and goes on a shared machine weighs on both sides of a
    ratio alike instead of on whichever command ran last. A command that fails is dropped
    from later rounds and reads runs=0.
    """
    times: dict[str, list[float]] = {label: [] for label in commands}
    failed: set[str] = set()
    for round_ in range(warmup + runs):
        for label, command in commands.items():
            own_warmup = warmup if command.warmup is None else min(command.warmup, warmup)
            own_runs = runs if command.runs is None else min(command.runs, runs)
            warming = round_ < warmup
            if label in failed or (warming and round_ >= own_warmup) or (
                    not warming and len(times[label]) >= own_runs):
                continue
            elapsed, code = run_once(command.argv, command.cwd, env, command.ok)
            if code not in command.ok:
                failed.add(label)
            elif not warming:
                times[label].append(elapsed)
    return {
        label: Timing(median=float("nan"), rss_mb=float("nan"), runs=0)
        if label in failed or not times[label]
        else Timing(median=statistics.median(times[label]), rss_mb=peak_rss_mb(command.argv, command.cwd, env),
                    runs=len(times[label]))
        for label, command in commands.items()
    }


def has_command(name: str, cwd: Path, env: dict[str, str]) -> bool:
    """Whether `git distill NAME --help` works here (a command still being built reads n/a)."""
    done = subprocess.run(["git", "distill", name, "--help"], cwd=cwd, env=env, capture_output=True, check=False)
    return done.returncode == 0


def ratio(ours: float | None, theirs: float | None) -> str:
    """ours/theirs to two decimals (two significant digits below 0.1), n/a when either is missing."""
    if ours is None or theirs is None or ours != ours or theirs != theirs or theirs == 0:
        return "n/a"
    value = ours / theirs
    return f"{value:.2f}" if value >= 0.1 else f"{value:.2g}"


def show(label: str, timing: Timing | None, commits: int | None = None) -> None:
    """One human line per measured command."""
    if timing is None or timing.runs == 0:
        print(f"  {label:<44} n/a")
        return
    rate = f"  {commits / timing.median:>10,.0f} commits/s" if commits else ""
    print(f"  {label:<44} {timing.median * 1000:9.1f} ms  {timing.rss_mb:7.1f} MiB  (n={timing.runs}){rate}",
          flush=True)


FLOOR_PYGIT2 = """
import sys, pygit2
repo = pygit2.Repository(sys.argv[1])
count = 0
for commit in repo.walk(repo.head.target, pygit2.enums.SortMode.TOPOLOGICAL):
    count += len(commit.raw_message) > 0
print(count)
"""
FLOOR_GIT_LOG = """
import subprocess, sys
out = subprocess.run(["git", "log", "-z", "--format=%H%n%B", "HEAD"], cwd=sys.argv[1],
                     capture_output=True, check=True).stdout
messages = [entry.split(b"\\n", 1)[1] for entry in out.split(b"\\0") if entry]
print(len(messages))
"""


FLOOR_GIT_LOG_RANGE = """
import subprocess, sys
out = subprocess.run(["git", "log", "-z", "--no-merges", "--format=%H%n%B", sys.argv[2]], cwd=sys.argv[1],
                     capture_output=True, check=True).stdout
messages = [entry.split(b"\\n", 1)[1] for entry in out.split(b"\\0") if entry]
print(len(messages))
"""


class RealHistory(Struct, frozen=True, kw_only=True):
    """A public repository's mirror and the range of it to scan."""

    label: str  # how the summary line names it
    owner: str
    name: str
    first_parent_start: int | None  # the range starts at this first-parent commit of HEAD (1 = the tip); None: all


REAL_HISTORIES = (
    RealHistory(label="git", owner="git", name="git", first_parent_start=3000),
    RealHistory(label="beads", owner="steveyegge", name="beads", first_parent_start=None),
)


def real_range(git_dir: Path, env: dict[str, str], history: RealHistory) -> str:
    """The range spec scan and the floor read: BASE..HEAD, or HEAD for a whole history."""
    if history.first_parent_start is None:
        return "HEAD"
    listed = git(git_dir, env, "rev-list", "--first-parent", "HEAD").split()
    if len(listed) < history.first_parent_start:
        return "HEAD"
    return f"{listed[history.first_parent_start - 1].decode()}..HEAD"


def measure_real_histories(repos_root: Path | None, env: dict[str, str], python: str, runs: int) -> dict[str, str]:
    """Scan each real history's range against one `git log -z` read of it; the perf-real figures."""
    figures: dict[str, str] = {}
    for history in REAL_HISTORIES:
        git_dir = repos_root / f"{history.owner}+{history.name}" / "repo" if repos_root else None
        if git_dir is None or not git_dir.is_dir():
            where = f"{git_dir}" if git_dir else "no --repos-root"
            print(f"real history {history.owner}/{history.name}: skipped ({where}: no mirror there)")
            for suffix in ("", "_j1"):
                figures[f"{history.label}{suffix}_vs_floor"] = figures[f"{history.label}{suffix}_rss_mb"] = "n/a"
            continue
        spec = real_range(git_dir, env, history)
        commits = int(git(git_dir, env, "rev-list", "--count", "--no-merges", spec).strip())
        print(f"real history {history.owner}/{history.name}, {spec} ({commits} commits without merges; "
              f"median wall time over {runs} runs in turn):", flush=True)
        commands = {
            f"git distill scan --range ({history.label})": Command(
                argv=("git", "distill", "scan", "--range", spec), cwd=git_dir),
            f"git distill scan --range -j 1 ({history.label})": Command(
                argv=("git", "distill", "scan", "--range", spec, "-j", "1"), cwd=git_dir),
            f"floor: git log -z ({history.label})": Command(
                argv=(python, "-c", FLOOR_GIT_LOG_RANGE, str(git_dir), spec), cwd=git_dir),
        }
        timed = measure_in_turn(commands, env, runs, 0)
        for label, timing in timed.items():
            show(label, timing, commits)
        scan, scan_j1, floor = timed.values()
        for suffix, timing in (("", scan), ("_j1", scan_j1)):
            figures[f"{history.label}{suffix}_vs_floor"] = ratio(floor.median if floor.runs else None,
                                                               timing.median if timing.runs else None)
            figures[f"{history.label}{suffix}_rss_mb"] = f"{timing.rss_mb:.1f}" if timing.runs else "n/a"
    print("perf-real: " + " ".join(f"{name}={value}" for name, value in figures.items()))
    return figures


# --- the run -------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=20_000, help="commits in each generated history")
    parser.add_argument("--runs", type=int, default=20, help="timed runs per one-message command")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs before the timed ones")
    parser.add_argument("--scan-runs", type=int, default=3, help="timed runs per history command")
    parser.add_argument("--gitlint-commits", type=int, default=GITLINT_COMMITS,
                        help="commits gitlint --commits reads (it spawns git per commit)")
    parser.add_argument("--seed", type=int, default=7, help="seed of the message generator")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="folder for peers and repositories")
    parser.add_argument("--no-peers", action="store_true", help="do not install or run gitlint and commitlint")
    parser.add_argument("--repos-root", type=Path, default=None,
                        help="folder of mirrors, DIR/<owner>+<name>/repo, for the real-history section")
    parser.add_argument("--real-only", action="store_true", help="measure only the real histories")
    return parser.parse_args(argv)


INSTALLED_HOOK = "python -m diylisis hook commit-msg FILE"  # the command of an installed commit-msg hook


def main(argv: Sequence[str] | None = None) -> int:
    """Build the inputs, measure every pair in one run, print the summary line."""
    args = parse_args(argv)
    cache = args.cache.resolve()
    (cache / "home").mkdir(parents=True, exist_ok=True)
    ours = install_ours(cache)
    env = git_env(cache / "home", ours)
    if args.real_only:
        measure_real_histories(args.repos_root, env, str(ours / "python"), args.scan_runs)
        return 0
    messages = make_messages(args.commits, args.seed)
    digest = hashlib.sha256("\0".join(messages).encode()).hexdigest()[:16]
    key = f"v{GENERATOR_VERSION} commits={args.commits} seed={args.seed} messages={digest}"
    # one folder per size: a quick check with fewer commits keeps the full-size inputs
    inputs = cache / f"{args.commits}-commits"
    inputs.mkdir(exist_ok=True)
    history = cached_history(inputs, "history", messages, env, key)
    hook_repo = cached_history(inputs, "hookrepo", messages[:50], env, key)
    message_file = cache / "message.txt"
    message_file.write_text(typical_message(args.seed), encoding="utf-8")
    certified, certified_summary = certified_history(inputs, clean_messages(args.commits, args.seed), env, key)

    gitlint = commitlint = None
    if not args.no_peers:
        gitlint = install_gitlint(cache)
        commitlint = install_commitlint(cache)

    for label, argv in (("gitlint", [str(gitlint), "--version"] if gitlint else None),
                        ("commitlint", [str(commitlint[0]), "--version"] if commitlint else None)):
        if argv:
            done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
            print(f"peer: {label} {done.stdout.strip().splitlines()[-1] if done.stdout.strip() else '?'}")
    have_hook = has_command("hook", hook_repo, env)
    have_scan = has_command("scan", history, env)
    have_verify = has_command("verify", certified, env)
    python = str(ours / "python")
    print(f"perf: python {sys.version.split()[0]}, {os.cpu_count()} cpus, commits={args.commits}, "
          f"runs={args.runs}, seed={args.seed}; {certified_summary}", flush=True)

    print("one message (median wall time, peak RSS; the commands run in turn):")
    one = {"python -c pass": Command(argv=(python, "-c", "pass"), cwd=hook_repo)}
    if have_hook:
        # the hook may repair the message in place: every run gets the same bytes
        one["git distill hook commit-msg FILE"] = Command(
            argv=("git", "distill", "hook", "commit-msg", str(message_file)), cwd=hook_repo)
        # what the script install-hooks writes runs: the installing interpreter, without git's dispatcher
        one[INSTALLED_HOOK] = Command(argv=(python, "-m", "diylisis", "hook", "commit-msg", str(message_file)),
                                      cwd=hook_repo)
    if gitlint:
        one["gitlint --msg-filename FILE"] = Command(
            argv=(str(gitlint), "--msg-filename", str(message_file)), cwd=hook_repo, ok=GITLINT_OK)
    timed = measure_in_turn(one, env, args.runs, args.warmup)
    if have_hook and message_file.read_text(encoding="utf-8") != typical_message(args.seed):
        print("  note: the hook rewrote the typical message; it is not a clean message any more")
    for label, timing in timed.items():
        show(label, timing)
    bare = timed["python -c pass"]
    hook = timed.get("git distill hook commit-msg FILE")
    installed = timed.get(INSTALLED_HOOK)
    lint_one = timed.get("gitlint --msg-filename FILE")

    total = int(git(history, env, "rev-list", "--count", "HEAD").strip())
    print(f"history of {total} commits (median wall time over {args.scan_runs} runs in turn; "
          "the peers run once):")
    whole = {}
    if have_scan:
        whole["git distill scan --range HEAD"] = Command(argv=("git", "distill", "scan", "--range", "HEAD"),
                                                         cwd=history)
    whole["floor: pygit2 walk"] = Command(argv=(python, "-c", FLOOR_PYGIT2, str(history)), cwd=history)
    whole["floor: git log -z split"] = Command(argv=(python, "-c", FLOOR_GIT_LOG, str(history)), cwd=history)
    records = dict.fromkeys(whole, total)  # the commits each command reads
    count = 0
    if commitlint:
        exe, config = commitlint
        root = git(history, env, "rev-list", "--max-parents=0", "HEAD").split()[0].decode()
        whole["commitlint --from ROOT --to HEAD"] = Command(
            argv=(str(exe), "--config", str(config), "--from", root, "--to", "HEAD"), cwd=history, runs=1, warmup=0)
        records["commitlint --from ROOT --to HEAD"] = int(git(history, env, "rev-list", "--count", f"{root}..HEAD"))
    if gitlint:
        count = min(args.gitlint_commits, total - 1)
        whole[f"gitlint --commits HEAD~{count}..HEAD"] = Command(
            argv=(str(gitlint), "--commits", f"HEAD~{count}..HEAD"), cwd=history, ok=GITLINT_OK, runs=1, warmup=0)
        records[f"gitlint --commits HEAD~{count}..HEAD"] = count
    timed = measure_in_turn(whole, env, args.scan_runs, 1)
    for label, timing in timed.items():
        show(label, timing, records[label])
    if gitlint:
        print(f"  (gitlint runs git for every commit, so it reads {count} commits, not {total}: "
              "scan_vs_gitlint compares commits per second)")

    def rate(label: str) -> float | None:
        timing = timed.get(label)
        return records[label] / timing.median if timing and timing.runs else None

    scan = timed.get("git distill scan --range HEAD")
    scan_rate = rate("git distill scan --range HEAD")
    commitlint_rate = rate("commitlint --from ROOT --to HEAD")
    gitlint_rate = rate(f"gitlint --commits HEAD~{count}..HEAD")
    floor = min((timed[label].median for label in ("floor: pygit2 walk", "floor: git log -z split")
                 if timed[label].runs), default=None)

    certified_total = int(git(certified, env, "rev-list", "--count", "HEAD").strip())
    print(f"certified history of {certified_total} commits:")
    both = {}
    if have_verify:
        both["git distill verify --range HEAD"] = Command(argv=("git", "distill", "verify", "--range", "HEAD"),
                                                          cwd=certified)
    if have_scan:
        both["git distill scan --range HEAD"] = Command(argv=("git", "distill", "scan", "--range", "HEAD"),
                                                        cwd=certified)
    timed = measure_in_turn(both, env, args.scan_runs, 1)
    for label, timing in timed.items():
        show(label, timing, certified_total)
    verify = timed.get("git distill verify --range HEAD")
    scan_certified = timed.get("git distill scan --range HEAD")

    figures = {
        "hook_vs_gitlint": ratio(hook.median if hook else None, lint_one.median if lint_one else None),
        "hook_vs_python": ratio(hook.median if hook else None, bare.median),
        "installed_hook_vs_gitlint": ratio(installed.median if installed else None,
                                           lint_one.median if lint_one else None),
        "installed_hook_vs_python": ratio(installed.median if installed else None, bare.median),
        "scan_vs_commitlint": ratio(scan_rate, commitlint_rate),
        "scan_vs_gitlint": ratio(scan_rate, gitlint_rate),
        "scan_vs_floor": ratio(floor, scan.median if scan and scan.runs else None),
        "verify_vs_scan": ratio(verify.median if verify else None,
                                scan_certified.median if scan_certified else None),
        "hook_rss_mb": f"{hook.rss_mb:.1f}" if hook and hook.runs else "n/a",
    }
    print("perf: " + " ".join(f"{name}={value}" for name, value in figures.items()))
    measure_real_histories(args.repos_root, env, python, args.scan_runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
