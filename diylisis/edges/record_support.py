"""The repository's side of certify's F3b: what code, config, tests and CI hold at the certified
revision for the keys a record's pointer lines give values for (design/vet.md, Tagging).

It measures with the same git queries as vet's tags (`diylisis.edges.vet_facts`) and writes nothing.
"""

from __future__ import annotations

from pathlib import Path

from diylisis.core import tagging
from diylisis.core.model import Snapshot
from diylisis.edges import vet_facts


def measure(root: str | Path, snapshot: Snapshot, keys: frozenset[str]) -> tagging.SupportFacts | None:
    """SupportFacts for KEYS at the snapshot's tree revision, the record's own lines left out; None
    for a record with no tree revision (a staged file)."""
    revision = snapshot.tree_revision
    if revision is None or not keys:
        return None
    code = tuple(fact for fact in vet_facts.code_facts(root, revision, keys) if fact.path != snapshot.path)
    found = vet_facts.enforcement_of(root, revision, sorted({fact.key for fact in code}))
    return tagging.SupportFacts(revision=revision, code=code,
                                enforcement=tuple(line for lines, _ in found.values() for line in lines),
                                enforcement_basis="; ".join(command for _, command in found.values()))
