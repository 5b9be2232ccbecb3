"""The refuter prompt: shipped instructions plus every F5 input, labeled with its allowed use."""

from __future__ import annotations

from refuter_helpers import refuter_input

from diylisis.core.model import CHECKLIST, Realization
from diylisis.edges.refuter.prompt import build, instructions


def test_instructions_name_every_category_tag_and_the_realization() -> None:
    text = instructions(Realization.REFUTER_SUBAGENT)
    assert "{realization}" not in text
    assert "Realization: refuter-subagent" in text
    for number in CHECKLIST:
        assert f"\n{number}. **" in text
    for tag in ("Resolve", "Route", "Drop", "Defer"):
        assert f"- **{tag}**" in text
    assert "| Quoted token | Location | Category | Why unresolvable | Advisory | Repair note |" in text
    assert "| Category | Status | What was checked |" in text


def test_prompt_carries_every_input_with_its_scope() -> None:
    request = refuter_input("Fix the upload retry\n\nAs above, the v2 shim stays.\n", "abc123")
    text = build(request, Realization.GENERIC_SUBAGENT)
    assert text.startswith(instructions(Realization.GENERIC_SUBAGENT).rstrip("\n"))
    assert "\n1| Fix the upload retry\n2| \n3| As above, the v2 shim stays.\n----- END TARGET" in text
    assert "certified revision: abc123" in text
    assert "item 'design': Reference (path): docs/design.md; basis: tracked at the" in text
    assert "item 'limit': Value (kept inline): 'at most 3'" in text
    assert "## Constituting utterance (use: CATEGORY 10 ONLY" in text
    assert "'please certify the fix for reviewers'" in text
    assert "## Contract confirmation record (use: CATEGORY 10 ONLY)\n\n- activity: ai_authored" in text
    assert ("## Reception premises (use: CATEGORY 6 AND DEDUPLICATION ONLY: do not re-fail these)"
            "\n\n- the cache stays on [deferred until: until the next release]") in text
    assert "line 2: 'as above' (deictic; category 3) points into the session" in text
    assert "- /tmp/run3.log" in text and "- TASKS.md" in text
    assert "verb: Read commit:HEAD and execute it" in text
    assert "allowed sources: docs/" in text
