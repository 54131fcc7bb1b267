"""Grounding (`graph.planners.grounding`): a model's reading made to hold in the catalog or reported unmapped, and the
catalog reads a decomposition makes, recorded and budgeted. Over a fake catalog of the sample corpus: no engine."""

from __future__ import annotations

from datetime import date

import pytest

from graph.context import AgentContext
from graph.decomposition import Decomposition
from graph.planners.catalog_reads import RecordedCatalog, recorded
from graph.planners.chat_breaker import ChatBreaker
from graph.planners.grounding import ModelReading, ground, ground_reading
from graph.planners.llm_planner import LLMPlanner
from graph.planners.rule_decomposer import RuleDecomposer
from tests.fake_catalog import FakeCatalog
from tests.scripted_model import ScriptedModel, condition, reading

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
        read = RULES.read(question, None)
        assert ground(read.decomposition, RULES.vocabulary, understood=read.understood) == read.decomposition


def test_the_checks_that_make_the_run_ask_apply_to_a_models_reading_too():
    """A model's count over a whole bucket with a word no field records is asked about, as the rules' is."""
    d = Decomposition(question="how many invoices are unpaid?", intent="count", buckets=["invoices"],
                      topic_terms=["unpaid"], aggregate="count")  # fmt: skip
    assert [u.text for u in ground(d, RULES.vocabulary).unmapped] == ["unpaid"]


def test_the_llm_planner_grounds_the_models_reading():
    """The model writes the value as the question says it ("New York law"); grounding finds the value rows hold."""
    question = "Which contracts are under New York law?"
    said = reading("contracts", "list", [condition("governing_law", "=", "New York law")])
    planner = LLMPlanner(
        AgentContext(planner="llm"), CATALOG, ScriptedModel(messages=iter([said])), ChatBreaker(), RULES
    )
    d = planner.decompose(question)
    assert (d.intent, [(c.field, c.op, c.value) for c in d.constraints]) == (
        "list",
        [("governing_law", "=", "New York")],
    )
    assert planner.fallbacks == [] and [(c.mode, c.outcome, c.detail) for c in planner.calls] == [
        ("decompose", "used", "")
    ]


# -- reads during decompose -------------------------------------------------------------------------------------


def test_the_reads_of_a_decomposition_are_recorded_with_their_answers():
    d = RULES.decompose("How do I get onto the VPN when working from home?")
    assert [r.read for r in d.catalog_reads][:1] == ["closeness"]
    assert d.catalog_reads[0].answer and d.catalog_reads[0].words == d.question
    assert all(r.answer != "unknown" and r.ms >= 0 for r in d.catalog_reads) and d.reads_unmade == 0
    assert d.catalog_reads[0].searches == len(CATALOG.buckets), "one semantic search per bucket"
    assert d.searches == sum(r.searches for r in d.catalog_reads)


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


# -- the checks against the question's words, for a model's reading as for the rules' ------------------------------


def _checked(question: str, intent: str, buckets: list[str], constraints: list, **fields) -> Decomposition:
    reading = ModelReading(question=question, intent=intent, buckets=buckets, constraints=constraints, **fields)
    d = ground_reading(reading, RULES.vocabulary, RULES.read_conditions)
    return ground(d, RULES.vocabulary, today=RULES.today)


def test_a_name_no_document_holds_left_out_of_a_models_conditions_is_unmapped():
    d = _checked("How many receipts from Blue Kettle Bakery?", "count", ["receipts"], [], aggregate="count")
    assert [u.text for u in d.unmapped] == ["Blue Kettle Bakery"]
    assert ("company", "Blue Kettle Cafe") in {(c.field, c.value) for c in d.unmapped[0].nearest}, "nearest shops"


def test_a_word_no_document_holds_in_a_models_question_for_text_is_unmapped():
    d = _checked("Which invoices were paid in bitcoin?", "qa", ["invoices"], [])
    assert [u.text for u in d.unmapped] == ["bitcoin"] and "no document holds this word" in d.unmapped[0].why


def test_a_comparison_with_nothing_after_it_in_a_models_question_is_unmapped():
    d = _checked("How many receipts have a total of at least?", "count", ["receipts"], [], aggregate="count")
    assert [(u.text, u.why) for u in d.unmapped] == [
        ("at least", "no number or date this can compare with is read after it")
    ]


def test_a_month_without_its_year_is_unmapped_even_when_the_model_chose_a_year():
    """The sample's contracts were signed over several years: "in March" says none of them. ("May" is no month
    word: English reads it as the verb, "either party may terminate".)"""
    assert len({signed[:4] for signed in _dates("contracts", "agreement_date")}) > 1
    guessed = {"bucket": "contracts", "field": "agreement_date", "op": "between",
               "value": ["2024-03-01", "2024-03-31"], "source_text": "in March"}  # fmt: skip
    for said in ([guessed], []):
        d = _checked("Which contracts were signed in March?", "list", ["contracts"], said)
        assert [u.text for u in d.unmapped] == ["march (of which year?)"], said


def _dates(bucket: str, field: str) -> list[str]:
    return [str(row[field]) for _, _, rows in CATALOG._documents[bucket] for _, row in rows if row.get(field)]


def test_a_unit_no_field_of_the_bucket_is_in_is_unmapped_for_a_model_and_for_the_rules():
    said = {"bucket": "receipts", "field": "total", "op": ">", "value": 5, "source_text": "over 5 volts"}
    d = _checked("Which receipts are over 5 volts?", "list", ["receipts"], [said])
    assert [(u.text, u.why) for u in d.unmapped] == [("volts", "no total of receipts is recorded in volts")]
    ruled = RULES.decompose("Which receipts are over 5 volts?")
    assert [(u.text, u.why) for u in ruled.unmapped] == [("volts", "no total of receipts is recorded in volts")]


@pytest.mark.parametrize(
    "said",
    [
        {"bucket": "datasheets", "field": "max", "op": "<", "value": "500 mV"},
        {"bucket": "datasheets", "field": "max", "op": "<", "value": 500, "source_text": "below 500 mV"},
    ],
)
def test_a_datasheet_quantity_is_grounded_with_the_unit_its_rows_record(said):
    """500 mV is not 500 V: the number's unit is a condition on the field its rows record it in."""
    d = _checked("Which datasheets have a maximum below 500 mV?", "list", ["datasheets"], [said])
    assert [(c.field, c.op, c.value) for c in d.constraints] == [("max", "<", 500), ("unit", "=", "mV")]
    assert d.unmapped == []


def test_a_unit_no_row_of_a_datasheet_is_in_is_unmapped_for_a_model():
    said = {"bucket": "datasheets", "field": "max", "op": ">", "value": "3 hertz"}
    d = _checked("Which datasheets have a maximum above 3 hertz?", "list", ["datasheets"], [said])
    assert d.constraints == [] and [u.why.split(" (")[0] for u in d.unmapped] == [
        "no max of datasheets is recorded in hertz"
    ]


def test_a_closeness_read_counts_one_search_per_bucket_in_the_budget():
    catalog = FakeCatalog.sample()
    rules = RuleDecomposer(catalog, today=date(2025, 6, 15))
    question = "How do I pay with bitcoin in the office?"
    full = rules.decompose(question)
    assert full.catalog_reads[0].read == "closeness" and len(full.catalog_reads) > 1
    buckets = len(catalog.buckets)
    for cap, made in ((buckets, 1), (buckets + 1, 2)):
        capped = rules.decompose(question, max_reads=cap)
        assert len(capped.catalog_reads) - capped.reads_unmade == made, cap
        assert capped.searches == buckets + made - 1


def test_a_second_closeness_read_of_the_same_question_counts_no_search():
    """The catalog keeps the last question's closeness, so reading it again runs no search and spends no budget."""
    catalog = RecordedCatalog(FakeCatalog.sample())
    with recorded(100) as log:
        first = catalog.closeness("How do I get onto the VPN?")
        assert catalog.closeness("How do I get onto the VPN?") == first
        catalog.closeness("Who signed the NDA?")
    assert [r.searches for r in log.reads] == [len(catalog.buckets), 0, len(catalog.buckets)]
