"""SARIF 2.1.0 for `git distill vet --verify --format sarif`: one result per failed part of a check.

A check's detail lists its problems joined by "; " (diylisis.core.vet.verify); each becomes one
result. A problem about a claim (`a-60d67b410f: ...`) points at the claim's line in its source,
and one about a source file (`docs/design.md: ...`) at that file. The rest (the ledger, the
action digest, leaned-on files) have no line of their own: as in diylisis.edges.sarif_verify,
they point at the pseudo-path `vet-result/<commit id>` and name the commit in a logical location.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from diylisis.edges.sarif import commit_location, sarif_log, table_rules

# check name (diylisis.core.vet.verify.Check.name) -> (rule id, name, short description, help)
RULES: dict[str, tuple[str, str, str, str]] = {
    "structure": ("distill-vet/ledger", "vet-ledger",
                  "The stored vet result is missing fields or its ledger is not whole.",
                  "The note was edited or written by another tool. Vet the action again."),
    "commit": ("distill-vet/commit", "vet-commit", "The vet result names another commit than the one it is stored on.",
               "Vet the action again on this commit (--at)."),
    "sources": ("distill-vet/source-blob", "vet-source-blob",
                "A source the result names is not the blob the commit holds.",
                "The note or the history changed after vetting. Vet the action again."),
    "sources-now": ("distill-vet/re-vet", "vet-re-vet", "A vetted source changed since it was vetted.",
                    "Vet the action again: the verdicts were given on the bytes the result pins."),
    "action_digest": ("distill-vet/action-digest", "vet-action-digest",
                      "The action digest does not match the action, the leaned-on files and the sources.",
                      "The note was edited after vetting. Vet the action again."),
    "spans": ("distill-vet/claim-span", "vet-claim-span", "A claim's text is not at its span in the pinned source.",
              "The note was edited after vetting. Vet the action again."),
    "tags": ("distill-vet/tag-facts", "vet-tag-facts",
             "A tag fact measured again at the commit differs from the stored one.",
             "The note was edited, or a fact it measured (citations, blame, code values) reads differently now. "
             "Vet the action again."),
    "leans_on": ("distill-vet/leans-on", "vet-leans-on", "A file the action leans on is not tracked at the commit.",
                 "Restore the file or vet the action again with the files it now leans on."),
}
OTHER = ("distill-vet/check-failed", "vet-check-failed", "A check of the vet result failed.",
         "Run git distill vet --verify for details.")
_AUDIT = re.compile(r"^(a-[0-9a-f]{10}): ")


def _file(path: str, line: int, logical: str) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": {"uri": path, "uriBaseId": "%SRCROOT%"},
                                 "region": {"startLine": max(line, 1)}},
            "logicalLocations": [{"fullyQualifiedName": logical, "kind": "claim" if logical.startswith("a-")
                                  else "record"}]}


def _where(problem: str, commit: str, places: Mapping[str, tuple[str, int]],
           sources: tuple[str, ...]) -> tuple[dict[str, Any], str]:
    """The location of one problem and the key that identifies it across runs."""
    audit = _AUDIT.match(problem)
    if audit and audit.group(1) in places:
        path, line = places[audit.group(1)]
        return _file(path, line, audit.group(1)), audit.group(1)
    for path in sources:
        if problem.startswith((f"{path}:", f"{path} ")):
            return _file(path, 1, f"file:{path}"), path
    return commit_location(f"vet-result/{commit}", commit), commit


def sarif_for_vet(commit: str, action: str, checks: tuple[Any, ...], places: Mapping[str, tuple[str, int]],
                  sources: tuple[str, ...]) -> dict[str, Any]:
    """A SARIF 2.1.0 log of one `vet --verify`: a result per problem of each failed check.

    PLACES: audit id -> (source path, line) of each stored claim; SOURCES: the vetted paths."""
    from diylisis import __version__

    rules = table_rules((*RULES.values(), OTHER))
    index = {rule["id"]: number for number, rule in enumerate(rules)}
    results: list[dict[str, Any]] = []
    for check in checks:
        if check.ok:
            continue
        rule_id = RULES.get(check.name, OTHER)[0]
        for problem in (part.strip() for part in check.detail.split("; ") if part.strip()):
            location, key = _where(problem, commit, places, sources)
            results.append({
                "ruleId": rule_id, "ruleIndex": index[rule_id], "level": "error",
                "message": {"text": f"{check.name}: {problem}"}, "locations": [location],
                "partialFingerprints": {"distillVetResult/v1": f"{commit}:{rule_id}:{key}"},
                "properties": {"check": check.name, "commit": commit, "action": action},
            })
    return sarif_log(__version__, rules, results,
                     properties={"commit": commit, "action": action, "checks": len(checks),
                                 "failed": sum(not check.ok for check in checks)})
