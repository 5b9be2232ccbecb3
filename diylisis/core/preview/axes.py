"""derive_axes and the spec gate's checks: axes come from the user (or a validated deriver).

The words that differ between candidates are shown as hints only: surface variation is not a
divergence axis, so no axis is ever proposed from them.
"""

from __future__ import annotations

import re

from diylisis.core.preview.model import Axis, AxisHint

MAX_AXES = 5
_WORD = re.compile(r"[^\W_][\w'-]*", re.UNICODE)
_STOP = frozenset("a an the and or of to in on for with by as at is are be one two use using via into per".split())
_AXIS_ID = re.compile(r"^[a-z][a-z0-9-]{0,39}$")


def _words(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(word.casefold() for word in _WORD.findall(text)
                               if word.casefold() not in _STOP))


def derive_hints(candidates: tuple[str, ...]) -> tuple[AxisHint, ...]:
    """Per candidate, the words of its text no other candidate has: where the texts differ."""
    words = [_words(text) for text in candidates]
    hints = []
    for index, text in enumerate(candidates):
        others = {word for other, found in enumerate(words) if other != index for word in found}
        hints.append(AxisHint(candidate=text, distinctive=tuple(w for w in words[index] if w not in others)))
    return tuple(hints)


def parse_axis(text: str) -> Axis:
    """An axis from `id: question` as the user wrote it (ValueError names what is wrong)."""
    axis_id, colon, question = text.partition(":")
    axis_id, question = axis_id.strip(), " ".join(question.split())
    if not colon or not question:
        raise ValueError(f"axis {text!r} needs the form 'id: question' (e.g. 'failure: what happens when it breaks?')")
    if not _AXIS_ID.match(axis_id):
        raise ValueError(f"axis id {axis_id!r} must be lower-case letters, digits and dashes, starting with a letter")
    return Axis(id=axis_id, question=question, proposed_by="user")


def axis_problems(axes: tuple[Axis, ...], candidates: tuple[str, ...]) -> tuple[str, ...]:
    """Why these axes cannot be settled: none, more than MAX_AXES, a repeated id, a question that is
    only a candidate's label."""
    problems = []
    if not axes:
        problems.append("no divergence axis is set: name at least one with --axis 'id: question' "
                        "(the hints show where the candidates' texts differ)")
    if len(axes) > MAX_AXES:
        problems.append(f"{len(axes)} axes: at most {MAX_AXES}")
    ids = [axis.id for axis in axes]
    problems += [f"the axis id {axis_id!r} is used twice" for axis_id in sorted({i for i in ids if ids.count(i) > 1})]
    labels = {" ".join(text.split()).casefold() for text in candidates}
    problems += [f"the axis {axis.id!r} only repeats a candidate's label; ask what differs between their futures"
                 for axis in axes if " ".join(axis.question.split()).casefold().rstrip("?") in labels]
    return tuple(problems)


def settle(axes: tuple[Axis, ...], circulation: int) -> tuple[Axis, ...]:
    """The axes approved at the spec gate's n-th circulation (already settled ones keep their mark)."""
    return tuple(axis if axis.settled_at else Axis(id=axis.id, question=axis.question, proposed_by=axis.proposed_by,
                                                   settled_at=f"qspec-{circulation}")
                 for axis in axes)
