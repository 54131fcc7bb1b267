"""Engine faults in the middle of a run: the keyword index or the vector index unreachable or stalled, Postgres
refusing connections, and a chat model endpoint that errors or stalls. Tools answer `unavailable` or `timeout`,
the agent answers from what it still has or asks, and says which source failed; once the engine is back the
same thread goes on to its answer.

The keyword and vector engines are made to fail by a proxy that raises what their adapters raise for an
unreachable server (or sleeps past the engine timeout); Postgres really refuses: its database is closed to
connections and its sessions are terminated; the chat model is a real HTTP endpoint that answers 500 or stalls.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import psycopg
import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.types import Command
from psycopg.conninfo import conninfo_to_dict

from core.errors import BackendUnavailable
from graph.builder import compile_agent
from graph.checkpointing import CONNECTION_OPTIONS, SERDE
from graph.context import DEFAULT_CONTEXT, AgentContext
from graph.services import AgentServices
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import field_specs, sample
from tests.conftest import fresh_database, make_stack

ENGINE_TIMEOUT_S = 2.0
"""The engines' timeout in this module: a healthy call must stay under it on two busy cores (at 0.5 s a catalog read
of the rules planner timed out once in a full run beside another test worker), a stalled one waits four times it."""
VPN = "How do I get onto the VPN when working from home?"


class Faulty:
    """An engine whose calls fail as an unreachable server's do ("down"), or hang past the timeout ("stall")."""

    def __init__(self, engine, name: str):
        self.engine, self.name, self.fault = engine, name, None

    def __getattr__(self, attribute):
        target = getattr(self.engine, attribute)
        if not callable(target) or attribute == "close":
            return target

        def call(*args, **kwargs):
            if self.fault == "down":
                raise BackendUnavailable(f"{self.name} is unreachable (connection refused)")
            if self.fault == "stall":
                time.sleep(ENGINE_TIMEOUT_S * 4)
            return target(*args, **kwargs)

        return call


@pytest.fixture(scope="module")
def faulty(postgres_url, minilm, tmp_path_factory):
    """The sample corpus on its own database, with fault switches on the keyword and vector engines, and the
    graph checkpointed in another database (as a deployment keeps its checkpoints beside, not inside, the index)."""
    monkey = pytest.MonkeyPatch()
    monkey.setenv("RAGENT_ENGINE_TIMEOUT_S", str(ENGINE_TIMEOUT_S))
    with fresh_database(postgres_url) as store_url, fresh_database(postgres_url) as checkpoint_url:
        stack = make_stack(store_url, tmp_path_factory.mktemp("faults"), minilm)
        Ingestor(stack).ingest(sample.load(), field_specs=field_specs("sample"), progress=False)
        wrapped = replace(
            stack, keyword=Faulty(stack.keyword, "the keyword index"), vectors=Faulty(stack.vectors, "the vector index")
        )
        with psycopg.connect(checkpoint_url, **CONNECTION_OPTIONS) as conn, AgentServices(wrapped) as services:
            saver = PostgresSaver(conn, serde=SERDE)
            saver.setup()
            yield wrapped, compile_agent(services, saver), store_url
        stack.close()
        monkey.undo()


@pytest.fixture(autouse=True)
def engines_back(faulty):
    yield
    faulty[0].keyword.fault = faulty[0].vectors.fault = None


def run(agent, question: str, context: AgentContext = DEFAULT_CONTEXT):
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    agent.invoke({"question": question}, config, context=context)
    return config


@pytest.mark.parametrize(
    "engine, fault, status",
    [
        ("keyword", "down", "unavailable"),
        ("vectors", "down", "unavailable"),
        ("keyword", "stall", "timeout"),
        ("vectors", "stall", "timeout"),
    ],
)
def test_one_search_engine_failing_answers_or_asks_and_says_which_source_failed(faulty, engine, fault, status):
    """With the keyword index gone the semantic hits still answer. With the vector index gone the keyword hits
    alone may not show the passage is relevant (it holds too few of the question's words), and then the run asks,
    naming the failed search and offering to try again."""
    stack, agent, _ = faulty
    getattr(stack, engine).fault = fault
    state = agent.get_state(run(agent, VPN))
    tool = "search_text" if engine == "keyword" else "search_semantic"
    assert {e.call.tool for e in state.values["evidence"] if e.envelope.status == status} == {tool}
    if state.interrupts:
        payload = state.interrupts[0].value
        assert f"{tool} failed" in payload["reason"] and any(
            o["choice"] == "retry" and tool in o["label"] for o in payload["options"]
        )
    else:
        answer = state.values["answer"]
        assert (
            answer.citations[0].doc_id == "sample-generic-002"
            and f"Not every source answered: {tool} ({status}" in answer.text
        )
    if engine == "keyword":
        assert not state.interrupts, "the semantic search alone finds the VPN guide"


def test_every_search_engine_down_asks_and_the_same_thread_completes_once_they_are_back(faulty):
    stack, agent, _ = faulty
    stack.keyword.fault = stack.vectors.fault = "down"
    config = run(agent, VPN)
    payload = agent.get_state(config).interrupts[0].value
    assert payload["kind"] == "no_low" and {a["status"] for a in payload["attempts"]} == {"unavailable"}
    retry = next(o for o in payload["options"] if o["choice"] == "retry")
    assert "search_semantic" in retry["label"] and "search_text" in retry["label"]
    stack.keyword.fault = stack.vectors.fault = None
    agent.invoke(Command(resume={"choice": "retry"}), config, context=AgentContext())
    answer = agent.get_state(config).values["answer"]
    assert answer.citations[0].doc_id == "sample-generic-002" and "Not every source answered" not in answer.text


def _close_database(url: str, allow: bool) -> None:
    """Postgres itself refusing: the database closed to new connections and its sessions terminated."""
    name = conninfo_to_dict(url)["dbname"]
    admin = {**conninfo_to_dict(url), "dbname": "postgres"}
    with psycopg.connect(**admin, autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {str(allow).lower()}')
        if not allow:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (name,),
            )


RECOVERY_S = 30


def test_postgres_refusing_mid_run_stops_the_run_with_a_readable_error_and_the_thread_resumes(faulty):
    stack, agent, store_url = faulty
    config = run(agent, "Which contracts have a notice period of at least 30 days?", AgentContext(max_hits=3))
    narrow = next(o for o in agent.get_state(config).interrupts[0].value["options"] if o["choice"] == "narrow")
    _close_database(store_url, allow=False)
    try:
        with pytest.raises(BackendUnavailable, match="Postgres is unavailable .* run it again once Postgres is back"):
            agent.invoke(
                Command(resume={k: v for k, v in narrow.items() if k != "label"}),
                config,
                context=AgentContext(max_hits=3),
            )
    finally:
        _close_database(store_url, allow=True)
    # As the error says, the user runs the thread again once Postgres is back; the pool's first reconnection may
    # take longer than this test's short engine timeout, so it may take more than one try, each a readable failure.
    deadline = time.monotonic() + RECOVERY_S
    while True:
        try:
            agent.invoke(None, config, context=AgentContext(max_hits=3))
            break
        except BackendUnavailable:
            if time.monotonic() > deadline:
                raise
    rows = agent.get_state(config).values["answer"].rows
    assert rows and all(r[narrow["field"]] == narrow["value"] for r in rows)


class ChatEndpoint(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat endpoint that fails: 500 on every call, or no answer within the timeout."""

    mode = "error"
    calls = 0

    def do_POST(self):
        type(self).calls += 1
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if type(self).mode == "stall":
            time.sleep(3)  # past the client's timeout: it has hung up, so there is no one to answer
            return
        self.send_response(500)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"error": {"message": "upstream exploded", "type": "server_error"}}')

    def log_message(self, *args):
        pass


API_KEY = "sk-ragent-test-secret-4d1e"


@pytest.mark.parametrize("mode", ["error", "stall"])
def test_a_failing_chat_model_leaves_the_planning_to_the_rules_and_its_key_nowhere(faulty, caplog, mode):
    from langchain_openai import ChatOpenAI

    caplog.set_level(logging.INFO)
    stack, _, _ = faulty
    server = ThreadingHTTPServer(("127.0.0.1", 0), ChatEndpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    ChatEndpoint.mode, ChatEndpoint.calls = mode, 0
    model = ChatOpenAI(
        model="any", api_key=API_KEY, base_url=f"http://127.0.0.1:{server.server_port}/v1", timeout=1, max_retries=0
    )
    try:
        with AgentServices(stack, chat_model=model) as services:
            agent = compile_agent(services, InMemorySaver(serde=SERDE))
            state = agent.get_state(
                run(agent, "Which contracts have a notice period under 60 days?", AgentContext(planner="llm"))
            )
    finally:
        server.shutdown()
    assert {r["doc_id"] for r in state.values["answer"].rows} == {"sample-contract-006", "sample-contract-010"}
    assert ChatEndpoint.calls == 1, "after the first failure the breaker keeps the run off the endpoint"
    assert API_KEY not in json.dumps(state.values, default=str) and API_KEY not in caplog.text
