"""Measured precision and recall of the detectors on a labeled corpus (issue 4).

Usage: python bench/quality.py CORPUS.jsonl [CORPUS.jsonl ...] [--repos-root DIR] [--misses]

Each record runs with its repository's context as it would in real use: the origin host
from its `repo` field (so `#N` of the repository's own tracker resolves), and, with
--repos-root holding DIR/<owner>+<name>/repo (a git directory), the tree and history at
the record's `sha`, so tracked paths, commit ids and "defined in the repository" checks
run for real. Records without a commit (pull-request bodies) get the host context only.

A record is predicted not portable when any ERROR finding remains that is not a
host-resolvable bare issue reference (diylisis.core.detectors.is_blocking). The last line is
`quality: precision=P recall=R fp_rate=F records=N`; the line before it is the same for
leave-one-source-out (`quality[loso]: ...`).

Next to the pooled figures the table gives, per source (a record's `repo`), per language
and per rule, the figures of a leave-one-source-out run: each source is measured with the
rules that no other source attests switched off (see bench/README.md for why that is the
honest reading of "tuned on every source but this one" for hand-written rules), and each
rule's measured precision, at home (the source that gives it most hits) and away from it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from msgspec import Struct
from msgspec.structs import replace

from diylisis.core.detectors import RULES, DetectSettings, detect_text, evidence, is_blocking
from diylisis.core.model import Finding, Severity
from diylisis.edges.gitio.context import HostContext

KINDS = ("commit-message", "pr-body", "task-file")


class Outcome(Struct, frozen=True, kw_only=True):
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
                        records.append(json.loads(line) | {"_file": Path(path).name})
                    except json.JSONDecodeError as error:
                        raise SystemExit(f"{path}:{number}: not JSON: {error}") from None
    return records


def own_path(record: dict) -> str:
    """The path of a task-file record in its repository ("" for other kinds): its `path` field, as
    bench/corpus writes it, else the path part of a `path@sha` locator."""
    if record.get("kind") != "task-file":
        return ""
    return str(record.get("path") or (record.get("locator") or "").rpartition("@")[0])


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

    from diylisis.edges.gitio.context import PygitContext

    if git_dir not in repos:
        repos[git_dir] = pygit2.Repository(str(git_dir))
    # a task file is read as certify and scan read a file: it cannot define its own terms (its lines
    # are neither the tree's vocabulary nor the change's subject), and it resolves in its own tree only
    path = own_path(record)
    try:
        return PygitContext(
            repos[git_dir], record["sha"], origin=("github.com", owner, name),
            exclude_path=path or None, first_parent=not path,
        ), "tree"
    except Exception:
        return host, "host (sha missing)"


def run(
    records: list[dict], repos_root: Path | None, settings: DetectSettings, repos: dict | None = None
) -> list[Outcome]:
    """Detect over every record with its context."""
    repos = {} if repos is None else repos
    out = []
    for record in records:
        context, kind = context_for(record, repos_root, repos)
        # pull-request bodies and task files are Markdown, as scan and certify read them
        markdown = record.get("kind") in ("pr-body", "task-file")
        findings, _ = detect_text(record["text"], context, settings, path=own_path(record) or None,
                                  record=record["id"], markdown=markdown)
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


def occurrences(text: str, token: str) -> list[tuple[int, int]]:
    """Offsets of every place token appears in text (one label stands for all of them)."""
    out = []
    start = text.find(token) if token else -1
    while start >= 0:
        out.append((start, start + len(token)))
        start = text.find(token, start + 1)
    return out


def label_spans(record: dict) -> list[tuple[int, int]]:
    """Offsets of every occurrence of every label of a record."""
    return [span for label in record["labels"] for span in occurrences(record["text"], label["token"])]


def on_label(outcome: Outcome, finding: Finding) -> bool:
    """The finding overlaps some occurrence of some label of its record."""
    a, b = spans(outcome.record["text"], finding)
    return any(x < b and a < y for x, y in label_spans(outcome.record))


def label_hits(outcome: Outcome) -> list[tuple[dict, bool]]:
    """Each label of a record and whether some finding overlaps one of its occurrences."""
    text = outcome.record["text"]
    found = [spans(text, f) for f in outcome.findings]
    return [
        (label, any(a < end and start < b for start, end in occurrences(text, label["token"]) for a, b in found))
        for label in outcome.record["labels"]
    ]


MIN_ATTESTING = 2  # records of other sources a rule needs to stay on when its source is left out
SMALL_SOURCE = 5  # sources with fewer records share one row of the per-source table


def source_of(record: dict) -> str:
    """The source of a record: the repository it was read from."""
    return record["repo"]


def attestations(outcomes: list[Outcome]) -> dict[str, dict[str, int]]:
    """rule id -> source -> records of that source where the rule has a finding on a label."""
    out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for o in outcomes:
        for rule_id in {f.rule_id for f in o.findings if on_label(o, f)}:
            out[rule_id][source_of(o.record)] += 1
    return out


def left_out(attested: dict[str, dict[str, int]], source: str) -> frozenset[str]:
    """Rules that only this source attests: hits here and fewer than MIN_ATTESTING records elsewhere.

    A rule no source attests is kept: nothing in the labeled data can have shaped it."""
    return frozenset(
        rule_id
        for rule_id, by_source in attested.items()
        if by_source.get(source) and sum(n for s, n in by_source.items() if s != source) < MIN_ATTESTING
    )


def leave_one_source_out(
    pooled: list[Outcome], repos_root: Path | None, settings: DetectSettings, repos: dict
) -> tuple[list[Outcome], dict[str, frozenset[str]]]:
    """Each record detected with the rules its own source alone attests switched off; and those rules per source."""
    attested = attestations(pooled)
    dropped = {s: left_out(attested, s) for s in {source_of(o.record) for o in pooled}}
    by_rules: dict[frozenset[str], list[int]] = defaultdict(list)
    for index, o in enumerate(pooled):
        by_rules[dropped[source_of(o.record)]].append(index)
    out: list[Outcome | None] = [None] * len(pooled)
    for rules, indices in by_rules.items():
        held_out = replace(settings, disable=settings.disable | rules)
        for index, outcome in zip(
            indices, run([pooled[i].record for i in indices], repos_root, held_out, repos), strict=True
        ):
            out[index] = outcome
    return [o for o in out if o is not None], dropped


def rule_rows(pooled: list[Outcome]) -> list[str]:
    """Per rule: findings, how many sit on a label (`prec`), at home and away from home, and
    its precision as a blocker (`blk_p`: of the records it would block at error, those labeled not portable)."""
    per_rule: dict[str, list[tuple[str, bool]]] = defaultdict(list)
    would_block: dict[str, list[bool]] = defaultdict(list)
    default = {rule.id: rule.severity for rule in RULES}
    for o in pooled:
        for f in o.findings:
            per_rule[f.rule_id].append((source_of(o.record), on_label(o, f)))
        # at error, a rule blocks with each finding at its default level (one it lowered on purpose stays lower)
        for rule_id in {
            f.rule_id
            for f in o.findings
            if f.severity in (Severity.ERROR, default.get(f.rule_id)) and is_blocking(replace(f,
                                                                                              severity=Severity.ERROR))
        }:
            would_block[rule_id].append(o.actual)
    severity = {rule_id: level.value for rule_id, level in default.items()}
    rows = [
        f"{'rule':<8}{'default':>8}{'findings':>9}{'on_label':>9}{'prec':>7}"
        f"  {'home source':<30}{'home_n':>7}{'home_p':>7}{'away_n':>7}{'away_p':>7}"
        f"{'blocks':>7}{'blk_p':>7}{'table':>8}"
    ]
    for rule_id in sorted(per_rule):
        hits = per_rule[rule_id]
        home_counts: dict[str, int] = defaultdict(int)
        for source, hit in hits:
            home_counts[source] += hit
        home = max(sorted(home_counts), key=lambda s: home_counts[s])
        at_home = [h for s, h in hits if s == home]
        away = [h for s, h in hits if s != home]
        blocks = would_block.get(rule_id, [])
        rows.append(
            f"{rule_id:<8}{severity.get(rule_id, '?'):>8}{len(hits):>9}{sum(h for _, h in hits):>9}"
            f"{_ratio([h for _, h in hits]):>7}"
            f"  {home:<30}{len(at_home):>7}{_ratio(at_home):>7}{len(away):>7}{_ratio(away):>7}"
            f"{len(blocks):>7}{_ratio(blocks):>7}{_table_mark(rule_id, blocks):>8}"
        )
    rows.append(
        f"table: blk_p as diylisis/core/detectors/evidence.py holds it (below {evidence.PRECISION_FOR_ERROR} on "
        f"{evidence.MIN_RECORDS}+ blocks: a warning by default); '!' where this run puts the rule on the other side"
    )
    return rows


def _ratio(hits: list[bool]) -> str:
    return f"{sum(hits) / len(hits):.3f}" if hits else "-"


def _table_mark(rule_id: str, blocks: list[bool]) -> str:
    """The stored blocker precision, '!'-marked when this run's measurement earns another default."""
    stored = evidence.precision(rule_id)
    measured = sum(blocks) / len(blocks) if len(blocks) >= evidence.MIN_RECORDS else None
    low = evidence.PRECISION_FOR_ERROR
    crossed = (measured is not None and measured < low) != (stored is not None and stored < low)
    return ("!" if crossed else "") + (f"{stored:.3f}" if stored is not None else "-")


def source_rows(pooled: list[Outcome], held: list[Outcome], dropped: dict[str, frozenset[str]]) -> list[str]:
    """Per source: pooled and leave-one-source-out figures; small sources share one row."""
    counts: dict[str, int] = defaultdict(int)
    for o in pooled:
        counts[source_of(o.record)] += 1
    small = sorted(s for s, n in counts.items() if n < SMALL_SOURCE)

    def row_name(record: dict) -> str:
        source = source_of(record)
        return f"other ({len(small)} sources)" if source in small else source

    groups: dict[str, tuple[list[Outcome], list[Outcome]]] = {}
    for o, h in zip(pooled, held, strict=True):
        members = groups.setdefault(row_name(o.record), ([], []))
        members[0].append(o)
        members[1].append(h)
    rows = [
        f"{'source':<36}{'records':>8}{'nonport':>8}{'prec':>7}{'recall':>7}{'fp_rate':>8}"
        f"{'lo_prec':>8}{'lo_rec':>7}{'lo_fpr':>7}  rules left out"
    ]
    for name in sorted(groups, key=lambda n: (n.startswith("other ("), -len(groups[n][0]), n)):
        mine, theirs = groups[name]
        p, r, f, n = scores(mine)
        lp, lr, lf, _ = scores(theirs)
        if name.startswith("other ("):
            off = sorted({rule for s in small for rule in dropped.get(s, ())})
        else:
            off = sorted(dropped.get(name, ()))
        rows.append(
            f"{name:<36}{n:>8}{sum(o.actual for o in mine):>8}{p:>7.3f}{r:>7.3f}{f:>8.3f}"
            f"{lp:>8.3f}{lr:>7.3f}{lf:>7.3f}  {', '.join(off) or '-'}"
        )
    return rows


def line(name: str, outcomes: list[Outcome]) -> str:
    p, r, f, n = scores(outcomes)
    return f"{name}: precision={p:.3f} recall={r:.3f} fp_rate={f:.3f} records={n}"


def report(
    outcomes: list[Outcome],
    repos_root: Path | None,
    seconds: float,
    misses: bool,
    held: list[Outcome] | None = None,
    dropped: dict[str, frozenset[str]] | None = None,
) -> str:
    """The printed table; the last line is the overall quality line (held: the leave-one-source-out outcomes)."""
    held = outcomes if held is None else held
    dropped = {} if dropped is None else dropped
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
        f"{'lo_prec':>8}{'lo_rec':>7}{'lo_fpr':>7}{'rec_gap':>8}"
    )
    groups: dict[str, list[Outcome]] = {"overall": outcomes}
    held_groups: dict[str, list[Outcome]] = {"overall": held}
    for o, h in zip(outcomes, held, strict=True):
        for name in (f"lang={o.record['lang']}", f"kind={o.record['kind']}", f"file={o.record.get('_file', '?')}"):
            groups.setdefault(name, []).append(o)
            held_groups.setdefault(name, []).append(h)
    for name, members in groups.items():
        lp, lr, lf, _ = scores(held_groups[name])
        p, r, f, n = scores(members)
        hits = [h for o in members for _, h in label_hits(o)]
        tok = sum(hits) / len(hits) if hits else 1.0
        tp = sum(o.predicted and o.actual for o in members)
        fp = sum(o.predicted and not o.actual for o in members)
        fn = sum(not o.predicted and o.actual for o in members)
        nonportable = sum(o.actual for o in members)
        rows.append(
            f"{name:<24}{n:>8}{nonportable:>8}{tp:>5}{fp:>5}{fn:>5}{p:>7.3f}{r:>7.3f}{f:>8.3f}{tok:>8.3f}"
            f"{lp:>8.3f}{lr:>7.3f}{lf:>7.3f}{r - lr:>8.3f}"
        )
    rows.append("")
    rows.extend(source_rows(outcomes, held, dropped))
    rows.append("")
    rows.extend(rule_rows(outcomes))
    rows.append("")
    rows.append(
        f"{'category':<22}{'labels':>7}{'tok_rec':>8}{'records':>8}{'rec_rec':>8}{'findings':>9}{'on_label':>9}"
    )
    by_cat: dict[str, list[bool]] = defaultdict(list)
    rec_cat: dict[str, list[bool]] = defaultdict(list)
    find_cat: dict[str, list[bool]] = defaultdict(list)
    for o in outcomes:
        cats = set()
        for label, hit in label_hits(o):
            by_cat[label["category"]].append(hit)
            cats.add(label["category"])
        for cat in cats:
            if cat != "bare-issue-ref" or not o.record["portable_for_reviewer"]:
                rec_cat[cat].append(o.predicted)
        for f in o.findings:
            find_cat[f.category.value].append(on_label(o, f))
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
    for lang in sorted({o.record["lang"] for o in held}):
        rows.append(line(f"quality[loso,{lang}]", [o for o in held if o.record["lang"] == lang]))
    rows.append(line("quality[loso]", held))
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
    repos: dict = {}
    settings = DetectSettings()
    outcomes = run(records, args.repos_root, settings, repos)
    held, dropped = leave_one_source_out(outcomes, args.repos_root, settings, repos)
    print(report(outcomes, args.repos_root, time.perf_counter() - started, args.misses, held, dropped))
    return 0


if __name__ == "__main__":
    sys.exit(main())
