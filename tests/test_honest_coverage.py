"""Honest coverage: a figure, list or grouping over annotation fields says how many documents of the bucket have no
value for a field it depends on, or no annotation row at all, instead of leaving them out silently; with every
document labelled it says nothing more. The folder is the sample's contracts and receipts with some unlabelled, as a
user's is when some files were ingested without annotations."""

from __future__ import annotations

import uuid

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from graph.builder import compile_agent
from graph.checkpointing import SERDE
from graph.context import AgentContext
from graph.services import AgentServices
from tests.conftest import fresh_database, make_stack

UNLABELLED_CONTRACTS = {"sample-contract-008", "sample-contract-009", "sample-contract-010"}
UNLABELLED_RECEIPTS = {"sample-receipt-007", "sample-receipt-008"}


def _partly_labelled():
    from retrievers.loaders import sample

    for source in sample.load():
        if source.document.bucket not in ("contracts", "receipts"):
            continue
        if source.document.doc_id in UNLABELLED_CONTRACTS | UNLABELLED_RECEIPTS:
            source = source.model_copy(update={"annotations": []})
        yield source


@pytest.fixture(scope="module")
def partly_labelled(postgres_url, minilm, tmp_path_factory):
    from retrievers.ingestion.pipeline import Ingestor
    from retrievers.loaders import field_specs

    with fresh_database(postgres_url) as url:
        stack = make_stack(url, tmp_path_factory.mktemp("partly"), minilm)
        Ingestor(stack).ingest(_partly_labelled(), field_specs=field_specs("sample"), progress=False)
        yield stack
        stack.close()


def ask(stack, question: str):
    with AgentServices(stack) as services:
        agent = compile_agent(services, InMemorySaver(serde=SERDE))
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        agent.invoke({"question": question}, config, context=AgentContext(planner="rules"))
        return agent.get_state(config).values["answer"]


def test_a_count_with_no_condition_counts_every_document_labelled_or_not(partly_labelled):
    """It counted the documents with annotation rows (7, saying that 3 were left out): "how many documents are in
    generic?" answered 0 of 11 (the fifteenth outside probe). A count with no condition needs no field."""
    assert (
        ask(partly_labelled, "How many contracts are there?").text
        == "**10**: count over 10 documents of bucket contracts."
    )


def test_a_count_by_a_field_names_the_documents_with_no_annotation_rows(partly_labelled):
    text = ask(partly_labelled, "How many contracts are there per governing law?").text
    assert "3 of the 10 contracts have no governing_law recorded" in text


def test_a_list_names_the_documents_with_no_value_for_its_condition(partly_labelled):
    text = ask(partly_labelled, "Which contracts have a notice period under 60 days?").text
    # 3 contracts have no rows, and 3 labelled ones state no notice period
    assert text.startswith("1 matching row(s):")
    assert text.splitlines()[-1] == "6 of the 10 contracts have no notice_period_days recorded and are not listed."


def test_a_superlative_names_the_documents_with_no_value_it_could_not_compare(partly_labelled):
    """An outside probe: "which contract is the latest expiring?" said "of 30 matching row(s)" where 19 had no
    expiration date, as if all 30 had been compared."""
    text = ask(partly_labelled, "Which receipt has the largest total?").text
    assert text.startswith("The largest total of")
    assert text.splitlines()[-1] == "2 of the 8 receipts have no total recorded and are not compared."


def test_a_list_no_row_matches_says_how_many_documents_have_no_value_to_match(partly_labelled):
    """An outside probe: "which contracts have a notice period under 60 days?" said "no annotation row matches"
    where 28 of its 30 contracts had no notice period recorded."""
    with AgentServices(partly_labelled) as services:
        agent = compile_agent(services, InMemorySaver(serde=SERDE))
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        question = {"question": "Which contracts have a notice period under 5 days?"}
        agent.invoke(question, config, context=AgentContext(planner="rules"))
        reason = agent.get_state(config).values["decisions"][-1].reason
    assert reason.startswith("no annotation row matches the constraints (6 of the 10 contracts have no ")
    assert "notice_period_days recorded and are not matched)" in reason


def test_a_sum_and_an_average_name_the_documents_with_no_value_for_the_measured_field(partly_labelled):
    assert ask(partly_labelled, "What is the total of all receipts?").text == (
        "**571.33**: sum(total) over 6 documents of bucket receipts. "
        "2 of the 8 receipts have no total recorded and are not counted."
    )
    assert ask(partly_labelled, "What is the average notice period of contracts?").text == (
        "**67.5**: avg(notice_period_days) over 4 documents of bucket contracts. "
        "6 of the 10 contracts have no notice_period_days recorded and are not counted."
    )
    # a whole number reads as one (before: "**90.0**")
    assert ask(partly_labelled, "What is the longest notice period of contracts?").text.startswith(
        "**90**: max(notice_period_days) over 4 documents of bucket contracts."
    )


def test_a_grouping_and_a_negated_condition_name_the_documents_with_no_value_for_their_field(partly_labelled):
    grouped = ask(partly_labelled, "How many contracts per governing law?").text
    assert grouped.splitlines()[0] == (
        "**7**: count over 7 documents of bucket contracts. "
        "3 of the 10 contracts have no governing_law recorded and are not counted."
    )
    assert ask(partly_labelled, "How many contracts are not under New York law?").text == (
        "**5**: count over 5 documents of bucket contracts where governing_law != New York. "
        "3 of the 10 contracts have no governing_law recorded and are not counted."
    )


@pytest.mark.parametrize(
    "question",
    [
        "How many contracts are there?",
        "What is the total of all receipts?",
        "How many contracts per governing law?",
        "How many contracts are not under New York law?",
    ],
)
def test_with_every_document_labelled_nothing_is_added(sample_stack, question):
    assert "recorded" not in ask(sample_stack, question).text


def test_the_tools_say_how_many_documents_lack_each_field_within_a_doc_id_list(partly_labelled):
    from tools.context import ToolContext
    from tools.registry import call_tool

    context = ToolContext(partly_labelled)
    among = ["sample-contract-001", "sample-contract-006", "sample-contract-009", "no-such-contract"]
    counted = call_tool(
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "count", "group_by": ["governing_law"], "doc_id": among},
        context,
    )
    # three of the four ids are contracts of the bucket; 009 has no rows
    assert counted["coverage"] == {
        "documents": 3,
        "missing": {},
        "ungrouped": {"governing_law": 1},
        "unannotated": 1,
        "extracted": {},  # the sample's values are labels
        "by_model": {},
        "rules_right_percent": {},
        "rules_measured_on": "",
        "unrecorded": {},
    }
    listed = call_tool(
        "annotations_search",
        {"bucket": "contracts", "predicates": {"notice_period_days": {"op": "<", "value": 60}}},
        context,
    )
    assert listed["coverage"] == {
        "documents": 10,
        "missing": {"notice_period_days": 6},
        "ungrouped": {},
        "unannotated": None,
        "extracted": {},
        "by_model": {},
        "rules_right_percent": {},
        "rules_measured_on": "",
        "unrecorded": {},
    }


def test_a_question_for_the_documents_with_no_value_finds_them_and_says_whom_it_leaves_out(partly_labelled):
    """ "Which contracts have no notice period?": the labelled contracts that state none (before, the passages of
    contracts that state one were the answer), and the contracts with no annotation row at all, which no row can
    show, said to be left out rather than silently missing."""
    listed = ask(partly_labelled, "Which contracts have no notice period?").text
    assert listed.startswith("3 matching row(s):")
    assert listed.splitlines()[-1] == "3 of the 10 contracts have no annotation rows and are not listed."
    counted = ask(partly_labelled, "How many of the contracts don't say what notice period they need?").text
    assert counted == (
        "**3**: count over 3 documents of bucket contracts where no notice_period_days recorded. "
        "3 of the 10 contracts have no annotation rows and are not counted."
    )


def test_an_answer_over_documents_with_no_value_read_says_the_rules_may_have_missed_one():
    from graph.answer.computed import left_out
    from tools.envelope import Coverage

    unread = Coverage(documents=40, extracted={"governing_law": 33}, unrecorded={"governing_law": 7})
    assert left_out(unread, "contracts", "listed").endswith(
        "A document with no governing_law recorded may still state one the rules did not read."
    )


def test_a_figure_says_which_of_its_values_were_read_from_the_text_how_many_by_the_model_and_how_often_right():
    """A figure over values found in the text says so, with how many the model read and, for a shipped rule, how
    often its values were right on labelled documents it was not tuned on: 13 contracts "with a non-compete" read
    by rules right three times in five is not a figure to trust like a labelled one."""
    from graph.answer.computed import left_out
    from retrievers.extraction.calibration import rule_precision
    from tools.envelope import Coverage

    recipes = Coverage(documents=40, missing={"cuisine": 8}, extracted={"cuisine": 32}, by_model={"cuisine": 3})
    assert left_out(recipes, "recipes", "counted") == (
        "8 of the 40 recipes have no cuisine recorded and are not counted. Values read from the documents' text, not "
        "labelled: cuisine in 32 (3 by the chat model) (`ragent documents show` quotes each)."
    )
    right = rule_precision("contracts", "non_compete")
    assert right is not None and right < 0.8
    clauses = Coverage(
        documents=40,
        missing={"non_compete": 1},
        extracted={"non_compete": 39},
        rules_right_percent={"non_compete": round(100 * right)},
        rules_measured_on="CUAD's labelled contracts",
    )
    assert f"non_compete in 39 (the rules right {right:.0%} of the time)" in left_out(clauses, "contracts", "counted")
    assert left_out(clauses, "contracts", "counted").endswith(
        "How often the rules are right was measured on CUAD's labelled contracts they were not tuned on."
    )


def test_the_rules_precision_was_measured_for_the_rules_as_they_are():
    """`RULES_VERSION` is bumped when a rule finds differently; the precision every answer quotes must then be
    measured again (`python -m evals.extraction.calibration`), or it would describe rules that are gone."""
    from retrievers.extraction.calibration import calibration
    from retrievers.extraction.rules import RULES_VERSION, rules_of

    assert calibration().rules_version == RULES_VERSION
    assert set(calibration().precision["contracts"]) <= set(rules_of("contracts"))  # the learned clauses' too


def _tickets_lookup(intent: str):
    """The table for a named contract's row, found by its party after a search with a kind condition found none (as
    `RulePlanner._by_name` does): the first search's coverage names contract_type, the second's only parties."""
    from graph.answer.computed import table
    from graph.decomposition import Constraint, Decomposition
    from graph.schemas import Evidence, GradedHit, ToolCall
    from tools.envelope import AnnotationHit, Coverage, Envelope, RowMetadata

    row = {"parties": ["Tickets.com, Inc."], "expiration_date": "2000-02-17"}
    kind, party = {"op": "=", "value": "Sponsorship Agreement"}, {"op": "=", "value": "Tickets.com, Inc."}
    found = AnnotationHit(doc_id="tickets", annotation_id="t-0", row=row, metadata=RowMetadata(kind="properties"))
    searches = [
        ({"contract_type": kind, "parties": party}, [], {"contract_type": 9, "parties": 10}),
        ({"parties": party}, [found], {"parties": 10}),
    ]
    evidence = [
        Evidence(
            step=step,
            attempt=0,
            route="structured",
            call=ToolCall(tool="annotations_search", arguments={"bucket": "contracts", "predicates": predicates}),
            envelope=Envelope(
                status="ok" if hits else "no_results",
                hits=hits,
                total_hits=len(hits),
                coverage=Coverage(documents=59, missing=missing, extracted={"parties": 49}),
            ),
        )
        for step, (predicates, hits, missing) in enumerate(searches)
    ]
    d = Decomposition(
        question="q",
        intent=intent,
        buckets=["contracts"],
        constraints=[Constraint(bucket="contracts", field="parties", op="=", value="Tickets.com, Inc.")],
        show_fields=["expiration_date"],
    )
    relevant = [GradedHit(doc_id="tickets", annotation_id="t-0", relevant=True, why="row", row=row)]
    return table(d, evidence, relevant).text.splitlines()[-1]


def test_a_lookup_that_found_its_named_document_does_not_list_the_buckets_other_documents_left_out():
    """ "When does the Tickets.com sponsorship agreement end?" ended "Of the 59 contracts, 9 have no contract_type
    recorded and 10 no parties recorded; they are not listed": beside the point for the one contract asked about,
    and naming a condition the search that found it had dropped. What the values rest on is still said."""
    assert _tickets_lookup("lookup") == (
        "Values read from the documents' text, not labelled: parties in 49 (`ragent documents show` quotes each)."
    )
    assert _tickets_lookup("list") == (
        "10 of the 59 contracts have no parties recorded and are not listed. Values read from the documents' text, "
        "not labelled: parties in 49 (`ragent documents show` quotes each)."
    )


def test_a_superlative_shows_every_row_tied_with_the_one_asked_for():
    """An outside probe: "which recipe has the highest rating?" showed butter chicken (4.9) alone, though carbonara
    is rated 4.9 too: one of two picked by the index's order. The rows tied with the last one asked for are shown,
    and the heading says how many tie."""
    from graph.answer.computed import table
    from graph.decomposition import Decomposition, OrderBy
    from graph.schemas import Evidence, GradedHit, ToolCall
    from tools.envelope import AnnotationHit, Envelope, RowMetadata

    ratings = {"butter-chicken": 4.9, "carbonara": 4.9, "tacos": 3.8}
    hits = [
        AnnotationHit(doc_id=doc, annotation_id=f"{doc}-0", row={"rating": r}, metadata=RowMetadata(kind="properties"))
        for doc, r in ratings.items()
    ]
    call = ToolCall(tool="annotations_search", arguments={"bucket": "recipes", "predicates": {}})
    found = Envelope(status="ok", hits=hits, total_hits=16)
    evidence = [Evidence(step=0, attempt=0, route="structured", call=call, envelope=found)]
    relevant = [
        GradedHit(doc_id=h.doc_id, annotation_id=h.annotation_id, relevant=True, why="row", row=h.row) for h in hits
    ]
    d = Decomposition(
        question="Which recipe has the highest rating?",
        intent="list",
        buckets=["recipes"],
        show_fields=["rating"],
        order_by=OrderBy(field="rating", direction="desc"),
        limit=1,
    )
    answer = table(d, evidence, relevant)
    assert answer.text.splitlines()[0] == "The largest rating of 16 matching row(s), 2 tied:"
    assert [r["doc_id"] for r in answer.rows] == ["butter-chicken", "carbonara"]
