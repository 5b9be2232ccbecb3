"""Ephemeral references: places that exist only for the author or only for a while (checklist 4)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from diylisis.core.cjk import CJK_LETTERS, CJK_TEXT, CjkPattern
from diylisis.core.detectors._match import lexicon_findings
from diylisis.core.detectors.rule import Rule
from diylisis.core.detectors.text import TRACE_LINE, Doc
from diylisis.core.lazy_pattern import LazyPattern
from diylisis.core.model import Category, Finding, Severity

# (?<![\w.~/-])(?:/tmp|/var/tmp|...|[Cc]:\\(?:Windows\\)?Temp), with the look-behind after each
# alternative's first character so that the regex engine skips to those characters.
# A path ends at a space, a quote or bracket, or CJK text and punctuation ("/tmp/run.log。계속"):
# Chinese and Japanese put no space after a path. A run of CJK letters stays in the path only
# as a name with an extension or a folder ("/tmp/日志.txt", "docs/设计/a.md").
_TAIL = rf"(?:[^\s`'\"),;\]{CJK_TEXT}]|[{CJK_LETTERS}]+(?=\.[A-Za-z0-9]|[/\\]))"
TEMP_PATH = CjkPattern(
    r"(?:/(?<![A-Za-z0-9_.~/-]/)(?:tmp|var/tmp|private/tmp|private/var/folders|var/folders|dev/shm)"
    r"|%(?<![\w.~/-]%)(?:TEMP%|TMP%)|\$(?<![\w.~/-]\$)TMPDIR"
    r"|C(?<![\w.~/-]C):\\(?:Windows\\)?Temp|c(?<![\w.~/-]c):\\(?:Windows\\)?Temp)"
    rf"(?:[/\\]{_TAIL}*)?"
)
MACHINE_PATH = CjkPattern(
    r"(?<![A-Za-z0-9_.~/-])(?:/Users/|/home/|[A-Za-z]:\\Users\\|/mnt/|/Volumes/|/media/)"
    rf"(?P<owner>[^\s/\\`'\"),;{CJK_TEXT}]+)(?:[/\\]{_TAIL}*)?"
    rf"|(?<![\w.~/-])~/(?!\.){_TAIL}+"
    rf"|(?<![\w.~/-])(?:%USERPROFILE%|%APPDATA%|%LOCALAPPDATA%){_TAIL}*"
    rf"|(?<![\w\\?])[D-Zd-z]:\\(?!Windows\\|Program Files){_TAIL}+"
)
_SENTENCE_END = ".:!?"  # a path that ends a sentence does not own the stop after it
_PLACEHOLDER_OWNER = LazyPattern(
    r"(?i)^(?:<[^>]*>?|\$\{?\w+\}?|\{[^}]*\}|you|your-?name|username|me|example|foo|bar|baz|qux|someone|somebody"
    r"|\*|\.\.\.|x+)$"
)
_CODE_BEHAVIOUR = LazyPattern(
    r"(?i)\b(?:writes?|wrote|written|writing|uses?|used|hard-?coded|removes?|removed|deletes?|deleted|"
    r"creates?|created|defaults?|fall(?:s)? back|fallback|logs? to|logged to|points? to|opens?|reads?|"
    r"mounts?|extracts? to|under)\b[^.\n]*$"
)
# "Read /tmp/run.log before starting." tells the reader to open a file only the author had.
_READER_IMPERATIVE = LazyPattern(
    r"(?:^|[.!?:\n])\s*(?:(?:[-*+]|\d+[.)])\s+)?(?:read|open|see|check)\s+(?:the\s+)?$", re.I
)
# A letter or digit of a name, or a run of CJK letters before an extension or folder: CJK text
# next to a path ("更新src/app.py的逻辑") is not part of it.
_NAME = rf"(?:[^\W{CJK_LETTERS}]|[.*-]|[{CJK_LETTERS}]+(?=\.[A-Za-z0-9]|/))"
REL_PATH = CjkPattern(
    rf"(?<![^\W{CJK_LETTERS}])(?<![./~@:$%-])(?:\.{{1,2}}/)?{_NAME}+(?:/{_NAME}+)+/?(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?)?"
)
# ref namespaces, diff prefixes (a/x.c b/x.c), numbers
_PATH_NOT_A_FILE = LazyPattern(r"^(?:refs|origin|upstream|heads|remotes|tags|a|b)/|^[\d/.*-]+$|^\.+/?$")
# A C or C++ header ("sys/param.h", "openssl/ssl.h", "netlink/*.h") resolves against the include
# path (the system's, a dependency's), not the tree; "HTTP/1.x" is a protocol and its version.
_INCLUDE_OR_PROTOCOL = LazyPattern(r"\.(?:h|hh|hpp|hxx)$|^[A-Z][A-Z0-9]*/\d")
# A file in a forge's configuration folder (".github/ISSUE_TEMPLATE/config.yml") is named by the
# forge's documented convention, a place every reader can look up, never one only the author had.
_FORGE_CONVENTION = LazyPattern(r"^\.(?:github|gitlab|gitea|forgejo)/")
_BUILD_OUTPUT = LazyPattern(
    r"\.(?:o|a|so|lo|obj|dll|dylib|exe|pyc|class)$"
    # what a build or an install writes, never tracked: the reader makes it ("node dist/index.js")
    r"|^(?:\./)?(?:dist|node_modules|__pycache__|\.venv|\.tox|\.next|\.nuxt|target/(?:debug|release))/"
)
# Slash-joined alternatives, not a place: literal values ("true/false/.inf") and a name with its
# member ("array/array.from"); _alternatives() below.
_VALUE_WORDS = frozenset(
    "true false null nil none bool boolean int integer float double str string array object number nan inf "
    "yes no on off list dict map set".split()
)
# A file the line says to create ("- Create: `lib/server/index.js`", "New file: src/x.ts"): a plan names
# what it will add; the reader's checkout is not meant to have it yet.
_TO_CREATE = LazyPattern(r"(?i)(?:^|[-*+]\s+|\*\*)(?:create|add|new(?: file)?|scaffold)(?:\*\*)?:?\s*(?:\*\*)?`?$")


def _alternatives(path: str) -> bool:
    """The slash-joined words are alternatives (see _VALUE_WORDS above)."""
    *folders, last = path.split("/")
    if not folders or not all(folder.isalpha() and folder.islower() for folder in folders):
        return False
    if last.startswith(".") and last[1:].isalpha():
        return all(folder in _VALUE_WORDS for folder in folders)
    member, _, rest = last.partition(".")
    return bool(rest) and rest.isalpha() and member in folders
_FILE_LIKE = LazyPattern(r"^[^.].*\.[A-Za-z]{1,6}$")
# The note must follow the path it qualifies: "notes.md (untracked)", "docs/x is untracked".
_PATH_BEFORE = LazyPattern(
    r"(?:\S+/\S*|\S+\.[A-Za-z]{1,5}`?)\s*(?:\(|(?:is|are|was|were|remains?|stays?|still|left|currently)\s+)*$"
)


def session_urls(doc: Doc) -> Iterator[Finding]:
    """EP501: agent and chat session links (claude.ai/code/session_…, ampcode.com/threads/…)."""
    yield from lexicon_findings(
        doc,
        "EP501",
        Category.EPHEMERAL_REF,
        "session_url",
        "locators",
        "a link to the author's agent or chat session; the reader cannot open it, and it expires",
        "move what the session established into the record; drop the link",
    )


def private_urls(doc: Doc) -> Iterator[Finding]:
    """EP502: localhost, file:, private-network and private-drive links."""
    yield from lexicon_findings(
        doc,
        "EP502",
        Category.EPHEMERAL_REF,
        "private_url",
        "locators",
        "a link to a machine-local or private place the reader cannot reach",
        "put the content in the record or the repository, or link a public, durable location",
    )


def session_ids(doc: Doc) -> Iterator[Finding]:
    """EP503: a session or run identifier ("session 48da0821", "세션(48da0821)"), or a memory note's name."""
    yield from lexicon_findings(
        doc,
        "EP503",
        Category.EPHEMERAL_REF,
        "session_id_hint",
        "prose",
        "identifies a session of the author's tools; nothing the reader has can look it up",
        "state what the session established instead of its id",
    )
    # a memory note is often named in inline code ("`feedback_lock_order.md`"); it is a place all the same
    yield from lexicon_findings(
        doc,
        "EP503",
        Category.EPHEMERAL_REF,
        "memory_pointer",
        "claims",
        "points into an agent's memory or scratch notes, which live only on the author's machine",
        "put what the note says in the record, or commit it and cite its path",
    )


def untracked_notes(doc: Doc) -> Iterator[Finding]:
    """EP504: a path described as untracked or uncommitted ("notes.md (currently untracked)")."""
    yield from lexicon_findings(
        doc,
        "EP504",
        Category.EPHEMERAL_REF,
        "untracked_note",
        "prose",
        "points at a file the author never committed; the reader does not have it",
        "commit the file and cite its path, or put its content in the record",
        keep=lambda m: doc.text[m.start() - 1 : m.start()] != "/"  # "tracked/untracked" is a pair of states
        and (
            _PATH_BEFORE.search(doc.text[max(0, m.start() - 60) : m.start()].split("\n")[-1]) is not None
            or _aside_on_a_place(doc, m.start(), m.end())
        ),
    )


# A note set off as an aside at the end of its clause ("(not committed to repo).", ", uncommitted.")
# qualifies what the sentence named before it: a path, or a place only the author has ("in that
# repo", "in my checkout").
_CLAUSE_ENDS = LazyPattern(r"^[ \t]*(?:[.;,!?]|$)")
_PAREN_CLOSES = LazyPattern(r"^[^.;\n()]{0,30}\)[ \t]*(?:[.;,!?]|$)")
_PATH_IN_SENTENCE = LazyPattern(
    r"(?:^|\s)`?(?:~|\.{1,2})?/?[\w.-]+/[\w./-]*\w|\b[\w-]+\.(?:md|txt|json|ya?ml|toml|py|js|ts|sh|rs|go)\b"
    r"|(?i:\bin (?:that|the other|another|my|our|a local|a separate) (?:repo|repository|checkout|clone|"
    r"worktree|branch)\b)"
)


def _aside_on_a_place(doc: Doc, start: int, end: int) -> bool:
    """The note at start..end is an aside on a place its sentence names earlier (see above)."""
    text = doc.prose
    if text[start : start + 1] == "(" or text[start - 1 : start] == "(":
        after = text[end : end + 40]
        if not (_CLAUSE_ENDS.match(after) if text[end - 1 : end] == ")" else _PAREN_CLOSES.match(after)):
            return False
    elif not (text[max(0, start - 2) : start].rstrip(" \t").endswith(",") and _CLAUSE_ENDS.match(text[end : end + 40])):
        return False
    sentence = text[max(text.rfind(stop, 0, start) for stop in (". ", ".\n", "\n\n", "! ", "? ")) + 1 : start]
    return _PATH_IN_SENTENCE.search(sentence) is not None


def temp_paths(doc: Doc) -> Iterator[Finding]:
    """EP505: temporary paths in prose (/tmp, /var/tmp); quoted output and code are evidence, not pointers."""
    for match in TEMP_PATH.finditer(doc.prose):
        if match.group().rstrip(_SENTENCE_END) in _TEMP_DIRECTORIES:
            continue  # the directory itself ("switch away from /tmp") names no file the author had
        if _changed(doc, match.group().rstrip(_SENTENCE_END)):
            continue  # the commit adds or removes the path: it is the change's subject
        before = doc.prose[max(0, match.start() - 60) : match.start()]
        if _CODE_BEHAVIOUR.search(before) and not _READER_IMPERATIVE.search(before):
            continue  # the record describes what the code does with the path
        yield doc.finding(
            "EP505",
            Category.EPHEMERAL_REF,
            match.start(),
            _path_end(match),
            "a temporary path on the author's machine; it is gone, and was never the reader's",
            "put the relevant content (log lines, output) in the record or commit it",
        )


def machine_paths(doc: Doc) -> Iterator[Finding]:
    """EP506: home and machine-absolute paths (/Users/name/…, C:\\Users\\name\\…, /mnt/…, ~/work/…)."""
    for match in MACHINE_PATH.finditer(doc.locators):
        owner = match.group("owner")
        if owner is not None and _PLACEHOLDER_OWNER.match(owner):
            continue
        line = doc.position(match.start())[0]
        if _inside_url(doc, match.start()) or line in doc.indented_lines or line in doc.output_lines:
            continue  # an indented transcript, a fenced block's output or a table is quoted: evidence
        if TRACE_LINE.search(doc.line_of(match.start())):
            continue  # a stack-trace or compiler line quotes output that happens to name the machine
        path = match.group().rstrip(_SENTENCE_END)
        if path.startswith("~/") and _LOOKS_IN.search(doc.locators[max(0, match.start() - 60) : match.start()]):
            continue  # "look for the ignore file in ~/.config/git, not ~/git": what the code reads, per user
        if _changed(doc, path):
            continue  # the commit adds or removes the path (a hard-coded home path taken out): its subject
        yield doc.finding(
            "EP506",
            Category.EPHEMERAL_REF,
            match.start(),
            _path_end(match),
            "an absolute path on the author's machine; the reader's machine has no such place",
            "use a repository-relative path, or describe the location generically",
        )


def untracked_paths(doc: Doc) -> Iterator[Finding]:
    """EP507: repository-relative paths not tracked at the certified revision (nor its parent)."""
    assert doc.context is not None
    if doc.path is not None:
        return  # a file record (a task or a design) names the files it plans: their absence is its subject
    for match in REL_PATH.finditer(doc.claims):
        if doc.status_lines and doc.position(match.start())[0] in doc.status_lines:
            continue  # the author's status lines in a fence are kept for the claim rules only
        token = re.sub(r"[^\x00-\x7f]+$", "", match.group()).rstrip(".")
        bare = re.sub(r"(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?)$", "", token)
        if "/" not in bare.strip("/") and not bare.endswith("/"):
            continue
        if _names_repository(doc, bare):
            continue  # "copy from pallets/.github": a repository of the origin's owner, not a path
        if _PATH_NOT_A_FILE.search(bare) or not re.search(r"[A-Za-z]", bare) or _BUILD_OUTPUT.search(bare):
            continue
        line_start = doc.text.rfind("\n", 0, match.start()) + 1
        if _alternatives(bare) or _TO_CREATE.search(doc.claims[line_start : match.start()]):
            continue
        if not re.search(r"\.[A-Za-z]\w{0,6}$", bare):
            continue  # "read/write/scan" and "a/b/" are lists far more often than places
        if any(_FILE_LIKE.search(part) for part in bare.split("/")[:-1]):
            continue  # "a.md/b.md" lists files; it is not one path
        if bare.startswith(("/", "~", "...")) or TRACE_LINE.search(doc.line_of(match.start())):
            continue
        if doc.context.tracked(bare) or doc.context.tracked(re.sub(r"^(?:\.\./)+", "", bare)):
            continue  # "../../Documentation/x.sh": a path from a build directory to a tracked file
        if "..." in bare or all(part.startswith(".") for part in bare.split("/")):
            continue  # "A/file...except" is elided prose; ".gitignore/.rgignore/.ignore" lists files
        if _changed(doc, bare) or _changed(doc, bare.rsplit("/", 1)[-1]):
            continue  # the commit's change holds the path or its file (a fixture, a file it writes or edits)
        if _globs_code_folder(doc, bare) or _INCLUDE_OR_PROTOCOL.search(bare) or _FORGE_CONVENTION.match(bare):
            continue
        # A missing file in a folder the reader has is often generated (po/git.pot), renamed or a
        # placeholder; a folder that does not exist at all (plans/…) is a place only the author had.
        parent = bare.rsplit("/", 1)[0]
        known_folder = bool(parent) and doc.context.tracked(parent)
        yield doc.finding(
            "EP507",
            Category.EPHEMERAL_REF,
            match.start(),
            match.start() + len(token),
            "a path that is not tracked at this revision: the reader's checkout does not have it"
            + (" (its folder is tracked: a generated or renamed file?)" if known_folder else ""),
            "commit the file, correct the path, or put the content in the record",
            severity=Severity.WARNING if known_folder else Severity.ERROR,
        )


_TEMP_DIRECTORIES = frozenset({"/tmp", "/tmp/", "/var/tmp", "/var/tmp/", "/dev/shm", "/dev/shm/", "%TEMP%", "%TMP%",
                               "$TMPDIR", "$TMPDIR/"})
# What code does with a per-user path: a sentence saying where the code looks names no machine.
_LOOKS_IN = LazyPattern(
    r"(?i)\b(?:look(?:s|ed|ing)? (?:for|at|in)|search(?:es|ed)? (?:for|in)|reads?|read from|uses?|used|"
    r"defaults? to|falls? back to|writes?|wrote|creates?|created|instead of|rather than)\b(?:[^.\n]|\.(?=\S))*$"
)


def _names_repository(doc: Doc, path: str) -> bool:
    origin = doc.context.origin() if doc.context is not None else None
    parts = path.split("/")
    return origin is not None and len(parts) == 2 and parts[0].lower() == origin[1].lower()


def _globs_code_folder(doc: Doc, path: str) -> bool:
    """A glob over a folder the code names as a string ("selfcheck/*.json" where the code joins
    `cache_dir, "selfcheck"`): the files the program writes, not a place only the author had."""
    folder, _, name = path.rpartition("/")
    folder = folder.rsplit("/", 1)[-1]
    if "*" not in name or not folder or "*" in folder or doc.context is None:
        return False
    return any(doc.context.mentions(f"{quote}{folder}{quote}") for quote in ('"', "'"))


def _changed(doc: Doc, token: str) -> bool:
    """The commit's own change adds or removes the token: what the commit is about, not a pointer."""
    return doc.context is not None and len(token) > 4 and doc.context.in_change(token)


def _path_end(match: re.Match[str]) -> int:
    """Where a matched path ends, without the sentence's stop ("/tmp/run3.log." -> "/tmp/run3.log")."""
    path = match.group()
    return match.start() + max(len(path.rstrip(_SENTENCE_END)), 1)


def _inside_url(doc: Doc, offset: int) -> bool:
    line_start = doc.text.rfind("\n", 0, offset) + 1
    return re.search(r"[a-z]+://\S*$", doc.text[line_start:offset]) is not None


_DOC_SESSION_URL = """\
What it flags: links to agent and chat sessions: claude.ai/code/session_…, ampcode.com/threads/…,
app.devin.ai/sessions/…, chatgpt.com/c/…, in prose, code or trailers (an Amp-Thread-ID trailer
is such a link).

Why a fresh reader fails: the session is private to the author's account and often expires.

Example: bad "Context: https://claude.ai/code/session_0123abcd" good "Context: the importer
dropped rows whose date column was empty; this keeps them with a null date."

Repair: move what the session established into the record and drop the link.
"""

_DOC_PRIVATE_URL = """\
What it flags: localhost and 127.0.0.1 URLs, file: URLs, private-network addresses, hosts
under .local/.internal/.corp, and private document links (Google Docs/Drive, Slack archives,
Notion).

Why a fresh reader fails: the place is on the author's machine or behind someone's login.

Example: bad "Repro at http://localhost:3000/debug" good "Repro: start the dev server and
open /debug; the page throws on an empty cart."

Repair: put the content in the record or the repository, or link a public durable location.
"""

_DOC_SESSION_ID = """\
What it flags: identifiers of sessions and runs: "session 48da0821", "세션(48da0821)",
"2026-08-03 세션", "thread id: …", and pointers into an agent's memory or scratch notes
("~/.claude/projects/…/memory/x.md", "[[feedback_retry]]", "feedback_retry_loop.md").

Why a fresh reader fails: only the author's tools can look the id up.

Example: bad "Same failure as session 3f9a2c71." good "Same failure as the retry loop
fixed in 5d1e0a2: the lock was not released on timeout."

Repair: say what the session established instead of its id.
"""

_DOC_UNTRACKED = """\
What it flags: a path the record itself calls untracked or uncommitted ("notes/plan.md
(currently untracked)", "(현재 untracked)"), also in an aside closing the sentence that names
the path or a place only the author has ("updated docs/local.md the same way (not committed
to repo).", "the plugin change is prepared in that repo, uncommitted.").

Why a fresh reader fails: the file is not in the repository, so the reader does not have it.

Example: bad "See scratch/plan.md (untracked)." good "Plan: split the parser first, then
the printer (docs/plan.md)."

Repair: commit the file and cite it, or put its content in the record.
"""

_DOC_TEMP = """\
What it flags: temporary paths in prose: /tmp/…, /var/tmp/…, %TEMP%, $TMPDIR. Paths inside
code, fenced blocks and quoted output are evidence and are not flagged, nor are sentences
saying what the code does with the path ("writes to /tmp/x").

Why a fresh reader fails: the file was on the author's machine for a while and is gone.

Example: bad "Full log in /tmp/run3.log." good "The log shows the worker exiting with
status 137 (killed for memory) after the third batch."

Repair: put the relevant lines in the record or commit the artifact.
"""

_DOC_MACHINE = """\
What it flags: absolute paths that name a machine or a person: /Users/name/…, /home/name/…,
C:\\Users\\name\\…, /mnt/…, /Volumes/…, ~/projects/…, in prose, code spans and fenced blocks
(an instruction to cd there is still a pointer). Indented transcripts (quoted output),
standard per-user tool locations under a dot directory (~/.config/…) and placeholder owners
(<user>, $USER) are not flagged.

Why a fresh reader fails: the reader's machine has no such place.

Example: bad "Run it from /Users/alice/src/app." good "Run it from the repository root."

Repair: use a repository-relative path or describe the location generically.
"""

_DOC_REL = """\
What it flags: repository-relative paths with a file extension (line anchors like path:12
accepted) that are not tracked at the certified
revision or its parent. A path may be given relative to any directory. Runs only with a
repository. What a build or an install writes ("dist/cli.js", "node_modules/.bin"),
slash-joined alternatives ("true/false/.inf", "array/array.from") and a file a plan's line
says to create ("- Create: `lib/server/index.js`") are not flagged, nor is any path in a
file record (a task or design file names the files it plans).

Why a fresh reader fails: the reader's checkout does not have the file. When the file's
folder is tracked the finding is a warning (generated files such as po/git.pot, renames and
placeholders are common there); when the folder is missing too it is an error.

Example: bad "Design notes are in plans/cache-design.md." (never committed) good "Design
notes are in docs/cache.md." (tracked)

Repair: commit the file, correct the path, or put the content in the record.
"""

RULES = (
    Rule(
        id="EP501",
        name="session-link",
        category=Category.EPHEMERAL_REF,
        languages=("any",),
        summary="Links to agent or chat sessions (claude.ai/code/session_…, ampcode.com/threads/…).",
        doc=_DOC_SESSION_URL,
        detect=session_urls,
        lexicon_keys=("session_url",),
        requires=("session_url",),
    ),
    Rule(
        id="EP502",
        name="private-link",
        category=Category.EPHEMERAL_REF,
        languages=("any",),
        summary="Links to localhost, file:, private networks or private documents.",
        doc=_DOC_PRIVATE_URL,
        detect=private_urls,
        lexicon_keys=("private_url",),
        requires=("private_url",),
    ),
    Rule(
        id="EP503",
        name="session-id",
        category=Category.EPHEMERAL_REF,
        languages=("en", "ko", "zh", "ja"),
        summary="Identifiers of the author's sessions or runs ('session 48da0821').",
        doc=_DOC_SESSION_ID,
        detect=session_ids,
        lexicon_keys=("session_id_hint", "memory_pointer"),
        requires=("session_id_hint", "memory_pointer"),
    ),
    Rule(
        id="EP504",
        name="untracked-file-note",
        category=Category.EPHEMERAL_REF,
        languages=("en", "ko", "zh", "ja"),
        summary="A path the record itself calls untracked or uncommitted.",
        doc=_DOC_UNTRACKED,
        detect=untracked_notes,
        lexicon_keys=("untracked_note",),
        requires=("untracked_note",),
    ),
    Rule(
        id="EP505",
        name="temp-path",
        category=Category.EPHEMERAL_REF,
        languages=("any",),
        summary="Temporary paths in prose (/tmp/…, /var/tmp/…).",
        doc=_DOC_TEMP,
        detect=temp_paths,
        requires=(TEMP_PATH,),
    ),
    Rule(
        id="EP506",
        name="machine-path",
        category=Category.EPHEMERAL_REF,
        languages=("any",),
        summary="Home and machine-absolute paths (/Users/name/…, C:\\Users\\name\\…).",
        doc=_DOC_MACHINE,
        detect=machine_paths,
        requires=(MACHINE_PATH,),
    ),
    Rule(
        id="EP507",
        name="untracked-path",
        category=Category.EPHEMERAL_REF,
        languages=("any",),
        summary="Repository paths not tracked at the certified revision.",
        doc=_DOC_REL,
        detect=untracked_paths,
        needs_tree=True,
        requires=(REL_PATH,),
    ),
)
