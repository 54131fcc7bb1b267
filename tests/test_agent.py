"""The agent end to end with the RulePlanner on the sample corpus: routes, fallbacks, the cap, clarifications
resumed by every option, a run resumed by a new process from its Postgres checkpoint, and valid citations."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import uuid

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from graph.builder import compile_agent
from graph.checkpointing import SERDE
from graph.context import DEFAULT_CONTEXT, AgentContext
from graph.planners import rule_planner
from graph.services import AgentServices
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import field_specs, sample
from retrievers.postgres import annotations as postgres_annotations
from tests.conftest import fresh_database, make_stack
from tests.test_cli import ragent


@pytest.fixture(scope="module")
def agent(sample_services):
    return compile_agent(sample_services, InMemorySaver(serde=SERDE))


class Run:
    def __init__(self, agent, question: str, context: AgentContext = DEFAULT_CONTEXT):
        self.agent, self.context = agent, context
        self.config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        agent.invoke({"question": question}, self.config, context=context)

    @property
    def state(self):
        return self.agent.get_state(self.config)

    @property
    def interrupt(self):
        return self.state.interrupts[0].value if self.state.interrupts else None

    @property
    def answer(self):
        return self.state.values.get("answer")

    def resume(self, reply):
        self.agent.invoke(Command(resume=reply), self.config, context=self.context)
        return self

    def routes(self) -> list[str]:
        return list(dict.fromkeys(e.route for e in self.state.values.get("evidence", [])))

    def actions(self) -> list[str]:
        return [d.action for d in self.state.values["decisions"]]


def _cited_in_evidence(run: Run) -> bool:
    found = set().union(*(e.envelope.citable() for e in run.state.values["evidence"]))
    docs = {d for d, _, _ in found}
    annotations = {a for _, a, _ in found if a}
    chunks = {c for _, _, c in found if c}
    return all(
        c.doc_id in docs
        and (c.annotation_id is None or c.annotation_id in annotations)
        and (c.chunk_id is None or c.chunk_id in chunks)
        for c in run.answer.citations
    )


def test_structured_list_is_a_table_of_the_matching_rows(agent):
    run = Run(agent, "Which contracts have a notice period under 60 days?")
    assert run.routes() == ["structured"] and run.answer.format == "table"
    assert {r["doc_id"] for r in run.answer.rows} == {"sample-contract-006", "sample-contract-010"}
    assert _cited_in_evidence(run) and len(run.answer.citations) == 2


def test_structured_count_per_field_is_a_figure_with_its_groups(agent):
    run = Run(agent, "How many contracts per governing law?")
    assert run.routes() == ["structured"] and run.answer.format == "figure" and run.answer.value == 10
    assert "| Delaware | 3 |" in run.answer.text and _cited_in_evidence(run)


def test_a_sum_is_derived_from_the_aggregate(agent):
    run = Run(agent, "What is the total amount of invoices in EUR?")
    euro = [
        a.row["amount"]
        for s in sample.load()
        if s.document.bucket == "invoices"
        for a in s.annotations
        if a.row.get("currency") == "EUR"
    ]
    assert run.answer.format == "figure" and run.answer.value == pytest.approx(sum(euro))
    assert "sum(amount)" in run.answer.text and "currency = EUR" in run.answer.text
    assert f"{sum(euro):g}" in run.answer.text or str(round(sum(euro), 2)) in run.answer.text


def test_a_figure_over_a_whole_bucket_comes_from_the_annotations(agent):
    run = Run(agent, "How many receipts are there?")
    receipts = sum(1 for s in sample.load() if s.document.bucket == "receipts")
    assert run.routes() == ["structured"] and run.answer.format == "figure" and run.answer.value == receipts


def test_a_count_no_document_matches_is_zero(agent):
    """An outside probe: "how many contracts put source code in escrow?" asked back "no annotation row matches",
    then found no passage: a count of values the index holds that no document has together is 0, said as such."""
    run = Run(agent, "How many contracts governed by Delaware law were signed in 1990?")
    assert run.interrupt is None and run.answer.format == "figure" and run.answer.value == 0
    assert run.answer.text.startswith("**0**") and "governing_law = Delaware" in run.answer.text


def test_a_count_whose_words_name_nothing_asks_instead_of_answering_with_passages(agent):
    run = Run(agent, "How many contracts do we have with Zanzibar Holdings?")
    assert run.answer is None and run.interrupt["kind"] == "no_low"
    assert "Zanzibar Holdings" in run.interrupt["reason"] and "could not match" in run.interrupt["reason"]
    assert run.state.values["evidence"] == [], "nothing is searched for a figure that cannot be computed"
    meant = [o for o in run.interrupt["options"] if o["choice"] == "narrow"]
    assert meant and all(o["field"] == "parties" for o in meant), "the nearest parties are offered"
    narrowed = run.resume({k: v for k, v in meant[0].items() if k != "label"})
    assert narrowed.answer.format == "figure" and narrowed.answer.value >= 1


def test_long_text_route_answers_with_cited_passages(agent):
    run = Run(agent, "How do I get onto the VPN when working from home?")
    assert run.routes() == ["long_text"] and run.answer.format == "prose"
    assert run.answer.citations[0].doc_id == "sample-generic-002" and _cited_in_evidence(run)
    calls = [e.call.tool for e in run.state.values["evidence"]]
    assert sorted(calls) == ["search_semantic", "search_text"], "the two independent searches run as one parallel step"


def test_hybrid_route_searches_inside_the_documents_the_fields_allow(agent):
    run = Run(agent, "Summarize the limitation of liability in contracts governed by Delaware law")
    assert run.routes()[0] == "hybrid"
    delaware = {
        s.document.doc_id
        for s in sample.load()
        for a in s.annotations
        if "Delaware" in (a.row.get("governing_law") or [])
    }
    hits = {doc_id for e in run.state.values["evidence"] if e.route == "hybrid" for doc_id in e.envelope.doc_ids()}
    assert hits and hits <= delaware
    assert run.answer.format == "prose" and {c.doc_id for c in run.answer.citations} <= delaware


def test_an_empty_list_clarifies_no_low_and_never_falls_back_to_passages(agent):
    run = Run(agent, "Which receipts have a total of more than 100000?")
    assert run.routes() == ["structured"]
    assert run.actions().count("fallback") == 0 and run.interrupt["kind"] == "no_low"
    assert run.interrupt["attempts"][0] == {
        "route": "structured",
        "tool": "annotations_search",
        "bucket": "receipts",
        "status": "no_results",
        "total_hits": 0,
        "total_is_lower_bound": False,
    }


def test_a_scope_without_documents_is_said_in_the_answer_instead_of_asking_where_to_search(agent):
    for question in ("How many invoices are there?", "What does the VPN policy say about working from home?"):
        run = Run(agent, question, AgentContext(scope="nobody-ingested-here"))
        assert run.interrupt is None, "nothing to search is no reason to ask which bucket to search"
        assert run.answer.text.startswith("Scope 'nobody-ingested-here' holds no documents yet")
        assert run.answer.value is None and not run.answer.citations
        assert run.state.values["evidence"] == [] and run.state.values["decisions"] == []
    assert Run(agent, "How many invoices are there?").answer.value == 8, "a scope holding documents is searched"


def test_the_tool_call_cap_is_never_exceeded(agent):
    question = "Why did the zebras migrate across the plains?"
    run = Run(agent, question, AgentContext(max_tool_calls=2))
    assert len(run.state.values["evidence"]) == 2 and run.interrupt["kind"] == "no_low"
    assert all(o["choice"] == "stop" for o in run.interrupt["options"]), "with no calls left only stopping is offered"
    big = Run(agent, question, AgentContext(max_tool_calls=1000))
    assert len(big.state.values["evidence"]) <= 24


def test_no_low_resumed_by_broaden_and_by_stop(agent):
    question = "Which contracts have a notice period of more than 400 days?"
    asked = Run(agent, question)
    assert asked.interrupt["kind"] == "no_low" and {"broaden", "stop"} == {
        o["choice"] for o in asked.interrupt["options"]
    }
    broadened = asked.resume({"choice": "broaden"})
    assert broadened.state.values["decomposition"].constraints == [] and broadened.answer.format == "prose"
    assert broadened.routes()[-1] == "long_text" and _cited_in_evidence(broadened)
    stopped = Run(agent, question).resume({"choice": "stop"})
    assert stopped.answer.format == "stopped"


def test_an_overload_past_the_counting_bound_says_more_than(agent, monkeypatch):
    """A list whose search stopped counting (MATCHES_COUNTED_UP_TO, here with pages of 2 rows) asks to narrow
    it with "more than", not a figure it did not count."""
    monkeypatch.setattr(postgres_annotations, "MATCHES_COUNTED_UP_TO", 1)
    monkeypatch.setattr(rule_planner, "STRUCTURED_ROWS", 2)
    run = Run(agent, "Which contracts have a notice period of at least 30 days?", AgentContext(max_hits=1))
    assert run.interrupt["kind"] == "overload"
    assert run.interrupt["reason"].startswith("more than 2 annotation rows match, more than 1 to list")
    assert [a["total_is_lower_bound"] for a in run.interrupt["attempts"]] == [True]


def test_overload_resumed_by_narrow_export_and_stop(agent, sample_stack):
    context = AgentContext(max_hits=3)
    question = "Which contracts have a notice period of at least 30 days?"
    first = Run(agent, question, context)
    assert first.interrupt["kind"] == "overload" and {"export", "stop"} <= {
        o["choice"] for o in first.interrupt["options"]
    }
    option = next(o for o in first.interrupt["options"] if o["choice"] == "narrow")
    narrowed = first.resume({k: v for k, v in option.items() if k != "label"})
    assert narrowed.answer.format == "table" and 0 < len(narrowed.answer.rows) <= 3
    assert all(r[option["field"]] == option["value"] for r in narrowed.answer.rows)

    exported = Run(agent, question, context).resume({"choice": "export"})
    path = sample_stack.settings.home / exported.answer.export_path
    assert path.parent == sample_stack.settings.home / "exports" and path.suffix == ".csv"
    with path.open() as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == exported.answer.value > 3 and all(
        int(r["notice_period_days"].split(";")[0]) >= 30 for r in rows
    )

    assert Run(agent, question, context).resume({"choice": "stop"}).answer.format == "stopped"


def test_an_invalid_resume_is_asked_again_with_the_reason(agent):
    run = Run(agent, "Which contracts have a notice period of at least 30 days?", AgentContext(max_hits=3))
    run.resume({"choice": "launch the rockets"})
    assert run.answer is None and "cannot be used" in run.interrupt["error"]
    run.resume({"choice": "narrow", "field": "no_such_field", "value": 1})
    assert "narrow needs a field of contracts" in run.interrupt["error"]
    assert run.resume({"choice": "stop"}).answer.format == "stopped"


def test_a_new_process_resumes_the_thread_from_its_postgres_checkpoint(tmp_path):
    env = {**os.environ, "RAGENT_HOME": str(tmp_path), "RAGENT_CACHE_DIR": str(tmp_path / "cache")}
    cli = [sys.executable, "-m", "cli"]
    ingested = subprocess.run(
        [*cli, "ingest", "--dataset", "sample"], env=env, capture_output=True, text=True, timeout=600
    )
    assert ingested.returncode == 0, ingested.stderr
    asked = subprocess.run(
        [
            *cli,
            "ask",
            "Which contracts have a notice period of at least 30 days?",
            "--max-hits",
            "3",
            "--thread",
            "t-1",
            "--scope",
            "sample",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert (
        asked.returncode == 0 and "I need your help (overload)" in asked.stdout and "ragent resume t-1" in asked.stdout
    )
    elsewhere = ragent("resume", "t-1", "--answer", '{"choice": "export"}', "--scope", "team-b", home=tmp_path)
    assert elsewhere.returncode != 0 and "this thread belongs to scope 'sample'" in elsewhere.stderr
    followed = ragent("ask", "How many contracts?", "--thread", "t-1", "--scope", "team-b", home=tmp_path)
    assert followed.returncode != 0 and "cannot continue in 'team-b'" in followed.stderr
    resumed = subprocess.run(
        [
            *cli,
            "resume",
            "t-1",
            "--answer",
            json.dumps({"choice": "narrow", "field": "governing_law", "value": "Delaware"}),
            "--max-hits",
            "3",
            "--explain",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert (
        "| doc_id | notice_period_days | governing_law |" in resumed.stdout and "-- decision: clarify" in resumed.stdout
    )
    again = subprocess.run(
        [*cli, "resume", "t-1", "--answer", '{"choice": "stop"}'], env=env, capture_output=True, text=True, timeout=300
    )
    assert again.returncode != 0 and "not waiting for an answer" in again.stderr
    unknown = subprocess.run(
        [*cli, "resume", "t-unknown", "--answer", "1"], env=env, capture_output=True, text=True, timeout=300
    )
    assert unknown.returncode != 0 and "no thread t-unknown in this data folder" in unknown.stderr


def test_a_clarification_is_explained_and_answered_by_the_number_it_lists(tmp_path):
    assert ragent("ingest", "--dataset", "sample", home=tmp_path).returncode == 0
    question = "Which contracts have a notice period of at least 30 days?"
    asked = ragent(
        "ask", question, "--max-hits", "3", "--thread", "t-2", "--explain", "--scope", "sample", home=tmp_path
    )
    assert "I need your help (overload)" in asked.stdout and "--answer N" in asked.stdout
    assert "-- decomposition: intent=list" in asked.stdout and "-- decision: clarify" in asked.stdout
    first = next(line for line in asked.stdout.splitlines() if line.strip().startswith("[1] only "))
    field, value = first.split("only ", 1)[1].split(" (")[0].split(" = ")
    out_of_range = ragent("resume", "t-2", "--answer", "99", home=tmp_path)
    assert out_of_range.returncode == 2 and "choose an option from 1 to" in out_of_range.stderr
    resumed = ragent("resume", "t-2", "--answer", "1", "--max-hits", "3", home=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    rows = [line for line in resumed.stdout.splitlines() if line.startswith("| ") and "doc_id" not in line]
    assert rows and all(value in row for row in rows) and f"| {field} |" in resumed.stdout


def test_on_real_receipts_and_contracts_answers_match_the_labels(postgres_url, minilm, tmp_path):
    """A count, a sum and a list over SROIE and CUAD labels, asked in words, answered from the annotations."""
    from retrievers.loaders import cuad, sroie
    from retrievers.loaders.normalize import parse_amount
    from tests.conftest import SHARED_DATA, shared_dataset

    shared_dataset("sroie")
    shared_dataset("cuad")
    receipts = [
        json.loads(line) for line in (SHARED_DATA / "sroie" / "derived_receipts.jsonl").read_text().splitlines()[:150]
    ]
    contracts = [s for s in cuad.load(SHARED_DATA / "cuad") if len(s.document.body) < 8000]
    with fresh_database(postgres_url) as url:
        stack = make_stack(url, tmp_path, minilm)
        Ingestor(stack).ingest(
            sroie.load(SHARED_DATA / "sroie", limit=150), field_specs=field_specs("sroie"), progress=False
        )
        Ingestor(stack).ingest(contracts, field_specs=field_specs("cuad"), progress=False)
        try:
            agent = compile_agent(AgentServices(stack), InMemorySaver(serde=SERDE))
            companies = [r["entities"]["company"] for r in receipts]
            busiest = max(set(companies), key=companies.count)
            name = " ".join(busiest.split()[:2]).title()
            mine = [r for r in receipts if name.lower() in r["entities"]["company"].lower()]
            counted = Run(agent, f"How many receipts are from {name}?")
            assert counted.answer.value == len(mine)
            summed = Run(agent, f"What is the total spent at {name}?")
            assert summed.answer.value == pytest.approx(
                sum(parse_amount(r["entities"]["total"]) for r in mine), abs=0.01
            )
            with_law = [s.document.doc_id for s in contracts for a in s.annotations if a.row.get("governing_law")]
            law = max(
                {v for s in contracts for a in s.annotations for v in a.row.get("governing_law", [])},
                key=lambda v: sum(v in a.row.get("governing_law", []) for s in contracts for a in s.annotations),
            )
            listed = Run(agent, f"Which contracts are governed by {law} law?")
            expected = {
                s.document.doc_id for s in contracts for a in s.annotations if law in a.row.get("governing_law", [])
            }
            assert with_law and {r["doc_id"] for r in listed.answer.rows} == expected and _cited_in_evidence(listed)
        finally:
            stack.close()


def test_a_second_question_on_the_same_thread_starts_afresh(agent):
    run = Run(agent, "Which receipts have a total of more than 100000?")
    assert run.interrupt["kind"] == "no_low"
    run.resume({"choice": "stop"})
    run.agent.invoke(
        {"question": "Which contracts have a notice period under 60 days?"}, run.config, context=run.context
    )
    values = run.state.values
    assert [e.route for e in values["evidence"]] == ["structured"] and values["tool_calls"] == 1
    assert values["answer"].format == "table" and {r["doc_id"] for r in values["answer"].rows} == {
        "sample-contract-006",
        "sample-contract-010",
    }


def test_one_process_holds_two_sets_of_engines_and_closes_what_it_opened(agent, stack):
    """Two services side by side in one process, each graph answering from its own corpus; closing a service ends
    the engine threads its tool contexts started (nothing is installed process-wide to forget)."""
    import threading

    contracts = [s for s in sample.load() if s.document.bucket == "contracts"]
    Ingestor(stack).ingest(contracts[:4], field_specs=field_specs("sample"), progress=False)
    question = "How many contracts are there?"
    assert Run(agent, question).answer.value == len(contracts)
    before = set(threading.enumerate())
    with AgentServices(stack) as few:
        assert Run(compile_agent(few, InMemorySaver(serde=SERDE)), question).answer.value == 4
        opened = [t for t in set(threading.enumerate()) - before if t.name.startswith("engine")]
        assert opened, "the tool calls ran on the service's own engine threads"
    for thread in opened:
        thread.join(timeout=10)
    assert not [t for t in opened if t.is_alive()]


def test_a_lookup_whose_rows_hold_no_value_looks_in_those_documents_text_only(agent):
    """The license has no expiry date in its annotations: the run searches its text (inside the documents the
    question names, never the whole bucket) for the words of what an expiration date is ("the initial term ends"),
    and quotes its term ("continues in perpetuity") once, saying no value was read, instead of showing a table of
    empty cells or another contract's passages."""
    run = Run(agent, "When does the software license agreement with Veridian Medical Devices expire?")
    decisions = run.state.values["decisions"]
    assert run.routes() == ["structured", "hybrid"] and "hold no value for expiration_date" in decisions[1].reason
    hybrid = [e.call.arguments["filters"] for e in run.state.values["evidence"] if e.route == "hybrid"]
    assert hybrid and all(f["parties"]["value"] == "Veridian Medical Devices GmbH" for f in hybrid)
    lead, quoted = run.answer.text.splitlines()[:2]
    assert lead.startswith("No expiration_date is recorded for Software License Agreement - Silverleaf Software Ltd")
    assert "continues in perpetuity" in quoted and {c.doc_id for c in run.answer.citations} == {"sample-contract-003"}


def test_a_lookup_of_several_fields_shows_those_recorded_and_quotes_the_text_for_the_rest(agent):
    """The license's governing law is recorded, its expiry not: the table shows the law, and the text of that
    license alone is quoted for the expiry (a table with the asked date blank answered a blind question)."""
    run = Run(
        agent,
        "Which law governs the software license agreement with Veridian Medical Devices, and when does it expire?",
    )
    decisions = run.state.values["decisions"]
    assert run.routes() == ["structured"] and "hold no value for expiration_date;" in decisions[1].reason
    text = run.answer.text
    assert "| California |" in text and "No expiration_date is recorded for Software License Agreement" in text
    assert "continues in perpetuity" in text and {c.doc_id for c in run.answer.citations} == {"sample-contract-003"}


def test_a_question_naming_a_document_searches_that_documents_text_only(agent):
    """A lookup whose row is blank fell back to the whole bucket's passages, then to every other bucket."""
    run = Run(agent, "What does sample-contract-001 say about the payment terms?")
    searches = [e.call for e in run.state.values["evidence"] if e.call.tool.startswith("search_")]
    assert searches and all(c.arguments.get("doc_id") == "sample-contract-001" for c in searches)
    cited = {c.doc_id for c in run.answer.citations} if run.answer else set()
    assert cited <= {"sample-contract-001"}


def test_a_value_looked_up_is_said_with_its_unit(agent):
    """ "How much notice ...?" is answered "45 days", as the user asks it (before: "45" under notice_period_days);
    a list keeps its numbers bare, one unit a column."""
    run = Run(agent, "What is the notice period of the hosting services agreement with Nimbus Hosting?")
    assert run.answer.format == "table" and "| 45 days |" in run.answer.text
    listed = Run(agent, "Which contracts have a notice period under 50 days?")
    assert "| 45 |" in listed.answer.text


def test_days_looked_up_are_also_said_in_the_years_the_contract_wrote(agent):
    """A renewal term of "two (2) years" is stored as 730 days and said "730 days (2 years)" (blind set E: "what's
    the renewal period on ...?" was answered "730 days" where the contract and the user say two years)."""
    run = Run(agent, "What is the renewal term of the supply agreement with Harbor Point?")
    assert run.answer.format == "table" and "| 730 days (2 years) |" in run.answer.text, run.answer.text
