"""`git distill answer RUN ITEM ...`: answer one open item of a paused run, of any kind."""

from __future__ import annotations

import click


@click.command()
@click.argument("run_id", metavar="RUN")
@click.argument("item")
@click.argument("option", required=False)
@click.argument("value", required=False)
@click.option("--verdict", help="A verdict in your own words (a vet claim's answer).")
@click.option("--withdraw", is_flag=True, default=None, help="With --verdict: withdraw the claim.")
@click.option("--revisit", metavar="CONDITION", help="With --verdict: revisit when CONDITION holds "
              "(changed:PATH, gone:PATH, tracked:PATH, reachable:REV, ref:NAME, or free text).")
@click.option("--handoff", metavar="DEFICIT", help="With --verdict: hand it off, saying what is missing.")
def command(run_id: str, item: str, option: str | None, value: str | None, verdict: str | None,
            withdraw: bool | None, revisit: str | None, handoff: str | None) -> int:
    """Record ITEM's answer in paused run RUN; then `git distill resume RUN`.

    An answer is checked when it is given: one that does not fit ITEM, or a route that does
    not resolve now, is refused (exit 2) and nothing is recorded. A paused run lists every
    item with the commands that answer it.

    \b
    A certification's items:
      resolve VALUE   say it in the record: inline text, or a canonical reference
      route VALUE     point to a stable reference: a tracked path, a commit id or a
                      durable URL; it must resolve when you answer
      drop            remove it from the record (the sentence or clause that only
                      carried it goes too); you see the new text before it is applied
      defer VALUE     accept the gap until the condition VALUE; it travels with the
                      record as a premise the reader must accept
      confirm         (contract-FIELD) the field as written is right
      correct VALUE   (contract-FIELD) the field, in your own words
      qp-consumer value VALUE
                      who receives the record: a person, or an agent (with or without
                      the repository)
      qp-authority value VALUE
                      "derived" when the record is a copy of what lives elsewhere, or
                      the tracked path, commit id or durable URL where the authoritative
                      copy is
      contract-stop resolve VALUE
                      the condition the recipient stops at
    A vet claim's items take --verdict TEXT and at most one of --withdraw,
    --revisit CONDITION, --handoff DEFICIT. A preview takes spec approve | adjust VALUE,
    direction select K | synthesize VALUE, micro confirm | materialize.
    """
    from diylisis.app import run_kinds
    from diylisis.core.gate import answer_words
    from diylisis.edges.workspace import Workspace

    workspace = Workspace.open()
    kind = run_kinds.kind_of_run(workspace, run_id)
    question = run_kinds.question_for(kind, workspace, run_id, item)
    answer = run_kinds.answer_from_arguments(question, option, value, verdict,
                                             {"withdraw": withdraw, "revisit": revisit, "handoff": handoff})
    left = kind.record_answer(workspace, run_id, answer)
    click.echo(f"recorded {item} = {answer_words(answer)}"
               + (f"; still open: {', '.join(left)}" if left else f"; now: git distill resume {run_id}"))
    return 0
