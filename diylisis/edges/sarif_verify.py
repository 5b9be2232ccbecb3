"""SARIF 2.1.0 for `git distill verify --format sarif`: one result per verification failure.

Code scanning (github/codeql-action/upload-sarif) needs every result to carry a
repository-relative physical location. A file record points at its path. A commit message
has no file, so its result points at the pseudo-path `commit-message/<commit id>` and
names the commit in a logical location; code scanning lists such alerts without a source
annotation. Fingerprints use the record's content digest, so the same failing content keeps
one alert across runs.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from diylisis.core.model import RecordKind
from diylisis.edges.sarif import commit_location, sarif_log, table_rules

# failure prefix (verification.Check.failures) -> (rule id, name, short description, help)
RULES: dict[str, tuple[str, str, str, str]] = {
    "missing": (
        "distill/missing-certificate", "missing-certificate",
        "No certificate for the record's current content.",
        "The record was never certified, or it changed after certification (for example a "
        "message amended with --no-verify). Certify it with git distill certify, and fetch "
        "refs/notes/distill and refs/distill/snapshots before verifying.",
    ),
    "stale": (
        "distill/stale-certificate", "stale-certificate",
        "The certificate names other content than the record holds.",
        "Certify the record again; a certificate binds the exact bytes it certified.",
    ),
    "unresolved reference": (
        "distill/unresolved-reference", "unresolved-reference",
        "A reference the certificate relies on no longer resolves in this repository.",
        "Restore the referenced path, commit or URL, or certify the record again.",
    ),
    "below": (
        "distill/below-realization", "below-realization",
        "The certificate's refuter realization is weaker than required.",
        "Certify again with a stronger refuter ([refuter] command in your own config file).",
    ),
    "corrupt": (
        "distill/corrupt-certificate", "corrupt-certificate",
        "A certificate stored for the record's content does not decode.",
        "Inspect the note with git notes --ref refs/notes/distill show, and certify again.",
    ),
    "unaccounted": (
        "distill/unaccounted-findings", "unaccounted-findings",
        "The record has blocking findings its certificate does not account for.",
        "A certificate is issued only when every finding is repaired, judged or accepted at the gate; "
        "this one was not made over this record under these rules. Certify the record again.",
    ),
    "bad-signature": (
        "distill/bad-signature", "bad-signature",
        "The certificate's signature does not cover it for this record.",
        "The note was edited after it was signed, or its signature belongs to other content. "
        "Certify the record again with --sign.",
    ),
    "signer-not-allowed": (
        "distill/signer-not-allowed", "signer-not-allowed",
        "The certificate is signed by a key the allowed-signers file does not name.",
        "Certify with an allowed key, or add the signer to the allowed-signers file.",
    ),
    "unsigned": (
        "distill/unsigned-certificate", "unsigned-certificate",
        "Signatures are required, and the certificate has no valid signature by an allowed signer.",
        "Certify the record again with --sign (git config gpg.format and user.signingKey).",
    ),
}
OTHER = ("distill/verification-failure", "verification-failure",
         "The record failed verification.", "Run git distill verify for details.")


def _location(check: Any) -> dict[str, Any]:
    target = check.target
    if target.kind is RecordKind.COMMIT:
        commit_id = check.revision or target.locator
        return commit_location(f"commit-message/{commit_id}", commit_id)
    if target.kind is RecordKind.FILE:
        return {
            "physicalLocation": {"artifactLocation": {"uri": target.locator,
                                                      "uriBaseId": "%SRCROOT%"},
                                 "region": {"startLine": 1}},
            "logicalLocations": [{"fullyQualifiedName": str(target), "kind": "record"}],
        }
    return {
        "physicalLocation": {"artifactLocation": {"uri": f"record/{target.kind.value}"}},
        "logicalLocations": [{"fullyQualifiedName": str(target), "kind": "record"}],
    }


def _result(check: Any, failure: str, index: dict[str, int]) -> dict[str, Any]:
    rule_id = RULES.get(failure.split(":", 1)[0].strip(), OTHER)[0]  # by its prefix (`missing: ...`)
    subject = f"{check.target}"
    return {
        "ruleId": rule_id,
        "ruleIndex": index[rule_id],
        "level": "error",
        "message": {"text": f"{subject}: {failure}"},
        "locations": [_location(check)],
        "partialFingerprints": {"distillRecordDigest/v1": f"{check.digest}:{rule_id}"},
        "properties": {"target": str(check.target), "revision": check.revision,
                       "digest": check.digest, "role": check.role},
    }


def sarif_for_checks(checks: Iterable[Any]) -> dict[str, Any]:
    """A SARIF 2.1.0 log of verification checks: a result per failure, none for passing records.

    The checks are read once and not kept, so a long range costs memory only for its failures."""
    from diylisis import __version__

    rules = table_rules((*RULES.values(), OTHER))
    index = {rule["id"]: number for number, rule in enumerate(rules)}
    results: list[dict[str, Any]] = []
    records = verified = 0
    for check in checks:
        records += 1
        verified += check.ok
        results.extend(_result(check, failure, index) for failure in check.failures)
    return sarif_log(__version__, rules, results, properties={"records": records, "verified": verified})
