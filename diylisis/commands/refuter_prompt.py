"""`git distill refuter-prompt TARGET --role ROLE`: print the prompt a refuter command gets.

It runs F0 and the first pass up to F5 exactly as `certify` would, with no write channel,
no run file and no certificate, and prints the instructions plus the inputs instead of
dispatching them. Contract fields awaiting Confirm/Correct are shown as if confirmed.
"""

from __future__ import annotations

import click
from msgspec import Struct
from msgspec.structs import replace

from diylisis.core.errors import EXIT_OK
from diylisis.core.gate import Answer

TYPE_CHECKING = False  # true for type checkers only
if TYPE_CHECKING:
    from diylisis.core.model import ZeroMemoryVerdict
    from diylisis.core.refuter import RefuterInput
    from diylisis.core.state import Question, RunState


class _Captured(Exception):
    def __init__(self, request: RefuterInput) -> None:
        super().__init__("captured")
        self.request = request


class _ConfirmingGate(Struct, frozen=True, kw_only=True):
    """Confirms contract fields so the first pass reaches F5; answers nothing else."""

    def confirm(self, change: str, state: RunState) -> bool:
        return False  # it only captures the refuter's request: nothing is repaired

    def ask(self, questions: tuple[Question, ...], state: RunState) -> tuple[Answer, ...]:
        from diylisis.core.state import GateKind

        return tuple(Answer(item_id=q.id, option="confirm") for q in questions
                     if q.gate is GateKind.CONTRACT)


@click.command()
@click.argument("target")
@click.option("--role", help="Recipient role (default: config).")
@click.option("--activity", help="What the recipient will do with the record.")
@click.option("--source", "sources", multiple=True, help="A source the recipient may read (repeatable).")
@click.option("--utterance", "utterances", multiple=True,
              help="Your own words that asked for this certification.")
@click.option("--realization", type=click.Choice(["generic-subagent", "refuter-subagent"]),
              help="The Realization line the prompt asks for (default: [refuter] realization).")
def command(target: str, role: str | None, activity: str | None, sources: tuple[str, ...],
            utterances: tuple[str, ...], realization: str | None) -> int:
    """Print the full prompt the [refuter] command would receive on stdin for TARGET.

    Nothing is written: no repair, no run file, no certificate. Use it to check what a
    fresh reader is given, or to try an agent tool by hand:
    `git distill refuter-prompt HEAD --role reviewer | my-agent`.
    """
    from diylisis.app import certification
    from diylisis.core import engine
    from diylisis.core.model import Realization
    from diylisis.edges import records
    from diylisis.edges.config import ContractFields
    from diylisis.edges.refuter.prompt import build

    workspace = certification.Workspace.open()
    parsed = records.parse_target(target, workspace.root)
    request = ContractFields(role=role, activity=activity, allowed_sources=tuple(sources))
    state = certification.start(workspace, parsed, request, tuple(utterances), check_dirty=False)

    def capture(refuter_input: RefuterInput) -> ZeroMemoryVerdict:
        raise _Captured(refuter_input)

    edges = replace(certification.edges(workspace, parsed, _ConfirmingGate(), check_only=True),
                    refute=capture, save=lambda state: None, write=None,
                    store=lambda certificate, snapshot: None)
    try:
        engine.run(state, edges)
    except _Captured as captured:
        chosen = Realization(realization or workspace.config.refuter.realization)
        from diylisis.core.safe_text import visible_block

        # shown to a person (or piped to an agent by hand): the record's controls as escapes
        click.echo(visible_block(build(captured.request, chosen)), nl=False)
        return EXIT_OK
    raise AssertionError("the first pass ended before F5")  # the engine always reaches F5
