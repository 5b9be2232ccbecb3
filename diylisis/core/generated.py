"""Messages nobody authored, and the one rule every command applies to them.

git writes merge and revert messages, an autosquash workflow writes `fixup!`, `squash!` and
`amend!` subjects, and `git distill certify` writes its own repair commits. The hooks,
`verify --range` and `scan` all ask `GeneratedRule.skips(message)`: a message it names is
not judged (and reported as skipped), unless the configuration's `[hooks] check_generated`
asks for that kind to be checked (`true`: every kind; a list: those kinds).

A message is recognized only when it has exactly the shape its generator writes: a subject
with free text after `fixup!` is the one exception, and an autosquash commit is squashed into
the commit it names before the history is shared. A repair commit's message is recognized
only as `repair_commit.message_for` writes it, trailers included, so a forged one can carry
no sentence of its own past a path and a role.
"""

from __future__ import annotations

from msgspec import Struct

from diylisis.core.lazy_pattern import LazyPattern

AUTOSQUASH = "autosquash"
MERGE = "merge"
REVERT = "revert"
REPAIR = "repair"
KINDS = (AUTOSQUASH, MERGE, REVERT, REPAIR)

# Each shape opens with fixed words, tested before its pattern: most messages are authored, and
# the hooks judge one message per process, so a pattern is compiled only for a message that
# opens as its generator writes.
_AUTOSQUASH = ("fixup! ", "squash! ", "amend! ")
# git fmt-merge-msg subjects: Merge branch 'x' [of URL] [into y], branches, tags, commits
_MERGE_OPENING = "Merge "
_MERGE = LazyPattern(
    r"^Merge (?:(?:remote-tracking )?branch(?:es)?|tags?|commits?) '.+'(?: of \S+)?(?: into \S+)?$"
)
_REVERT_OPENING = ('Revert "', 'Reapply "')
_REVERT_SUBJECT = LazyPattern(r'^(?:Revert|Reapply) ".*"$')
_REVERT_BODY = LazyPattern(r"^This reverts commit [0-9a-f]{7,64}\.$")
# the message diylisis.edges.repair_commit.message_for writes, and nothing else
_REPAIR_OPENING = "distill: repair "
_REPAIR = LazyPattern(
    r"distill: repair (?P<path>[^\n]+) \(pass (?P<pass>[1-9][0-9]{0,5})\)\n\n"
    r"Repairs made by git distill certify for role [^\n]+\.\n\n"
    r"Distill-Run: [0-9]{8}-[0-9]{6}-[0-9a-f]{6}\nDistill-Pass: (?P<trailer>[1-9][0-9]{0,5})\n?"
)


class Generated(Struct, frozen=True, kw_only=True):
    """A message a tool wrote: its kind (one of KINDS) and how to name it to a user."""

    kind: str
    words: str


def generated(message: str) -> Generated | None:
    """What wrote message, when a tool did; None for a message a person authored."""
    repair = _REPAIR.fullmatch(message.replace("\r\n", "\n")) if message.startswith(_REPAIR_OPENING) else None
    if repair and repair["pass"] == repair["trailer"]:
        return Generated(kind=REPAIR, words=f"a repair commit of git distill certify ({repair['path']})")
    lines = [line for line in message.splitlines() if line.strip()]
    if not lines:
        return None
    subject = lines[0].strip()
    if subject.startswith(_AUTOSQUASH):
        return Generated(kind=AUTOSQUASH, words=f"a {subject.split('!', 1)[0]}! message")
    if subject.startswith(_MERGE_OPENING) and _MERGE.match(subject):
        return Generated(kind=MERGE, words="git's default merge message")
    if (subject.startswith(_REVERT_OPENING) and _REVERT_SUBJECT.match(subject) and len(lines) == 2
            and _REVERT_BODY.match(lines[1].strip())):
        return Generated(kind=REVERT, words="git's default revert message")
    return None


class GeneratedRule(Struct, frozen=True, kw_only=True):
    """Which generated messages are judged like authored ones (checked); the others are skipped."""

    checked: frozenset[str] = frozenset()

    def skips(self, message: str) -> Generated | None:
        """The generated message this rule leaves unjudged, or None when message is to be judged."""
        found = generated(message)
        return found if found is not None and found.kind not in self.checked else None


def rule_from_setting(value: object) -> GeneratedRule:
    """The rule `[hooks] check_generated` states: true (check every kind), false, or a list of kinds.

    Raises ValueError naming what is wrong; the configuration loader turns it into exit 2.
    """
    if isinstance(value, bool):
        return GeneratedRule(checked=frozenset(KINDS) if value else frozenset())
    if isinstance(value, list | tuple) and all(isinstance(kind, str) for kind in value):
        unknown = [kind for kind in value if kind not in KINDS]
        if unknown:
            raise ValueError(f"unknown kind(s) {', '.join(map(repr, unknown))}; known: {', '.join(KINDS)}")
        return GeneratedRule(checked=frozenset(value))
    raise ValueError(f"must be true, false or a list of kinds from {', '.join(KINDS)}")
