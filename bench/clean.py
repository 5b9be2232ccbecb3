"""Blocked records per 1,000 commits on careful human histories (issue 16, false trust).

Usage: python bench/clean.py --repos-root DIR [--commits N] [--repo OWNER/NAME ...] [--list]

Almost every commit of these histories is portable, so nearly every block is a wrong one:
the figure is what a team installing the commit-msg hook on such a repository would meet.
Each repository is read from a local git directory DIR/<owner>+<name>/repo (the layout of
bench/quality.py's --repos-root). The last --commits (3,000) non-merge commits reachable
from HEAD are judged the way `git distill scan --range` judges them, against their own tree,
with the origin set to the repository's GitHub address and the default [detect] settings.
A repository without a local copy is skipped with a note. Every blocked record is listed
(commit, rule, token) unless --no-list. The last line is
`clean: blocked_per_1000=B blocked=K commits=N repos=R`.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from diylisis.core.detectors import DetectSettings, detect_text, is_blocking

HISTORIES = (
    "pallets/flask",
    "psf/requests",
    "BurntSushi/ripgrep",
    "git/git",
    "dromara/Sa-Token",
    "xuxueli/xxl-job",
    "pypa/pip",
    "sharkdp/fd",
)


def commit_ids(git_dir: Path, count: int) -> list[str]:
    """The newest count non-merge commits reachable from HEAD, newest first."""
    done = subprocess.run(
        ["git", "--git-dir", str(git_dir), "rev-list", "--no-merges", f"--max-count={count}", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.split()


def judge(repo_name: str, git_dir: Path, count: int,
          settings: DetectSettings) -> tuple[int, list[tuple[str, str, str]]]:
    """(commits judged, [(short id, rule id, token) of each blocking finding])."""
    import pygit2

    from diylisis.edges.gitio.context import PygitContext

    owner, _, name = repo_name.partition("/")
    repo = pygit2.Repository(str(git_dir))
    ids = commit_ids(git_dir, count)
    blocks = []
    for commit_id in ids:
        data = repo[commit_id].raw_message
        context = PygitContext(repo, commit_id, origin=("github.com", owner, name), origin_known=True, walked=True)
        findings, _ = detect_text(data.decode("utf-8", errors="replace"), context, settings, record=commit_id)
        blocks.extend((commit_id[:12], f.rule_id, " ".join(f.token.split())) for f in findings if is_blocking(f))
    return len(ids), blocks


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print per-repository figures; exit 0 (2 on bad input)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos-root", type=Path, required=True,
                        help="folder with <owner>+<name>/repo git directories")
    parser.add_argument("--commits", type=int, default=3000, help="newest non-merge commits per repository (3000)")
    parser.add_argument("--repo", action="append", help=f"OWNER/NAME to read (default: {', '.join(HISTORIES)})")
    parser.add_argument("--no-list", action="store_true", help="do not list the blocked records")
    args = parser.parse_args(argv)
    if not args.repos_root.is_dir():
        print(f"clean: --repos-root {args.repos_root} is not a directory", file=sys.stderr)
        return 2
    if args.commits < 1:
        print("clean: --commits must be at least 1", file=sys.stderr)
        return 2
    names = args.repo or list(HISTORIES)
    bad = [n for n in names if n.count("/") != 1 or not all(n.split("/"))]
    if bad:
        print(f"clean: --repo {bad[0]!r} is not OWNER/NAME", file=sys.stderr)
        return 2
    settings = DetectSettings()
    total_commits = total_blocked = repos = 0
    for name in names:
        git_dir = args.repos_root / name.replace("/", "+") / "repo"
        if not git_dir.exists():
            print(f"{name}: skipped, no local copy at {git_dir}")
            continue
        started = time.perf_counter()
        commits, blocks = judge(name, git_dir, args.commits, settings)
        blocked = len({commit for commit, _, _ in blocks})
        repos += 1
        total_commits += commits
        total_blocked += blocked
        print(
            f"{name}: {blocked} blocked of {commits} commits = {1000 * blocked / commits if commits else 0:.2f} "
            f"per 1,000 ({time.perf_counter() - started:.1f}s)"
        )
        if not args.no_list:
            for commit, rule_id, token in blocks:
                print(f"    {commit} {rule_id} {token[:80]!r}")
    rate = 1000 * total_blocked / total_commits if total_commits else 0.0
    if not repos:
        print("clean: no repository had a local copy; nothing measured")
    print(f"clean: blocked_per_1000={rate:.2f} blocked={total_blocked} commits={total_commits} repos={repos}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
