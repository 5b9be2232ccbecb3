"""F0 as values (spec Phase 0): declare's precedence, Rule 29's field marks, content_free(edge)
and the F0 leg of competence substitution (Rule 27), without a repository."""

from __future__ import annotations

import pytest

from diylisis.core.model import DEFAULT_VERB, Contract, RecordKind, Target
from diylisis.core.phases.f0_contract import (
    ContractFields,
    ContractMisfit,
    activation_edge,
    check_content_free,
    competence_substitution,
    declare,
    field_text,
    judgment_bearing,
    mark_provenance,
    unconfirmed_fields,
)

DEFAULTS = ContractFields(role="reviewer", activity="review the change", scope="the parser only",
                          allowed_sources=("docs/",))


def test_declare_prefers_the_command_line_and_reports_what_it_stated() -> None:
    contract, stated = declare(ContractFields(role="implementer", activity="implement the flag"), DEFAULTS)
    assert (contract.role, contract.activity, contract.scope) == ("implementer", "implement the flag",
                                                                  "the parser only")
    assert contract.allowed_sources == ("docs/",)
    assert contract.activation_verb == DEFAULT_VERB
    assert stated == ("activity",)


def test_declare_without_any_role_is_a_misfit() -> None:
    with pytest.raises(ContractMisfit, match="no recipient role"):
        declare(ContractFields(activity="x"), ContractFields())


def test_a_field_is_user_stated_only_when_the_utterance_carries_its_words() -> None:
    contract = Contract(role="implementer", activity="implement the json flag", scope="refactor everything")
    marks = mark_provenance(contract, ("please implement the json flag for the models list",))
    assert [(mark.field, mark.provenance) for mark in marks] == [("activity", "user_stated"),
                                                                 ("scope", "ai_authored")]
    assert unconfirmed_fields(marks) == ("scope",)
    ratified = mark_provenance(contract, (), ratified_by="committed configuration")
    assert [mark.provenance for mark in ratified] == ["ai_authored", "ai_authored"]
    assert unconfirmed_fields(ratified) == ()


def test_field_text_joins_a_list_field() -> None:
    contract = Contract(role="r", allowed_sources=("a.md", "b.md"))
    assert field_text(contract, "allowed_sources") == "a.md; b.md"
    assert field_text(contract, "scope") == ""


def test_the_activation_edge_names_the_target_by_reference() -> None:
    edge = activation_edge(Contract(role="r"), Target(kind=RecordKind.FILE, locator="TASK.md"))
    assert (edge.verb, edge.locator) == (DEFAULT_VERB, "file:TASK.md")


def test_an_activation_verb_repeating_the_task_is_refused() -> None:
    check_content_free(Contract(role="r", activity="migrate the billing tables"), ())
    with pytest.raises(ContractMisfit, match="billing"):
        check_content_free(Contract(role="r", activity="migrate the billing tables",
                                    activation_verb="migrate billing in {locator}"), ())


def test_competence_substitution_trips_on_a_prescribed_method_nothing_replays() -> None:
    assert judgment_bearing("review the parser") and not judgment_bearing("implement the parser")
    prescribed = Contract(role="reviewer", activity="review the parser using tools/check.py")
    assert competence_substitution(prescribed, lambda path: True) == (
        "the method it prescribes names tools/check.py, which the contract neither grants as a source "
        "nor replays with a verification command")
    assert "does not resolve" in (competence_substitution(prescribed, lambda path: False) or "")
    operative = Contract(role="reviewer", activity="review the parser using tools/check.py",
                         allowed_sources=("tools/check.py",), verification=("python check.py --all",))
    assert competence_substitution(operative, lambda path: path == "tools/check.py") is None
    assert competence_substitution(Contract(role="reviewer", activity="review the parser"), lambda path: True) is None
