"""Grounding (`graph.planners.grounding`): a model's reading made to hold in the catalog or reported unmapped, and the
catalog reads a decomposition makes, recorded and budgeted. Over a fake catalog of the sample corpus: no engine."""

from __future__ import annotations

from datetime import date

import pytest

from graph.context import AgentContext
from graph.decomposition import Decomposition
from graph.planners.chat_breaker import ChatBreaker
from graph.planners.grounding import ModelReading, ground, ground_reading
from graph.planners.llm_planner import LLMPlanner
from graph.planners.rule_decomposer import RuleDecomposer
from tests.fake_catalog import FakeCatalog
from tests.test_llm_planner import ScriptedModel, structured

CATALOG = FakeCatalog.sample()
RULES = RuleDecomposer(CATALOG, today=date(2025, 6, 15))


def _grounded(constraints: list, buckets: tuple[str, ...] = ("contracts",), question: str = "contracts?"):
    reading = ModelReading(question=question, intent="list", buckets=list(buckets), constraints=constraints)
    d = ground_reading(reading, RULES.vocabulary, RULES.read_conditions)
    return [(c.field, c.op, c.value) for c in d.constraints], d.unmapped


@pytest.mark.parametrize(
    "said, expected",
    [
        ({"field": "governing_law", "op": "==", "value": "Delaware"}, ("governing_law", "=", "Delaware")),
        ({"field": "governing_law", "op": "=", "value": "New York law"}, ("governing_law", "=", "New York")),
        ({"field": "governing_law", "op": "eq", "value": "delaware"}, ("governing_law", "=", "Delaware")),
        ({"field": "notice_period_days", "op": "lt", "value": "two months"}, ("notice_period_days", "<", 60.0)),
        ({"field": "notice_period_days", "op": ">=", "value": "30"}, ("notice_period_days", ">=", 30.0)),
        ({"field": "audit_rights", "op": "is", "value": "yes"}, ("audit_rights", "=", True)),
        ({"field": "agreement_date", "op": "<", "value": "2022-01-01"}, ("agreement_date", "<", "2022-01-01")),
        ({"field": "parties", "op": "~", "value": "kestrel"}, ("parties", "~", "kestrel")),
        (
            {"field": "governing_law", "op": "in", "value": ["Delaware law", "New York"]},
            ("governing_law", "in", ["Delaware", "New York"]),
        ),
    ],
)
def test_a_models_condition_is_grounded_in_the_catalog(said, expected):
    constraints, unmapped = _grounded([{"bucket": "contracts", **said}])
    assert (constraints, unmapped) == ([expected], [])


def test_a_models_currency_in_words_is_the_code_the_field_holds():
    constraints, unmapped = _grounded(
        [{"bucket": "invoices", "field": "currency", "op": "==", "value": "US dollars"}], ("invoices",)
    )
    assert (constraints, unmapped) == ([("currency", "=", "USD")], [])


def test_a_condition_in_words_is_read_as_a_questions_conditions_are():
    constraints, unmapped = _grounded(["governed by New York law", "without audit rights"])
    assert (constraints, unmapped) == ([("governing_law", "=", "New York"), ("audit_rights", "=", False)], [])


@pytest.mark.parametrize(
    "said, why",
    [
        ({"field": "governing_law", "op": "=", "value": "Narnia"}, "no governing_law of contracts is 'Narnia'"),
        ({"field": "governing_law", "op": "like", "value": "Delaware"}, "is no comparison the fields take"),
        ({"field": "notice_period_days", "op": ">", "value": "soon"}, "takes a number"),
        ({"field": "audit_rights", "op": "=", "value": "perhaps"}, "is yes or no"),
    ],
)
def test_what_a_model_says_that_the_catalog_cannot_hold_is_unmapped(said, why):
    constraints, unmapped = _grounded([{"bucket": "contracts", **said}])
    assert constraints == [] and [why in (u.why or "") for u in unmapped] == [True], unmapped


def test_a_condition_in_words_no_field_records_is_unmapped():
    constraints, unmapped = _grounded(["signed on a rainy afternoon"])
    assert constraints == [] and [u.text for u in unmapped] == ["signed on a rainy afternoon"]


def test_the_rules_reading_is_already_grounded():
    """Grounding changes nothing of a reading the rules made: their constraints are in the catalog's terms."""
    for question in ("usd invoices over 5000", "contracts governed by English law", "receipts from 2023"):
        d = RULES.read(question, None)
        assert ground(d, RULES.vocabulary) == d


def test_the_checks_that_make_the_run_ask_apply_to_a_models_reading_too():
    """A model's count over a whole bucket with a word no field records is asked about, as the rules' is."""
    d = Decomposition(question="how many invoices are unpaid?", intent="count", buckets=["invoices"],
                      topic_terms=["unpaid"], aggregate="count")  # fmt: skip
    assert [u.text for u in ground(d, RULES.vocabulary).unmapped] == ["unpaid"]


def test_the_llm_planner_grounds_the_models_decomposition():
    said = {
        "question": "Which contracts are under New York law?",
        "intent": "list",
        "buckets": ["contracts"],
        "constraints": [{"bucket": "contracts", "field": "governing_law", "op": "==", "value": "New York law"}],
    }
    model = ScriptedModel(messages=iter([structured("Decomposition", said)]))
    planner = LLMPlanner(AgentContext(planner="llm"), CATALOG, model, ChatBreaker(), RULES)
    d = planner.decompose(said["question"])
    assert [(c.field, c.op, c.value) for c in d.constraints] == [("governing_law", "=", "New York")]
    assert planner.fallbacks == []


# -- reads during decompose -------------------------------------------------------------------------------------


def test_the_reads_of_a_decomposition_are_recorded_with_their_answers():
    d = RULES.decompose("How do I get onto the VPN when working from home?")
    assert [r.read for r in d.catalog_reads][:1] == ["closeness"]
    assert d.catalog_reads[0].answer and d.catalog_reads[0].words == d.question
    assert all(r.answer != "unknown" and r.ms >= 0 for r in d.catalog_reads) and d.reads_unmade == 0


def test_past_the_budget_a_read_is_not_made_and_its_answer_is_unknown():
    catalog = FakeCatalog.sample()
    rules = RuleDecomposer(catalog, today=date(2025, 6, 15))
    question = "How do I pay with bitcoin in the office?"
    full = rules.decompose(question)
    made = len(catalog.reads)
    assert len(full.catalog_reads) == made > 1
    capped = rules.decompose(question, max_reads=1)
    assert len(catalog.reads) == made + 1, "only one read was made"
    assert capped.reads_unmade == len(capped.catalog_reads) - 1 >= 1
    assert {r.answer for r in capped.catalog_reads[1:]} == {"unknown"}
