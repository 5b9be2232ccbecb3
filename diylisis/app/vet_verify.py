"""`git distill vet --verify [--at REV]`: re-check the newest vet result stored on a commit.

It re-checks the structure and ledger, the source blobs (present, the ones the commit holds, and
unchanged at HEAD), each claim's text at its span, the tag facts measured again at the note's
commit, and that the leaned-on files resolve. It never runs anything a note says and does not
judge the verdicts. Besides the checks it reports, without failing, the Revisit conditions that
are met now (the run that would have re-asked them has ended: re-vet) and the withdrawn claims
the action still leans on.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from msgspec import Struct

from diylisis.app import vet
from diylisis.core.errors import BadInput, DistillError
from diylisis.core.vet import result, triggers
from diylisis.core.vet import verify as checks
from diylisis.core.vet.judgment import InstructionKind
from diylisis.core.vet.model import Origin, Source
from diylisis.edges import vet_facts, vet_note, vet_triggers


class Verified(Struct, frozen=True, kw_only=True):
    """What `vet --verify` found for one commit."""

    commit: str
    action: str
    checks: tuple[checks.Check, ...]
    places: tuple[tuple[str, str, int], ...] = ()  # (audit id, source path, line) of each stored claim
    sources: tuple[str, ...] = ()  # the vetted paths the result names
    reports: tuple[str, ...] = ()  # met Revisits and withdrawn claims still leaned on: said, not failed

    @property
    def ok(self) -> bool:
        """Every check held."""
        return checks.summary(self.checks)


def newest(lines: list[dict[str, object]]) -> dict[str, object]:
    """The line with the newest issued_at (readers take the newest)."""
    return max(lines, key=lambda line: str(line.get("issued_at", "")))


def _sources(root: Path, commit: str, line: Mapping[str, object]) -> tuple[list[checks.Check], list[Source]]:
    problems, notes, pinned = [], [], []
    stored = line.get("sources")
    for entry in stored if isinstance(stored, list) else []:
        if not isinstance(entry, dict):
            problems.append("a source entry is not an object")
            continue
        path, blob, origin = str(entry.get("path", "")), str(entry.get("blob", "")), entry.get("origin")
        message = path.startswith(vet_facts.COMMIT_PREFIX)  # a commit message, pinned by the commit's id
        locator = path if message else f"file:{path}"
        if entry.get("id") != f"{locator}@{blob}" or (message and path != f"{vet_facts.COMMIT_PREFIX}{blob}"):
            problems.append(f"{path}: its id does not name its blob")
        if not message:
            at_commit = vet_facts.blob_id(root, commit, path)
            if at_commit != blob:
                problems.append(f"{path}: the commit holds blob {str(at_commit)[:12]}, the result names {blob[:12]}")
                continue
            if vet_facts.blob_id(root, "HEAD", path) != blob:
                notes.append(f"{path} changed since it was vetted: re-vet")
        try:
            pinned.append(Source(locator=locator, path=path, blob=blob, origin=Origin(origin),
                                 text=vet_facts.blob_text(root, blob)))
        except (ValueError, DistillError):
            problems.append(f"{path}: its blob or origin cannot be read")
    found = [checks.Check(name="sources", ok=not problems, detail="; ".join(problems) or "every source blob as read"),
             checks.Check(name="sources-now", ok=not notes, detail="; ".join(notes) or "no source changed since")]
    return found, pinned


def _places(line: Mapping[str, object]) -> tuple[tuple[str, str, int], ...]:
    """Where each stored claim sits: its source and the line its span names (`...:L3:c1-c76`)."""
    claims = line.get("claims")
    found = []
    for audit, claim in (claims.items() if isinstance(claims, dict) else ()):
        if not isinstance(claim, dict):
            continue
        row = str(claim.get("span", "")).rsplit(":", 2)
        number = row[1].removeprefix("L") if len(row) == 3 else ""
        found.append((str(audit), str(claim.get("source", "")), int(number) if number.isdecimal() else 1))
    return tuple(found)


def _source_paths(line: Mapping[str, object]) -> tuple[str, ...]:
    stored = line.get("sources")
    return tuple(str(s.get("path")) for s in (stored if isinstance(stored, list) else ()) if isinstance(s, dict))


def _instruction(entry: object) -> Mapping[str, object] | None:
    judged = entry.get("judged") if isinstance(entry, dict) else None
    instruction = judged.get("instruction") if isinstance(judged, dict) else None
    return instruction if isinstance(instruction, dict) else None


def reports(root: Path, line: Mapping[str, object]) -> tuple[str, ...]:
    """The Revisit conditions met at HEAD against their anchors, and the withdrawn claims whose
    source a line the action reads still names at HEAD."""
    found = []
    dispositions, claims = line.get("dispositions"), line.get("claims")
    for audit, entry in (dispositions.items() if isinstance(dispositions, dict) else ()):
        instruction = _instruction(entry)
        if (instruction is None or instruction.get("kind") != InstructionKind.REVISIT.value
                or not isinstance(instruction.get("text"), str)):
            continue
        condition = triggers.parse(str(instruction["text"]))
        anchor = instruction.get("anchor")
        now = vet_triggers.state(root, condition)
        if now is not None and triggers.met(condition, anchor if isinstance(anchor, str) else None, now):
            found.append(f"Revisit({condition.kind.value}:{condition.argument}) on {audit} is met now;"
                         " the run that would ask again has ended: re-vet")
    withdrawn = line.get("withdrawn")
    for item in withdrawn if isinstance(withdrawn, list) else ():
        audit = item.get("audit") if isinstance(item, dict) else None
        claim = claims.get(audit) if isinstance(claims, dict) and isinstance(audit, str) else None
        if not isinstance(claim, dict):
            continue
        source = str(claim.get("source"))
        for read in claim.get("stake") or ():
            path = str(read).rsplit(":", 1)[0]
            blob = vet_facts.blob_id(root, "HEAD", path)
            if blob is not None and path != source and source in vet_facts.blob_text(root, blob):
                found.append(f"{path} still names {source}, whose claim {audit} was withdrawn: "
                             f"{claim.get('text')}")
                break
    return tuple(found)


def _reads(line: Mapping[str, object]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    claims = line.get("claims")
    reads: dict[str, tuple[str, ...]] = {}
    for claim in (claims.values() if isinstance(claims, dict) else ()):
        if isinstance(claim, dict) and isinstance(claim.get("stake"), list):
            # a source's claims may each be read through another changed path: their union
            source = str(claim.get("source"))
            reads[source] = tuple(dict.fromkeys([*reads.get(source, ()), *(str(s) for s in claim["stake"])]))
    return tuple(reads.items())


def verify(root: Path, at: str) -> Verified:
    """Re-check the newest vet result on AT's commit; a commit with none is a BadInput."""
    commit = vet_facts.resolve(root, at)
    lines = vet_note.read(root, commit)
    if not lines:
        raise BadInput(f"no vet result is stored on {commit[:12]} (refs/notes/distill-vet)")
    line = newest(lines)
    found = checks.structure(line)
    if not found[0].ok:
        return Verified(commit=commit, action=str(line.get("action")), checks=tuple(found),
                        sources=_source_paths(line))
    if line["commit"] != commit:
        found.append(checks.Check(name="commit", ok=False, detail=f"the result names commit {line['commit']!r}"))
    source_checks, sources = _sources(root, commit, line)
    found += source_checks
    leans_on = [str(x) for x in line["leans_on"]] if isinstance(line["leans_on"], list) else []
    digest = result.action_digest(str(line["action"]), leans_on, sources)
    found.append(checks.Check(name="action_digest", ok=digest == line["action_digest"],
                              detail="matches" if digest == line["action_digest"] else
                              "action_digest does not match the action, the leaned-on files and the sources"))
    found += checks.spans(line, {s.blob: s.text for s in sources})
    pinned = vet.Pinned(action=str(line["action"]), commit=commit, sources=tuple(sources), reads=_reads(line),
                        leans_on=tuple(leans_on))
    audits, settled = vet.formation(root, pinned)
    recomputed = {a.id: result.claim_json(a)["tags"] for a in audits}
    found += checks.tags(line, {k: v for k, v in recomputed.items() if isinstance(v, dict)},
                         {c.id: c.settlement.value for c in settled})
    unresolved = [p for p in leans_on if vet_facts.blob_id(root, commit, p) is None]
    found.append(checks.Check(name="leans_on", ok=not unresolved,
                              detail=f"not tracked: {', '.join(unresolved)}" if unresolved else "every one resolves"))
    return Verified(commit=commit, action=str(line["action"]), checks=tuple(found), places=_places(line),
                    sources=_source_paths(line), reports=reports(root, line))

