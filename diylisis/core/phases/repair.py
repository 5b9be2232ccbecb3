"""Phase 3 repair: the pass's settled deltas as pure text edits (Rule 12).

Resolution deltas add a canonical form, a pointer or evidence and never change an
asserted claim; excision deltas remove a dropped item's content, only after a gate
Drop, and never touch kept content; `excision` decides how much of the sentence goes
with the token, so what is left reads well. The engine writes the result through the record's
write channel and logs each delta.
"""

from __future__ import annotations

import re

from msgspec import Struct

from diylisis.core.state import DecisionRecord, DeltaKind, Item, ItemKind, RepairDelta

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from diylisis.core.gate import Answer

# categories whose surface token is a pointer: the canonical reference stands in for it
POINTER_KINDS = frozenset({ItemKind.DEICTIC, ItemKind.SESSION_ID, ItemKind.BARE_ISSUE_REF, ItemKind.EPHEMERAL_REF})


class Edit(Struct, frozen=True, kw_only=True):
    """One text edit a repair pass applies: the item, its kind, the span it replaces and the text put there."""

    item_id: str
    kind: DeltaKind
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
        start, end = without_sentence_end(text, start, start + len(item.token))
        answer = answered.get(item.id)
        if answer is None and item.resolution and item.kind is not ItemKind.POINTER:
            edits.append(Edit(item_id=item.id, kind=DeltaKind.RESOLUTION, line=item.line, start=start,
                              end=end, replacement=item.resolution, added=item.resolution))
        elif answer is None:
            continue
        elif answer.option in ("resolve", "route") and answer.value:
            value = answer.value.strip()
            if item.kind in POINTER_KINDS:
                edits.append(Edit(item_id=item.id, kind=DeltaKind.RESOLUTION, line=item.line, start=start,
                                  end=end, replacement=value, added=value))
            else:
                note = value if answer.option == "resolve" else f"see {value}"
                edits.append(Edit(item_id=item.id, kind=DeltaKind.RESOLUTION, line=item.line, start=end,
                                  end=end, replacement=f" ({note})", added=note))
        elif answer.option == "drop":
            from diylisis.core.phases import excision  # only a Drop needs it; the commit-msg hook never drops

            span = next((span for span in excision.spans(text, start, end)
                         if not any(s < span[1] and span[0] < e for s, e in kept_spans)), None)
            if span is None:
                conflicts.append(item.id)
                continue
            edits.append(Edit(item_id=item.id, kind=DeltaKind.EXCISION, line=item.line, start=span[0],
                              end=span[1], replacement="", added=None))
    for decision in decisions:
        answer = answered.get(decision.id)
        if decision.id in done or decision.ledger_ref or answer is None:
            continue
        if answer.option == "drop":  # Rule 33: a Drop releases the decision and its record
            cut = _decision_excision(text, offsets, decision, kept_spans)
            if isinstance(cut, str):  # "conflict": the excision would cut into kept content
                conflicts.append(decision.id)
            elif cut is not None:
                edits.append(cut)
            continue
        if answer.option not in ("resolve", "route"):  # Route binds the pointer as Resolve does
            continue
        position = _claim_end(text, offsets, decision)
        if position is None:
            continue
        note = f" (decision record: {answer.value})"
        edits.append(Edit(item_id=decision.id, kind=DeltaKind.RESOLUTION, line=decision.line,
                          start=position, end=position, replacement=note, added=note.strip()))
    return _without_overlaps(edits), tuple(conflicts)


def apply(text: str, edits: tuple[Edit, ...], pass_n: int) -> tuple[str, tuple[RepairDelta, ...]]:
    """Apply edits back to front; return the new text and the logged deltas, each naming
    exactly what it took out and put in (an excision may take more than its token)."""
    deltas = []
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        old = text
        if edit.kind is DeltaKind.EXCISION:
            from diylisis.core.phases import excision

            text = excision.splice(text, edit.start, edit.end)
            if text.count("\n") == old.count("\n"):  # the line is still there: mend it
                text = _tidy_line_at(text, edit.start)
        else:
            text = text[: edit.start] + _without_doubled_mark(edit.replacement, text[edit.end:]) + text[edit.end:]
        excised = edit.kind is DeltaKind.EXCISION
        before, after = _changed(old, text) if excised else (old[edit.start:edit.end], edit.replacement)
        deltas.append(RepairDelta(kind=edit.kind, item_id=edit.item_id, pass_n=pass_n,
                                  line=edit.line, before=before, after=after, added=edit.added))
    return text, tuple(reversed(deltas))


def _changed(old: str, new: str) -> tuple[str, str]:
    """The part of old that new replaced, and what replaced it (common head and tail left out)."""
    head = 0
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < limit - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
        tail += 1
    return old[head:len(old) - tail], new[head:len(new) - tail]


def _tidy_line_at(text: str, at: int) -> str:
    """tidy the one line holding offset at: an excision mends only where it cut (Rule 12)."""
    at = min(at, len(text))
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    end = len(text) if end < 0 else end
    line = text[start:end]
    mended = tidy(line)
    if mended == line:
        return text
    if not mended and line.strip():
        return text[:start] + text[end + 1:]  # the excision emptied the line
    return text[:start] + mended + text[end:]


def tidy(text: str) -> str:
    """Mend the punctuation an excision leaves behind, line by line (the caller hands it only
    the lines an excision touched)."""
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


def without_sentence_end(text: str, start: int, end: int) -> tuple[int, int]:
    """(start, end) of a token; one that swallowed its sentence's closing mark gives it back
    (`/tmp/run3.log.` at the end of a sentence)."""
    while end - start > 1 and text[end - 1] in ".!?。！？,;:" and (end == len(text) or text[end].isspace()):
        end -= 1
    return start, end


def _without_doubled_mark(replacement: str, after: str) -> str:
    """A replacement ending in the mark that already follows it gives its own up ("tries..")."""
    if replacement[-1:] in ".!?。！？" and after[:1] == replacement[-1:]:
        return replacement[:-1]
    return replacement


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
    from diylisis.core.phases import excision

    span = next((span for span in excision.spans(text, found, found + len(decision.claim))
                 if not any(s < span[1] and span[0] < e for s, e in kept_spans)), None)
    if span is None:
        return "conflict"
    start, end = span
    return Edit(item_id=decision.id, kind=DeltaKind.EXCISION, line=decision.line, start=start, end=end,
                replacement="", added=None)


def _without_overlaps(edits: list[Edit]) -> tuple[Edit, ...]:
    """Edits that do not overlap: overlapping excisions become one excision of their union
    (two drops that share words must not leave half of either); an edit inside an excision
    goes with it; of two overlapping resolutions the first stays."""
    kept: list[Edit] = []
    for edit in sorted(edits, key=lambda e: (e.start, -e.end)):
        if kept and edit.start < kept[-1].end:
            last = kept[-1]
            if last.kind is DeltaKind.EXCISION and edit.kind is DeltaKind.EXCISION:
                kept[-1] = Edit(item_id=last.item_id, kind=DeltaKind.EXCISION, line=last.line, start=last.start,
                                end=max(last.end, edit.end), replacement="", added=None)
            elif edit.kind is DeltaKind.EXCISION:
                kept[-1] = edit if edit.end >= last.end else last
            continue
        kept.append(edit)
    return tuple(kept)
