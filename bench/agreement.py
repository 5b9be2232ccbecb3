"""Agreement between two labelings of the same records (issue 16).

Usage:
    python bench/agreement.py blind FIRST.jsonl [--every N]
    python bench/agreement.py compare FIRST.jsonl SECOND.jsonl [--list]

`blind` prints every Nth record of FIRST (the 5th, 10th, ...; N is 5 by default) with only
its repo, sha, kind and text, so that a second reader can label it without seeing the first
labels. `compare` pairs the records of SECOND with those of FIRST by `id` and reports:

- record level: how often both say the same about `portable_for_reviewer`, and Cohen's kappa
  for that yes/no judgment;
- token level, on the residue labels (every label except a `bare-issue-ref` resolvable on the
  host): `exact` counts (token, category) pairs that both labelings hold, over pairs in either;
  `overlap` counts a label as agreed when the other labeling has one of the same category whose
  token overlaps it in the text (so "Verified on Windows 11" and "Verified on Windows 11
  (cp1252)" agree), as (agreed in first + agreed in second) / (labels in first + in second).

With `--list`, every record where the two differ is printed with both label sets. The last
line is

    agreement: records=N record_agree=R kappa=K residue_exact=R residue_overlap=R
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

Record = dict[str, Any]


def load(path: Path) -> list[Record]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def every_nth(records: Sequence[Record], n: int) -> list[Record]:
    return [rec for index, rec in enumerate(records, 1) if index % n == 0]


def residue(rec: Record) -> set[tuple[str, str]]:
    return {
        (label["token"], label["category"])
        for label in rec["labels"]
        if not (label["category"] == "bare-issue-ref" and label.get("resolvable_on_host") is True)
    }


def spans(text: str, token: str) -> list[tuple[int, int]]:
    found, start = [], text.find(token)
    while start != -1:
        found.append((start, start + len(token)))
        start = text.find(token, start + 1)
    return found


def overlaps(text: str, one: tuple[str, str], other: tuple[str, str]) -> bool:
    if one[1] != other[1]:
        return False
    return any(a < d and c < b for a, b in spans(text, one[0]) for c, d in spans(text, other[0]))


def matched(text: str, labels: set[tuple[str, str]], others: set[tuple[str, str]]) -> int:
    return sum(any(overlaps(text, one, other) for other in others) for one in labels)


def cohen_kappa(pairs: Iterable[tuple[bool, bool]]) -> float:
    items = list(pairs)
    total = len(items)
    if total == 0:
        return float("nan")
    observed = sum(a == b for a, b in items) / total
    first_yes = sum(a for a, _ in items) / total
    second_yes = sum(b for _, b in items) / total
    expected = first_yes * second_yes + (1 - first_yes) * (1 - second_yes)
    if expected == 1:
        return 1.0
    return (observed - expected) / (1 - expected)


def jaccard(first: set[Any], second: set[Any]) -> float:
    union = first | second
    return len(first & second) / len(union) if union else 1.0


def compare(first: Sequence[Record], second: Sequence[Record]) -> dict[str, Any]:
    by_id = {rec["id"]: rec for rec in first}
    missing = [rec["id"] for rec in second if rec["id"] not in by_id]
    if missing:
        raise SystemExit(f"second labeling has ids the first does not: {missing[:5]}")
    paired = [(by_id[rec["id"]], rec) for rec in second]
    portable = [(a["portable_for_reviewer"], b["portable_for_reviewer"]) for a, b in paired]
    pairs_a: set[tuple[str, str, str]] = set()
    pairs_b: set[tuple[str, str, str]] = set()
    for a, b in paired:
        pairs_a |= {(a["id"], *pair) for pair in residue(a)}
        pairs_b |= {(b["id"], *pair) for pair in residue(b)}
    agreed = sum(
        matched(a["text"], residue(a), residue(b)) + matched(b["text"], residue(b), residue(a)) for a, b in paired
    )
    total = len(pairs_a) + len(pairs_b)
    differ = [
        (a, b)
        for a, b in paired
        if a["portable_for_reviewer"] != b["portable_for_reviewer"] or residue(a) != residue(b)
    ]
    return {
        "records": len(paired),
        "record_agree": sum(x == y for x, y in portable) / len(paired) if paired else float("nan"),
        "kappa": cohen_kappa(portable),
        "non_portable_first": sum(not x for x, _ in portable),
        "non_portable_second": sum(not y for _, y in portable),
        "residue_pairs_first": len(pairs_a),
        "residue_pairs_second": len(pairs_b),
        "residue_pairs_both": len(pairs_a & pairs_b),
        "residue_exact": jaccard(pairs_a, pairs_b),
        "residue_overlap": agreed / total if total else 1.0,
        "differ": differ,
    }


def _blind(args: argparse.Namespace) -> None:
    for number, rec in enumerate(every_nth(load(args.first), args.every), 1):
        print(f"=== {number} {rec['repo']} {rec['sha']} {rec['kind']} {rec.get('path', '')}")
        print(rec["text"])
        print()


def _compare(args: argparse.Namespace) -> None:
    result = compare(load(args.first), load(args.second))
    if args.list:
        for a, b in result["differ"]:
            print(f"--- {a['id']} portable first={a['portable_for_reviewer']} second={b['portable_for_reviewer']}")
            print(f"  first only:  {sorted(residue(a) - residue(b))}")
            print(f"  second only: {sorted(residue(b) - residue(a))}")
    print(
        f"non-portable: first={result['non_portable_first']} "
        f"second={result['non_portable_second']}; residue pairs: "
        f"first={result['residue_pairs_first']} second={result['residue_pairs_second']} "
        f"both={result['residue_pairs_both']}; records that differ={len(result['differ'])}"
    )
    print(
        f"agreement: records={result['records']} record_agree={result['record_agree']:.3f} "
        f"kappa={result['kappa']:.3f} residue_exact={result['residue_exact']:.3f} "
        f"residue_overlap={result['residue_overlap']:.3f}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    blind = sub.add_parser("blind", help="print every Nth record without its labels")
    blind.add_argument("first", type=Path)
    blind.add_argument("--every", type=int, default=5)
    blind.set_defaults(run=_blind)
    comp = sub.add_parser("compare", help="agreement of a second labeling with the first")
    comp.add_argument("first", type=Path)
    comp.add_argument("second", type=Path)
    comp.add_argument("--list", action="store_true", help="print every record that differs")
    comp.set_defaults(run=_compare)
    args = parser.parse_args(argv)
    args.run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
