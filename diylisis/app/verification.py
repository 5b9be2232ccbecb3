"""`verify`: re-check certificates against the records' current content (Rule 24).

Nothing on a certificate is trusted as a label: the digest is recomputed over the
snapshot boundary, the certificate is decoded and validated, every Reference locator is
resolved again in the verifying repository, and the refuter realization is ranked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from itertools import chain

from msgspec import Struct

from diylisis.core import codec
from diylisis.core.model import Certificate, Finding, Realization, RecordKind, Reference, RepoContext, Snapshot, Target
from diylisis.core.phases.f2_grounding import resolves_at
from diylisis.edges import notes, store
from diylisis.edges.note_text import CorruptNote
from diylisis.edges.signing import Policy, SignatureCheck

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from typing import Any

    from diylisis.core.generated import GeneratedRule
    from diylisis.edges.gitio.history import Walk

    ContextFor = Callable[[Snapshot], RepoContext | None]

    # (snapshot, its repository context) -> the record's findings, as certification's detector gives them
    Detect = Callable[[Snapshot, RepoContext | None], tuple[Finding, ...]]


class Check(Struct, frozen=True, kw_only=True):
    """The verdict on one record: ok, or each failure named; and whom the certificate that was
    checked is for, and which refuter it names (None when no certificate was found)."""

    target: Target
    revision: str | None
    digest: str
    role: str | None  # the role asked for; None: any
    failures: tuple[str, ...]  # "missing: ...", "stale: ...", "unresolved reference: ...", "below: ..."
    certified_role: str | None = None
    realization: Realization | None = None
    signature: SignatureCheck | None = None  # the checked certificate's signature (None: none was checked)
    skipped: str | None = None  # a generated message the configured rule leaves unjudged: what wrote it

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def corrupt(self) -> bool:
        """A note on this content does not parse or holds a certificate that does not decode."""
        return any(failure.startswith("corrupt: ") for failure in self.failures)


def check(snapshot: Snapshot, notes: list[dict[str, Any]], role: str | None, context: RepoContext | None,
          min_realization: Realization | None = None, *, trust: Trust | None = None) -> Check:
    """Verify one snapshot against the certificates stored under its content."""
    return _check(snapshot, notes, role, lambda: context, min_realization, trust)


class Trust(Struct, frozen=True, kw_only=True):
    """What verify checks beyond a certificate's own fields: its signature under a policy, and
    the record's findings under detect (None: not re-detected)."""

    policy: Policy
    detect: Detect | None = None


def _check(snapshot: Snapshot, notes: list[dict[str, Any]] | CorruptNote, role: str | None,
           context: Callable[[], RepoContext | None], min_realization: Realization | None,
           trust: Trust | None = None) -> Check:
    """check(), asking for the repository context only when a Reference must be resolved:
    opening a context per commit costs more than the rest of verifying a commit message.
    notes: a CorruptNote when the note on this content does not parse: this record fails with
    its reason, and the records around it are still judged."""
    failures: list[str] = []
    certificates: list[Certificate] = []
    note_of: dict[int, dict[str, Any]] = {}  # id(certificate) -> the note data it was decoded from
    digest = snapshot.digest  # a sha256 over the snapshot: computed once
    if isinstance(notes, CorruptNote):
        return Check(target=snapshot.target, revision=snapshot.revision, digest=digest, role=role,
                     failures=(f"corrupt: the certificate note on this content does not read ({notes.what}); "
                               f"inspect it with git notes --ref {notes.ref} show {notes.blob}",))
    for data in notes:
        try:
            certificates.append(codec.certificate_from_dict(data))
        except (codec.DecodeError, ValueError) as error:
            failures.append(f"corrupt: a certificate on this content does not decode ({error})")
        else:
            note_of[id(certificates[-1])] = data
    wanted = [c for c in certificates if role is None or c.role == role]
    if not wanted:
        label = f" for role {role}" if role else ""
        have = sorted({c.role for c in certificates})
        extra = f" (certified for {', '.join(have)})" if have else ""
        failures.append(f"missing: no certificate{label} for this content {digest[:19]}…{extra}")
        return Check(target=snapshot.target, revision=snapshot.revision, digest=digest,
                     role=role, failures=tuple(failures))
    certificate = wanted[0]
    if certificate.identity.digest != digest:
        failures.append(f"stale: the certificate names {certificate.identity.digest[:19]}…, "
                        f"the record is {digest[:19]}…")
    for judgment in certificate.judgments:
        if isinstance(judgment.verdict, Reference):
            holds, detail = resolves_at(judgment.verdict.ref.locator, context())
            if not holds:
                failures.append(f"unresolved reference: {judgment.verdict.ref.locator} ({detail})")
    failures.extend(unresolved_reception(certificate, context))
    if min_realization is not None and certificate.realization.rank < min_realization.rank:
        failures.append(f"below: refuter {certificate.realization.value} is below the required "
                        f"{min_realization.value}")
    signature = None
    if trust is not None:
        signature, more = trusted_failures(trust, note_of[id(certificate)], certificate, snapshot, context)
        failures.extend(more)
    return Check(target=snapshot.target, revision=snapshot.revision, digest=digest, role=role,
                 failures=tuple(failures), certified_role=certificate.role, realization=certificate.realization,
                 signature=signature)


def trusted_failures(trust: Trust, note: dict[str, Any], certificate: Certificate, snapshot: Snapshot,
                     context: Callable[[], RepoContext | None]) -> tuple[SignatureCheck, list[str]]:
    """The certificate's signature check, and the failures of it and of the record's findings: a
    certificate whose record has blocking findings it does not account for was not made by a
    run over these bytes (diylisis.core.accounting), whatever its realization claims."""
    from diylisis.edges import signing

    failures = []
    signature = signing.check(note, snapshot.digest, trust.policy)
    failure = trust.policy.failure(signature)
    if failure:
        failures.append(failure)
    if trust.detect is not None:
        from diylisis.core import accounting

        missing = accounting.unaccounted(certificate, trust.detect(snapshot, context()))
        if missing:
            failures.append(accounting.failure(missing))
    return signature, failures


def unresolved_reception(certificate: Certificate, context: Callable[[], RepoContext | None]) -> list[str]:
    """Rule 21 at reception: each granted source, and an AuthoritativeAt location, still resolves."""
    failures = []
    for source in certificate.reception.granted_sources:
        holds, detail = resolves_at(source, context())
        if not holds:
            failures.append(f"unresolved source: {source} ({detail})")
    if certificate.authority_copy and certificate.authority_copy != "derived":
        holds, detail = resolves_at(certificate.authority_copy, context())
        if not holds:
            failures.append(f"unresolved authority copy: {certificate.authority_copy} ({detail})")
    return failures


# Records verified per bulk read of notes: the notes and certificates of one chunk are all that
# is held at a time, so memory does not grow with the range (a certificate note is about 3 kB of
# JSON, and ten times that once parsed and decoded), and fewer live objects keep Python's
# cyclic garbage collector cheap.
CHUNK = 1000
# A range's chunks go to worker processes, which keep one cat-file each for the notes: smaller
# chunks start no more git processes, and share the work out more evenly to the end.
RANGE_CHUNK = 250
# A range this long is shared among worker processes; a shorter one costs more to start them than it saves.
PARALLEL_FROM = 2000


def check_many(root: str, snapshots: Iterable[Snapshot], role: str | None, context_for: ContextFor,
               min_realization: Realization | None = None, *,
               read_config: Callable[[], store.Settings] | None = None, trust: Trust | None = None,
               generated: GeneratedRule | None = None) -> Iterator[Check]:
    """Verify many snapshots, in order, a chunk at a time: the notes of each chunk read in one
    bulk call (no process per record). read_config gives the store settings from values the
    caller already read (store.settings_from); None: they are read here. Either way they are
    read, and the notes listed, only once there is a record to verify: a bad setting does not
    fail a push or a range with nothing in it.
    """
    from diylisis.edges import workers

    snapshots = iter(snapshots)
    first = next(snapshots, None)
    if first is None:
        return  # nothing to verify: the notes are not even listed
    config = read_config() if read_config is not None else store.settings(root)
    check_chunk = partial(_check_chunk, root, config, notes.note_index(root, config.notes_ref), role, context_for,
                          min_realization, trust=trust, generated=generated)
    yield from workers.in_order(chain([first], snapshots), check_chunk, jobs=1, chunk=CHUNK)


def check_range(root: str, walk: Walk, role: str | None, context_for: ContextFor,
                min_realization: Realization | None = None,
                *, jobs: int = 0, max_bytes: int, read_config: Callable[[], store.Settings],
                trust: Trust | None = None, generated: GeneratedRule | None = None) -> Iterator[Check]:
    """Verify the commit messages of a range (a started gitio.history.Walk), in order, as check_many
    does; in jobs worker processes when jobs > 1 (diylisis.edges.workers), and with jobs 0 in one per
    usable CPU for PARALLEL_FROM records or more. The checks are the same either way.

    While libgit2 sorts the range, the messages along the tip's first-parent line are verified
    here, a few at a time, and those the range holds are not verified again.
    """
    from diylisis.edges import workers

    prepared: list[Callable[[list[tuple[str, bytes]]], list[Check]]] = []

    def check_chunk(chunk: list[tuple[str, bytes]]) -> list[Check]:
        # the first chunk is checked in this process, before any worker is forked: they inherit it
        if not prepared:
            config = read_config()
            prepared.append(partial(_check_messages, root, config, notes.note_index(root, config.notes_ref), role,
                                    context_for, min_realization, max_bytes, trust=trust, generated=generated))
        return prepared[0](chunk)

    # the worker processes make the snapshots: a message and its id cost less to send
    yield from workers.walk_in_order(walk, check_chunk, early_batch=_EARLY_BATCH, jobs=jobs, chunk=RANGE_CHUNK,
                                     parallel_from=PARALLEL_FROM)


_EARLY_BATCH = 64  # records per note read while the range is sorted


def _check_messages(root: str, config: store.Settings, note_of: dict[str, str], role: str | None,
                    context_for: ContextFor,
                    min_realization: Realization | None, max_bytes: int, chunk: list[tuple[str, bytes]], *,
                    trust: Trust | None = None, generated: GeneratedRule | None = None) -> list[Check]:
    """The checks of one chunk of commit messages (id, bytes) of a range, its notes read through
    the process's long-lived cat-file (store.read_notes)."""
    from diylisis.edges.records.commit import message_snapshot

    snapshots = [message_snapshot(commit_id, data, max_bytes) for commit_id, data in chunk]
    return _check_chunk(root, config, note_of, role, context_for, min_realization, snapshots, long_lived=True,
                        trust=trust, generated=generated)


def _check_chunk(root: str, config: store.Settings, note_of: dict[str, str], role: str | None, context_for: ContextFor,
                 min_realization: Realization | None, chunk: list[Snapshot], *, long_lived: bool = False,
                 trust: Trust | None = None, generated: GeneratedRule | None = None) -> list[Check]:
    """The checks of one chunk of snapshots, its notes read in one `git cat-file --batch` (the
    process's long-lived one, with long_lived: store.read_notes). A commit message the generated
    rule skips is not looked up: its check is ok and says what wrote it."""
    if generated is not None:
        skipped = {index: skip for index, snapshot in enumerate(chunk)
                   if snapshot.target.kind is RecordKind.COMMIT
                   and (skip := generated.skips(snapshot.text)) is not None}
        if skipped:
            judged = iter(_check_chunk(root, config, note_of, role, context_for, min_realization,
                                       [s for i, s in enumerate(chunk) if i not in skipped],
                                       long_lived=long_lived, trust=trust))
            return [Check(target=snapshot.target, revision=snapshot.revision, digest=snapshot.digest, role=role,
                          failures=(), skipped=skipped[index].words) if index in skipped else next(judged)
                    for index, snapshot in enumerate(chunk)]
    keys = [store.blob_id(snapshot.data, config.object_format) for snapshot in chunk]
    found = store.read_notes(root, config.notes_ref, {key: note_of[key] for key in keys if key in note_of},
                             long_lived=long_lived, keep_going=True)
    return [_check(snapshot, found.get(key, []), role, _once(context_for, snapshot), min_realization, trust)
            for snapshot, key in zip(chunk, keys, strict=True)]


def _once(context_for: ContextFor, snapshot: Snapshot) -> Callable[[], RepoContext | None]:
    """context_for(snapshot), called on first use and remembered."""
    made: list[RepoContext | None] = []

    def context() -> RepoContext | None:
        if not made:
            made.append(context_for(snapshot))
        return made[0]

    return context
