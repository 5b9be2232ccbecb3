"""Rendering accidents: text that did not come out as the author meant it (checklist 5)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from diylisis.core.detectors.rule import Rule
from diylisis.core.detectors.text import FENCE, Doc
from diylisis.core.lazy_pattern import LazyPattern
from diylisis.core.model import Category, Finding, Severity

# UTF-8 read as Latin-1/CP1252 ("Ã©", "â€™", Hangul as "ì•ˆ"), and the replacement character.
MOJIBAKE = LazyPattern(
    r"\ufffd+|(?:Ã[\u0080-\u00bf]|â€[\u0080-\u00bf™œžŸ“”˜šŠ]|[ìíëê][\u0080-\u00bf€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ]{2}|ï¿½)+"
)
# "${{ expr }}" is GitHub Actions syntax being discussed, not a placeholder left unfilled.
PLACEHOLDER = LazyPattern(r"(?<!\$)\{\{-?\s*[\w.][\w.\[\]'\" |]*?\s*-?\}\}|\{%-?\s*\w+[^%\n]*%\}|<%=?\s*[^%\n]+%>")
BROKEN_LINK = LazyPattern(r"\[[^\]\n]+\]\((?:https?://|\.{0,2}/)[^)\s]*(?=\s|$)(?!\))")


def mojibake(doc: Doc) -> Iterator[Finding]:
    """RD901: mis-decoded text ("Ã©", "â€™") and U+FFFD replacement characters."""
    for match in MOJIBAKE.finditer(doc.text):
        if match.group().startswith("\ufffd"):
            # the characters were lost before the text was stored: no encoding brings them back
            yield doc.finding(
                "RD901",
                Category.RENDERING,
                match.start(),
                match.end(),
                "the text stores replacement characters (U+FFFD): what they stood for was lost before it was written",
                "retype the lost characters if the sentence needs them",
                severity=Severity.WARNING,
            )
            continue
        yield doc.finding(
            "RD901",
            Category.RENDERING,
            match.start(),
            match.end(),
            "text was decoded with the wrong encoding; the reader sees garbage",
            "re-enter the text as UTF-8",
        )


def placeholders(doc: Doc) -> Iterator[Finding]:
    """RD902: template placeholders that were never filled ("{{ summary }}", "<%= name %>")."""
    for match in PLACEHOLDER.finditer(doc.prose):
        if _TEMPLATE_TALK.search(doc.line_of(match.start())) or _repository_holds(doc, match.group()):
            continue  # the record talks about the template ("document the {{X}} placeholder"), or ships it
        yield doc.finding(
            "RD902",
            Category.RENDERING,
            match.start(),
            match.end(),
            "an unfilled template placeholder; the content it stands for is missing",
            "fill in the content or delete the placeholder",
        )


_TEMPLATE_TALK = LazyPattern(r"(?i)\b(?:placeholders?|templates?|templating|template variables?|substitut\w+|"
                             r"interpolat\w+)\b")


def _repository_holds(doc: Doc, placeholder: str) -> bool:
    """The placeholder's name is in the repository's files or the commit's change: a template it keeps."""
    if not doc.has_tree:
        return False
    assert doc.context is not None
    name = re.sub(r"[^\w.]+", " ", placeholder).strip()
    return doc.context.in_change(placeholder) or bool(name) and doc.context.mentions(name)


def broken_markup(doc: Doc) -> Iterator[Finding]:
    """RD903: an unclosed code fence, or a Markdown link missing its closing parenthesis."""
    fences = []
    fence: str | None = None
    offset = 0
    for line in doc.text.split("\n"):
        opened = FENCE.match(line)
        if opened:
            mark = opened.group(1)
            if fence is None:
                fence = mark[0] * len(mark)
                fences.append(offset)
            elif mark.startswith(fence) and not line.strip()[len(mark) :].strip():
                fence = None
                fences.pop()
        offset += len(line) + 1
    for start in fences:
        end = doc.text.find("\n", start)
        yield doc.finding(
            "RD903",
            Category.RENDERING,
            start,
            end if end >= 0 else len(doc.text),
            "a code fence that is never closed swallows the rest of the record as code",
            "close the fence",
            severity=Severity.WARNING,
        )
    for match in BROKEN_LINK.finditer(doc.prose):
        yield doc.finding(
            "RD903",
            Category.RENDERING,
            match.start(),
            match.end(),
            "a Markdown link without its closing parenthesis renders as raw text",
            "close the link",
            severity=Severity.WARNING,
        )


_DOC_MOJIBAKE = """\
What it flags: text decoded with the wrong encoding ("Ã©" for "é", "â€™" for "’", Hangul
shown as "ì•ˆ…"), and, as a warning, U+FFFD replacement characters: those characters were
lost before the text was stored, so re-encoding cannot bring them back.

Why a fresh reader fails: the words are unreadable; the author's screen showed them right.

Example: bad "Fix the cafÃ© menu" good "Fix the café menu"

Repair: re-enter the text as UTF-8.
"""

_DOC_PLACEHOLDER = """\
What it flags: template placeholders left unfilled in prose: "{{ summary }}", "{% if %}",
"<%= name %>". Code spans and fenced blocks are not checked.

Why a fresh reader fails: the placeholder stands for content the author meant to add.

Example: bad "Fixes {{ issue }}." good "Fixes the crash on empty input."

Repair: fill in the content or delete the placeholder.
"""

_DOC_MARKUP = """\
What it flags: a code fence that is opened and never closed, and Markdown links missing
their closing parenthesis. Default severity: warning.

Why a fresh reader fails: the rendered page hides or mangles the text after the break.

Example: bad "See [the guide](https://example.org/guide" good "See [the
guide](https://example.org/guide)"

Repair: close the fence or the link.
"""

RULES = (
    Rule(
        id="RD901",
        name="mojibake",
        category=Category.RENDERING,
        languages=("any",),
        summary="Mis-decoded text ('Ã©', 'â€™') and replacement characters.",
        doc=_DOC_MOJIBAKE,
        detect=mojibake,
        requires=(MOJIBAKE,),
    ),
    Rule(
        id="RD902",
        name="unfilled-placeholder",
        category=Category.RENDERING,
        languages=("any",),
        summary="Template placeholders left unfilled ('{{ summary }}').",
        doc=_DOC_PLACEHOLDER,
        detect=placeholders,
        requires=(PLACEHOLDER,),
    ),
    Rule(
        id="RD903",
        name="broken-markup",
        category=Category.RENDERING,
        languages=("any",),
        summary="Unclosed code fences and links missing their closing parenthesis.",
        doc=_DOC_MARKUP,
        detect=broken_markup,
        severity=Severity.WARNING,
        requires=(FENCE, BROKEN_LINK),
    ),
)
