"""Inline suppressions: `<!-- distill: ignore ID -->` and the range `distill: off` / `distill: on`.

What each form covers, exactly (docs/rules.md says the same):

- `<!-- distill: ignore [ID ...] -->` after other text on a line covers that line; on a line of
  its own it covers the next line, and only that one.
- `<!-- distill: off [ID ...] -->` ... `<!-- distill: on [ID ...] -->` covers every line from the
  `off` comment's line through the `on` comment's line. A bare `on` ends every `off`; `on ID`
  ends that id's. With no `on`, the range runs to the end of the record.
- A comment shown as code (a code span or a fenced block) is an example, not a suppression.
- Without ids a comment covers every rule; with ids, those rules only. An id no rule has
  covers nothing, and RD904 reports it (a typo must not silently hide or keep a finding).

A suppressed finding is recorded (the certificate's suppressions, scan's "suppressed"), never
dropped. Only RD904's own findings cannot be suppressed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from msgspec import Struct

from diylisis.core.detectors.rule import Rule
from diylisis.core.detectors.text import CODE_SPAN, FENCE, Doc
from diylisis.core.lazy_pattern import LazyPattern
from diylisis.core.model import Category, Finding, Severity

DIRECTIVE = LazyPattern(r"<!--\s*distill:\s*(?P<verb>[^\s>-]*)(?P<ids>.*?)-->")
VERBS = ("ignore", "off", "on")
ALL_RULES: frozenset[str] = frozenset()  # the value of a line every rule is suppressed on
RULE_ID = "RD904"


class Directive(Struct, frozen=True, kw_only=True):
    """One `<!-- distill: ... -->` comment: its line, verb, the ids it names, and where it is."""

    line: int  # 1-based
    verb: str
    ids: tuple[str, ...]
    alone: bool  # nothing but the comment (and spaces) on its line
    start: int  # offset of the comment in its line
    end: int


def directives(text: str) -> Iterator[Directive]:
    """The distill comments of a text, in order; one shown as code (in a code span or a fenced
    block) is an example of the syntax, not a comment, and neither counts nor is checked."""
    if "distill" not in text:
        return
    fence: str | None = None
    for number, line in enumerate(text.split("\n"), start=1):
        opened = FENCE.match(line)
        if opened:
            mark = opened.group(1)
            if fence is None:
                fence = mark[0] * len(mark)
            elif mark.startswith(fence) and not line.strip()[len(mark):].strip():
                fence = None
            continue
        if fence is not None or "distill" not in line:
            continue
        code = [span.span() for span in CODE_SPAN.finditer(line)] if "`" in line else []
        alone = not DIRECTIVE.sub("", line).strip()
        for match in DIRECTIVE.finditer(line):
            if any(start <= match.start() < end for start, end in code):
                continue
            ids = tuple(token for token in re.split(r"[\s,]+", match.group("ids")) if token)
            yield Directive(line=number, verb=match.group("verb"), ids=ids, alone=alone,
                            start=match.start(), end=match.end())


def ignored_lines(text: str) -> dict[int, frozenset[str]]:
    """Line -> the rule ids suppressed there (ALL_RULES, the empty set: every rule)."""
    out: dict[int, frozenset[str]] = {}
    found = list(directives(text))
    if not found:
        return out

    def cover(line: int, ids: frozenset[str]) -> None:
        if not ids or (line in out and out[line] == ALL_RULES):
            out[line] = ALL_RULES
        else:
            out[line] = out.get(line, frozenset()) | ids

    every = False  # a bare `off` is in force
    some: frozenset[str] = frozenset()  # the ids `off ID` turned off
    last = 0  # the last line the range has been applied through
    for directive in found:
        if every or some:
            for line in range(last + 1, directive.line):
                cover(line, ALL_RULES if every else some)
        before = (every, some)
        ids = frozenset(directive.ids)
        if directive.verb == "ignore":
            cover(directive.line + 1 if directive.alone else directive.line, ids)
        elif directive.verb == "off":
            every, some = (True, some) if not ids else (every, some | ids)
        elif directive.verb == "on":
            every, some = (False, frozenset()) if not ids else (every, some - ids)
        for was_every, was_some in (before, (every, some)):  # the range includes both comment lines
            if was_every or was_some:
                cover(directive.line, ALL_RULES if was_every else was_some)
        last = directive.line
    if every or some:
        for line in range(last + 1, text.count("\n") + 2):
            cover(line, ALL_RULES if every else some)
    return out


def bad_directives(doc: Doc) -> Iterator[Finding]:
    """RD904: a distill comment with a verb other than ignore/off/on, or naming an unknown rule id."""
    from diylisis.core.detectors import RULES

    known = {rule.id for rule in RULES}
    for directive in directives(doc.text):
        line_start = doc.line_starts[directive.line - 1]
        start, end = line_start + directive.start, line_start + directive.end
        if directive.verb not in VERBS:
            yield doc.finding(RULE_ID, Category.RENDERING, start, end,
                              f"'{directive.verb}' is not a distill comment git distill knows "
                              "(ignore, off, on), so it suppresses nothing",
                              "write distill: ignore, distill: off or distill: on", severity=Severity.WARNING)
            continue
        for rule_id in directive.ids:
            if rule_id not in known:
                yield doc.finding(RULE_ID, Category.RENDERING, start, end,
                                  f"no rule has the id {rule_id!r}, so the comment suppresses nothing for it",
                                  "name a rule id that git distill rules lists", severity=Severity.WARNING)


_DOC = """\
What it flags: an inline `<!-- distill: ... -->` comment that suppresses less than it seems
to: a verb other than ignore, off or on, or a rule id no rule has (`DX99`, `dx101`,
`session-deixis`). Default severity: warning; it cannot itself be suppressed.

Why a fresh reader fails: the author meant to exempt a finding and did not, or a reviewer
reads the comment as an exemption that was never applied.

Example: bad "All tests pass. <!-- distill: ignore UC71 -->" good "All tests pass. <!--
distill: ignore UC701 -->"

Repair: name the rule by its id (`git distill rules` lists them), or remove the comment.
"""

RULES = (
    Rule(
        id=RULE_ID,
        name="unknown-suppression",
        category=Category.RENDERING,
        languages=("any",),
        summary="Inline distill comments with an unknown verb or rule id, which suppress nothing.",
        doc=_DOC,
        detect=bad_directives,
        severity=Severity.WARNING,
        requires=(LazyPattern(r"<!--\s*distill:"),),
    ),
)
