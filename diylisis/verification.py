"""`verify`: re-check certificates against the records' current content (Rule 24).

Nothing on a certificate is trusted as a label: the digest is recomputed over the
snapshot boundary, the certificate is decoded and validated, every Reference locator is
resolved again in the verifying repository, and the refuter realization is ranked.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from diylisis import codec, store
from diylisis.model import Certificate, Realization, Reference, RepoContext, Snapshot, Target
from diylisis.phases.f2_grounding import resolves_at

MODEL = dict(frozen=True, slots=True, kw_only=True)


@dataclass(**MODEL)
class Check:
    """The verdict on one record: ok, or each failure named."""

    target: Target
    revision: str | None
    digest: str
    role: str | None
    failures: tuple[str, ...]  # "missing: ...", "stale: ...", "unresolved reference: ...", "below: ..."
    certificate: Certificate | None = None

    @property
    def ok(self) -> bool:
        return not self.failures


def check(snapshot: Snapshot, notes: list[dict], role: str | None, context: RepoContext | None,
          min_realization: Realization | None = None) -> Check:
    """Verify one snapshot against the certificates stored under its content."""
    failures: list[str] = []
    certificates: list[Certificate] = []
    for data in notes:
        try:
            certificates.append(codec.certificate_from_dict(data))
        except (codec.DecodeError, ValueError) as error:
            failures.append(f"corrupt: a certificate on this content does not decode ({error})")
    wanted = [c for c in certificates if role is None or c.role == role]
    if not wanted:
        label = f" for role {role}" if role else ""
        have = sorted({c.role for c in certificates})
        extra = f" (certified for {', '.join(have)})" if have else ""
        failures.append(f"missing: no certificate{label} for this content {snapshot.digest[:19]}…{extra}")
        return Check(target=snapshot.target, revision=snapshot.revision, digest=snapshot.digest,
                     role=role, failures=tuple(failures))
    certificate = wanted[0]
    if certificate.identity.digest != snapshot.digest:
        failures.append(f"stale: the certificate names {certificate.identity.digest[:19]}…, "
                        f"the record is {snapshot.digest[:19]}…")
    for judgment in certificate.judgments:
        if isinstance(judgment.verdict, Reference):
            holds, detail = resolves_at(judgment.verdict.ref.locator, context)
            if not holds:
                failures.append(f"unresolved reference: {judgment.verdict.ref.locator} ({detail})")
    if min_realization is not None and certificate.realization.rank < min_realization.rank:
        failures.append(f"below: refuter {certificate.realization.value} is below the required "
                        f"{min_realization.value}")
    return Check(target=snapshot.target, revision=snapshot.revision, digest=snapshot.digest,
                 role=role, failures=tuple(failures), certificate=certificate)


def check_many(root, snapshots: Iterable[Snapshot], role: str | None, context_for,
               min_realization: Realization | None = None) -> Iterator[Check]:
    """Verify many snapshots with the notes read in bulk (one pass, no process per record)."""
    snapshots = list(snapshots)
    notes = store.get_many(root, [s.data for s in snapshots])
    config = store.settings(root)
    for snapshot in snapshots:
        found = notes.get(store.blob_id(snapshot.data, config.object_format), [])
        yield check(snapshot, found, role, context_for(snapshot), min_realization)
