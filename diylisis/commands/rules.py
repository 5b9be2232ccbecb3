"""`git distill rules [RULE_ID]`: list the detector rules, or print one rule's doc."""

from __future__ import annotations

import json

import click

from diylisis.commands import options
from diylisis.core.errors import EXIT_OK, BadInput


@click.command()
@click.argument("rule_id", required=False)
@options.output_format()
def command(rule_id: str | None, output_format: str) -> int:
    """List the rules (id, name, category, languages, severity, summary); with RULE_ID, explain one."""
    from diylisis.core.detectors import RULES, rule_by_key

    chosen = RULES
    if rule_id is not None:
        rule = rule_by_key(rule_id)
        if rule is None:
            raise BadInput(f"no rule {rule_id!r}; `git distill rules` lists them")
        chosen = (rule,)
    if output_format == "json":
        rows = [
            {
                "id": r.id,
                "name": r.name,
                "category": r.category.value,
                "languages": list(r.languages),
                "severity": r.severity.value,
                "summary": r.summary,
                "needs_repository": r.needs_tree,
                **({"doc": r.doc} if rule_id is not None else {}),
            }
            for r in chosen
        ]
        click.echo(json.dumps(rows[0] if rule_id is not None else rows, ensure_ascii=False, indent=2))
    elif rule_id is not None:
        (rule,) = chosen
        click.echo(f"{rule.id} {rule.name} ({rule.category.value}; {', '.join(rule.languages)}; {rule.severity.value})")
        click.echo(rule.summary)
        click.echo("")
        click.echo(rule.doc.rstrip())
    else:
        for r in chosen:
            click.echo(
                f"{r.id:<6} {r.name:<22} {r.category.value:<19} {','.join(r.languages):<9} "
                f"{r.severity.value:<8} {r.summary}"
            )
    return EXIT_OK
