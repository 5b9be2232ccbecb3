"""Issue, pull-request and commit references judged by resolves_at against the repository (checklist 4)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from diylisis.core.detectors.rule import Rule
from diylisis.core.detectors.text import TRACE_LINE, Doc, is_common_word
from diylisis.core.lazy_pattern import LazyPattern
from diylisis.core.model import Category, Finding, Severity

# Boundaries are ASCII: in Chinese or Japanese a reference touches the words around it ("修复PR #12中").
# A project name ends in a letter or digit, and only spaces part it from its reference: the
# sentence before "sub-directory.\n\nPR #1505" names no project, nor is "post-PR #46" one's.
BARE_REF = LazyPattern(
    r"(?<![A-Za-z0-9_&/#-])"
    r"(?:(?P<slug>[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*)#(?P<n_slug>\d+)"
    r"|(?P<name>[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9])#(?P<n_name>\d+)"
    r"|(?:(?P<project>[a-z][A-Za-z0-9_.]*(?:-[A-Za-z0-9_.]*[A-Za-z0-9])+)(?<!-PR)(?<!-pr)(?<!-MR)[ \t]+)?"
    r"(?P<kind>PR|MR|pull request|pull|issue|bug|GH|gh)?[ ]?-?#(?P<n>\d{1,7})"
    r"|(?P<gh>GH)-(?P<n_gh>\d{1,7}))"
    r"(?![A-Za-z0-9_-])"
)
# Another project's issue named by number without "#" ("mypy issue 8754"): no forge links it, and
# nothing in the record says where that project's tracker is. The word before "issue" must be a name,
# not English ("the issue 12", "this issue 40"), and not the origin's own repository.
WORD_ISSUE = LazyPattern(
    r"(?<![A-Za-z0-9_&/#.-])(?P<project>[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9]) (?i:issue|bug|ticket)[ ]"
    r"(?P<n>[1-9][0-9]{2,6})(?![A-Za-z0-9_.%/-])"
)

# GitLab's merge-request references: "!42", "group/project!42" (nested groups too). Read only where
# the origin runs GitLab: elsewhere "!42" is no reference.
MERGE_REQUEST = LazyPattern(
    r"(?<![A-Za-z0-9_&/!#-])(?:(?P<slug>[A-Za-z0-9][\w.-]*(?:/[A-Za-z0-9][\w.-]*)+))?!(?P<n>\d{1,7})(?![A-Za-z0-9_-])"
)
# Gitee numbers an issue with "I" and five capitals or digits ("#I4KQ7T"); its pull requests are "!N".
GITEE_ISSUE = LazyPattern(r"(?<![A-Za-z0-9_&/#-])#(?P<id>I[0-9A-Z]{5})(?![A-Za-z0-9_-])")
# No forge's tracker has numbered a millionth issue: "#3496731" is an id of some other tracker.
_FORGE_NUMBERS = 1_000_000
# (?<![\w/#.@:-])[0-9a-f]{7,40}(?![\w/.@-]), with the look-behind after the first character so
# that the regex engine skips to hex digits instead of trying every position.
HEX = LazyPattern(r"[0-9a-f](?<![\w/#.@:-][0-9a-f])[0-9a-f]{6,39}(?![\w/.@-])")
_DIGIT = LazyPattern(r"[0-9]")
_ORDINAL_NOUN = LazyPattern(
    r"(?i)(?:hunk|item|step|line|entry|point|number|no\.|attempt|option|rule|check|comment|"
    r"row|column|col|page|slide|chapter|section|part|version|build|run|finding|patch|note|task|todo|goal)\s*$"
)
# (issue path, pull-request path) of each forge; [detect] hosts names the forge of a self-hosted host
FORGE_PATHS = {
    "github": ("/issues/{n}", "/pull/{n}"),
    "gitlab": ("/-/issues/{n}", "/-/merge_requests/{n}"),
    "gitea": ("/issues/{n}", "/pulls/{n}"),
    "forgejo": ("/issues/{n}", "/pulls/{n}"),
    "bitbucket": ("/issues/{n}", "/pull-requests/{n}"),
    "gitee": ("/issues/{n}", "/pulls/{n}"),
}
KNOWN_FORGES = {
    "github.com": "github", "gitlab.com": "gitlab", "codeberg.org": "forgejo", "bitbucket.org": "bitbucket",
    "gitee.com": "gitee",
}
# Forges whose pull (merge) requests are written "!N"
_BANG_FORGES = ("gitlab", "gitee")
_COMMON_COMPOUND_PROJECT = LazyPattern(r"(?i)^(?:follow-up|follow-on|clean-up|set-up|roll-up|back-port|bug-fix)$")


def host_forge(doc: Doc, host: str) -> str | None:
    """The forge a host runs: as [detect] hosts declares it, else the known public host's (None: unknown)."""
    return doc.settings.forge_of(host) or KNOWN_FORGES.get(host.lower())


def issue_url(host: str, owner: str, name: str, number: str, *, pull: bool, forge: str | None) -> str | None:
    """The full URL of issue or pull request number on a host running forge (None: the forge is unknown)."""
    paths = FORGE_PATHS.get(forge) if forge else None
    if paths is None:
        return None
    return f"https://{host.lower()}/{owner}/{name}" + paths[1 if pull else 0].format(n=number)


def bare_issue_refs(doc: Doc) -> Iterator[Finding]:
    """RF301: "#123", "PR #668", "GH#2455", "owner/repo#7", "other-project PR #9" without a URL."""
    origin = doc.context.origin() if doc.context is not None else None
    forge = host_forge(doc, origin[0]) if origin else None
    if origin is not None and "!" in doc.prose and forge in _BANG_FORGES:
        yield from _merge_requests(doc, origin, forge)
    if "#I" in doc.prose:
        yield from _gitee_issues(doc, origin, forge)
    yield from _other_projects_issues(doc, origin)
    if "#" not in doc.prose and "GH-" not in doc.prose:  # in every match; the gate's literals include "/"
        return
    for match in BARE_REF.finditer(doc.prose):
        if match.group("n") and _ORDINAL_NOUN.search(doc.prose[max(0, match.start() - 12) : match.start()]):
            continue
        if TRACE_LINE.search(doc.line_of(match.start())):
            continue  # "#1 0x7f... in main" is a stack frame, not an issue
        resolution, why, fix = _resolve(match, origin, forge)
        if resolution is None and match.group("name") and origin is None:
            why = "a repository-name#N reference without a host or owner"
        number = match.group("n") or match.group("n_gh")
        if number and int(number) >= _FORGE_NUMBERS:
            resolution, why, fix = None, "a number no forge's tracker has reached: an id of another tracker", (
                "name the tracker and link the entry by its full URL")
        if resolution is not None and _imported_from_subversion(doc):
            resolution, why, fix = None, "a number of the tracker a Subversion-era record used, not the forge's", (
                "name the old tracker and link the entry by its full URL")
        tracker = bool(match.group("name")) and match.group("name").lower() in _tracker_names(doc)
        yield doc.finding(
            "RF301",
            Category.BARE_ISSUE_REF,
            match.start(),
            match.end(),
            why,
            fix,
            resolution=resolution,
            # name#N on a known host may be the owner's former name (GitHub redirects renamed
            # owners); it is worth a look, not a failed certificate.
            severity=Severity.WARNING
            if match.group("name") and resolution is None and origin and not tracker
            else Severity.ERROR,
        )


def _imported_from_subversion(doc: Doc) -> bool:
    """The record carries git-svn's trailer: written before the move to the forge, its "#N" are the old
    tracker's entries, which the forge's numbers do not reach."""
    return doc.text.startswith("git-svn-id: ") or "\ngit-svn-id: " in doc.text


def _tracker_names(doc: Doc) -> frozenset[str]:
    """Short names of other projects' trackers written before "#N" ("bz#1234"): never a repository."""
    return frozenset(word.lower() for word in doc.lexicon.words("tracker_name"))


def _gitee_issues(doc: Doc, origin: tuple[str, str, str] | None, forge: str | None) -> Iterator[Finding]:
    """RF301 for Gitee's issue ids ("#I4KQ7T"): resolved on a Gitee origin, else a warning, since only
    Gitee reads them and a mirror's history (a Gitee project mirrored to GitHub) carries many."""
    for match in GITEE_ISSUE.finditer(doc.prose):
        if match.group("id").isalpha() and is_common_word(match.group("id")):
            continue  # "#IGNORE" is a word marked as a tag
        url = (
            issue_url(origin[0], origin[1], origin[2], match.group("id"), pull=False, forge=forge)
            if origin is not None and forge == "gitee"
            else None
        )
        yield doc.finding(
            "RF301",
            Category.BARE_ISSUE_REF,
            match.start(),
            match.end(),
            "a Gitee issue id; the origin host resolves it"
            if url
            else "a Gitee issue id, which only Gitee resolves, and the origin is not a Gitee host",
            f"write {url}" if url else "write the full Gitee issue URL, or declare the host in [detect] hosts",
            resolution=url,
            severity=Severity.ERROR if url else Severity.WARNING,
        )

def _other_projects_issues(doc: Doc, origin: tuple[str, str, str] | None) -> Iterator[Finding]:
    """RF301 for another project's issue number written without "#" ("mypy issue 8754")."""
    lowered = doc.prose.lower()
    if " issue " not in lowered and " bug " not in lowered and " ticket " not in lowered:
        return
    for match in WORD_ISSUE.finditer(doc.prose):
        project = match.group("project").lower()
        own = origin is not None and project in (origin[1].lower(), origin[2].lower())
        if own or is_common_word(project) or project.endswith(("ing", "ed", "ly")):  # English verbs and adverbs
            continue
        if TRACE_LINE.search(doc.line_of(match.start())):
            continue
        yield doc.finding("RF301", Category.BARE_ISSUE_REF, match.start(), match.end(),
                          f"an issue of {match.group('project')} by number alone; no forge links it",
                          "write the full issue URL")


def _merge_requests(doc: Doc, origin: tuple[str, str, str], forge: str) -> Iterator[Finding]:
    """RF301 for "!N" and "group/project!N" on a GitLab or Gitee origin, resolved on that host."""
    host, owner, name = origin
    for match in MERGE_REQUEST.finditer(doc.prose):
        slug = match.group("slug")
        project_owner, _, project = slug.rpartition("/") if slug else (owner, "/", name)
        url = issue_url(host, project_owner, project, match.group("n"), pull=True, forge=forge)
        assert url is not None  # the forge is given
        yield doc.finding(
            "RF301",
            Category.BARE_ISSUE_REF,
            match.start(),
            match.end(),
            "a bare merge-request number; the origin host resolves it",
            f"write {url}",
            resolution=url,
        )


def _resolve(
    match: re.Match[str], origin: tuple[str, str, str] | None, forge: str | None
) -> tuple[str | None, str, str]:
    """(resolution URL or None, why, fix) for one bare reference (forge: what the origin host runs)."""
    unknown_host = (
        "a bare issue number; the origin remote names no known host, so it cannot be followed",
        "write the full issue or pull-request URL, or declare the host in [detect] hosts",
    )
    if match.group("slug"):
        owner, name = match.group("slug").split("/", 1)
        host = origin[0] if origin else "github.com"
        url = issue_url(host, owner, name, match.group("n_slug"), pull=False, forge=forge if origin else "github")
        return (url, "owner/repo#N; the full URL is clearer", f"write {url}") if url else (None, *unknown_host)
    if match.group("name"):
        number = match.group("n_name")
        if origin and match.group("name").lower() in (origin[1].lower(), origin[2].lower()):
            url = issue_url(origin[0], origin[1], origin[2], number, pull=False, forge=forge)
            if url:
                return url, "a repository-name#N reference; the full URL is clearer", f"write {url}"
        return (
            None,
            "names another repository's issue without its owner and host",
            "write the full URL",
        )
    project = match.group("project")
    if project and not _COMMON_COMPOUND_PROJECT.match(project):
        if origin is None or project.lower() != origin[2].lower():
            return (
                None,
                f"an issue of {project}, a repository the record does not locate",
                "write the full URL",
            )
    number = match.group("n") or match.group("n_gh")
    kind = (match.group("kind") or match.group("gh") or "").lower()
    if origin is None:
        return (None, *unknown_host)
    if kind == "gh" and origin[0].lower() != "github.com":
        return (None, *unknown_host)
    url = issue_url(
        origin[0], origin[1], origin[2], number, pull=kind in ("pr", "pull", "pull request", "mr"), forge=forge
    )
    if url is None:
        return (None, *unknown_host)
    return url, "a bare issue number; the origin host resolves it", f"write {url}"


def commit_ids(doc: Doc) -> Iterator[Finding]:
    """RF302: commit ids (short or full) that no ref of the repository reaches."""
    assert doc.context is not None
    if _DIGIT.search(doc.locators) is None:
        return  # every id it reports holds a digit, and HEX would try each a to f of the record
    for match in HEX.finditer(doc.locators):
        token = match.group()
        if token.isalpha() or token.isdigit():  # a hex run with no digit or no letter is a word or a number
            continue
        if doc.context.commit_id(token) is not None:
            continue
        yield doc.finding(
            "RF302",
            Category.EPHEMERAL_REF,
            match.start(),
            match.end(),
            "a commit id that no branch or tag of this repository reaches (rebased away or local)",
            "cite a commit that is on a published branch, or describe the change",
        )


_DOC_BARE = """\
What it flags: issue and pull-request numbers without a URL: "#123", "PR #668",
"GH#2455", "GH-12", "owner/repo#7", "name#7", and "other-project PR #9"; on a GitLab or Gitee origin
(gitlab.com, gitee.com, or a host [detect] hosts declares as gitlab or gitee) also merge requests, "!42" and
"group/project!42"; and another project's issue by number alone, "mypy issue 8754" (the
word before "issue", "bug" or "ticket" a name, not English or the origin's own repository).
Ids of other trackers block: a short tracker name before the number ("bz#3120", "lp#20431"),
or a number no forge has reached ("#4821932"). Gitee issue ids ("#I7QW2K", and "!N" pull
requests) resolve on gitee.com or a host [detect] hosts declares as gitee; elsewhere they are
a warning. Ordinals such as "hunk #1" or "step #2" are not references.

Why a fresh reader fails: "#123" means a different thing on every host and fork. When the
origin remote names a known host (GitHub, GitLab, Codeberg, Bitbucket) the number resolves
there, and the finding carries the full URL as its resolution, which the engine writes
into the record. A reference to another repository given only by name resolves nowhere.

Example: bad "Fixes #42." good "Fixes https://github.com/acme/widgets/issues/42."

Repair: write the full URL (mechanical when the origin host is known).
"""

_DOC_COMMIT = """\
What it flags: commit ids, short or full, that are not present in the repository or not
reachable from any branch or tag. Runs only when a repository is available.

Why a fresh reader fails: a commit that was rebased away or never pushed cannot be
shown; the id dangles.

Example: bad "Reverts 1a2b3c4d (my local experiment)." good "Reverts 9f8e7d6 (Add
retry to the uploader), which is on main."

Repair: cite a commit on a published branch, or describe the change. Default severity:
warning, because ids of other projects' commits are common in good messages.
"""

RULES = (
    Rule(
        id="RF301",
        name="bare-issue-ref",
        category=Category.BARE_ISSUE_REF,
        languages=("any",),
        summary="Issue or PR numbers without a URL ('#123', 'PR #668'); resolved on the origin host.",
        doc=_DOC_BARE,
        detect=bare_issue_refs,
        lexicon_keys=("tracker_name",),
        requires=(BARE_REF, MERGE_REQUEST, WORD_ISSUE, GITEE_ISSUE),
    ),
    Rule(
        id="RF302",
        name="unreachable-commit",
        category=Category.EPHEMERAL_REF,
        languages=("any",),
        summary="Commit ids that no branch or tag of the repository reaches.",
        doc=_DOC_COMMIT,
        detect=commit_ids,
        needs_tree=True,
        requires=("shape:hex_run",),
        # Measured on git.git history, most ids no ref reaches name commits of other projects
        # (upstream fixes, quoted logs): worth a look, not a failed certificate.
        severity=Severity.WARNING,
    ),
)
