"""Views of a record's text with code, quotes, trailers and URLs masked, offsets kept (issue 4, precision).

Every view has the same length as the text; masked characters become spaces and newlines
stay, so a match offset in any view is an offset in the text and maps to line and column.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator

from msgspec import Struct, field

from diylisis.core.cjk import CJK_LETTERS
from diylisis.core.lazy_pattern import LazyPattern
from diylisis.core.model import Category, Finding, Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from markdown_it import MarkdownIt

    from diylisis.core.detectors.lexicon import Lexicon
    from diylisis.core.detectors.settings import DetectSettings
    from diylisis.core.model import RepoContext

FENCE = LazyPattern(r"^ {0,3}(`{3,}|~{3,})")
QUOTE = LazyPattern(r"^ {0,3}>")
# A short phrase in quotes is mentioned, not used: 'flag "as discussed"' points at no discussion.
# A double-quoted phrase may wrap once, as a wrapped commit message quotes ("Profiling shows\n...").
# Each look-behind follows the quote mark it guards, so the regex engine skips to quote marks
# instead of trying every position; it reads as (?<![\w"'])"[^"\n]{2,80}(?:\n[^"\n]{1,80})?"(?![\w"'])|...
QUOTED_MENTION = LazyPattern(
    r"\"(?<![\w\"']\")[^\"\n]{2,80}(?:\n[^\"\n]{1,80})?\"(?![\w\"'])"
    r"|“[^”\n]{2,80}(?:\n[^”\n]{1,80})?”|'(?<![\w']')[^'\n]{2,60}'(?![\w'])"
)
INDENTED = LazyPattern(r"^(?: {4,}|\t)\s*\S")
LIST_ITEM = LazyPattern(r"^\s*(?:[-*+•]|\d+[.)])\s")
CODE_SPAN = LazyPattern(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
URL = LazyPattern(r"(?:\b[a-z][a-z0-9+.-]*://|\bwww\.)[^\s<>`\"')\]]+[^\s<>`\"')\].,;:!?]")
LINKED_TEXT = LazyPattern(r"\[([^\]\n]+)\]\((?:https?://|/)[^)\s]*\)")
HTML_COMMENT = LazyPattern(r"<!--.*?-->", re.S)
# Lines of pasted tool output: sanitizer/gdb frames, addresses, "file:line:col:" diagnostics, tracebacks,
# a tool's message after its own path or a log's "file:line:" ("/bin/ld: ...", "x.sh: line 10: ...",
# "configure:9022: ..."), a sanitizer's SUMMARY line.
TRACE_LINE = LazyPattern(
    r"^\s*#\d+\s|\b0x[0-9a-fA-F]{6,}\b|^\s*at \S+|^\s*File \"|\S+:\d+:\d+: (?:error|warning|note)\b|\(\S+:\d+\)\s*$"
    r"|^/\S+: \S|^[\w.-]+:\d+: \S|^SUMMARY: \w*Sanitizer: "
)
_BLOCK_OPENER = r"(?: {0,3}(?:```|~~~|>)| {4}|\t)"
_BLOCK_START = LazyPattern("^" + _BLOCK_OPENER, re.M)  # where FENCE, QUOTE or INDENTED may match
# A literal each inline pattern's matches contain: without it the pattern cannot match.
_INLINE_NEEDS = {
    CODE_SPAN: ("`",),
    URL: ("://", "www."),
    HTML_COMMENT: ("<!--",),
    QUOTED_MENTION: ('"', "“", "'"),
}
_INLINE_LITERALS = tuple(literal for needs in _INLINE_NEEDS.values() for literal in needs)
_FOLDED = "folded"  # Doc.memo keys
_TRIGGERS = "triggers"


class Doc(Struct, frozen=True, kw_only=True):
    """A record prepared for the rules: its text, masked views, and what resolves_at may ask."""

    text: str
    prose: str  # code spans, fences, quotes, trailers, comments and URLs masked
    claims: str  # like prose but inline code kept: "`npm test` passed" is a claim
    locators: str  # only quotes masked: URLs, trailers and code are searched for places
    lexicon: Lexicon
    settings: DetectSettings
    context: RepoContext | None = None
    path: str | None = None
    line_starts: tuple[int, ...] = ()
    indented_lines: frozenset[int] = frozenset()  # 1-based lines of indented (transcript) blocks
    # 1-based lines that quote output rather than give a command: a fenced block's lines but its
    # commands (a prompt, `cd`, any line of a shell fence), and the rows of a Markdown table
    output_lines: frozenset[int] = frozenset()
    # 1-based lines of fenced blocks that hold only the author's own status lines ("Build: ✅ passing",
    # "- Type errors: 0"), their fence lines included: masked from prose, read by the claim rules, no evidence
    status_lines: frozenset[int] = frozenset()
    memo: dict[str, object] = field(default_factory=dict)  # views derived once per record; filled in place

    def folded(self) -> str:
        """The text folded for literal prefilters (lexicon.fold), once per record."""
        if _FOLDED not in self.memo:
            from diylisis.core.detectors.prefilter import fold

            self.memo[_FOLDED] = fold(self.text)
        return self.memo[_FOLDED]  # type: ignore[return-value]

    def pattern(self, key: str) -> re.Pattern[str] | None:
        """The lexicon key's pattern reduced to the fragments that can match this record (None: none can)."""
        memo_key = "pattern:" + key
        if memo_key not in self.memo:
            if _TRIGGERS not in self.memo:
                self.memo[_TRIGGERS] = self.lexicon.triggers_in(self.folded())
            self.memo[memo_key] = self.lexicon.pattern_for(key, self.memo[_TRIGGERS])  # type: ignore[arg-type]
        return self.memo[memo_key]  # type: ignore[return-value]

    @property
    def has_tree(self) -> bool:
        """The context can answer tracked() and mentions() (not a host-only or missing context)."""
        return self.context is not None and bool(getattr(self.context, "has_tree", True))

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a text offset."""
        index = bisect.bisect_right(self.line_starts, offset) - 1
        return index + 1, offset - self.line_starts[index] + 1

    def line_of(self, offset: int) -> str:
        """The whole text line holding an offset."""
        line, _ = self.position(offset)
        start = self.line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start : end if end >= 0 else len(self.text)]

    def finding(
        self,
        rule_id: str,
        category: Category,
        start: int,
        end: int,
        why: str,
        fix: str,
        *,
        resolution: str | None = None,
        severity: Severity = Severity.ERROR,
    ) -> Finding:
        """A complete Finding for the text between two offsets."""
        token = self.text[start:end].strip()
        line, column = self.position(start + (len(self.text[start:end]) - len(self.text[start:end].lstrip())))
        return Finding(
            rule_id=rule_id,
            category=category,
            token=token,
            line=line,
            column=column,
            why=why,
            fix=fix,
            severity=severity,
            resolution=resolution,
        )


def is_common_word(token: str) -> bool:
    """The token, in any case, is a common word of English (the word-frequency table)."""
    from diylisis.core.detectors.common_words import WORDS  # a large table, read only when a match reaches here

    return token.lower() in WORDS


def prepare(
    text: str,
    lexicon: Lexicon,
    settings: DetectSettings,
    context: RepoContext | None = None,
    path: str | None = None,
    *,
    folded: str | None = None,
    triggers: int | None = None,
    markdown: bool = False,
) -> Doc:
    """Cut the text into views: prose, claims, locators (F1 input).

    folded and triggers, when the caller has them, are fold(text) and lexicon.triggers_in(folded).
    markdown: the text is Markdown (a .md file, a pull-request body): its blocks are read by a
    Markdown parser instead of the commit-message conventions.
    """
    # Masks are collected as spans and applied once per view by slicing (no per-character list).
    prose_spans: list[tuple[int, int]] = []
    locator_spans: list[tuple[int, int]] = []
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    fence_end = 0  # the line after the fenced block being read
    indented = False
    indented_lines: set[int] = set()
    output_lines: set[int] = set()
    status_lines: set[int] = set()
    status_spans: list[tuple[int, int]] = []  # masked from prose only
    trailer_from = _trailer_block(lines)
    attributions = _attribution_lines(lines, trailer_from) if trailer_from < len(lines) else frozenset()
    transcript = _transcript_lines(lines) if _may_hold_transcript(text) else frozenset()
    tables = _table_lines(lines) if "\n|" in text else frozenset()
    if markdown:
        hidden, quoted, indented_lines, output_lines, status = _markdown_blocks(text, lines)
        for number in sorted(hidden | quoted | attributions | status):
            span = (starts[number], starts[number] + len(lines[number]))
            if number in status:
                status_spans.append(span)
                status_lines.add(number + 1)
                continue
            prose_spans.append(span)
            if number in quoted:
                locator_spans.append(span)
    # Without a fenced, quoted or indented line only the trailer lines can be masked.
    numbered = (
        ()
        if markdown
        else enumerate(lines)
        if transcript or tables or _may_open_block(text)
        else ((n, lines[n]) for n in range(trailer_from, len(lines)))
    )
    for number, line in numbered:
        if number < fence_end:
            continue  # masked with its fence
        start = starts[number]
        span = (start, start + len(line))
        if number in transcript:
            indented_lines.add(number + 1)
            prose_spans.append(span)
            continue
        if line[:1] not in _BLOCK_FIRST:  # no fence, quote or indent can open here
            if line.strip():
                indented = False
            if number in attributions:
                prose_spans.append(span)
            continue
        opened = FENCE.match(line)
        if opened:
            fence_end = _fence_end(lines, number, opened.group(1))
            fenced = (start, starts[fence_end - 1] + len(lines[fence_end - 1]))
            if _status_fence(lines, number, fence_end, opened.group(1), line[opened.end() :]):
                status_spans.append(fenced)
                status_lines.update(range(number + 1, fence_end + 1))
                continue
            prose_spans.append(fenced)
            output_lines.update(_fence_output(lines, number, fence_end, opened.group(1), line[opened.end() :]))
            continue
        if line.startswith("|") and number in tables:
            output_lines.add(number + 1)
        if QUOTE.match(line):
            prose_spans.append(span)
            locator_spans.append(span)
            continue
        # An indented block after a blank line is code or quoted output (Markdown, and git's own
        # habit of indenting transcripts in commit messages); list items stay prose.
        if INDENTED.match(line) and not LIST_ITEM.match(line):
            if indented or number == 0 or not lines[number - 1].strip():
                indented = True
                indented_lines.add(number + 1)
                prose_spans.append(span)
                continue
        elif line.strip():
            indented = False
        if number in attributions:
            prose_spans.append(span)
    if not text.isascii():  # every drawing character is outside ASCII
        prose_spans.extend(match.span() for match in _DRAWING.finditer(text))
    if "-by: " in text:
        prose_spans.extend((starts[n], starts[n] + len(lines[n])) for n in _credit_lines(text, starts, trailer_from))
    masked = _masked(text, prose_spans)
    linked = [match.span(1) for match in LINKED_TEXT.finditer(text)] if "](" in text else []
    # A literal a view holds is in the text too: most records need none of the inline patterns.
    if not linked and not any(literal in text for literal in _INLINE_LITERALS):
        prose = claims = masked
        if status_spans:
            prose = _masked(text, prose_spans + status_spans)
    else:
        # both views mask the same blocks and the same URLs, comments and quotes; claims keep
        # inline code ("`npm test` passed" is a claim) and the author's status lines in a fence
        shared = [
            match.span()
            for pattern in (URL, HTML_COMMENT, QUOTED_MENTION)
            if any(literal in masked for literal in _INLINE_NEEDS[pattern])
            for match in (_url_matches(masked) if pattern is URL else pattern.finditer(masked))
        ]
        code = [match.span() for match in CODE_SPAN.finditer(masked)] if "`" in masked else []
        claims = _masked(text, prose_spans + shared + linked) if shared or linked else masked
        prose = _masked(text, prose_spans + status_spans + code + shared + linked) if code or status_spans else claims
    locators = _masked(text, locator_spans)
    doc = Doc(
        text=text,
        prose=prose,
        claims=claims,
        locators=locators,
        lexicon=lexicon,
        settings=settings,
        context=context,
        path=path,
        line_starts=tuple(starts),
        indented_lines=frozenset(indented_lines),
        output_lines=frozenset(output_lines),
        status_lines=frozenset(status_lines),
    )
    if folded is not None:
        doc.memo[_FOLDED] = folded
        if triggers is not None:
            doc.memo[_TRIGGERS] = triggers
    return doc


# Lines that open quoted output even without an indent: a shell prompt, a diff, a Python traceback,
# a benchmark tool's report ("Benchmark 1: ..." from hyperfine).
_OUTPUT_OPENER = LazyPattern(
    r"^(?:\$ \S|diff --git |@@ -\d|Traceback \(most recent call last\):|Benchmark #?\d+: \S)"
)
_OUTPUT_HINTS = ("\n  ", "\n$ ", "\ndiff --git ", "\n@@ -", "\nTraceback (", "\nBenchmark ", "   ")
_SENTENCE_CLOSE = (".", ":", ")", "!", "?", ";", ",")


def _may_hold_transcript(text: str) -> bool:
    return any(hint in text for hint in _OUTPUT_HINTS) or ("efore" in text and "fter" in text)


def _transcript_lines(lines: list[str]) -> frozenset[int]:
    """0-based lines of paragraphs that quote output or commands (git's habit in commit messages).

    A paragraph counts when it opens with a shell prompt, a diff, a traceback or a benchmark
    report, when it pairs output before and after the change ("Before: 735 passed" and "After:
    738 passed"), when it is a table of aligned columns under a line ending in a colon, or when
    every line of it is indented by two spaces or more (four or more are code
    anyway), it is not a list, and the message's own prose starts at the margin: git's
    convention is to indent what is quoted and nothing else. An indented paragraph right under a
    plain heading line (one line, no closing punctuation, not "the output was:") stays prose, and
    so do the indented paragraphs of a message whose every body paragraph is indented: some
    authors indent sections.
    """
    paragraphs: list[tuple[int, int]] = []
    number = 0
    while number < len(lines):
        if not lines[number].strip():
            number += 1
            continue
        end = number
        while end < len(lines) and lines[end].strip():
            end += 1
        paragraphs.append((number, end))
        number = end
    indented = [all(line.startswith(("  ", "\t")) for line in lines[start:end]) for start, end in paragraphs]
    margin_prose = any(not flag for flag in indented[1:])  # the first (subject) paragraph is never quoted
    out: set[int] = set()
    joined = "\n".join(lines)
    introduces = ":\n  " in joined or ":\n\t" in joined  # a colon line right above an indented one
    previous: list[str] = []  # the previous paragraph's lines
    previous_quoted = False
    for (start, end), flag in zip(paragraphs, indented, strict=True):
        paragraph = lines[start:end]
        opener = _OUTPUT_OPENER.match(paragraph[0].lstrip()) is not None
        quoted = bool(previous) and (
            opener
            if not flag
            else not LIST_ITEM.match(paragraph[0])
            and (opener or previous_quoted or previous[-1].rstrip().endswith(":")
                 or margin_prose and not _is_heading(previous))
        ) or previous_quoted and (
            len(paragraph) > 1 and all(line.startswith(("  ", "\t")) for line in paragraph[1:])
            or all(_SUMMARY_ROW.search(line) for line in paragraph)  # the run's summary row under it
        )
        if quoted:
            out.update(range(start, end))
        elif not flag and previous:  # the subject paragraph is never quoted
            if introduces:
                introduced = _introduced_lines(lines, start, end)
                out.update(introduced)
                quoted = bool(introduced)  # the paragraph ends in the output it introduces
            if _is_comparison(paragraph) or previous[-1].rstrip().endswith(":") and _is_margin_table(paragraph):
                out.update(range(start, end))
        previous, previous_quoted = paragraph, quoted
    return frozenset(out)


# "Before: 735 passed, 115 skipped" and "runtests after: ..." lines: a comparison quoting output.
_COMPARISON_LINE = LazyPattern(r"(?i)^[\w .-]{0,30}?(?<![\w-])(before|after)(?![\w-])[\w .()-]{0,20}:\s+\S")
_COLUMNS = LazyPattern(r"\S {3,}\S")
# A row of a tool's summary: three or more fields set apart by runs of two spaces or more
# ("✓ 53 passed  ⚠ 4 warnings  ✖ 0 failed").
_SUMMARY_ROW = LazyPattern(r"\S {2,}\S.*\S {2,}\S")


def _is_comparison(paragraph: list[str]) -> bool:
    """Every line of the paragraph labels output as before or after the change, and both are there."""
    if len(paragraph) < 2 or not _COMPARISON_LINE.match(paragraph[0]):
        return False  # most paragraphs: prose from the first line on
    labels = [_COMPARISON_LINE.match(line) for line in paragraph]
    if not all(labels) or {m.group(1).lower() for m in labels if m} != {"before", "after"}:
        return False
    # the state after the change told in the author's words ("After: every page loads without
    # errors") is prose: quoted output holds figures, code, a quoted message or symbols
    return all(
        _OUTPUT_VALUE.search(line[m.end() - 1 :]) for line, m in zip(paragraph, labels, strict=True)
        if m and m.group(1).lower() == "after"
    )


_OUTPUT_VALUE = LazyPattern(r"[\d`\"'=<>→/|{}\[\]]")


def _is_margin_table(paragraph: list[str]) -> bool:
    """Rows of aligned columns at the margin (a header line may have none): "8    1944 of 1951 OK"."""
    return len(paragraph) > 1 and all(_COLUMNS.search(line) for line in paragraph[1:])


def _introduced_lines(lines: list[str], start: int, end: int) -> range:
    """0-based lines of a margin paragraph that quote output under the line introducing them: a
    line closing with a colon, then only lines indented by two spaces or more, the first no list
    item ("Timings (best of 5):" and the table under it, no blank line between)."""
    for number in range(start, end - 1):
        if lines[number].rstrip().endswith(":") and not lines[number].startswith((" ", "\t")):
            rest = lines[number + 1 : end]
            if all(line.startswith(("  ", "\t")) for line in rest) and not LIST_ITEM.match(rest[0]):
                return range(number + 1, end)
    return range(0)


_SHELL_FENCES = frozenset({"sh", "bash", "shell", "zsh", "fish", "console", "shell-session", "powershell", "ps1",
                           "bat", "cmd"})
_COMMAND_LINE = LazyPattern(r"^\s*(?:[$%#>] |cd |pushd |export |source |\.\s+)")


def _fence_end(lines: list[str], opening: int, marker: str) -> int:
    """The line after the fenced block opened at line `opening` with marker (``` or ~~~ or longer):
    after its closing fence, or the end of the text for a fence never closed (CommonMark)."""
    for number in range(opening + 1, len(lines)):
        if _closes(lines[number], marker):
            return number + 1
    return len(lines)


def _closes(line: str, marker: str) -> bool:
    """The line closes a fence opened with marker: the same character, at least as many, nothing after."""
    closing = FENCE.match(line)
    return closing is not None and closing.group(1).startswith(marker) and not line[closing.end() :].strip()


def _fence_output(lines: list[str], opening: int, end: int, marker: str, info: str) -> Iterator[int]:
    """1-based lines of the fenced block from line `opening` to end (exclusive) that quote output:
    its content lines but commands (a prompt, `cd`), and none of a fence whose info string names
    a shell ("```bash", "```console title"); the one rule for commit messages and Markdown."""
    words = info.split()
    if words and words[0].lower() in _SHELL_FENCES:
        return
    last = end - 1 if end - 1 > opening and _closes(lines[end - 1], marker) else end
    for number in range(opening + 1, last):
        if not _COMMAND_LINE.match(lines[number]):
            yield number + 1


_TABLE_RULE = LazyPattern(r"^\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _table_lines(lines: list[str]) -> frozenset[int]:
    """0-based lines of Markdown tables: a row, the `|---|` rule under it, and the rows after it."""
    out: set[int] = set()
    for number in range(1, len(lines)):
        if _TABLE_RULE.match(lines[number]) and lines[number - 1].lstrip().startswith("|"):
            end = number + 1
            while end < len(lines) and lines[end].lstrip().startswith("|"):
                end += 1
            out.update(range(number - 1, end))
    return frozenset(out)


def _markdown_blocks(text: str, lines: list[str]) -> tuple[set[int], set[int], set[int], set[int], set[int]]:
    """(0-based lines of code blocks and comments, 0-based lines of block quotes, 1-based lines of
    indented code, 1-based output lines, 0-based lines of status fences) of a Markdown text, as
    markdown-it-py parses it: a list item's indented paragraph stays prose, a fence inside a list is
    still a fence, a quote's lazy line is still quoted, and a quote that opens as a callout (a GitHub
    alert "> [!NOTE]", a bold label "> **Archived:**") is the author's own note, so prose."""
    hidden: set[int] = set()
    quoted: set[int] = set()
    code: set[int] = set()
    output: set[int] = set()
    status: set[int] = set()
    depth = 0  # of the block quotes open: a callout's nested quote is quoted
    for token in _markdown_parser().parse(text):
        if token.type == "blockquote_close":
            depth -= 1
        if token.map is None:
            continue
        start, end = token.map
        if token.type == "fence":
            if _status_fence(lines, start, end, token.markup, token.info):
                status.update(range(start, end))
                continue
            hidden.update(range(start, end))
            output.update(_fence_output(lines, start, end, token.markup, token.info))
        elif token.type == "code_block":
            hidden.update(range(start, end))
            code.update(range(start + 1, end + 1))
        elif token.type == "blockquote_open":
            depth += 1
            if depth == 1 and _CALLOUT.match(lines[start]):
                continue
            quoted.update(range(start, end))
        elif token.type == "html_block" and token.content.lstrip().startswith("<!--"):
            hidden.update(range(start, end))
        elif token.type == "table_open":
            output.update(range(start + 1, end + 1))
    return hidden, quoted, code, output, status


# A block quote that opens as the author's callout: a GitHub alert or a bold label ending in a colon.
_CALLOUT = LazyPattern(
    r"^ {0,3}>\s*(?:\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]|\*\*[^*\n]{1,60}?:\*\*|\*\*[^*\n]{1,60}?\*\*:)"
)

# A fence holds the author's own status lines, not output pasted from a tool, when it names no
# language (or plain text), is short, every line is a status line (a label and a short value, a list
# item, a line opening with a status mark, a short phrase), no line has the look of output (a prompt,
# a path, a timing, a frame, a rule of === or ---, indentation that aligns columns), and some line
# shows an author's hand: a list marker, a status emoji, a Title-Case label, or letters of a script
# tools do not print in (CJK).
_STATUS_INFO = frozenset({"", "text", "txt", "plain", "plaintext", "md", "markdown"})
_STATUS_MAX_LINES = 12
_STATUS_LINE = LazyPattern(
    r"^(?:(?:[-*+•]|\d+[.)])\s+\S.{0,80}"  # a list item
    r"|[✅✔✓☑❌✗✘⚠🟢🟡🔴⏳]\uFE0F?\s*\S.{0,80}"  # a status mark and its words
    r"|[^\W\d_][\w ()/&+.-]{0,40}:\s+\S.{0,60}"  # "Label: value"
    r"|[^\W\d_][\w-]*(?: [\w-]+){0,3})$"  # a short phrase: "Build successful"
)
_OUTPUT_LOOK = LazyPattern(
    r"^\s*(?:[$%>#] |>>>|at |File \"|Traceback|={3,}|-{3,}|\*{3,})"  # prompts, frames, rules
    r"|(?:^|\s)(?:\.{0,2}/|~/|[A-Za-z]:\\)[\w.-]+/"  # a path
    r"|\b\d+(?:\.\d+)?\s?(?:ms|µs|us|ns|s|sec|secs|seconds|min)\b"  # a timing
    r"|\b\w+\.\w+:\d+|\b0x[0-9a-f]+|\d{2}:\d{2}:\d{2}"  # file:line, address, clock time
    r"|\[(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE)\]|\b(?:PASS|FAIL|ERROR|OK)\s+\S+[/.]\S"  # log levels, runner lines
)
_AUTHOR_HAND = LazyPattern(
    rf"^(?:[-*+•]|\d+[.)])\s|[✅❌⚠🟢🟡🔴]|^(?:[A-Z][\w-]*)(?: [\w()-]+){{0,3}}:\s|[{CJK_LETTERS}]"
)


# The line introducing a fence as what the program prints ("The command now prints a summary like this:",
# "Example output:"): the status lines under it are the feature's output, quoted, not the author's claim.
_PROGRAM_OUTPUT_INTRO = LazyPattern(
    r"(?i)(?:(?<![\w-])(?:prints?|printed|outputs|displays?|emits?|renders?|writes|produces|generates|now shows|"
    r"(?:looks?|reads?) like|like this|(?:example|sample|expected) (?:output|summary|report))(?![\w-]))[^\n]*:\s*$"
)


def _introduced_as_program_output(lines: list[str], opening: int) -> bool:
    """The nearest line above the fence opened at `opening` introduces it as the program's output."""
    for number in range(opening - 1, -1, -1):
        if lines[number].strip():
            return _PROGRAM_OUTPUT_INTRO.search(lines[number]) is not None
    return False


def _status_fence(lines: list[str], opening: int, end: int, marker: str, info: str) -> bool:
    """The fenced block from line `opening` to end (exclusive) holds only the author's own status
    lines (see _STATUS_LINE above): "Build: ✅ passing" typed into a fence is a claim like any other,
    unless the line above introduces the fence as what the program prints."""
    words = info.split()
    if (words[0].lower() if words else "") not in _STATUS_INFO:
        return False
    last = end - 1 if end - 1 > opening and _closes(lines[end - 1], marker) else end
    content = [line for line in lines[opening + 1 : last] if line.strip()]
    if not content or len(content) > _STATUS_MAX_LINES:
        return False
    hand = False
    for line in content:
        if line.startswith((" ", "\t")) and not LIST_ITEM.match(line):
            return False  # aligned columns, a tree, a nested transcript
        stripped = line.strip()
        if _STATUS_LINE.match(stripped) is None or _OUTPUT_LOOK.search(line) or "  " in stripped:
            return False
        hand = hand or _AUTHOR_HAND.search(stripped) is not None
    return hand and not _introduced_as_program_output(lines, opening)


@functools.cache
def _markdown_parser() -> MarkdownIt:
    """CommonMark with GitHub's tables; imported only for a Markdown record (never on the hook's path)."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def _is_heading(paragraph: list[str]) -> bool:
    """A paragraph of one line that does not close a sentence ("Why this shape", "== Tests ==")."""
    return len(paragraph) == 1 and not paragraph[0].rstrip().endswith(_SENTENCE_CLOSE)


def _may_open_block(text: str) -> bool:
    """_BLOCK_START.search(text), found from the start and from each newline: the multi-line regex
    tries every position of the text."""
    return _BLOCK_START.match(text) is not None or _BLOCK_AFTER_NEWLINE.search(text) is not None


_BLOCK_FIRST = (" ", "\t", "`", "~", ">", "|")  # what every line _BLOCK_START matches opens with
_BLOCK_AFTER_NEWLINE = LazyPattern(r"\n" + _BLOCK_OPENER)


def _url_matches(text: str) -> Iterator[re.Match[str]]:
    """URL.finditer(text), trying only where a URL can start: in the run of scheme characters
    before each "://", and at each "www." (URL opens with a word boundary, which keeps the regex
    engine from skipping ahead, so finditer tries every position)."""
    starts = set()
    for anchor, scheme in (("://", True), ("www.", False)):
        at = text.find(anchor)
        while at >= 0:
            if scheme:
                start = at
                while start and text[start - 1] in _SCHEME:
                    start -= 1
                    starts.add(start)
            else:
                starts.add(at)
            at = text.find(anchor, at + 1)
    end = 0
    for start in sorted(starts):
        if start < end:
            continue
        match = URL.match(text, start)
        if match is not None:
            yield match
            end = match.end()


_SCHEME = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+.-")


# A trailer as git interpret-trailers reads one: a token of letters, digits and hyphens, a colon.
GIT_TRAILER = LazyPattern(r"^[A-Za-z0-9][A-Za-z0-9-]*:[ \t]")
_GIT_GENERATED = ("Signed-off-by: ", "(cherry picked from commit ")
# Trailers that only credit people or tie the change to review tooling: masked as prose. Every other
# trailer is read, so "Tested: all tests pass" and "Copilot-Session: <uuid>" are judged like body text,
# and so are the references "Closes:", "Fixes:", "Refs:", "Bug:": a private tracker's key there is as
# unreachable as in the body (a host's own "#12" resolves and does not block).
ATTRIBUTION = LazyPattern(
    r"(?i)^(?:signed-off-by|co-authored-by|co-developed-by|reviewed-by|acked-by|tested-by|reported-by|"
    r"suggested-by|helped-by|mentored-by|requested-by|reviewed-on|cc|change-id|link|"
    r"based-on-patch-by|original-author|thanks-to|noticed-by|inspired-by|message-id):[ \t]"
    r"|^\(cherry picked from commit "
)


def _trailer_block(lines: list[str]) -> int:
    """Index of the first line of the final paragraph when git would read it as trailers (len(lines) when not).

    As git interpret-trailers: the paragraph's lines are all trailers or lines continuing one
    (indented; an indented line cannot open it), or it holds a line git itself writes
    (Signed-off-by, "(cherry picked from commit") and at least a quarter of its lines are trailers.
    """
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    if not end or ":" not in lines[end - 1] and not lines[end - 1].startswith((" ", "\t", "(")):
        return len(lines)  # the last line is no trailer, continuation or cherry-pick note
    start = end
    while start and lines[start - 1].strip():
        start -= 1
    if start == 0:
        return len(lines)  # the subject paragraph is never trailers
    block = lines[start:end]
    trailers = sum(1 for line in block if GIT_TRAILER.match(line) or line.startswith(_GIT_GENERATED[1]))
    continued = all(GIT_TRAILER.match(line) or line.startswith((" ", "\t")) for line in block)
    if (GIT_TRAILER.match(block[0]) and continued) or (
        any(line.startswith(_GIT_GENERATED) for line in block) and 4 * trailers >= len(block)
    ):
        return start
    return len(lines)


def _attribution_lines(lines: list[str], start: int) -> frozenset[int]:
    """0-based lines of the trailer block from start that credit people (ATTRIBUTION), with their continuations."""
    out: set[int] = set()
    crediting = False
    for number in range(start, len(lines)):
        line = lines[number]
        if line.startswith((" ", "\t")) and line.strip():
            if crediting:
                out.add(number)
            continue
        crediting = ATTRIBUTION.match(line) is not None
        if crediting:
            out.add(number)
    return frozenset(out)


# A diagram drawn with box-drawing and block characters ("┃ T1 ┃ T2 ┃", "█ ██"): from its first
# such character to the end of the line, a line is a picture whose labels (T1, L2) are not prose.
_DRAWING = LazyPattern("[\u2500-\u259f][^\n]*")
_EMAIL = LazyPattern(r"<[^<>\s@]+@[^<>\s]+>")


def _credit_lines(text: str, starts: list[int], trailer_from: int) -> frozenset[int]:
    """0-based body lines before the trailer block that credit a person by name and address
    ("Signed-off-by: Name <name@example.org>" above the body's prose): credit wherever it stands.
    Found from each "-by: " before the trailer block (most records have it only in the block)."""
    limit = starts[trailer_from] if trailer_from < len(starts) else len(text)
    out = set()
    at = text.find("-by: ", 0, limit)
    while at >= 0:
        number = bisect.bisect_right(starts, at) - 1
        end = starts[number + 1] - 1 if number + 1 < len(starts) else len(text)
        line = text[starts[number] : end]
        if number and ATTRIBUTION.match(line) and _EMAIL.search(line):
            out.add(number)
        at = text.find("-by: ", at + 1, limit)
    return frozenset(out)


def _masked(text: str, spans: list[tuple[int, int]]) -> str:
    """text with every character inside the spans but newlines turned into a space."""
    if not spans:
        return text
    out = []
    position = 0
    for start, end in sorted(spans):
        start = max(start, position)
        if end <= start:
            continue
        out.append(text[position:start])
        masked = text[start:end]
        out.append("\n".join(" " * len(part) for part in masked.split("\n")) if "\n" in masked else " " * len(masked))
        position = end
    out.append(text[position:])
    return "".join(out)


# A sentence ends at one of these marks followed by a blank or the end ("2.20GHz" is no end).
_SENTENCE_END = LazyPattern(r"[.!?](?=\s|$)")
# What a caption under quoted figures opens with: "Measured on a laptop, Ubuntu 24.04."
_MEASUREMENT_CAPTION = LazyPattern(r"(?i)(?:measured|benchmarked|timed|profiled)(?![\w-])")
_CAPTIONS = 2  # prose paragraphs ending in a colon that may stand between a claim and its output


def quoted_output_near(doc: Doc, offset: int) -> bool:
    """The claim at offset comes with the output that backs it, so the record itself carries
    what a reader needs to check it ("Benchmarked on a 1.8M-commit repository:" and its table).

    After: the claim's sentence closes its paragraph with a colon, and the next paragraph, past
    at most two short captions that also end in a colon ("Cold cache:"), is quoted output (an
    indented transcript, a fence, a quote or a table). Before: the claim is a one-sentence
    paragraph opening with a measurement word right under quoted output that holds figures, the
    caption of that output ("Measured on a laptop, Ubuntu 24.04.").
    """
    lines = doc.text.split("\n")
    line, _ = doc.position(offset)
    claim_line = line - 1

    def quoted(number: int) -> bool:
        return number + 1 not in doc.status_lines and (
            number + 1 in doc.indented_lines
            or number + 1 in doc.output_lines
            or lines[number].lstrip().startswith(("```", "~~~", ">"))
        )

    def paragraph_end(number: int) -> int:
        while number + 1 < len(lines) and lines[number + 1].strip() and not quoted(number + 1):
            number += 1
        return number

    end = paragraph_end(claim_line)
    claim = doc.text[offset : doc.line_starts[end] + len(lines[end])].rstrip()
    if claim.endswith(":") and not _SENTENCE_END.search(claim[:-1]):
        number, captions = end + 1, 0
        while number < len(lines):
            if not lines[number].strip():
                number += 1
                continue
            if quoted(number):
                return True
            caption_end = paragraph_end(number)
            if captions == _CAPTIONS or caption_end - number > 2 or not lines[caption_end].rstrip().endswith(":"):
                break
            captions += 1
            number = caption_end + 1
    start = claim_line
    while start and lines[start - 1].strip() and not quoted(start - 1):
        start -= 1
    above = start - 1
    while above >= 0 and not lines[above].strip():
        above -= 1
    if (
        above < 0
        or doc.text[doc.line_starts[start] : offset].strip()
        or not _MEASUREMENT_CAPTION.match(doc.text, offset)
        or len(_SENTENCE_END.findall(claim)) > 1
        or not quoted(above)
    ):
        return False
    first = above
    while first and lines[first - 1].strip() and quoted(first - 1):
        first -= 1
    return any(character.isdigit() for character in "".join(lines[first : above + 1]))


def titles_a_test_change(doc: Doc, offset: int) -> bool:
    """The offset lies in the subject line of a commit whose change adds or removes test code (a
    path or line holding "test"): "Tested the retry timeout" as the title of such a change names
    the tests it adds, not a run the author reports."""
    subject_end = doc.text.find("\n")
    if 0 <= subject_end <= offset or not doc.has_tree:
        return False
    assert doc.context is not None
    return doc.context.in_change("test")


def sentences(view: str) -> Iterator[tuple[int, int]]:
    """Spans of sentences or list items in a view (for rules that need a sentence's context)."""
    for match in re.finditer(r"[^\n.!?。]+(?:[.!?。]|$)", view, re.M):
        if match.group().strip():
            yield match.start(), match.end()
