"""What a Drop removes, so the sentence left behind reads as a careful author would write it.

Cutting only the dropped token leaves broken text: " is already done, so skip it." once
"Task #4" is cut from "Task #4 is already done, so skip it.", or a dangling "from the"
before a cut phrase. A Drop therefore removes the smallest unit that only carried the token:

- the whole sentence when the token was its subject, or nothing of substance is left of it;
- the clause between commas when only lead words (articles, prepositions) would remain;
- else the token, with the lead words that led into it when it ended its phrase, and a
  particle attached to it (Korean, Japanese).

`spans` offers those widest first, and the planner keeps the widest one that cuts into no
kept content (Rule 12: an excision never touches kept content). `splice` then cuts and mends
the place of the cut: a clause left with nothing of its own goes too, a mark left at a
sentence's start goes, the first letter is raised again, and an emptied line disappears.
"""

from __future__ import annotations

import re

from diylisis.core.cjk import CJK_LETTERS, HANGUL
from diylisis.core.phases import repair

SENTENCE_MARKS = ".!?。！？"
CLAUSE_MARKS = ",;，；、"
CJK = re.compile(f"[{CJK_LETTERS}]")
LIST_MARKER = r"[ \t]*(?:[-*+]|\d+[.)]|#+)[ \t]+"

# words that only lead into the phrase after them: left alone, they dangle
LEAD_WORDS = frozenset("""
a an the this that these those its our my your their his her
in on at of from for to with by per via after before since during until into onto under over
as see cf like about regarding according and or but
""".split())
ZH_LEAD_WORDS = ("根据", "依据", "按照", "参见", "参考", "详见", "见", "如", "在", "从", "按", "据", "于")
# particles that attach to the word before them and go with it
KO_PARTICLES = ("에서는", "에서", "으로는", "으로", "로는", "까지", "부터", "처럼", "에는", "에게", "은", "는", "이",
                "가", "을", "를", "에", "의", "로", "와", "과", "도", "만")
JA_PARTICLES = ("からは", "では", "には", "から", "まで", "より", "は", "が", "を", "に", "で", "の", "と", "へ", "も")
SUBJECT_VERBS = re.compile(r"(is|are|was|were|has|have|had|will|would|should|must|can|could|may|does|did|"
                           r"needs?|covers?|says?|shows?|lists?|explains?|describes?|holds?|contains?)\b")


def spans(text: str, start: int, end: int) -> tuple[tuple[int, int], ...]:
    """Spans a Drop of text[start:end] may remove, widest first, each holding the next."""
    start, end = repair.without_sentence_end(text, start, end)
    token = _token_span(text, start, end)
    sentence = _sentence(text, start)
    clause = _clause(text, sentence, start, end)
    candidates = []
    if _sentence_carries_only(text, sentence, token):
        candidates.append(_sentence_with_space(text, sentence))
    if clause is not None and _says_nothing(text[clause[0]:token[0]] + " " + text[token[1]:clause[1]]):
        candidates.append(_clause_with_mark(text, sentence, clause))
    candidates += [token, (start, end)]
    return tuple(dict.fromkeys(candidates))


def splice(text: str, start: int, end: int) -> str:
    """text without text[start:end], mended where the cut was."""
    capital = text[start:start + 1].isupper()
    text = text[:start] + text[end:]
    text, start = _drop_empty_clause(text, start)
    text = _mend_sentence_start(text, start, capital)
    text = _mend_list(text, start)
    return _drop_empty_line(text, start)


def _token_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The token with its enclosing brackets, or with a particle after it and, when it ends
    its phrase, the lead words before it."""
    if start > 0 and end < len(text) and text[start - 1] in "([（【" and text[end] in ")]）】":
        return _with_space_before(text, start - 1, end + 1)
    end = _with_particle(text, end)
    if _ends_phrase(text, end):
        while True:
            before = text[:start]
            word = re.search(r"(?<![^\s(\[])([^\W\d_]+)[ \t]+$", before)
            if word and word.group(1).lower() in LEAD_WORDS:
                start = word.start(1)
                continue
            lead = next((w for w in ZH_LEAD_WORDS if before.endswith(w)), None)
            if lead is not None:
                start -= len(lead)
                continue
            break
    return _with_space_before(text, start, end)


def _ends_phrase(text: str, end: int) -> bool:
    """Nothing but punctuation, a line end or a lead word follows: the token was the phrase's head."""
    rest = text[end:]
    if not rest or not rest[0].isalnum() and not rest.startswith(" "):
        return True
    word = re.match(r"[ \t]+([^\W\d_]+|\d+)", rest)
    return word is None or word.group(1).lower() in LEAD_WORDS or bool(CJK.match(rest[0]))


def _with_particle(text: str, end: int) -> int:
    rest = text[end:]
    korean = bool(re.match(f"[{HANGUL}]", rest))
    for particle in (KO_PARTICLES if korean else JA_PARTICLES):
        if rest.startswith(particle):
            after = rest[len(particle):len(particle) + 1]
            if not after or not after.isalnum() or not korean:
                return end + len(particle)
    return end


def _with_space_before(text: str, start: int, end: int) -> tuple[int, int]:
    if start > 0 and text[start - 1] == " ":
        return start - 1, end
    while end < len(text) and text[end] == " " and (start == 0 or text[start - 1] == "\n"):
        end += 1
    return start, end


def _sentence(text: str, offset: int) -> tuple[int, int]:
    """The sentence around offset, within its line: from after a sentence mark (or the line's
    start and list marker) to its own closing mark or the line's end."""
    line_start = text.rfind("\n", 0, offset) + 1
    start = line_start
    for match in re.finditer(r"[.!?](?=\s)|[。！？]", text[line_start:offset]):
        start = line_start + match.end()
    if start == line_start:
        marker = re.match(LIST_MARKER, text[start:offset])
        start += marker.end() if marker else 0
    while start < offset and text[start] == " ":
        start += 1
    end = offset
    while end < len(text) and text[end] != "\n":
        end += 1
        if text[end - 1] in "。！？" or (text[end - 1] in ".!?" and (end == len(text) or text[end].isspace())):
            break
    return start, end


def _clause(text: str, sentence: tuple[int, int], start: int, end: int) -> tuple[int, int] | None:
    """The part of the sentence between clause marks that holds the token, if the sentence has one."""
    first, last = sentence
    left = max(text.rfind(mark, first, start) for mark in CLAUSE_MARKS)
    rights = [i for i in (text.find(mark, end, last) for mark in CLAUSE_MARKS) if i >= 0]
    if left < 0 and not rights:
        return None
    clause_end = min(rights) if rights else (last - 1 if text[last - 1] in SENTENCE_MARKS else last)
    return (left + 1 if left >= 0 else first), clause_end


def _says_nothing(rest: str) -> bool:
    """Only lead words and punctuation are left (in CJK text, at most two characters of words)."""
    words = [w for w in re.findall(r"[^\W\d_]+|\d+", rest) if w.lower() not in LEAD_WORDS and w not in ZH_LEAD_WORDS]
    return not words or bool(CJK.search(rest)) and len("".join(words)) <= 2


def _sentence_carries_only(text: str, sentence: tuple[int, int], token: tuple[int, int]) -> bool:
    """The sentence says nothing without the token, or the token began it and a verb follows:
    it was what the sentence was about."""
    first, last = sentence
    if _says_nothing(text[first:token[0]] + " " + text[token[1]:last]):
        return True
    return not text[first:token[0]].strip() and bool(SUBJECT_VERBS.match(text[token[1]:last].lstrip(" :—–-")))


def _sentence_with_space(text: str, sentence: tuple[int, int]) -> tuple[int, int]:
    start, end = sentence
    while end < len(text) and text[end] == " ":
        end += 1
    return start, end


def _clause_with_mark(text: str, sentence: tuple[int, int], clause: tuple[int, int]) -> tuple[int, int]:
    """The clause and the mark before it, or at the sentence's start the mark after it."""
    start, end = clause
    if start > sentence[0] and text[start - 1] in CLAUSE_MARKS:
        return start - 1, end
    if end < len(text) and text[end] in CLAUSE_MARKS:
        end += 1
        while end < len(text) and text[end] == " ":
            end += 1
    return start, end


def _drop_empty_clause(text: str, at: int) -> tuple[str, int]:
    """A clause between marks that the cut left with nothing of its own goes, with one mark."""
    sentence = _sentence(text, at)
    clause = _clause(text, sentence, at, at)
    if clause is None or clause == sentence or not _says_nothing(text[clause[0]:clause[1]]):
        return text, at
    start, end = _clause_with_mark(text, sentence, clause)
    return text[:start] + text[end:], start


def _mend_sentence_start(text: str, at: int, capital: bool) -> str:
    """At a sentence's start, the cut leaves no mark or space first, and a capital if it had one."""
    head, tail = text[:at], text[at:]
    if not re.search(rf"(?:^|\n)(?:{LIST_MARKER})?[ \t]*$|[.!?][ \t]+$|[。！？]$", head):
        return text
    tail = re.sub(r"^[ \t]*[,;:—–，、；：][ \t]*", "", tail)
    if head.endswith((" ", "\t")) or not head or head.endswith("\n"):
        tail = tail.lstrip(" ")
    if capital and tail[:1].islower():
        tail = tail[0].upper() + tail[1:]
    return head + tail


def _mend_list(text: str, at: int) -> str:
    """"A, and B" left by cutting the middle of "A, X and B" loses its comma."""
    head, tail = text[:at], text[at:]
    one_comma = head.count(",", head.rfind("\n") + 1) == 1
    if one_comma and re.search(r",[ \t]*$", head) and re.match(r"[ \t]+(and|or)\b", tail):
        return head.rstrip(" \t")[:-1] + tail
    return text


def _drop_empty_line(text: str, at: int) -> str:
    """A line the cut left blank (or a bare list marker) goes; if that brings two blank lines
    together, or a blank line to the top, the one after it goes too. Nothing else changes."""
    line_start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at)
    line_end = len(text) if line_end < 0 else line_end
    if not re.fullmatch(r"[ \t]*(?:[-*+]|\d+[.)]|#+)?[ \t]*[,.;:]?", text[line_start:line_end]):
        return text
    text = text[:line_start] + text[line_end + 1:]
    after_blank = line_start == 0 or text[line_start - 2:line_start] == "\n\n" or text[:line_start] == "\n"
    if after_blank and text[line_start:line_start + 1] == "\n":
        text = text[:line_start] + text[line_start + 1:]
    return text
