"""docs/rules.md rendered from the registry (STYLE.md: rule docs are generated, never hand-kept).

Regenerate with `python -m diylisis.core.detectors.docs > docs/rules.md`; a test fails when stale.
"""

from __future__ import annotations

from diylisis.core.detectors.rule import Rule


def rules_markdown(rules: tuple[Rule, ...] | None = None) -> str:
    """The rule reference as Markdown: a summary table, then each rule's doc."""
    if rules is None:
        from diylisis.core.detectors import RULES

        rules = RULES
    out = [
        "# Detector rules",
        "",
        "Generated from `diylisis.core.detectors.RULES` by `python -m diylisis.core.detectors.docs`;",
        "do not edit by hand. `git distill rules ID` prints one rule's doc.",
        "",
        "Disable a rule or change its level in the `[detect]` table of `.distill.toml`",
        '(`disable = ["DX104"]`, `severity = { CT801 = "error" }`, or per path with',
        '`per_path = [{ glob = "docs/**", disable = ["UC701"] }]`). Globs follow `.gitignore`:',
        "`docs/*.md` matches files directly in `docs/`, `docs/**/*.md` those in its subfolders",
        "too, and a glob without a slash matches a name at any depth. A rule id no rule has is",
        "an error that names the file and line.",
        "",
        "Inline comments suppress findings in a record, and certificates record every finding",
        "they suppress:",
        "",
        "- `<!-- distill: ignore ID -->` after text on a line covers that line; alone on a line,",
        "  it covers the next line only.",
        "- `<!-- distill: off ID -->` ... `<!-- distill: on ID -->` covers every line from the",
        "  `off` comment's line through the `on` comment's line (to the end without an `on`);",
        "  a bare `on` ends every `off`.",
        "- Without ids a comment covers every rule; with ids (separated by spaces or commas) only",
        "  those. An unknown id covers nothing and is reported as RD904.",
        "- A comment shown as code (in backticks or a fenced block) is an example, not a",
        "  suppression.",
        "",
        "Only errors block: `scan` fails on them, and `certify` and the hooks ask about them.",
        "Warnings and info are shown by `scan` as advice and never become questions, unless the",
        "configuration raises the rule to `error`. A rule's default severity follows its measured",
        "precision as a blocker on the labeled corpus (`bench/quality.py`, column `blk_p`: of the",
        "records it would block, the share labeled not portable; `diylisis/core/detectors/evidence.py`",
        "holds the figures): below 0.9 on 5 or more records it is a warning.",
        "",
        "| id | name | category | languages | severity | summary |",
        "|---|---|---|---|---|---|",
    ]
    for rule in rules:
        summary = rule.summary.replace("|", "\\|")
        out.append(
            f"| {rule.id} | {rule.name} | {rule.category.value} | {', '.join(rule.languages)} "
            f"| {rule.severity.value} | {summary} |"
        )
    for rule in rules:
        needs = " Needs a repository." if rule.needs_tree else ""
        out += [
            "",
            f"## {rule.id} {rule.name}",
            "",
            f"Category: {rule.category.value} (checklist {rule.category.checklist}). "
            f"Languages: {', '.join(rule.languages)}. Default severity: {rule.severity.value}.{needs}",
            "",
            rule.doc.strip(),
        ]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(rules_markdown(), end="")
