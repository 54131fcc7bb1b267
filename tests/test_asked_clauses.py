"""Clauses users asked about over a folder of their own contracts: read from the text at ingest, so that a blind
question gets the figure and the contracts (before: the field had no value in any unlabelled document, so the agent
asked back)."""

from __future__ import annotations

import uuid

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from graph.builder import compile_agent
from graph.checkpointing import SERDE
from graph.context import AgentContext
from graph.services import AgentServices
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import files

FILLER = "The parties shall cooperate in good faith in all matters relating to the services described herein. " * 30


def contract(title: str, parties: str, clause: str) -> str:
    return (
        f"{title}\n\nThis {title.title()} is made as of June 1, 2004 between {parties}.\n\n"
        "1. Payment. Each invoice shall be paid within thirty (30) days of its date.\n\n"
        f"2. {clause}\n\n" + FILLER
    )


FOLDER = {
    "acme-software-license.txt": contract(
        "SOFTWARE LICENSE AGREEMENT",
        "Acme Software Inc. and Beta Bank N.A.",
        "Escrow. Within sixty (60) days of the Effective Date, Acme shall deposit a copy of the source code of the "
        "Software with a mutually acceptable escrow agent, to be released to Beta if Acme ceases to support it.",
    ),
    "gamma-placement-agency.txt": contract(
        "PLACEMENT AGENCY AGREEMENT",
        "Gamma Securities LLC and Delta Financial Corp.",
        "Subscriptions. The Agent shall transmit all funds received from subscribers to the Escrow Agent by noon of "
        "the next business day following receipt thereof. There are no third-party beneficiaries of this Agreement.",
    ),
    "epsilon-reseller.txt": contract(
        "RESELLER AGREEMENT",
        "Epsilon Health Inc. and Zeta Distribution Ltd.",
        "Software. The Reseller shall not attempt to derive the source code of the Products. Zeta's lender is an "
        "intended third-party beneficiary of this Agreement with the right to enforce it.",
    ),
}


@pytest.fixture
def own_contracts(stack, tmp_path):
    folder = tmp_path / "contracts"
    folder.mkdir()
    for name, text in FOLDER.items():
        (folder / name).write_text(text)
    Ingestor(stack).ingest(files.load(folder, bucket="contracts"), progress=False)
    return stack


def ask(stack, question: str) -> str:
    with AgentServices(stack) as services:
        agent = compile_agent(services, InMemorySaver(serde=SERDE))
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        agent.invoke({"question": question}, config, context=AgentContext(planner="rules"))
        return agent.get_state(config).values["answer"].text


def test_source_code_escrow_is_read_at_ingest_and_answers_which_and_how_many(own_contracts):
    rows = {
        doc_id: row["row"]["source_code_escrow"]
        for doc_id in FOLDER
        for row in own_contracts.store.document_annotations("default", doc_id)
        if row["kind"] == "properties"
    }
    assert rows == {
        "acme-software-license.txt": True,
        "gamma-placement-agency.txt": False,
        "epsilon-reseller.txt": False,
    }
    which = ask(own_contracts, "Which of my contracts have a source code escrow?")
    assert "acme-software-license.txt" in which
    assert "gamma-placement-agency.txt" not in which and "epsilon-reseller.txt" not in which
    how_many = ask(own_contracts, "In how many of my contracts is source code placed in escrow?")
    assert how_many.startswith("**1**")


def test_third_party_beneficiary_is_read_at_ingest_and_answers_which(own_contracts):
    which = ask(own_contracts, "Which of my contracts have a third-party beneficiary?")
    assert "epsilon-reseller.txt" in which
    assert "acme-software-license.txt" not in which and "gamma-placement-agency.txt" not in which
