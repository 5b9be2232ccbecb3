"""Phase 3 repair: the pass's settled deltas as pure text edits (Rule 12).

Resolution deltas add a canonical form, a pointer or evidence and never change an
asserted claim; excision deltas remove a dropped item's content, only after a gate
Drop, and never touch kept content. The engine writes the result through the record's
write channel and logs each delta.
"""

from __future__ import annotations

import re

from diylisis.frozen import frozen_model
from diylisis.state import Answer, DecisionRecord, Item, RepairDelta

# categories whose surface token is a pointer: the canonical reference stands in for it
POINTER_KINDS = frozenset({"deictic", "session-id", "bare-issue-ref", "ephemeral-ref"})


@frozen_model
class Edit:
    item_id: str
    kind: str  # resolution | excision
    line: int
    start: int  # 0-based offset in the whole text
    end: int
    replacement: str
    added: str | None


def plan(text: str, items: tuple[Item, ...], answers: tuple[Answer, ...],
         decisions: tuple[DecisionRecord, ...], done: frozenset[str],
         kept_spans: tuple[tuple[int, int], ...] = ()) -> tuple[tuple[Edit, ...], tuple[str, ...]]:
    """Edits this pass applies, and item ids whose excision conflicts with kept content."""
    offsets = _line_offsets(text)
    answered = {answer.item_id: answer for answer in answers}
    edits: list[Edit] = []
    conflicts: list[str] = []
    for item in items:
        if item.id in done:
            continue
        start = _locate(text, offsets, item)
        if start is None:
            continue
        end = start + len(item.token)
        answer = answered.get(item.id)
        if answer is None and item.resolution and item.kind != "pointer":
            edits.append(Edit(item_id=item.id, kind="resolution", line=item.line, start=start,
                              end=end, replacement=item.resolution, added=item.resolution))
        elif answer is None:
            continue
        elif answer.option in ("resolve", "route") and answer.value:
            value = answer.value.strip()
            if item.kind in POINTER_KINDS:
                edits.append(Edit(item_id=item.id, kind="resolution", line=item.line, start=start,
                                  end=end, replacement=value, added=value))
            else:
                note = value if answer.option == "resolve" else f"see {value}"
                edits.append(Edit(item_id=item.id, kind="resolution", line=item.line, start=end,
                                  end=end, replacement=f" ({note})", added=note))
        elif answer.option == "drop":
            start, end = _excision_span(text, start, end)
            if any(s < end and start < e for s, e in kept_spans):
                conflicts.append(item.id)
                continue
            edits.append(Edit(item_id=item.id, kind="excision", line=item.line, start=start,
                              end=end, replacement="", added=None))
    for decision in decisions:
        answer = answered.get(decision.id)
        if decision.id in done or decision.ledger_ref or answer is None:
            continue
        if answer.option == "drop":  # Rule 33: a Drop releases the decision and its record
            excision = _decision_excision(text, offsets, decision, kept_spans)
            if excision == "conflict":
                conflicts.append(decision.id)
            elif excision is not None:
                edits.append(excision)
            continue
        if answer.option not in ("resolve", "route"):  # Route binds the pointer as Resolve does
            continue
        position = _claim_end(text, offsets, decision)
        if position is None:
            continue
        note = f" (decision record: {answer.value})"
        edits.append(Edit(item_id=decision.id, kind="resolution", line=decision.line,
                          start=position, end=position, replacement=note, added=note.strip()))
    return _without_overlaps(edits), tuple(conflicts)


def apply(text: str, edits: tuple[Edit, ...], pass_n: int) -> tuple[str, tuple[RepairDelta, ...]]:
    """Apply edits back to front; return the new text and the logged deltas."""
    deltas = []
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        before = text[edit.start:edit.end]
        text = text[: edit.start] + edit.replacement + text[edit.end:]
        deltas.append(RepairDelta(kind=edit.kind, item_id=edit.item_id, pass_n=pass_n,
                                  line=edit.line, before=before, after=edit.replacement,
                                  added=edit.added))
    if any(edit.kind == "excision" for edit in edits):
        text = tidy(text)
    return text, tuple(reversed(deltas))


def tidy(text: str) -> str:
    """Mend the punctuation an excision leaves behind, line by line."""
    lines = []
    for line in text.split("\n"):
        mended = re.sub(r"\(\s*\)|\[\s*\]", "", line)
        mended = re.sub(r"(?<=\S) {2,}", " ", mended)
        mended = re.sub(r" +([,.;:!?])", r"\1", mended)
        mended = re.sub(r"([,;:])(?=[.,;:])", "", mended)
        mended = mended.rstrip()
        if line.strip() and re.fullmatch(r"\s*([-*+]|\d+[.)])?\s*[,.;:]?", mended):
            continue  # the excision emptied a bullet or a line
        lines.append(mended)
    return "\n".join(lines)


def _line_offsets(text: str) -> list[int]:
    offsets = [0]
    for index, char in enumerate(text):
        if char == "\n":
            offsets.append(index + 1)
    return offsets


def _locate(text: str, offsets: list[int], item: Item) -> int | None:
    if item.line - 1 >= len(offsets):
        return None
    start = offsets[item.line - 1] + item.column - 1
    if text[start:start + len(item.token)] == item.token:
        return start
    found = text.find(item.token, offsets[item.line - 1])
    return found if found >= 0 else None


def _excision_span(text: str, start: int, end: int) -> tuple[int, int]:
    if start > 0 and end < len(text) and text[start - 1] in "([" and text[end] in ")]":
        start, end = start - 1, end + 1
    if start > 0 and text[start - 1] == " ":
        start -= 1
    return start, end


def _claim_end(text: str, offsets: list[int], decision: DecisionRecord) -> int | None:
    line_start = offsets[decision.line - 1]
    found = text.find(decision.claim, line_start)
    if found < 0:
        return None
    end = found + len(decision.claim)
    while end > found and text[end - 1] in ".\n ":
        end -= 1
    return end


def _decision_excision(text: str, offsets: list[int], decision: DecisionRecord,
                       kept_spans: tuple[tuple[int, int], ...]) -> Edit | str | None:
    """The excision of a dropped decision's claim; "conflict" when it would cut into kept content."""
    found = text.find(decision.claim, offsets[decision.line - 1]) if decision.line - 1 < len(offsets) else -1
    if found < 0:
        return None
    start, end = _excision_span(text, found, found + len(decision.claim))
    if any(s < end and start < e for s, e in kept_spans):
        return "conflict"
    return Edit(item_id=decision.id, kind="excision", line=decision.line, start=start, end=end,
                replacement="", added=None)


def _without_overlaps(edits: list[Edit]) -> tuple[Edit, ...]:
    kept: list[Edit] = []
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if kept and edit.start < kept[-1].end:
            continue
        kept.append(edit)
    return tuple(kept)
