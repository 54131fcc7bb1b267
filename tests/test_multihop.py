"""Multi-hop questions on the long-text route: a comparison is searched once per side, and a question about
something a found page only points to gets one follow-up round that looks it up, recorded as a decision.

The corpus is a handful of encyclopedia-style pages written for these tests; `top_k` is kept small so that a
search returns a few pages rather than the whole corpus, as on a real one.
"""

from __future__ import annotations

import uuid

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from core.models import Document, SourceDocument
from graph.builder import compile_agent
from graph.checkpointing import SERDE
from graph.context import AgentContext
from graph.services import AgentServices
from retrievers.ingestion.pipeline import Ingestor
from tests.conftest import fresh_database, make_stack

PAGES = {
    "The Thing of It Is...": (
        "The Thing of It Is... is a 1967 novel by William Goldman about Amos McCracken, a songwriter whose "
        "marriage falls apart during a holiday in Italy."
    ),
    "William Goldman": (
        "William Goldman (1931 - 2018) was an American novelist, playwright and screenwriter who won two Academy "
        "Awards."
    ),
    "Amos McCracken": "Amos McCracken is a fictional songwriter, the lead character of two novels.",
    "Nationality": (
        "Nationality is the legal bond between a person and a state; an author's nationality is the state that issued "
        "their passport, not the language they write in."
    ),
    "Pen name": (
        "A pen name is a name an author publishes under instead of their own; the nationality of an author writing "
        "under a pen name can stay unknown for years."
    ),
    "Annie Morton": (
        "Annie Morton (born October 8, 1970) is a model from Pennsylvania who worked for fashion houses in Paris and "
        "Milan."
    ),
    "Terry Richardson": "Terry Richardson (born August 14, 1965) is a fashion and portrait photographer from New York.",
    "Fashion week": (
        "A fashion week is a week of shows where designers present collections to buyers, press and models."
    ),
}
SMALL_TOP_K = AgentContext(top_k=2)


@pytest.fixture(scope="module")
def agent(postgres_url, minilm, tmp_path_factory):
    pages = [
        SourceDocument(document=Document(doc_id=f"page-{i}", bucket="generic", title=title, body=text))
        for i, (title, text) in enumerate(PAGES.items())
    ]
    with fresh_database(postgres_url) as url:
        stack = make_stack(url, tmp_path_factory.mktemp("pages"), minilm)
        Ingestor(stack).ingest(pages, progress=False)
        try:
            with AgentServices(stack) as services:
                yield compile_agent(services, InMemorySaver(serde=SERDE))
        finally:
            stack.close()


def _run(agent, question: str, context: AgentContext = SMALL_TOP_K) -> dict:
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    agent.invoke({"question": question}, config, context=context)
    return agent.get_state(config).values


def _titles(values: dict) -> set[str]:
    return {h.metadata.title for e in values["evidence"] for h in e.envelope.passages()}


def test_a_comparison_is_searched_for_each_side(agent):
    values = _run(agent, "Who is older, Annie Morton or Terry Richardson?")
    queries = [e.call.arguments["query"] for e in values["evidence"]]
    assert set(queries) == {"Who is older, Annie Morton or Terry Richardson?", "Annie Morton", "Terry Richardson"}
    assert [d.action for d in values["decisions"]] == ["more", "enough"], "the sides are what it compares: no follow-up"
    relevant = {g.doc_id for g in values["graded"] if g.relevant}
    assert {"page-5", "page-6"} <= relevant


def test_a_page_the_question_names_leads_to_a_follow_up_recorded_as_a_decision(agent):
    values = _run(agent, "The author of The Thing of It Is... is what nationality?")
    first_round = values["evidence"][:2]
    assert "William Goldman" not in {h.metadata.title for e in first_round for h in e.envelope.passages()}
    follow_up = values["decisions"][1]
    assert (
        follow_up.action == "more" and "'William Goldman' (on the page of 'The Thing of It Is...')" in follow_up.reason
    )
    assert follow_up.next_calls[0].arguments["query"] == "William Goldman"
    assert "William Goldman" in _titles(values) and values["decisions"][-1].action == "enough"
    assert "page-1" in {g.doc_id for g in values["graded"] if g.relevant}
    assert "page-1" in {c.doc_id for c in values["answer"].citations}


def test_the_follow_up_stays_within_the_tool_call_cap(agent):
    values = _run(
        agent, "The author of The Thing of It Is... is what nationality?", AgentContext(top_k=2, max_tool_calls=3)
    )
    assert values["tool_calls"] == 3 and len(values["decisions"][1].next_calls) == 1
    spent = _run(
        agent, "The author of The Thing of It Is... is what nationality?", AgentContext(top_k=2, max_tool_calls=2)
    )
    assert spent["tool_calls"] == 2 and [d.action for d in spent["decisions"]] == ["more", "enough"]
