"""The terminal realization of vet's per-claim gate: the batch's claims first, then one open
question per claim. The verdict is free text; the instruction is asked in its own slot and
must be typed out (no default: an empty reply asks again)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from diylisis.app.vet_session import GateItem
from diylisis.core.errors import BadInput
from diylisis.core.safe_text import visible
from diylisis.core.vet import judgment, text


@dataclass(frozen=True, slots=True, kw_only=True)
class TerminalGate:
    """Ask at the terminal through READ (a prompt in, a line out) and WRITE (a line out)."""

    read: Callable[[str], str]
    write: Callable[[str], None]
    realization: str = "terminal"

    def ask(self, batch: Sequence[GateItem]) -> Mapping[str, judgment.Judged]:
        """Every claim of the batch, answered in turn."""
        for item in batch:
            for line in text.pregate_block(item.audit, item.antithesis):
                self.write(visible(line))
            self.write("")
        self.write(judgment.REACH_NOTE)
        answers = {}
        for item in batch:
            self.write("")
            self.write(f"[{item.audit.id}] {visible(item.audit.claim.text)}")
            verdict = ""
            while not verdict.strip():
                verdict = self.read(f"  {text.QUESTION} ")
            for line in text.instruction_lines():
                self.write(line)
            answers[item.audit.id] = self._instruction(item, verdict)
        return answers

    def _instruction(self, item: GateItem, verdict: str) -> judgment.Judged:
        while True:
            reply = self.read("  instruction (withdraw, revisit CONDITION, handoff DEFICIT or nothing): ").strip()
            word, _, rest = reply.partition(" ")
            try:
                if word == "nothing" and not rest:
                    return judgment.judged(item.audit.id, item.antithesis.index, verdict)
                if word == "withdraw" and not rest:
                    return judgment.judged(item.audit.id, item.antithesis.index, verdict, withdraw=True)
                if word == "revisit":
                    return judgment.judged(item.audit.id, item.antithesis.index, verdict, revisit=rest)
                if word == "handoff":
                    return judgment.judged(item.audit.id, item.antithesis.index, verdict, handoff=rest)
            except BadInput as error:
                self.write(f"  {error.message}")
                continue
            self.write("  type one of: withdraw, revisit CONDITION, handoff DEFICIT, nothing")
