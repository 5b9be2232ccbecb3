"""SARIF 2.1.0 for `git distill scan --format sarif`: one result per finding, rules from the registry.

Code scanning needs a repository-relative physical location per result. A file record
points at its path and the finding's line; a commit message has no file, so its results
point at the pseudo-path `commit-message/<commit id>` with the line inside the message,
and name the commit in a logical location (as diylisis.edges.sarif_verify does).
The log's shape, table rules and that location are defined here once, for the
verify and vet --verify logs too.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from diylisis.core.detectors import RULES, is_blocking
from diylisis.core.detectors.rule import Rule
from diylisis.core.model import Finding, RecordKind, Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from diylisis.app.scan import ScanResult

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def sarif_log(version: str, rules: list[dict[str, Any]], results: list[dict[str, Any]], **run: Any
              ) -> dict[str, Any]:
    """A SARIF 2.1.0 log of one git-distill run: its rules, its results and the run's other fields
    (RUN). The one shape scan, verify and vet --verify write."""
    return {"$schema": SCHEMA_URI, "version": "2.1.0",
            "runs": [{"tool": {"driver": {"name": "git-distill", "version": version, "rules": rules}},
                      "results": results, **run}]}


def table_rules(table: Iterable[tuple[str, str, str, str]]) -> list[dict[str, Any]]:
    """SARIF rules from rows of (rule id, name, short description, help), every one an error."""
    return [{"id": rule_id, "name": name, "shortDescription": {"text": short}, "fullDescription": {"text": short},
             "help": {"text": help_text}, "defaultConfiguration": {"level": "error"}}
            for rule_id, name, short, help_text in table]


def commit_location(uri: str, commit: str, **physical: Any) -> dict[str, Any]:
    """A location for what has no file of its own: the pseudo-path URI, the commit named logically."""
    return {"physicalLocation": {"artifactLocation": {"uri": uri}, **physical},
            "logicalLocations": [{"name": commit, "fullyQualifiedName": f"commit:{commit}", "kind": "commit"}]}


def scan_sarif(results: Iterable[ScanResult], version: str, rules: tuple[Rule, ...] = RULES) -> dict[str, Any]:
    """A SARIF log with one run: the detector rules and a result per finding."""
    index = {rule.id: i for i, rule in enumerate(rules)}
    sarif_results = []
    for result in results:
        for finding in result.findings:
            sarif_results.append(_result(result, finding, index, suppressed=False))
        for finding in result.suppressed:
            sarif_results.append(_result(result, finding, index, suppressed=True))
    return sarif_log(version, [_rule(rule) for rule in rules], sarif_results, columnKind="unicodeCodePoints")


def _rule(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc.split("\n\n")[0].replace("\n", " ")},
        "help": {"text": rule.doc.strip()},
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {"category": rule.category.value, "languages": list(rule.languages)},
    }


def _result(result: ScanResult, finding: Finding, index: dict[str, int], *, suppressed: bool) -> dict[str, Any]:
    region = {
        "startLine": finding.line,
        "startColumn": finding.column,
        "endColumn": finding.column + len(finding.token.split("\n")[0]),
        "snippet": {"text": finding.token},
    }
    if result.kind is RecordKind.COMMIT and result.revision:
        location = commit_location(f"commit-message/{result.revision}", result.revision, region=region)
    elif result.path:
        location = {
            "physicalLocation": {
                "artifactLocation": {"uri": result.path, "uriBaseId": "%SRCROOT%"},
                "region": region,
            }
        }
    else:
        location = {
            "physicalLocation": {"artifactLocation": {"uri": f"record/{result.kind.value}"}, "region": region},
            "logicalLocations": [{"fullyQualifiedName": result.target, "kind": "record"}],
        }
    out: dict[str, Any] = {
        "ruleId": finding.rule_id,
        "level": _LEVEL[finding.severity],
        "message": {"text": f"{finding.category.value}: {finding.token!r} — {finding.why}. Fix: {finding.fix}."},
        "locations": [location],
        "partialFingerprints": {"distillFinding/v1": f"{result.digest}:{finding.rule_id}:{finding.line}"},
        "properties": {"category": finding.category.value, "blocking": is_blocking(finding)},
    }
    if finding.rule_id in index:
        out["ruleIndex"] = index[finding.rule_id]
    if finding.resolution:
        out["fixes"] = [{"description": {"text": f"Replace with {finding.resolution}"}}]
    if suppressed:
        out["suppressions"] = [{"kind": "inSource", "justification": "distill: ignore"}]
    return out
