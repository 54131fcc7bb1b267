"""A bucket a user adds, with fields and words of its own, is understood by the rule planner with no code change:
the bucket's aliases, the fields' aliases and roles (`ragent catalog describe`) and the values in the index are all
the planner reads. Real engines; the expected figures are computed from the rows the test ingests."""

from __future__ import annotations

import uuid

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from core.models import AnnotationRow, Document, SourceDocument
from graph.builder import compile_agent
from graph.context import AgentContext
from graph.services import AgentServices
from retrievers.ingestion.pipeline import Ingestor

ORDERS = [
    ("po-001", "Acme Tools GmbH", 1200.0, "EUR", "2024-02-03", "delivered"),
    ("po-002", "Acme Tools GmbH", 5400.0, "EUR", "2024-05-17", "open"),
    ("po-003", "Borealis Paper Ltd", 320.5, "GBP", "2024-03-09", "delivered"),
    ("po-004", "Cobalt Fasteners Inc.", 9800.0, "USD", "2023-11-30", "cancelled"),
    ("po-005", "Acme Tools GmbH", 75.0, "EUR", "2023-08-21", "delivered"),
    ("po-006", "Cobalt Fasteners Inc.", 410.0, "USD", "2024-06-02", "open"),
]


def _order(doc_id, supplier, total, currency, ordered_on, status) -> SourceDocument:
    body = f"Purchase order {doc_id} to {supplier}: {total} {currency}, ordered {ordered_on}, status {status}."
    row = {"supplier": supplier, "total": total, "currency": currency, "ordered_on": ordered_on, "status": status}
    return SourceDocument(
        document=Document(doc_id=doc_id, bucket="purchase_orders", title=f"PO {doc_id}", body=body),
        annotations=[AnnotationRow(row=row)],
    )


@pytest.fixture
def agent(stack):
    stack.store.add_bucket("purchase_orders", "Purchase orders: supplier, total, currency, order date and status.")
    stack.store.describe("purchase_orders", aliases=["purchase order", "PO", "order"])
    Ingestor(stack).ingest([_order(*o) for o in ORDERS], progress=False)
    describe = stack.store.describe
    describe("purchase_orders", "supplier", aliases=["supplier", "vendor", "from"], role="name")
    describe("purchase_orders", "total", aliases=["total", "worth", "value"], role="money", unit_field="currency")
    describe("purchase_orders", "currency", role="currency")
    describe("purchase_orders", "ordered_on", aliases=["ordered", "placed"])
    with AgentServices(stack) as services:
        yield compile_agent(services, InMemorySaver())


def _ask(agent, question: str) -> dict:
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    agent.invoke({"question": question}, config, context=AgentContext(planner="rules"))
    return agent.get_state(config)


def test_a_users_bucket_and_words_are_understood_without_a_code_change(agent):
    acme = [o for o in ORDERS if o[1].startswith("Acme")]
    counted = _ask(agent, "How many POs do we have from acme tools?")
    assert counted.values["answer"].value == len(acme)

    euros = _ask(agent, "total of the euro purchase orders")
    assert euros.values["answer"].value == pytest.approx(sum(o[2] for o in ORDERS if o[3] == "EUR"))

    biggest = _ask(agent, "biggest purchase order?")
    assert [r["doc_id"] for r in biggest.values["answer"].rows] == [max(ORDERS, key=lambda o: o[2])[0]]
    assert biggest.values["answer"].text.startswith(f"The largest total of {len(ORDERS)} matching row(s)")

    in_2024 = _ask(agent, "which orders were placed in 2024?")
    assert {r["doc_id"] for r in in_2024.values["answer"].rows} == {o[0] for o in ORDERS if o[4].startswith("2024")}


def test_amounts_in_the_users_currencies_are_never_added_together(agent):
    summed = _ask(agent, "what are all our purchase orders worth in total?")
    answer = summed.values["answer"]
    assert answer.value is None and "not added together" in answer.text
    for currency in {o[3] for o in ORDERS}:
        assert f"{sum(o[2] for o in ORDERS if o[3] == currency):g}" in answer.text.replace(",", "")


def test_a_misspelt_supplier_is_found_and_an_unknown_one_is_asked_about(agent):
    misspelt = _ask(agent, "How many POs from Acme Toolz?")
    assert misspelt.values["answer"].value == sum(1 for o in ORDERS if o[1].startswith("Acme"))
    state = _ask(agent, "How many POs from Zenith Widgets?")
    assert state.values.get("answer") is None
    asked = state.interrupts[0].value
    assert asked["kind"] == "no_low" and "could not match 'Zenith Widgets'" in asked["reason"]
    offered = {o.get("value") for o in asked["options"] if o["choice"] == "narrow"}
    assert offered <= {o[1] for o in ORDERS}, "an option offered is a supplier the index holds"
    assert {o["choice"] for o in asked["options"]} >= {"broaden", "stop"}
