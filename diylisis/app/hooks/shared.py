"""What the hooks share: their output, the skip rules, the gate a hook offers, and how a refusal reads."""

from __future__ import annotations

import os
import sys

from msgspec import Struct
from msgspec.structs import replace

from diylisis.core.state import GateKind, Question, RunState

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from typing import TextIO

    from diylisis.core.engine import Result
    from diylisis.core.gate import Answer
    from diylisis.core.phases.f0_contract import ContractFields
    from diylisis.core.skip import Skips
    from diylisis.edges.workspace import Workspace

HOOK_RATIFIER = "the repository's committed configuration"  # confirms, never states (Rule 29)


class Output(Struct, frozen=True, kw_only=True):
    """Where hook messages go: short lines, colored only on a terminal without NO_COLOR."""

    stream: TextIO
    color: bool
    verbose: bool = False

    @classmethod
    def to(cls, stream: TextIO | None = None, *, verbose: bool = False) -> Output:
        """An Output on stream (stderr by default) that colors only when it is a terminal."""
        stream = stream if stream is not None else sys.stderr
        color = _isatty(stream) and not os.environ.get("NO_COLOR")
        return cls(stream=stream, color=color, verbose=verbose)

    def paint(self, text: str, code: str) -> str:
        """text in an ANSI color (1 bold, 31 red, 33 yellow, 2 dim) when coloring."""
        return f"{_COLOR}[{code}m{text}{_COLOR}[0m" if self.color else text

    def line(self, text: str = "") -> None:
        """Write one line, every control character in it shown as an escape but our colors."""
        from diylisis.core.safe_text import visible

        self.stream.write("\033".join(visible(part) for part in text.split(_COLOR)) + "\n")

    def note(self, text: str) -> None:
        """Write one line only under --verbose."""
        if self.verbose:
            self.line(text)


# paint writes this mark where its color codes need ESC, and line turns the marks into ESC
# after escaping every control character around them: a record, a note or a config can put
# any text in a message, but not a mark it cannot know before the process starts
_COLOR = f"\ufdd0{os.urandom(8).hex()}\ufdd1"


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def run_skips() -> Skips:
    """What DISTILL_SKIP and SKIP ask this run to skip (diylisis.core.skip); a bad name is exit 2."""
    from diylisis.core.skip import skips_from

    def rule_id(name: str) -> str | None:
        from diylisis.core.detectors import rule_by_key  # only for a name that is no hook

        rule = rule_by_key(name)
        return rule.id if rule is not None else None

    return skips_from(os.environ, rule_id)


def said_skipped(out: Output, hook: str) -> bool:
    """True, having said so, when DISTILL_SKIP or SKIP asks to skip hook for this run."""
    if not run_skips().skips_hook(hook):
        return False
    out.line(f"git distill: {hook} hook skipped for this run (DISTILL_SKIP or SKIP)")
    return True


class HookGate(Struct, frozen=True, kw_only=True):
    """A hook has no one to ask: residual questions stay open (the run pauses), but the
    premise gate (Qp) is answered from what the hook knows: the recipient reads the commit
    this message creates, in the repository that holds it.
    """

    consumer: str
    authority: str

    def confirm(self, change: str, state: RunState) -> bool:
        """A hook's repairs are mechanical resolutions its report prints."""
        return True

    def ask(self, questions: tuple[Question, ...], state: RunState) -> tuple[Answer, ...]:
        """Answers for Qp questions only; every other question stays open."""
        from diylisis.core.gate import Answer

        values = {"qp-consumer": self.consumer, "qp-authority": self.authority}
        return tuple(Answer(item_id=q.id, option="value", value=values[q.id])
                     for q in questions if q.gate is GateKind.PREMISE and q.id in values)


def hook_gate(role: str) -> HookGate:
    """The gate for a commit-msg or pre-commit hook run for a recipient role."""
    # the record in the repository stays the authoritative copy (Qp: Derived, Rule 32)
    return HookGate(consumer=f"a {role} reading the repository, with repository access", authority="derived")


def hook_request(workspace: Workspace, role: str) -> ContractFields:
    """The contract a hook certifies under: the configured role and the config's own fields.

    The repository's configuration file is a person's committed words, so its contract
    fields stand confirmed by it (no one is at the hook to Confirm/Correct them, Rule 29);
    they are still not marked as stated by the user.
    """
    return replace(workspace.config.contract, role=role)


def report_refusal(out: Output, result: Result, *, what: str, fix: str, fix_words: str) -> None:
    """Each finding (token, line, rule id, why, what would fix it), then how to go on."""
    from diylisis.core.engine import Stopped

    state = result.state
    items = {item.id: item for item in state.items}
    findings = tuple(q for q in state.open_questions if q.gate is not GateKind.PREMISE)  # questions, not findings
    if isinstance(result, Stopped):
        out.line(out.paint(f"git distill: {what} not certified: ", "1;31") + result.reason)
    else:
        count = len(findings)
        out.line(out.paint(f"git distill: {what} not portable for {state.contract.role}: "
                           f"{count} finding(s) need your judgment", "1;31"))
    for question in findings:
        item = items.get(question.id)
        rule = item.rule_id if item is not None and item.rule_id else question.gate.value
        why = (item.why if item is not None and item.why else question.reason)
        line = question.line or (item.line if item is not None else 0)
        where = f"line {line}" if line else "record"
        out.line(f"  {where}: {out.paint(repr(question.token), '33')} [{rule}] {why}")
        repair = item.fix if item is not None and item.fix else ""
        if repair:
            out.line(f"    fix: {repair}")
        out.line(out.paint(f"    item {question.id}", "2"))
    out.line(f"  {fix_words}: {fix}")
