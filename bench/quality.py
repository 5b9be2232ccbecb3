"""Measured precision and recall of the detectors on a labeled corpus (issue 4).

Usage: python bench/quality.py CORPUS.jsonl [CORPUS.jsonl ...] [--repos-root DIR] [--misses]

Each record runs with its repository's context as it would in real use: the origin host
from its `repo` field (so `#N` of the repository's own tracker resolves), and, with
--repos-root holding DIR/<owner>+<name>/repo (a git directory), the tree and history at
the record's `sha`, so tracked paths, commit ids and "defined in the repository" checks
run for real. Records without a commit (pull-request bodies) get the host context only.

A record is predicted not portable when any ERROR finding remains that is not a
host-resolvable bare issue reference (diylisis.detectors.is_blocking). The last line is
`quality: precision=P recall=R fp_rate=F records=N`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from diylisis.detectors import DetectSettings, detect_text, is_blocking
from diylisis.frozen import frozen_model
from diylisis.gitio.context import HostContext
from diylisis.model import Finding

KINDS = ("commit-message", "pr-body", "task-file")


@frozen_model
class Outcome:
    record: dict
    findings: tuple[Finding, ...]
    predicted: bool  # predicted not portable
    actual: bool  # labeled not portable
    context: str  # "tree", "host" or "host (sha missing)"


def load(paths: list[str]) -> list[dict]:
    """Records of every corpus file, in order."""
    records = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    try:
                        records.append(json.loads(line))
                    except json.JSONDecodeError as error:
                        raise SystemExit(f"{path}:{number}: not JSON: {error}") from None
    return records


def context_for(record: dict, repos_root: Path | None, repos: dict) -> tuple[object, str]:
    """The richest context available for a record: a tree at its sha, else its host."""
    owner, _, name = record["repo"].partition("/")
    host = HostContext("github.com", owner, name)
    if repos_root is None or not record.get("sha"):
        return host, "host"
    git_dir = repos_root / f"{owner}+{name}" / "repo"
    if not git_dir.exists():
        return host, "host (no local copy)"
    import pygit2

    from diylisis.gitio.context import PygitContext

    if git_dir not in repos:
        repos[git_dir] = pygit2.Repository(str(git_dir))
    try:
        return PygitContext(
            repos[git_dir], record["sha"], origin=("github.com", owner, name)
        ), "tree"
    except Exception:
        return host, "host (sha missing)"


def run(records: list[dict], repos_root: Path | None, settings: DetectSettings) -> list[Outcome]:
    """Detect over every record with its context."""
    repos: dict = {}
    out = []
    for record in records:
        context, kind = context_for(record, repos_root, repos)
        findings, _ = detect_text(record["text"], context, settings, record=record["id"])
        out.append(
            Outcome(
                record=record,
                findings=findings,
                predicted=any(is_blocking(f) for f in findings),
                actual=not record["portable_for_reviewer"],
                context=kind,
            )
        )
    return out


def scores(outcomes: list[Outcome]) -> tuple[float, float, float, int]:
    """(precision, recall, false-positive rate on clean records, records)."""
    tp = sum(o.predicted and o.actual for o in outcomes)
    fp = sum(o.predicted and not o.actual for o in outcomes)
    fn = sum(not o.predicted and o.actual for o in outcomes)
    clean = sum(not o.actual for o in outcomes)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    return precision, recall, (fp / clean if clean else 0.0), len(outcomes)


def spans(text: str, finding: Finding) -> tuple[int, int]:
    """Offsets of a finding in its text."""
    lines = text.split("\n")
    start = sum(len(line) + 1 for line in lines[: finding.line - 1]) + finding.column - 1
    return start, start + len(finding.token)


def label_hits(outcome: Outcome) -> list[tuple[dict, bool]]:
    """Each label of a record and whether some finding overlaps one of its occurrences."""
    text = outcome.record["text"]
    found = [spans(text, f) for f in outcome.findings]
    out = []
    for label in outcome.record["labels"]:
        token = label["token"]
        hit = False
        start = text.find(token)
        while start >= 0 and not hit:
            end = start + len(token)
            hit = any(a < end and start < b for a, b in found)
            start = text.find(token, start + 1)
        out.append((label, hit))
    return out


def line(name: str, outcomes: list[Outcome]) -> str:
    p, r, f, n = scores(outcomes)
    return f"{name}: precision={p:.3f} recall={r:.3f} fp_rate={f:.3f} records={n}"


def report(outcomes: list[Outcome], repos_root: Path | None, seconds: float, misses: bool) -> str:
    """The printed table; the last line is the overall quality line."""
    rows = []
    contexts = defaultdict(int)
    for o in outcomes:
        contexts[o.context] += 1
    mode = (
        "text-only (host context; no --repos-root)"
        if repos_root is None
        else f"repos-root {repos_root}"
    )
    rows.append(
        f"mode: {mode}; contexts: " + ", ".join(f"{k}={v}" for k, v in sorted(contexts.items()))
    )
    rows.append(f"time: {seconds:.2f}s for {len(outcomes)} records")
    rows.append("")
    rows.append(
        f"{'group':<24}{'records':>8}{'nonport':>8}{'tp':>5}{'fp':>5}{'fn':>5}{'prec':>7}{'recall':>7}{'fp_rate':>8}{'tok_rec':>8}"
    )
    groups: dict[str, list[Outcome]] = {"overall": outcomes}
    for o in outcomes:
        groups.setdefault(f"lang={o.record['lang']}", []).append(o)
        groups.setdefault(f"kind={o.record['kind']}", []).append(o)
    for name, members in groups.items():
        p, r, f, n = scores(members)
        hits = [h for o in members for _, h in label_hits(o)]
        tok = sum(hits) / len(hits) if hits else 1.0
        tp = sum(o.predicted and o.actual for o in members)
        fp = sum(o.predicted and not o.actual for o in members)
        fn = sum(not o.predicted and o.actual for o in members)
        nonportable = sum(o.actual for o in members)
        rows.append(
            f"{name:<24}{n:>8}{nonportable:>8}{tp:>5}{fp:>5}{fn:>5}{p:>7.3f}{r:>7.3f}{f:>8.3f}{tok:>8.3f}"
        )
    rows.append("")
    rows.append(
        f"{'category':<22}{'labels':>7}{'tok_rec':>8}{'records':>8}{'rec_rec':>8}{'findings':>9}{'on_label':>9}"
    )
    by_cat: dict[str, list[bool]] = defaultdict(list)
    rec_cat: dict[str, list[bool]] = defaultdict(list)
    find_cat: dict[str, list[bool]] = defaultdict(list)
    for o in outcomes:
        text = o.record["text"]
        cats = set()
        for label, hit in label_hits(o):
            by_cat[label["category"]].append(hit)
            cats.add(label["category"])
        for cat in cats:
            if cat != "bare-issue-ref" or not o.record["portable_for_reviewer"]:
                rec_cat[cat].append(o.predicted)
        labelled = [
            (text.find(lb["token"]), text.find(lb["token"]) + len(lb["token"]))
            for lb in o.record["labels"]
        ]
        for f in o.findings:
            a, b = spans(text, f)
            find_cat[f.category.value].append(any(x < b and a < y for x, y in labelled if x >= 0))
    for cat in sorted(set(by_cat) | set(find_cat)):
        hits, recs, fnd = by_cat.get(cat, []), rec_cat.get(cat, []), find_cat.get(cat, [])
        rows.append(
            f"{cat:<22}{len(hits):>7}{(sum(hits) / len(hits) if hits else 0):>8.3f}{len(recs):>8}"
            f"{(sum(recs) / len(recs) if recs else 0):>8.3f}{len(fnd):>9}{(sum(fnd) / len(fnd) if fnd else 0):>9.3f}"
        )
    if misses:
        rows.append("")
        for o in outcomes:
            if o.predicted != o.actual:
                kind = "FP" if o.predicted else "FN"
                rows.append(f"{kind} {o.record['id']} [{o.context}]")
                for f in o.findings:
                    if is_blocking(f):
                        rows.append(f"    {f.rule_id} {f.token!r}")
                for label, hit in label_hits(o):
                    if not hit:
                        rows.append(f"    missed {label['category']}: {label['token']!r}")
    rows.append("")
    for lang in sorted({o.record["lang"] for o in outcomes}):
        rows.append(line(f"quality[{lang}]", [o for o in outcomes if o.record["lang"] == lang]))
    for kind in KINDS:
        members = [o for o in outcomes if o.record["kind"] == kind]
        if members:
            rows.append(line(f"quality[{kind}]", members))
    rows.append(line("quality", outcomes))
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the table; exit 0 (2 on bad input)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "corpus", nargs="+", help="JSON Lines files in the schema of the portability corpus"
    )
    parser.add_argument(
        "--repos-root", type=Path, help="folder with <owner>+<name>/repo git directories"
    )
    parser.add_argument("--misses", action="store_true", help="list false positives and negatives")
    args = parser.parse_args(argv)
    for path in args.corpus:
        if not Path(path).is_file():
            print(f"quality: no such corpus file: {path}", file=sys.stderr)
            return 2
    if args.repos_root is not None and not args.repos_root.is_dir():
        print(f"quality: --repos-root {args.repos_root} is not a directory", file=sys.stderr)
        return 2
    records = load(args.corpus)
    started = time.perf_counter()
    outcomes = run(records, args.repos_root, DetectSettings())
    print(report(outcomes, args.repos_root, time.perf_counter() - started, args.misses))
    return 0


if __name__ == "__main__":
    sys.exit(main())
