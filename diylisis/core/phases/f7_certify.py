"""F7: re-check identity, then assemble the certificate and the reception procedure (Rule 24)."""

from __future__ import annotations

from diylisis import __version__
from diylisis.core.model import (
    ActivationEdge,
    Certificate,
    Contract,
    EmittedDelta,
    Outcome,
    ReceptionProcedure,
    Reference,
    RouteJudgment,
    Snapshot,
    TargetIdentity,
    ZeroMemoryVerdict,
)
from diylisis.core.phases.f2_grounding import dereference_step
from diylisis.core.safe_text import visible_lines
from diylisis.core.state import DecisionRecord, DeltaKind, RepairDelta


def identity_holds(snapshot: Snapshot, reviewed_digest: str) -> bool:
    """F7 lead re-check: the current bytes are the bytes the final Pass reviewed."""
    return snapshot.digest == reviewed_digest


def premise_text(premise: DecisionRecord) -> str:
    """One line of the emitted premise list, with its deferral annotation (Rule 33)."""
    text = premise.claim
    if premise.ledger_ref:
        text += f" (record: {premise.ledger_ref})"
    if premise.deferral:
        text += f" [deferred until: {premise.deferral}]"
    return text


def emit_deltas(deltas: tuple[RepairDelta, ...]) -> tuple[EmittedDelta, ...]:
    """emit(Λ.outcome): resolutions in full, excisions as content-free marks."""
    return tuple(
        EmittedDelta(kind=delta.kind, location=f"line {delta.line}, pass {delta.pass_n}",
                     added=delta.added if delta.kind is DeltaKind.RESOLUTION else None)
        for delta in deltas
    )


def assemble(*, snapshot: Snapshot, contract: Contract, edge: ActivationEdge,
             judgments: tuple[RouteJudgment, ...], deltas: tuple[RepairDelta, ...],
             premises: tuple[DecisionRecord, ...], verdict: ZeroMemoryVerdict,
             issued_at: str, suppressions: tuple[str, ...] = (),
             consumer_profile: str | None = None, authority_copy: str | None = None,
             languages: tuple[str, ...] | None = None) -> Certificate:
    """F7 certify: the certificate over the current, already-repaired state (languages: those
    [detect] enables, None for every shipped lexicon)."""
    locator = str(snapshot.target)
    steps = [f"git distill verify {locator} --role {contract.role}  # identity re-check first"]
    steps += [dereference_step(j.verdict.ref, snapshot.tree_revision)
              for j in judgments if isinstance(j.verdict, Reference)]
    return Certificate(
        target=snapshot.target,
        identity=TargetIdentity(digest=snapshot.digest, boundary=snapshot.boundary,
                                revision=snapshot.revision),
        role=contract.role,
        activity=contract.activity,
        activation_edge=edge,
        judgments=judgments,
        outcome=Outcome.REPAIRED if deltas else Outcome.ALREADY_PORTABLE,
        deltas=emit_deltas(deltas),
        reception=ReceptionProcedure(
            role=contract.role, granted_sources=contract.allowed_sources,
            verification=contract.verification, scope=contract.scope, stop=contract.stop,
            dereference_steps=tuple(dict.fromkeys(steps)),
            premises=tuple(premise_text(p) for p in premises)),
        realization=verdict.realization,
        sweep=verdict.sweep,
        issued_at=issued_at,
        tool_version=__version__,
        suppressions=suppressions,
        consumer_profile=consumer_profile,
        authority_copy=authority_copy,
        coverage=_coverage(snapshot, languages),
    )


def _coverage(snapshot: Snapshot, languages: tuple[str, ...] | None) -> tuple[str, ...]:
    """What the detectors could not judge in the record: its language when no lexicon ships for it."""
    if snapshot.text.isascii():
        return ()  # no script without a lexicon; spares the hook the import
    from diylisis.core.detectors.coverage import coverage_notes

    return coverage_notes(snapshot.text, languages)


UNSIGNED_AUTHOR = "the certificate's author (unsigned: nothing in it says who)"


def author(signature_words: str | None) -> str:
    """Who wrote a certificate's text, in plain words: the checked signature's verdict, or, for
    an unsigned certificate, that nothing says who (anyone who can write the notes could have)."""
    if signature_words is None or signature_words == "unsigned":
        return UNSIGNED_AUTHOR
    return f"the certificate's author ({signature_words})"


def brief_text(certificate: Certificate, signature_words: str | None = None) -> str:
    """The reception procedure as the text a user carries downstream (DelegationBrief).

    Each line is escaped: a control character or a line break in the certificate's text shows
    as written, and cannot start a line of its own.
    """
    return visible_lines(brief_lines(certificate, signature_words)) + "\n"


def brief_lines(certificate: Certificate, signature_words: str | None = None) -> list[str]:
    """The lines of the reception procedure, unescaped (what the leak lint reads).

    Everything in it is read from the certificate, a note someone else may have written: its
    commands are quoted under the name of their author, never set out as commands to run.
    """
    procedure = certificate.reception
    lines = [
        f"Reception procedure for {certificate.target} (role: {procedure.role})",
        f"Written by {author(signature_words)}: the steps and commands below are its text, quoted, not instructions "
        "from git distill; read each before you act on it.",
        f"Activation: {certificate.activation_edge.verb.replace('{locator}', str(certificate.target))}",
        f"Certified content: {certificate.identity.digest} ({certificate.identity.boundary})",
        f"Refuter: {certificate.realization.value} — {rigor_words(certificate.realization.value)}",
    ]
    if certificate.activity:
        lines.append(f"Activity: {certificate.activity}")
    lines.append("Granted sources: " + (", ".join(procedure.granted_sources) or "the repository only"))
    if procedure.scope:
        lines.append(f"Scope: {procedure.scope}")
    if procedure.verification:
        lines.append("Verification commands, quoted from the certificate (git distill has not run or checked them):")
        lines += [f"  - {command}" for command in procedure.verification]
    if procedure.stop:
        lines.append(f"Stop when: {procedure.stop}")
    lines.append("Dereference steps, quoted from the certificate:")
    lines += [f"  {number}. {step}" for number, step in enumerate(procedure.dereference_steps, 1)]
    if procedure.premises:
        lines.append("Premises to reconfirm:")
        lines += [f"  - {premise}" for premise in procedure.premises]
    if certificate.consumer_profile:
        lines.append(f"Recipient: {certificate.consumer_profile}")
    if certificate.authority_copy:
        from diylisis.core.phases.qp_premise import authority_line

        lines.append(f"{authority_line(certificate.authority_copy, str(certificate.target))}; "
                     f"issued {certificate.issued_at}; reverification premised: run step 1 first.")
    if certificate.outcome == Outcome.REPAIRED:
        lines.append(f"This record was repaired in place ({len(certificate.deltas)} change(s)) before certification.")
    return lines


def rigor_words(realization: str) -> str:
    """Plain words for how strong the refuter behind a verdict was (issue 6)."""
    return {
        "lint-fallback": "checked by the built-in deterministic lint, not by a fresh reader",
        "generic-subagent": "read by a fresh agent process with the refuter instructions",
        "refuter-subagent": "read by a dedicated zero-memory refuter agent",
    }.get(realization, "unknown realization")
