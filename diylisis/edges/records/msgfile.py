"""msgfile:PATH: the message file a commit-msg hook receives (DESIGN.md, snapshot boundary).

The snapshot is the message reduced exactly as git will store it, so the digest the hook
computes equals the digest of the commit that results. Git picks its cleanup mode after
the hook runs and the hook cannot see whether an editor or -v was used, so `data` is the
most likely reduction and `alternates` holds every other one git could store under the
configured `commit.cleanup` and `core.commentChar` (git: sequencer.c cleanup_message,
strbuf.c strbuf_stripspace, wt-status.c wt_status_locate_end, builtin/commit.c
adjust_comment_line_char). Pure Python plus one `git config` and one `git rev-parse` call
(none when the caller hands them in as GitFacts): no pygit2 import.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from msgspec import Struct

from diylisis.core.model import Snapshot, Target
from diylisis.edges.gitio import config_values
from diylisis.edges.records.base import (
    DEFAULT_MAX_BYTES,
    WriteChannel,
    check_record,
    head_commit,
    read_named_file,
    replace_file,
)

AUTO_CANDIDATES = "#;@!$%^&|:"
CUT_LINE = b"------------------------ >8 ------------------------\n"
_GIT_SPACE = b" \t\n\r"  # git's sane_ctype isspace: not \v or \f

# cleanup modes as git names them internally
NONE, SPACE, ALL = "verbatim", "whitespace", "strip"


def stripspace(message: bytes, comment: bytes | None) -> bytes:
    """git stripspace: trailing whitespace off, blank runs collapsed, comment lines dropped."""
    out: list[bytes] = []
    empties = 0
    for line in _lines(message):
        if comment is not None and line.startswith(comment):
            continue
        body = line.rstrip(_GIT_SPACE)
        if body:
            if empties and out:
                out.append(b"\n")
            empties = 0
            out.append(body + b"\n")
        else:
            empties += 1
    return b"".join(out)


def _lines(message: bytes) -> list[bytes]:
    """Split on LF only, as git does (bytes.splitlines also splits on CR)."""
    parts = message.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def cut_at_scissors(message: bytes, comment: bytes) -> bytes:
    """Everything above the scissors line (wt_status_locate_end), or the whole message."""
    pattern = b"\n" + comment + b" " + CUT_LINE
    if message.startswith(pattern[1:]):
        return b""
    at = message.find(pattern)
    return message if at < 0 else message[: at + 1]


def reduce(message: bytes, mode: str, comment: bytes, *, truncate: bool) -> bytes:
    """The bytes git stores for this message under one cleanup mode (cleanup_message)."""
    if truncate:
        message = cut_at_scissors(message, comment)
    if mode == NONE:
        return message
    return stripspace(message, comment if mode == ALL else None)


CONFIG_KEYS = ("commit.cleanup", "core.commentchar")


class GitFacts(Struct, frozen=True, kw_only=True):
    """What reading a message file needs from the repository besides the file."""

    cleanup: str  # commit.cleanup, 'default' when unset
    comment: str | None  # core.commentChar as configured
    head: str | None  # the commit HEAD names, None on an unborn branch
    editor: bool | None = None  # git ran an editor for this commit (editor_from); None: unknown


def config_from(values: Mapping[str, str]) -> tuple[str, str | None]:
    """(commit.cleanup, core.commentChar) from config values already read."""
    return values.get("commit.cleanup", "default").lower(), values.get("core.commentchar")


def read_config(repo_root: str) -> tuple[str, str | None]:
    """(commit.cleanup, core.commentChar) from one `git config` call; unset cleanup is 'default'."""
    return config_from(config_values(repo_root, CONFIG_KEYS))


def comment_chars(message: bytes, configured: str | None) -> tuple[bytes, tuple[bytes, ...]]:
    """The most likely comment string and every other one git may have used."""
    if configured is None or configured == "":
        return b"#", ()
    if configured.lower() != "auto":
        return configured.encode("utf-8"), ()
    # auto: git chose the first candidate not starting a line of the message it began with;
    # its own template lines (status, scissors) start with that choice and come last.
    starts = {line[:1] for line in _lines(message) if line[:1]}
    present = tuple(c.encode() for c in AUTO_CANDIDATES if c.encode() in starts)
    scissors = [c for c in present if cut_at_scissors(message, c) != message]
    last = [line[:1] for line in _lines(message) if line.strip()]
    if scissors:
        likely = scissors[0]
    elif last and last[-1] in present:
        likely = last[-1]
    else:
        likely = b"#"
    return likely, tuple(c for c in (b"#", *present) if c != likely)


def candidate_modes(cleanup: str, editor_used: bool | None) -> tuple[str, ...]:
    """The cleanup mode commit.cleanup names, most likely first (git: get_cleanup_mode)."""
    match cleanup:
        case "verbatim":
            return (NONE,)
        case "whitespace" | "scissors":  # scissors: cut at the scissors line, then whitespace
            return (SPACE,)
        case "strip":
            return (ALL,)
        case _:  # default: strip after an editor, whitespace with -m/-F
            if editor_used is None:
                return (ALL, SPACE)
            return (ALL,) if editor_used else (SPACE,)


def editor_from(environ: Mapping[str, str]) -> bool | None:
    """True when git ran an editor for this commit, None when the hook cannot know.

    git runs a commit's hooks with GIT_INDEX_FILE set and, when it will launch no editor,
    with GIT_EDITOR=: (git: commit.c run_commit_hook). Any other GIT_EDITOR under git means
    an editor ran; GIT_EDITOR=: may also be a user's own no-op editor, and a hook run by
    hand has no GIT_INDEX_FILE: both unknown.
    """
    if "GIT_INDEX_FILE" not in environ or environ.get("GIT_EDITOR") == ":":
        return None
    return True


# the line git's editor template states the cleanup mode in (git: commit.c prepare_to_commit),
# after the comment string; SPACE and verbatim share one wording
_TEMPLATE_LINES = (
    (b" with '{c}' will be ignored, and an empty message aborts the commit.\n", (ALL,)),
    (b" with '{c}' will be kept; you may remove them yourself if you want to.\n", (SPACE, NONE)),
)
_CUT_NOTICE = b" Do not modify or remove the line above.\n"  # git: wt_status_add_cut_line


def _template_modes(message: bytes, comment: bytes) -> tuple[str, ...] | None:
    """The cleanup modes git's own template in the file names, or None when it names none or both."""
    lines = set(_lines(message))
    named: list[tuple[str, ...]] = [modes for text, modes in _TEMPLATE_LINES
             if comment + text.replace(b"{c}", comment) in lines]
    if not named:
        named = _translated_template_modes(message, comment)
    return named[0] if len(named) == 1 else None


# git's own words for the template's mode line, as git's message catalog holds them ('%c' until
# git 2.44, '%s' after); under a translated locale git writes its translation
_MODE_MSGIDS = (
    (("Please enter the commit message for your changes. Lines starting\nwith '{c}' will be "
      "ignored, and an empty message aborts the commit.\n"), (ALL,)),
    (("Please enter the commit message for your changes. Lines starting\nwith '{c}' will be kept; "
      "you may remove them yourself if you want to.\nAn empty message aborts the commit.\n"), (SPACE, NONE)),
)


def _translated_template_modes(message: bytes, comment: bytes) -> list[tuple[str, ...]]:
    """The modes whose translated template block (git's catalog for the hook's locale) is in message."""
    languages = [os.environ.get(name, "") for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")]
    if not any(value and not value.startswith(("C", "POSIX", "en")) for value in languages):
        return []  # git writes English, already looked for
    import gettext  # only for an editor commit in a translated locale

    directories = [os.environ.get("GIT_TEXTDOMAINDIR"), "/usr/share/locale", "/usr/local/share/locale"]
    catalogs = [gettext.translation("git", localedir=d, fallback=True) for d in directories if d]
    text = "\n" + message.decode("utf-8", errors="replace")
    char = comment.decode("utf-8", errors="replace")
    named: list[tuple[str, ...]] = []
    for msgid, modes in _MODE_MSGIDS:
        for catalog in catalogs:
            for placeholder in ("%c", "%s"):
                translated = catalog.gettext(msgid.replace("{c}", placeholder))
                if translated == msgid.replace("{c}", placeholder):
                    continue
                written = translated.replace(placeholder, char)
                block = "\n".join(f"{char} {line}" if line else char for line in written.rstrip("\n").split("\n"))
                if f"\n{block}\n" in text and modes not in named:
                    named.append(modes)
    return named


def readings(message: bytes, cleanup: str, configured_comment: str | None,
             editor: bool | None = None) -> tuple[bytes, ...]:
    """Every distinct message git may store for this file in this invocation, the most likely first.

    What the hook cannot see: `--cleanup=` and `-v` on git's command line. So every cleanup
    mode is possible, and a scissors line may or may not cut, unless git's own words in the
    file settle it: when an editor ran (editor_from), the template's "will be ignored" or
    "will be kept" line names this invocation's mode, and git's notice under a scissors line
    says git wrote that line and cuts there (git: sequencer.c cleanup_message).
    """
    likely, others = comment_chars(message, configured_comment)
    ordered: list[bytes] = []
    for comment in (likely, *others):
        has_cut = cut_at_scissors(message, comment) != message
        settled = _template_modes(message, comment) if editor else None
        if settled is not None:
            modes = settled
        else:
            configured = candidate_modes(cleanup, editor if editor else (
                True if _ends_with_comment(message, comment) else False))
            modes = tuple(dict.fromkeys((*configured, ALL, SPACE, NONE)))
        if not has_cut:
            cuts: tuple[bool, ...] = (False,)
        elif editor and _git_cut_line(message, comment):
            cuts = (True,)
        elif cleanup == "scissors" or editor or _git_cut_line(message, comment):
            cuts = (True, False)
        else:
            cuts = (False, True)
        for mode in modes:
            for cut in cuts:
                reduced = reduce(message, mode, comment, truncate=cut)
                if reduced not in ordered:
                    ordered.append(reduced)
    return tuple(ordered)


def _git_cut_line(message: bytes, comment: bytes) -> bool:
    """The first scissors line is the one git's template wrote in this invocation, so git cuts there.

    Git writes a scissors line only when it will cut (-v, or scissors mode with an editor), and
    with -v below its template's mode line. A scissors line above the last mode line came with
    the message (a reused message file, text given with -F): git may keep what is below it.
    """
    pattern = comment + b" " + CUT_LINE
    if message.startswith(pattern):
        at = 0
    else:
        found = message.find(b"\n" + pattern)
        if found < 0:
            return False
        at = found + 1
    if not message[at + len(pattern):].startswith(comment + _CUT_NOTICE):
        return False
    modes = [message.rfind(b"\n" + comment + text.replace(b"{c}", comment)) for text, _ in _TEMPLATE_LINES]
    last_mode = max(modes)
    return 0 <= last_mode < at


def _ends_with_comment(message: bytes, comment: bytes) -> bool:
    lines = [line for line in _lines(message) if line.strip(_GIT_SPACE)]
    return bool(lines) and lines[-1].startswith(comment)


def read(target: Target, repo_root: str, *, max_bytes: int = DEFAULT_MAX_BYTES,
         facts: GitFacts | None = None) -> Snapshot:
    """The message as git will store it; the other possible reductions as alternates.

    facts: the repository's cleanup mode, comment char and HEAD when the caller already
    read them (a hook reads the message several times in one run), else read here.
    """
    raw = read_named_file(target.locator, "message file", None)  # a -v diff below the scissors may be large
    if facts is None:
        cleanup, comment = read_config(repo_root)
        facts = GitFacts(cleanup=cleanup, comment=comment, head=head_commit(repo_root),
                         editor=editor_from(os.environ))
    cleanup, comment = facts.cleanup, facts.comment
    candidates = readings(raw, cleanup, comment, facts.editor)
    data = check_record(candidates[0], f"the commit message in {target.locator}", max_bytes)
    # every reading git may store is judged, so one that cannot be read is no reason to pass
    alternates = tuple(check_record(c, f"the commit message in {target.locator} as git may store it "
                                       "under another cleanup mode", max_bytes) for c in candidates[1:])
    return Snapshot(
        target=target,
        data=data,
        boundary=f"the commit message as git stores it (commit.cleanup={cleanup})",
        tree_revision=facts.head,
        alternates=alternates,
    )


def write_channel(target: Target, repo_root: str) -> WriteChannel | None:
    """The hook's message file is edited in place; git commits what it then holds."""
    return WriteChannel(kind="edit-in-place", detail=f"rewrite the message file {target.locator}")


def apply(target: Target, repo_root: str, new_bytes: bytes) -> None:
    """Rewrite the message file with the repaired message."""
    replace_file(target.locator, new_bytes, f"message file {target.locator}")


def describe(target: Target) -> str:
    """The commit message being written."""
    return f"the commit message being written ({target.locator})"
