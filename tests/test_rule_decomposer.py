"""The rule planner's decomposition on the sample corpus: paraphrases map to the right fields, operators and values.

Each question is checked twice: its constraints are what the words mean, read over a fake catalog of the sample
corpus (`tests/fake_catalog.py`: no Postgres, milliseconds), and, read over the real index and run through
annotations_search, they select exactly the documents the sample corpus's own annotations say (integration).
"""

from __future__ import annotations

import re
from contextlib import closing

import pytest

from english.lexicon import STOPWORDS
from graph.nodes.clarify import _narrowing
from graph.planners.model_reading import candidate_views
from graph.planners.rule_decomposer import RuleDecomposer
from graph.schemas import ClarifyReply
from retrievers.engines.keyword.tantivy_index import _english_analyzer
from retrievers.extraction.shipped import shipped
from retrievers.loaders import sample
from tests.fake_catalog import FakeCatalog
from tools.context import ToolContext
from tools.registry import call_tool


@pytest.fixture(scope="module")
def stack(sample_stack):
    return sample_stack


@pytest.fixture(scope="module")
def decomposer(sample_services):
    """Over the real index (Postgres, the keyword and vector indexes, MiniLM): for the tests that select documents."""
    return RuleDecomposer(sample_services.catalog("default"))


RULES = RuleDecomposer(
    FakeCatalog.sample(closeness={"How do I get onto the VPN from the Delaware office?": {"generic": 0.5}})
)
"""Over a fake catalog of the sample corpus: for the phrasing tests, which need no engine."""


@pytest.fixture
def rules():
    return RULES


def _rows(bucket: str, keep) -> set[str]:
    """Documents of the sample corpus whose own annotation rows satisfy `keep` (the reference answer)."""
    return {
        s.document.doc_id
        for s in sample.load()
        if s.document.bucket == bucket and any(keep(a.row) for a in s.annotations)
    }


def _selected(stack, decomposition) -> set[str]:
    bucket = decomposition.buckets[0]
    with closing(ToolContext(stack)) as context:
        result = call_tool(
            "annotations_search",
            {"bucket": bucket, "predicates": decomposition.predicates(bucket), "top_k": 50},
            context,
        )
    return {h["doc_id"] for h in result["hits"]}


def _values(row, name):
    value = row.get(name)
    return value if isinstance(value, list) else [] if value is None else [value]


QUESTIONS = [
    (
        "Which contracts have a notice period under 60 days?",
        "list",
        "contracts",
        [("notice_period_days", "<", 60)],
        lambda r: any(v < 60 for v in _values(r, "notice_period_days")),
    ),
    (
        "agreements that can be ended with less than two months' notice",
        "list",
        "contracts",
        [("notice_period_days", "<", 60)],
        lambda r: any(v < 60 for v in _values(r, "notice_period_days")),
    ),
    (
        "List contracts renewing for at least two years",
        "list",
        "contracts",
        [("renewal_term_days", ">=", 730)],
        lambda r: any(v >= 730 for v in _values(r, "renewal_term_days")),
    ),
    (
        "contracts governed by English law",
        "list",
        "contracts",
        [("governing_law", "=", "England")],
        lambda r: "England" in _values(r, "governing_law"),
    ),
    (
        "Which agreements are governed by Delaware or New York law?",
        "list",
        "contracts",
        [("governing_law", "in", ["Delaware", "New York"])],
        lambda r: {"Delaware", "New York"} & set(_values(r, "governing_law")),
    ),
    (
        "contracts without audit rights",
        "list",
        "contracts",
        [("audit_rights", "=", False)],
        lambda r: r.get("audit_rights") is False,
    ),
    (
        "Which contracts include a non-compete?",
        "list",
        "contracts",
        [("non_compete", "=", True)],
        lambda r: r.get("non_compete") is True,
    ),
    (
        "contracts signed before 2022",
        "list",
        "contracts",
        [("agreement_date", "<", "2022-01-01")],
        lambda r: r.get("agreement_date", "9999") < "2022-01-01",
    ),
    (
        "receipts with a total of more than 100",
        "list",
        "receipts",
        [("total", ">", 100)],
        lambda r: r.get("total", 0) > 100,
    ),
    (
        "receipts from 2023",
        "list",
        "receipts",
        [("date", "between", ["2023-01-01", "2023-12-31"])],
        lambda r: r.get("date", "").startswith("2023"),
    ),
    ("invoices in EUR", "list", "invoices", [("currency", "=", "EUR")], lambda r: r.get("currency") == "EUR"),
    (
        "Which agreements are governed by the laws of the State of New York?",
        "list",
        "contracts",
        [("governing_law", "=", "New York")],
        lambda r: "New York" in _values(r, "governing_law"),
    ),
    (
        "Which contracts can be terminated for convenience?",
        "list",
        "contracts",
        [("termination_for_convenience", "=", True)],
        lambda r: r.get("termination_for_convenience") is True,
    ),
    (
        "Which agreements expire before 2025?",
        "list",
        "contracts",
        [("expiration_date", "<", "2025-01-01")],
        lambda r: r.get("expiration_date", "9999") < "2025-01-01",
    ),
    (
        "Which contracts have a notice period of at least 30 days and at most 90 days?",
        "list",
        "contracts",
        [("notice_period_days", "between", [30, 90])],
        lambda r: any(30 <= v <= 90 for v in _values(r, "notice_period_days")),
    ),
    (
        "contracts with at least 30 and at most 90 days of notice",
        "list",
        "contracts",
        [("notice_period_days", "between", [30, 90])],
        lambda r: any(30 <= v <= 90 for v in _values(r, "notice_period_days")),
    ),
    (
        "contracts with a notice period over 30 days and under 90 days",
        "list",
        "contracts",
        [("notice_period_days", "between", [31, 89])],  # whole days: the excluded ends move by one
        lambda r: any(30 < v < 90 for v in _values(r, "notice_period_days")),
    ),
    (
        "contracts signed after 2019 and before 2022",
        "list",
        "contracts",
        [("agreement_date", "between", ["2020-01-01", "2021-12-31"])],
        lambda r: "2020-01-01" <= r.get("agreement_date", "") <= "2021-12-31",
    ),
    (
        "certificates that expire before 2025",
        "list",
        "certificates",
        [("valid_until", "<", "2025-01-01")],
        lambda r: r.get("valid_until", "9999") < "2025-01-01",
    ),
]


@pytest.mark.parametrize("question, intent, bucket, expected, keep", QUESTIONS, ids=[q for q, *_ in QUESTIONS])
def test_paraphrases_map_to_the_fields_operators_and_values_meant(rules, question, intent, bucket, expected, keep):
    d = rules.decompose(question)
    assert (d.intent, d.buckets) == (intent, [bucket])
    assert [(c.field, c.op, c.value) for c in d.constraints] == expected


@pytest.mark.parametrize("question, intent, bucket, expected, keep", QUESTIONS, ids=[q for q, *_ in QUESTIONS])
def test_paraphrased_constraints_select_the_annotated_documents(
    stack, decomposer, question, intent, bucket, expected, keep
):
    d = decomposer.decompose(question)
    assert (d.intent, d.buckets) == (intent, [bucket])
    assert [(c.field, c.op, c.value) for c in d.constraints] == expected
    assert _selected(stack, d) == _rows(bucket, keep) != set()


@pytest.mark.parametrize(
    "question, why",
    [
        ("receipts with a total of at least 200 and at most 100", "no total can be 'at least 200' and 'at most 100'"),
        ("receipts with a total of at least 20 and more than 50", "'at least 20' and 'more than 50' both bound total"),
    ],
)
def test_two_bounds_that_make_no_one_range_are_asked_about_not_dropped(rules, question, why):
    """A field takes one condition: bounds that cannot be one range (an empty range, two lower bounds) leave the
    second unmapped, so the run asks instead of answering with the first alone."""
    d = rules.decompose(question)
    assert [why in (u.why or "") for u in d.unmapped] == [True], d.unmapped


def test_a_range_whose_second_end_has_no_year_is_asked_about(rules):
    """The second end takes no year from the first ("may" after "and" is as often a verb): its month is unmapped."""
    d = rules.decompose("How many receipts are from 1 March 2018 to 31 March?")
    assert "march (of which year?)" in [u.text for u in d.unmapped]


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("How many receipts have a total of at least X and at most Y?", ["at least x", "at most y"]),
        ("How many receipts have a total of at least 10 and at most ??", ["at most"]),
    ],
)
def test_a_comparison_with_nothing_to_compare_is_asked_about(rules, question, said):
    """'at most ??' bounds nothing the planner can read: unmapped, so the count is not made without it."""
    assert [u.text for u in rules.decompose(question).unmapped] == said


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("receipts with a total greater than or equal to 30", ("total", ">=", 30.0)),
        ("receipts with a total less than or equal to 50", ("total", "<=", 50.0)),
        ("receipts that cost from RM30 to RM50", ("total", "between", [30.0, 50.0])),
    ],
)
def test_or_equal_to_and_from_to_are_bounds(rules, question, expected):
    assert [(c.field, c.op, c.value) for c in rules.decompose(question).constraints] == [expected]


def test_excluded_ends_on_amounts_are_read_excluded(rules):
    d = rules.decompose("receipts with a total of more than 23.14 and less than 100")
    assert [(c.field, c.op, c.value, c.bounds) for c in d.constraints] == [("total", "between", [23.14, 100.0], "()")]


def test_excluded_ends_on_amounts_stay_excluded(stack, decomposer):
    """Amounts have no next value to move an excluded end to: the range keeps it excluded (`bounds`), and the
    receipt of exactly 23.14 is not "more than 23.14"."""
    d = decomposer.decompose("receipts with a total of more than 23.14 and less than 100")
    assert [(c.field, c.op, c.value, c.bounds) for c in d.constraints] == [("total", "between", [23.14, 100.0], "()")]
    expected = _rows("receipts", lambda r: 23.14 < r.get("total", 0) < 100)
    assert _selected(stack, d) == expected != set() and "sample-receipt-001" not in expected


def test_counts_and_sums_name_their_aggregate_and_grouping(rules):
    counted = rules.decompose("How many contracts per governing law?")
    assert (counted.intent, counted.aggregate, counted.group_by, counted.constraints) == (
        "count",
        "count",
        ["governing_law"],
        [],
    )
    delaware = rules.decompose("How many contracts are governed by Delaware law?")
    assert (delaware.aggregate, delaware.group_by) == ("count", [])
    summed = rules.decompose("What is the total spent at Blue Kettle Cafe in 2023?")
    assert (summed.intent, summed.buckets, summed.aggregate) == ("sum", ["receipts"], "sum(total)")
    assert {(c.field, c.op) for c in summed.constraints} == {("company", "="), ("date", "between")}
    biggest = rules.decompose("What is the biggest receipt total?")
    assert (biggest.intent, biggest.aggregate) == ("sum", "max(total)")
    average = rules.decompose("What is the average invoice amount in USD?")
    assert (average.aggregate, [(c.field, c.value) for c in average.constraints]) == (
        "avg(amount)",
        [("currency", "USD")],
    )


@pytest.mark.parametrize(
    "question", ["How many contracts are there in total?", "What is the total number of contracts?"]
)
def test_a_count_of_everything_together_is_a_count_not_a_word_to_ask_about(rules, question):
    """'in total' and 'the total number of' say what a count is, not a condition: both were asked back as 'total'."""
    counted = rules.decompose(question)
    assert (counted.intent, counted.aggregate, counted.constraints, counted.unmapped) == ("count", "count", [], [])


@pytest.mark.parametrize(
    "question", ["How many non-exclusive contracts are there?", "How many non exclusive contracts?"]
)
def test_non_joined_to_a_yes_no_field_negates_it_alone(rules, question):
    """ "how many non-vegetarian Thai dishes" was asked back ('non' named nothing); "non" is read with the yes/no
    field it is joined to, and negates nothing after it."""
    counted = rules.decompose(question)
    assert ([(c.field, c.value) for c in counted.constraints], counted.unmapped) == ([("exclusivity", False)], [])
    delaware = rules.decompose("How many non-exclusive Delaware contracts are there?")
    assert [(c.field, c.op, c.value) for c in delaware.constraints] == [
        ("exclusivity", "=", False),
        ("governing_law", "=", "Delaware"),
    ]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How many sponsorship deals dont require anyone to carry insurance?", False),  # blind set H: True
        ("Which contracts do not need the licensee to keep any insurance in force?", False),
        ("Which contracts don't have a non-compete, but require insurance?", True),  # another clause begins
        ("Which contracts are not exclusive and require insurance?", True),
    ],
)
def test_a_negated_verb_of_holding_carries_over_to_the_clause_it_holds(question, expected):
    """ "don't require anyone to carry insurance" stood 30 characters from "insurance", past the 25 a negation was
    read within, and counted the sponsorship deals that do require it: a count that looked right."""
    rows = [("properties", {"insurance": True, "non_compete": False, "exclusivity": True})]
    documents = {"contracts": [("a.txt", "a.txt", rows), ("b.txt", "b.txt", [("properties", {"insurance": False})])]}
    rules = RuleDecomposer(FakeCatalog(documents, specs={"contracts": shipped("contracts")}))
    d = rules.decompose(question)
    assert ("insurance", expected) in [(c.field, c.value) for c in d.constraints]


def test_how_many_of_a_unit_or_of_what_a_field_measures_asks_for_a_value_not_a_count(rules):
    """Blind set H: "How many days' notice is needed to stop the Vitalibis hosting agreement with Votocast from
    auto-renewing?" answered "1: count over 1 documents"; the question asks for the notice period."""
    rows = {"VITALIBIS.txt": {"contract_type": "Hosting Agreement", "parties": ["Votocast"], "notice_period_days": 180}}
    documents = {"contracts": [(doc_id, doc_id, [("properties", row)]) for doc_id, row in rows.items()]}
    own = RuleDecomposer(FakeCatalog(documents, specs={"contracts": shipped("contracts")}))
    asked = own.decompose("How many days' notice is needed to stop the hosting agreement with Votocast from renewing?")
    assert asked.intent == "lookup" and asked.doc_ids == ["VITALIBIS.txt"]
    counted = own.decompose("How many contracts need more than 90 days notice?")
    assert counted.intent == "count" and [(c.field, c.op) for c in counted.constraints] == [("notice_period_days", ">")]
    assert rules.decompose("How many days did the VPN outage last?").intent != "lookup", "no field of time: as before"
    calories = RuleDecomposer(RECIPES).decompose("how many calories in the thai green curry")  # the recipes set
    assert calories.intent == "lookup" and ("cuisine", "Thai") in [(c.field, c.value) for c in calories.constraints]


def test_a_receipts_total_in_a_count_is_still_its_field(rules):
    counted = rules.decompose("How many receipts have a total over 50?")
    assert [(c.field, c.op, c.value) for c in counted.constraints] == [("total", ">", 50)]


def test_what_is_the_oldest_document_names_it_and_what_is_the_latest_date_gives_it(rules):
    """ "What is the oldest contract?" asks for the contract (the row at the top of the order); "what is the latest
    agreement date?" names a field, and asks for its value."""
    oldest = rules.decompose("What is the oldest contract?")
    assert (oldest.intent, oldest.order_by.direction, oldest.limit) == ("list", "asc", 1)
    latest = rules.decompose("What is the latest agreement date?")
    assert (latest.intent, latest.aggregate) == ("sum", "max(agreement_date)")


@pytest.mark.parametrize(
    "question",
    [
        "Until what date does the Kestrel Analytics agreement run?",
        "What date is the Kestrel agreement?",
        "When was the Kestrel Analytics agreement entered into?",
        "When does the Kestrel Analytics agreement come to an end?",
    ],
)
def test_a_date_asked_of_a_named_document_without_naming_which_shows_its_dates(rules, question):
    """A question that asks for a date without naming which ("until what date does it run?") looks up the named
    document's dates, each with its source, instead of listing the document or searching for the words "until run"."""
    d = rules.decompose(question)
    assert d.intent == "lookup"
    assert {"agreement_date", "expiration_date"} <= set(d.show_fields) or d.show_fields == ["expiration_date"]


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("How much notice does Kestrel Analytics have to give to stop the agreement from renewing?", "lookup"),
        ("Can Kestrel Analytics hire our employees under its agreement?", "qa"),
        ("Can you list the agreements with Kestrel Analytics?", "list"),
        ("When is Kestrel Analytics allowed to terminate its agreement?", "lookup"),
        ("What happens to the Kestrel Analytics agreement if Kestrel undergoes a change of control?", "qa"),
    ],
)
def test_what_a_question_asks_of_a_named_document(rules, question, intent):
    """A value asked by its noun is looked up, whatever one "has to give"; a yes/no question asked with a modal verb
    is a question for the document's text, a request ("can you list") is not; a bare "when" of the present asks
    for conditions, so no date field is shown for it."""
    d = rules.decompose(question)
    assert d.intent == intent
    if question.startswith("When is"):
        assert "agreement_date" not in d.show_fields


def test_a_name_becomes_the_values_the_catalog_holds_for_it(rules):
    d = rules.decompose("Which agreements with Kestrel Analytics have exclusivity?")
    assert {(c.field, c.op, str(c.value)) for c in d.constraints} == {
        ("exclusivity", "=", "True"),
        ("parties", "=", "Kestrel Analytics LLC"),
    }


def test_questions_without_fields_are_topic_searches_in_the_closest_bucket(rules):
    d = rules.decompose("How do I get onto the VPN when working from home?")
    assert d.intent == "qa" and d.constraints == [] and d.buckets == ["generic"]
    assert {"vpn", "working", "home"} <= set(d.topic_terms)


@pytest.mark.parametrize(
    "question",
    [
        "How many days before travel must the expense form be filed?",
        "A high microerythrocyte count raises vulnerability to severe anemia.",
    ],
)
def test_a_count_or_list_that_names_no_bucket_value_or_grouping_is_a_question_for_the_text(rules, question):
    """A figure or a list of documents is what the index can give only when the question names what to count or
    list; "how many days" or a claim that says "count" asks about the text, and must not come back as a count of
    every document in a bucket."""
    d = rules.decompose(question)
    assert d.intent == "qa" and d.constraints == [] and d.aggregate is None and d.unmapped == []


def test_a_count_of_a_named_bucket_stays_a_count(rules):
    d = rules.decompose("How many receipts are there?")
    assert (d.intent, d.buckets, d.aggregate) == ("count", ["receipts"], "count")


def test_comparisons_split_into_their_sides(rules):
    d = rules.decompose("Compare the exclusivity of consulting agreements and distribution agreements")
    assert d.intent == "compare" and len(d.sub_queries) == 2


@pytest.mark.parametrize(
    "question, sides",
    [
        ("Who is older, Annie Morton or Terry Richardson?", ["Annie Morton", "Terry Richardson"]),
        (
            'Which came to market first, "Hey Pa! There\'s a Goat on the Roof" or "Poleconomy"',
            ["Hey Pa! There's a Goat on the Roof", "Poleconomy"],
        ),
        (
            "Which canal is further north, Beaver and Erie Canal or the Dismal Swamp Canal?",
            ["Beaver and Erie Canal", "Dismal Swamp Canal"],
        ),
        ("Did Frankie Valli sing with Hellogoodbye or The Four Seasons?", ["Hellogoodbye", "The Four Seasons"]),
        ("Were Scott Derrickson and Ed Wood of the same nationality?", ["Scott Derrickson", "Ed Wood"]),
        ("Are Local H and For Against both from the United States?", ["Local H", "For Against"]),
        (
            "What occupations do Charles Burnett and Alan J. Pakula have in common?",
            ["Charles Burnett", "Alan J. Pakula"],
        ),
        ("Who founded Procter and Gamble?", []),
        ("How do I get onto the VPN when working from home?", []),
    ],
)
def test_two_named_things_side_by_side_are_searched_each_on_its_own(rules, question, sides):
    assert rules.decompose(question).sub_queries == [question, *sides]


def test_a_value_mentioned_in_passing_does_not_pull_the_question_into_its_bucket(rules):
    assert rules.decompose("How do I get onto the VPN from the Delaware office?").buckets == ["generic"]
    governed = rules.decompose("Anything governed by Delaware law?")
    assert governed.buckets == ["contracts"] and [(c.field, c.value) for c in governed.constraints] == [
        ("governing_law", "Delaware")
    ]


NATURAL = [
    (
        "invoices not from kestrel or silverleaf",
        "invoices",
        lambda r: r.get("issuer") and not r["issuer"].startswith(("Kestrel", "Silverleaf")),
    ),
    ("usd invoices over 5000", "invoices", lambda r: r.get("currency") == "USD" and r.get("amount", 0) > 5000),
    ("£ invoices", "invoices", lambda r: r.get("currency") == "GBP"),
    (
        "receipts from harbor hardware or corner bookshop",
        "receipts",
        lambda r: r.get("company", "")[:6] in ("Harbor", "Corner"),
    ),
    (
        "any invoices in US dollars from 2021?",
        "invoices",
        lambda r: r.get("currency") == "USD" and r["date"][:4] == "2021",
    ),
]


@pytest.mark.parametrize("question, bucket, keep", NATURAL, ids=[q for q, *_ in NATURAL])
def test_everyday_phrasing_is_read_as_a_list_with_nothing_unmapped(rules, question, bucket, keep):
    d = rules.decompose(question)
    assert (d.intent, d.buckets, d.unmapped) == ("list", [bucket], [])


@pytest.mark.parametrize("question, bucket, keep", NATURAL, ids=[q for q, *_ in NATURAL])
def test_everyday_phrasing_selects_the_annotated_documents(stack, decomposer, question, bucket, keep):
    """Names as people type them, currencies by name or symbol, OR and negation between names."""
    d = decomposer.decompose(question)
    assert (d.intent, d.buckets, d.unmapped) == ("list", [bucket], [])
    assert _selected(stack, d) == _rows(bucket, keep) != set()


def test_what_cannot_be_mapped_is_kept_as_unmapped_with_the_nearest_values(rules):
    shop = rules.decompose("How many receipts from Starbucks?")
    assert [u.text for u in shop.unmapped] == ["Starbucks"] and all(
        c.field == "company" for c in shop.unmapped[0].nearest
    )
    month = rules.decompose("how many receipts in december")
    assert [u.text for u in month.unmapped] == ["december (of which year?)"], "a month needs a year; never dropped"
    parties = rules.decompose("how many contracts have more than two parties")
    assert [u.text for u in parties.unmapped] == ["more than two"], "no number field counts parties"
    lease = rules.decompose("which leases expire in 2025?")
    assert [u.text for u in lease.unmapped] == ["leases"], "no contract is of that kind"
    risky = rules.decompose("how many risky Delaware contracts are there?")
    assert [u.text for u in risky.unmapped] == ["risky"], "left out, every Delaware contract would be counted"
    assert rules.decompose("how many different Delaware contracts are there?").unmapped == []
    hosting = rules.decompose("how many web hosting agreements are there?")
    assert hosting.unmapped == [], "a word before a kind's name names a finer kind, not a condition left out"
    for said, left in [
        ("how many Delaware contracts are risky?", "risky"),
        ("which Delaware contracts involve hemp?", "hemp"),
        # the fifteenth outside probe: each was dropped and every Delaware contract counted
        ("how many Delaware contracts mention oil?", "oil"),
        ("which Delaware contracts say anything about hemp?", "hemp"),
        ("how many Delaware contracts are not risky?", "risky"),
        ("how many Delaware contracts are exclusive and risky?", "risky"),
        ("which Delaware contracts need a notary?", "notary"),
        ("which Delaware contracts require a notary?", "notary"),
        ("which Delaware contracts without hemp take effect in 2020?", "hemp"),
    ]:
        assert [u.text for u in rules.decompose(said).unmapped] == [left], "what the documents are said to be or hold"
    assert rules.decompose("which Delaware contracts were signed in 2020?").unmapped == [], "a field's verb is read"
    audit = rules.decompose("which Delaware contracts include a requirement to audit the books?")
    assert audit.unmapped == [] and {c.field for c in audit.constraints} == {"audit_rights", "governing_law"}
    audit = rules.decompose("how many Delaware contracts with an audti right?")
    assert [(u.text, [c.field for c in u.nearest]) for u in audit.unmapped] == [("audti", ["audit_rights"])], (
        "a misspelt clause after 'with an' is asked about, offering the clause it is spelt like"
    )


def test_which_thing_of_a_named_document_is_a_question_for_its_text_not_a_list(rules):
    """An outside probe: "which state's courts hear disputes under the Modus Media agreement?" listed the agreement's
    row of parties; "which ..." asks for documents only when their noun follows."""
    courts = rules.decompose("Which state's courts hear disputes under the Silverleaf software license agreement?")
    assert courts.intent == "qa" and courts.constraints
    assert rules.decompose("Which Silverleaf agreements are there?").intent == "list"


def test_figures_name_their_measure_grouping_and_units(rules):
    tax = rules.decompose("how much tax was charged in total on invoices")
    assert (tax.aggregate, tax.group_by, tax.unit_field) == ("sum(amount_tax)", ["currency"], "currency")
    spend = rules.decompose("which shop did we spend the most at?")
    assert (spend.intent, spend.aggregate, spend.group_by, spend.limit) == ("sum", "sum(total)", ["company"], 1)
    busiest = rules.decompose("which year has the most receipts?")
    assert (busiest.aggregate, busiest.group_by, busiest.limit) == ("count", ["year(date)"], 1)
    biggest = rules.decompose("biggest receipt?")
    assert (biggest.intent, biggest.order_by.field, biggest.order_by.direction, biggest.limit) == (
        "list",
        "total",
        "desc",
        1,
    )
    how_much = rules.decompose("how much was our biggest receipt")
    assert (how_much.intent, how_much.aggregate) == ("sum", "max(total)")
    named = rules.decompose("What was the total on receipt sample-receipt-004?")
    assert (named.intent, named.doc_ids, named.show_fields) == ("lookup", ["sample-receipt-004"], ["total"])


def test_what_one_must_do_is_a_question_for_the_text(rules):
    d = rules.decompose("What must the supplier return when the agreement with Kestrel Analytics ends?")
    assert d.intent == "qa" and d.aggregate is None


CLAUSE_ROWS = {
    "LICENSE-A.txt": {
        "contract_type": "License Agreement",
        "license_grant": True,
        "irrevocable_or_perpetual_license": True,
        "perpetual": False,
        "no_solicit_of_employees": False,
        "no_solicit_of_customers": True,
        "non_compete": True,
    },
    "SUPPLY-B.txt": {
        "contract_type": "Supply Agreement",
        "license_grant": False,
        "irrevocable_or_perpetual_license": False,
        "perpetual": True,
        "no_solicit_of_employees": True,
        "no_solicit_of_customers": False,
        "non_compete": False,
        "term_days": 1825,
        "renewal_term_days": 365,
    },
    "DISTRIBUTOR-C.txt": {"contract_type": "Distributor Agreement", "license_grant": False, "non_compete": True},
    "UPKEEP-D.txt": {
        "contract_type": "Maintenance Agreement",
        "insurance": True,
        "no_solicit_of_employees": False,
        "change_of_control": True,
        "joint_ip_ownership": True,
        "auto_renewal": True,
    },
}


@pytest.fixture(scope="module")
def clause_rules():
    """A user's contracts whose yes/no clauses were read from the text (the shipped contracts schema)."""
    from retrievers.extraction.shipped import shipped

    documents = {"contracts": [(doc_id, doc_id, [("properties", row)]) for doc_id, row in CLAUSE_ROWS.items()]}
    return RuleDecomposer(FakeCatalog(documents, specs={"contracts": shipped("contracts")}))


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # the clause's own four words, not the two of license_grant around them, nor the `perpetual` term
        (
            "Which contracts grant an irrevocable or perpetual license?",
            [("irrevocable_or_perpetual_license", "=", True)],
        ),
        # a bucket word inside a clause's name is the clause's, not a kind of contract
        ("Which contracts include a perpetual license?", [("irrevocable_or_perpetual_license", "=", True)]),
        (
            "Which license agreements have a perpetual license?",
            [
                ("contract_type", "=", "License Agreement"),
                ("irrevocable_or_perpetual_license", "=", True),
            ],
        ),
        # the name's words apart within one clause of the question
        (
            "Which contracts stop a party from soliciting or poaching the other side's employees?",
            [("no_solicit_of_employees", "=", True)],
        ),
        ("Which contracts are perpetual?", [("perpetual", "=", True)]),
        # what people call a clause (its aliases): "jointly own", "roll over", "acquired"
        ("In which contracts do both sides jointly own IP or data?", [("joint_ip_ownership", "=", True)]),
        ("Which of my agreements roll over unless someone opts out?", [("auto_renewal", "=", True)]),
        ("Which contracts can be ended if a party is acquired?", [("change_of_control", "=", True)]),
        # a field named more fully near a quantity: the renewal term, not the term whose word it holds
        ("Which contracts have a renewal term of one year?", [("renewal_term_days", "=", 365)]),
        ("Which contracts have a term of five years?", [("term_days", "=", 1825)]),
        # a short alias by a verb's ending
        ("Which contracts stop the other side from poaching employees?", [("no_solicit_of_employees", "=", True)]),
        # a verb away from the bucket's words is no kind by its stem ("maintain" is no Maintenance Agreement)
        ("Which agreements require a party to maintain insurance?", [("insurance", "=", True)]),
        (
            "Which contracts have a non-compete and a license grant?",
            [
                ("non_compete", "=", True),
                ("license_grant", "=", True),
            ],
        ),
    ],
)
def test_the_clause_a_question_names_most_fully_is_the_one_read(clause_rules, question, expected):
    d = clause_rules.decompose(question)
    assert d.intent == "list"
    assert [(c.field, c.op, c.value) for c in d.constraints] == expected


DESCRIBED_CLAUSES = {
    "How many agreements forbid a party from contesting or challenging the other side's intellectual property?": (
        "contesting",
        "covenant_not_to_sue",
    ),
    "In how many of my agreements do the parties end up jointly owning something they develop together?": (
        "owning something develop together",
        "joint_ip_ownership",
    ),
}


@pytest.fixture(scope="module")
def described_clauses():
    """The clauses' rows with parties, and each question above closest in meaning to the clause it describes (as
    MiniLM scores them: 0.53 and 0.57 on a user's folder; the other clauses by spelling, under 0.4)."""
    specs = {spec.name: spec for spec in shipped("contracts")}
    rows = {doc_id: {**row, "parties": [f"{doc_id.split('.')[0]} Inc."]} for doc_id, row in CLAUSE_ROWS.items()}
    rows["UPKEEP-D.txt"]["covenant_not_to_sue"] = True
    rows["SUPPLY-B.txt"]["governing_law"] = "People's Republic of China"
    meanings = {
        question: (f"{clause.replace('_', ' ')}: {specs[clause].description}", 0.55)
        for question, (_, clause) in DESCRIBED_CLAUSES.items()
    }
    documents = {"contracts": [(doc_id, doc_id, [("properties", row)]) for doc_id, row in rows.items()]}
    return FakeCatalog(documents, specs={"contracts": shipped("contracts")}, meanings=meanings)


@pytest.mark.parametrize("question", list(DESCRIBED_CLAUSES))
def test_a_clause_a_count_describes_in_other_words_is_offered_not_taken(described_clauses, question):
    """Before, the first was offered party names for "contesting" and the second nothing; now each offers the yes/no
    field closest in meaning, as its Yes with what it means, for the human to choose: the nearest is not always the
    one meant, so nothing is counted until they do."""
    words, clause = DESCRIBED_CLAUSES[question]
    d = RuleDecomposer(described_clauses).decompose(question)
    assert d.intent == "count" and not d.constraints
    (unmapped,) = d.unmapped
    assert unmapped.text == words
    first = unmapped.nearest[0]
    assert (first.field, first.value) == (clause, True) and first.about.startswith("when ")
    reply = ClarifyReply(choice="narrow", field=first.field, op="=", value=first.value)
    assert _narrowing(reply, "contracts", {clause: "boolean"}).value is True


def test_a_lower_case_word_is_offered_a_partys_name_only_as_near_as_a_misspelling(described_clauses):
    """ "keep us from going into the same line of business" was offered "Ingevity Corporation" for "going": a
    lower-case word is no name, unless misspelt (a capitalised one is offered the names it is near, as before:
    `test_what_cannot_be_mapped_is_kept_as_unmapped_with_the_nearest_values`)."""
    rules = RuleDecomposer(described_clauses)
    (word,) = rules.decompose("How many agreements stop the other side from keeping our staff?").unmapped
    assert word.text == "keeping" and [c for c in word.nearest if c.field == "parties"] == []


def test_a_clause_named_like_a_kind_of_contract_is_no_condition_on_the_kind():
    """An outside probe: "how many contracts have a non-solicit clause?" counted the contracts of the kind
    Non-Compete/No-Solicit/Non-Disparagement Agreement. Words before "clause" say what a clause is about: the count
    asks, offering the clauses closest in meaning, for all those words; "non-compete agreements" stay a kind."""
    kinds = {"NC-A.txt": "Non-Compete/No-Solicit/Non-Disparagement Agreement", "SUPPLY-B.txt": "Supply Agreement"}
    documents = [
        (doc_id, doc_id, [("properties", {"contract_type": kind, "no_solicit_of_employees": doc_id == "NC-A.txt"})])
        for doc_id, kind in kinds.items()
    ]
    rules = RuleDecomposer(FakeCatalog({"contracts": documents}, specs={"contracts": shipped("contracts")}))
    d = rules.decompose("How many contracts have a non-solicit clause?")
    assert "contract_type" not in [c.field for c in d.constraints]
    assert [u.text for u in d.unmapped] == ["non solicit clause"]
    kind = rules.decompose("How many non-compete agreements are there?")
    assert [(c.field, c.value) for c in kind.constraints] == [("contract_type", kinds["NC-A.txt"])]


@pytest.mark.parametrize(
    "question",
    [
        "How many of my agreements are supply or distributor agreements?",
        "Count the license, supply and distributor agreements",
    ],
)
def test_kinds_sharing_one_bucket_word_are_each_read(clause_rules, question):
    """A blind question: "how many of my agreements are reseller or distributor agreements?" counted the one
    distributor agreement and none of the three reseller agreements: only the kind next to "agreements" was read."""
    d = clause_rules.decompose(question)
    (kind,) = [c for c in d.constraints if c.field == "contract_type"]
    wanted = {"Supply Agreement", "Distributor Agreement"} | ({"License Agreement"} if "license" in question else set())
    assert kind.op == "in" and set(kind.value) == wanted and not d.unmapped


def test_a_kind_written_by_its_initials_is_named_by_its_words():
    """Two blind questions, "show me all my intellectual property agreements", got passages: the kind is written
    "IP Agreement"."""
    kinds = ["IP Agreement", "Supply Agreement", "License Agreement", "Distributor Agreement", "Agency Agreement"]
    documents = [(f"{n}.txt", f"{n}.txt", [("properties", {"contract_type": kind})]) for n, kind in enumerate(kinds)]
    rules = RuleDecomposer(FakeCatalog({"contracts": documents}, specs={"contracts": shipped("contracts")}))
    d = rules.decompose("Show me all my intellectual property agreements.")
    assert d.intent == "list" and [(c.field, c.value) for c in d.constraints] == [("contract_type", "IP Agreement")]


def test_a_kind_named_by_the_initials_of_its_own_words_before_the_document_word_is_that_kind():
    """Blind set H: "how many JV agreements do i have on file?" was asked back; the kind is "Joint Venture
    Agreement", whose initials less the word the question says anyway ("agreements") are "JV"."""
    kinds = ["Joint Venture Agreement", "Supply Agreement", "Video Agreement"]
    documents = [(f"{n}.txt", f"{n}.txt", [("properties", {"contract_type": kind})]) for n, kind in enumerate(kinds)]
    rules = RuleDecomposer(FakeCatalog({"contracts": documents}, specs={"contracts": shipped("contracts")}))
    d = rules.decompose("how many JV agreements do i have on file?")
    assert [(c.field, c.value) for c in d.constraints] == [("contract_type", "Joint Venture Agreement")]


def test_a_words_initials_and_an_english_stop_word_name_no_party():
    """Blind folder D, once the rules read more parties: "... need more than two months' notice if we want to stop
    the renewal?" read the party "Insurance Fund" from "if", and "if it doesn't make a required capital
    contribution" excluded three parties from "capital contribution" said as "cc", the initials of "Cerus
    Corporation" (a value writing "CC" as a word let the phrase be contracted, and the contraction then matched
    other values' initials). "if" is a stop word of the keyword index (it counts no passage holding it), and a
    contraction must be written in a value."""
    parties = ["Insurance Fund", "Cerus Corporation", "Mbeki Trading CC", "Acme IP Holdings"]
    rows = [("properties", {"parties": [p], "auto_renewal": True}) for p in parties]
    documents = [(f"{n}.txt", f"{n}.txt", [row]) for n, row in enumerate(rows)]
    rules = RuleDecomposer(FakeCatalog({"contracts": documents}, specs={"contracts": shipped("contracts")}))
    for question in (
        "Which contracts renew automatically if we want to stop the renewal?",
        "Which contracts renew automatically even if a required capital contribution is not made?",
    ):
        d = rules.decompose(question)
        assert [c.field for c in d.constraints] == ["auto_renewal"], question
    d = rules.decompose("Which contracts does Acme intellectual property Holdings have?")
    assert [(c.field, c.value) for c in d.constraints] == [("parties", "Acme IP Holdings")], "a written contraction"


def test_every_word_the_keyword_index_drops_is_a_stop_word_of_questions():
    """A word the index never keeps looks like a word no document holds (`english.lexicon.STOPWORDS`): "if" was
    not among them, and read as a name."""
    analyzer = _english_analyzer()
    sentence = (
        "If the buyer and the seller are not in agreement, such terms as these will then be put into their hands "
        "by it, or no one was there with this to say but that they are at peace for it, a matter of an hour on the day."
    )
    dropped = {w for w in re.findall(r"[a-z]+", sentence.lower()) if not analyzer.analyze(w)}
    assert "if" in dropped and dropped <= STOPWORDS


def test_a_list_of_the_contracts_with_a_clause_no_field_names_asks_offering_the_closest():
    """A blind question: "which agreements have a non-solicitation clause covering staff?" was answered with
    passages about rebates and confidentiality, three contracts quoted as if they held the clause. A list of the
    documents with a clause the documents speak of is a list, as a count of them is a count: the clauses closest in
    meaning are offered, and nothing is listed until the human chooses. Without a word for a clause, such words
    stay a search for text ("which agreements mention data hosting?"), as does a clause about something no
    document holds (`test_text_answers`: "a clause about cryptocurrency payments" is said to be missing)."""
    question = "Which agreements have a non-solicitation clause covering staff?"
    specs = {spec.name: spec for spec in shipped("contracts")}
    meaning = f"no solicit of employees: {specs['no_solicit_of_employees'].description}"
    text = "Non-solicitation. Neither party shall recruit the other's staff, this covering all personnel."
    unread = "no_solicit_of_customers"  # no rule reads it (tune F1 0.51): its words name a field with no value
    rows = {doc_id: {k: v for k, v in row.items() if k != unread} for doc_id, row in CLAUSE_ROWS.items()}
    documents = [(doc_id, f"{doc_id} {text}", [("properties", row)]) for doc_id, row in rows.items()]
    catalog = FakeCatalog(
        {"contracts": documents}, specs={"contracts": list(specs.values())}, meanings={question: (meaning, 0.5)}
    )
    rules = RuleDecomposer(catalog)
    d = rules.decompose(question)
    assert d.intent == "list" and not d.constraints
    (unmapped,) = d.unmapped
    assert (unmapped.nearest[0].field, unmapped.nearest[0].value) == ("no_solicit_of_employees", True)
    assert rules.decompose("Which agreements mention data hosting?").intent == "qa"


def test_a_lower_case_word_naming_part_of_a_place_is_no_condition_on_it(described_clauses):
    """ "the other company's people" counted the contracts governed by the law of the People's Republic of China (a
    blind question about hiring staff away); a name a kind or a party holds is read as before."""
    rules = RuleDecomposer(described_clauses)
    d = rules.decompose("Which agreements stop us from hiring away the other company's people?")
    assert "governing_law" not in [c.field for c in d.constraints]
    d = rules.decompose("Which contracts are governed by the law of the People's Republic of China?")
    assert [(c.field, c.value) for c in d.constraints] == [("governing_law", "People's Republic of China")]


@pytest.mark.parametrize("question", list(DESCRIBED_CLAUSES))
def test_a_model_reading_where_the_rules_run_out_is_shown_the_clause_described_first(described_clauses, question):
    """The dozen fields a small model is shown were those sharing words with the question; the clause it
    describes in other words shared none ("contesting" is not "contest") and was left out of its choice."""
    shown = candidate_views(described_clauses, ["contracts"], question)["contracts"]
    assert shown[0].name == DESCRIBED_CLAUSES[question][1]


def test_clause_words_in_two_clauses_of_a_question_name_no_clause(clause_rules):
    """ "employees" in one sentence and "solicit" in the next are no name of no_solicit_of_employees."""
    d = clause_rules.decompose("Which contracts name our employees? Do any of them solicit bids?")
    assert "no_solicit_of_employees" not in [c.field for c in d.constraints]


@pytest.mark.parametrize(
    ("question", "constraints"),
    [
        ("Which contracts have no governing law?", {("governing_law", "missing", None)}),
        ("How many of my contracts don't say which law governs them?", {("governing_law", "missing", None)}),
        ("List the contracts without an expiration date", {("expiration_date", "missing", None)}),
        (
            "Which agreements with Kestrel Analytics have no notice period?",
            {("parties", "=", "Kestrel Analytics LLC"), ("notice_period_days", "missing", None)},
        ),
        ("Which contracts are not governed by Delaware law?", {("governing_law", "!=", "Delaware")}),
        ("Which contracts have no non-compete?", {("non_compete", "=", False)}),
        ("Which contracts need 180 days' notice if we don't want them to renew?", {("notice_period_days", "=", 180)}),
    ],
)
def test_a_field_said_to_have_no_value(rules, question, constraints):
    """A field's words after a negation ask for the documents with no value for it, unless a condition follows
    them ("not governed by Delaware law") or the field is a yes/no clause ("no non-compete" is false)."""
    d = rules.decompose(question)
    assert {(c.field, c.op, c.value) for c in d.constraints} == constraints and not d.unmapped


@pytest.mark.parametrize(
    ("question", "constraint"),
    [
        ("How many contracts have a governing law?", ("governing_law", "exists", None)),
        ("List the contracts with an expiration date", ("expiration_date", "exists", None)),
        ("Contracts with an expiration date in 2023?", ("expiration_date", "between", ["2023-01-01", "2023-12-31"])),
    ],
)
def test_a_field_said_to_have_a_value(rules, question, constraint):
    """An outside probe: "how many contracts have a governing law?" counted every contract, read as no condition.
    A field's words after a verb of having, ending the clause, ask for the documents with a value for it."""
    d = rules.decompose(question)
    assert [(c.field, c.op, c.value) for c in d.constraints] == [constraint] and not d.unmapped


def test_a_field_named_with_no_value_read_is_asked_about_not_left_out(rules):
    """An outside probe: "governed by the laws of a US state" counted every contract ("US" read as "us", and the
    law's words taken as no condition): a figure over a whole bucket whose question names a field it takes
    nothing of asks which value, with some of those recorded."""
    d = rules.decompose("How many contracts are governed by the laws of a state?")
    assert not d.constraints and [u.why.split(" (")[0] for u in d.unmapped] == [
        "the question names governing_law but no value of it I could read"
    ]
    assert "Delaware" in d.unmapped[0].why


def test_a_country_and_a_place_excluded_are_the_countrys_places_but_that_one(rules):
    """An outside probe: "the law of a US state other than New York" counted every contract not under New York law,
    Ontario's and China's with them ("US state" read nothing, and a field took the first condition said of it)."""
    us = ["Delaware", "New York", "California", "Illinois", "Massachusetts"]
    d = rules.decompose("How many contracts are governed by the laws of a US state?")
    assert [(c.field, c.op, c.value) for c in d.constraints] == [("governing_law", "in", us)]
    other = rules.decompose("How many contracts are governed by the law of a US state other than New York?")
    assert [(c.field, c.op, c.value) for c in other.constraints] == [
        ("governing_law", "in", [law for law in us if law != "New York"])
    ]
    both = rules.decompose("How many Delaware contracts are governed by US law?")
    assert [(c.field, c.value) for c in both.constraints] == [("governing_law", "Delaware")]


def test_a_negated_date_is_its_opposite(rules):
    """ "Do not expire before 2020" is on or after 2020; "not signed in 2005" outside that year (before, both were
    read as if the negation were not there: a count of the contracts signed in 2005 answered how many were not)."""
    later = rules.decompose("Which contracts do not expire before 2020?")
    assert [(c.field, c.op, c.value) for c in later.constraints] == [("expiration_date", ">=", "2020-01-01")]
    outside = rules.decompose("How many contracts were not signed in 2005?")
    assert [(c.field, c.op, c.value) for c in outside.constraints] == [
        ("agreement_date", "not between", ["2005-01-01", "2005-12-31"])
    ]


def test_a_question_about_a_named_document_that_asks_no_list_is_about_its_text(rules):
    """Its parties and kind say which document; the other words ask about its text (before, it was read as a list
    of documents, and a product the question names made the run ask for a party of that name)."""
    d = rules.decompose("What happens to the Kestrel Analytics license agreement if Kestrel gets acquired?")
    assert d.intent == "qa" and {c.field for c in d.constraints} <= {"parties", "contract_type"} and not d.unmapped
    listed = rules.decompose("Agreements with Kestrel Analytics signed in 2021")
    assert listed.intent == "list"


def test_a_deal_is_a_contract(rules):
    d = rules.decompose("How many deals did we sign in 2021?")
    assert (d.intent, d.buckets, not d.unmapped) == ("count", ["contracts"], True)


def test_what_happens_on_a_clause_asks_for_its_text(clause_rules):
    """ "What happens if a party undergoes a change of control?" asks what the clause says, not which contracts
    have one (before: a list, or a yes/no row for a named contract; an outside probe)."""
    assert clause_rules.decompose("What happens if a party undergoes a change of control?").intent == "qa"


CLAUSES = ("no_solicit_of_employees", "non_compete", "anti_assignment", "non_disparagement")


@pytest.fixture(scope="module")
def clauses():
    rows = [
        ("ACME-SUPPLY AGREEMENT.txt", dict.fromkeys(CLAUSES, True)),
        ("BOREALIS-LICENSE AGREEMENT.txt", dict.fromkeys(CLAUSES, False)),
    ]
    documents = [(doc_id, doc_id, [("properties", row)]) for doc_id, row in rows]
    return RuleDecomposer(FakeCatalog({"contracts": documents}, specs={"contracts": shipped("contracts")}))


@pytest.mark.parametrize(
    ("question", "field", "value"),
    [
        ("Which contracts don't let either side poach employees?", "no_solicit_of_employees", True),
        ("Which contracts say the supplier may not poach our employees?", "no_solicit_of_employees", True),
        ("How many contracts say neither party may disparage the other?", "non_disparagement", True),
        ("Which contracts say no party shall solicit the other's employees?", "no_solicit_of_employees", True),
        ("In how many is a party not allowed to solicit the other's employees?", "no_solicit_of_employees", True),
        ("Which contracts don't have a non-compete?", "non_compete", False),
        ("Which contracts can be assigned without consent?", "anti_assignment", False),  # allowed: no such clause
        ("Which contracts can't be assigned?", "anti_assignment", True),
    ],
)
def test_an_act_a_clause_forbids_said_forbidden_or_allowed_is_that_clause_or_none(clauses, question, field, value):
    """An outside probe: "don't let either side poach employees" listed the contracts without a no-solicit clause,
    "can be assigned ... without consent" those with an anti-assignment clause; another, "neither party may
    disparage the other" counted those without a non-disparagement clause."""
    d = clauses.decompose(question)
    assert [(c.field, c.value) for c in d.constraints if c.field == field] == [(field, value)]


RECIPES = FakeCatalog(
    {
        "recipes": [
            (f"r{i}.txt", f"Recipe {i}", [("properties", {"cuisine": cuisine, "calories": calories})])
            for i, (cuisine, calories) in enumerate([("Italian", 800), ("Italian", 540), ("Thai", 650), ("Thai", 210)])
        ]
    }
)


@pytest.mark.parametrize(
    "question",
    ["What is the average calorie count of the Italian recipes?", "The average count of calories of Italian recipes?"],
)
def test_an_average_of_a_measure_called_a_count_is_an_average(question):
    """The README's own wording, "the average calorie count of the Thai dishes", was read as a count of the dishes
    (the fifteenth outside probe: 3, where the average is 526.67)."""
    d = RuleDecomposer(RECIPES).decompose(question)
    assert (d.intent, d.aggregate, d.unmapped) == ("sum", "avg(calories)", [])
    assert [(c.field, c.value) for c in d.constraints] == [("cuisine", "Italian")]


def test_a_peoples_adjective_no_value_holds_is_asked_about_not_dropped():
    """The recipes set: "korean dishes under 500 calories" listed every cuisine's dishes under 500 calories, "korean"
    (no cuisine holds it) left as a word of the topic."""
    d = RuleDecomposer(RECIPES).decompose("korean dishes under 500 calories")
    assert [u.text for u in d.unmapped] == ["korean dishes"]
    thai = RuleDecomposer(RECIPES).decompose("thai dishes under 500 calories")
    assert thai.unmapped == [] and ("cuisine", "Thai") in [(c.field, c.value) for c in thai.constraints]


def test_total_before_what_a_number_field_measures_is_its_sum():
    """The recipes set: "total calories across all the French recipes" showed the rows and no total."""
    d = RuleDecomposer(RECIPES).decompose("total calories across all the Italian recipes")
    assert (d.intent, d.aggregate) == ("sum", "sum(calories)")
    counted = RuleDecomposer(RECIPES).decompose("how many recipes have a total of more than 500 calories?")
    assert counted.intent == "count"


def test_a_kind_word_no_kind_holds_is_asked_about_when_a_few_documents_have_no_kind():
    """An outside probe: "how many NDAs do we have?" counted all 30 of a user's contracts (none an NDA) because one
    had no kind recorded, so "NDAs" named only the bucket."""
    kinds = ["Supply Agreement"] * 5 + ["License Agreement"] * 4 + [None]
    documents = [
        (f"{n}.txt", f"{n}.txt", [("properties", {"contract_type": kind} if kind else {"governing_law": ["Ohio"]})])
        for n, kind in enumerate(kinds)
    ]
    rules = RuleDecomposer(FakeCatalog({"contracts": documents}, specs={"contracts": shipped("contracts")}))
    assert [u.text for u in rules.decompose("How many NDAs do we have?").unmapped] == ["ndas"]
    assert rules.decompose("How many contracts do we have?").unmapped == []


def test_the_quickest_is_the_shortest_duration():
    """The recipes set: "which is the quickest Mexican dish" listed every Mexican dish ("quickest" read nothing)."""
    timed = FakeCatalog({"recipes": [("r1.txt", "R1", [("properties", {"cuisine": "Mexican", "prep_minutes": 10})])]})
    d = RuleDecomposer(timed).decompose("which is the quickest Mexican dish")
    assert (d.order_by.field, d.order_by.direction, d.limit) == ("prep_minutes", "asc", 1)


@pytest.mark.parametrize(
    "question", ["How many contracts fail to include a cap on liability?", "How many contracts omit a liability cap?"]
)
def test_failing_to_include_or_omitting_a_clause_is_not_having_it(rules, question):
    """Both were counted as having the clause (the fifteenth outside probe: 3 and 8 for 17 of 20)."""
    assert [(c.field, c.value) for c in rules.decompose(question).constraints] == [("cap_on_liability", False)]


@pytest.mark.parametrize(
    ("question", "value"),
    [
        ("How many products are out of stock?", False),
        ("List the shoes that are out of stock", False),
        ("How many products are in stock?", True),
    ],
)
def test_out_of_stock_is_not_in_stock(question, value):
    """ "out of stock" named in_stock by "stock" and counted the products in stock (the fifteenth outside probe: 7
    for 3); the opposite particle negates a field named with one."""
    products = FakeCatalog(
        {
            "products": [
                (f"p{i}", f"Product {i}", [("properties", {"category": category, "in_stock": held})])
                for i, (category, held) in enumerate([("shoes", True), ("shoes", False), ("bags", False)])
            ]
        }
    )
    d = RuleDecomposer(products).decompose(question)
    assert ("in_stock", value) in [(c.field, c.value) for c in d.constraints]


def test_the_fewest_or_most_of_a_named_field_orders_by_it_and_a_field_of_text_is_no_other_fields_extreme():
    """ "Which Thai recipe has the fewest calories?" listed every Thai recipe unordered, "the most servings" found no
    field; "the lowest rating", where one label made rating text, answered with the lowest calories (the fifteenth
    outside probe)."""
    fields = ("cuisine", "calories", "servings", "rating")
    rows = [("Italian", 800, 4, "4.5"), ("Thai", 650, 2, "3.5 stars"), ("Thai", 210, 6, "4.9")]
    catalog = FakeCatalog(
        {
            "recipes": [
                (f"r{i}.txt", f"Recipe {i}", [("properties", dict(zip(fields, row, strict=True)))])
                for i, row in enumerate(rows)
            ]
        }
    )
    rules = RuleDecomposer(catalog)
    fewest = rules.decompose("Which Thai recipe has the fewest calories?")
    assert (fewest.intent, fewest.limit) == ("list", 1)
    assert (fewest.order_by.field, fewest.order_by.direction) == ("calories", "asc")
    most = rules.decompose("Which recipe has the most servings?")
    assert (most.order_by.field, most.order_by.direction) == ("servings", "desc")
    lowest = rules.decompose("Which recipe has the lowest rating?")
    assert lowest.order_by is None and lowest.aggregate is None
    assert rules.decompose("Which recipes have at least 4 servings?").order_by is None


def test_the_lowest_calorie_recipe_is_a_recipe_and_the_lowest_calorie_count_a_figure():
    rules = RuleDecomposer(RECIPES)
    recipe = rules.decompose("What is the lowest calorie recipe?")
    assert (recipe.intent, recipe.limit, recipe.order_by.field, recipe.unmapped) == ("list", 1, "calories", [])
    figure = rules.decompose("What is the lowest calorie count?")
    assert (figure.intent, figure.aggregate, figure.unmapped) == ("sum", "min(calories)", [])


def test_a_question_naming_a_file_by_its_name_is_about_that_document():
    catalog = FakeCatalog({"recipes": [("pad-thai.txt", "Pad Thai", []), ("chili.txt", "Chili", [])]})
    d = RuleDecomposer(catalog).decompose("What does pad-thai.txt say about chili?")
    assert d.doc_ids == ["pad-thai.txt"]


def test_an_average_of_a_number_field_one_bucket_has_is_over_that_bucket():
    """ "What is the average rating?" was read over contracts, the bucket closest in content, which holds no rating
    (the fifteenth outside probe): a figure is computed over the one bucket with the number field it names."""
    catalog = FakeCatalog(
        {
            "recipes": [("r1.txt", "Pad Thai", [("properties", {"cuisine": "Thai", "rating": 4.5})])],
            "contracts": [("c1.txt", "Supply Agreement", [("properties", {"governing_law": "Delaware"})])],
        },
        closeness={"What is the average rating?": {"contracts": 0.6, "recipes": 0.2}},
    )
    d = RuleDecomposer(catalog).decompose("What is the average rating?")
    assert (d.buckets, d.aggregate) == (["recipes"], "avg(rating)")


def test_a_number_right_before_a_number_fields_words_is_its_value():
    """ "Which recipes have 4 servings?" was asked back ("could not match '4'", the fifteenth outside probe)."""
    rows = [{"cuisine": "Thai", "servings": 4}, {"cuisine": "Italian", "servings": 2}]
    catalog = FakeCatalog({"recipes": [(f"r{i}.txt", "R", [("properties", row)]) for i, row in enumerate(rows)]})
    d = RuleDecomposer(catalog).decompose("Which recipes have 4 servings?")
    assert ([(c.field, c.op, c.value) for c in d.constraints], d.unmapped) == ([("servings", "=", 4)], [])


def test_most_orders_only_by_a_field_named_beside_it():
    """ "Which of my endorsement deals brought in the most sales last year?" was ordered by the term's length, whose
    words include "last" (a blind set's question, asked back before "most" was a superlative)."""
    rows = [{"contract_type": "Endorsement Agreement", "term_days": days} for days in (365, 730)]
    catalog = FakeCatalog(
        {"contracts": [(f"c{i}.txt", "C", [("properties", row)]) for i, row in enumerate(rows)]},
        specs={"contracts": shipped("contracts")},
    )
    d = RuleDecomposer(catalog).decompose("Which of my endorsement deals brought in the most sales last year?")
    assert d.order_by is None
