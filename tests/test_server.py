"""The agent behind a real LangGraph server: `ragent serve` (which runs `langgraph dev` from `langgraph.json`)
started by the test on a free port, and driven over HTTP through `langgraph_sdk` as a client application would:
answers, a clarification resumed with a command, streamed progress, threads that outlive a restart in Postgres,
and 20 threads at once."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
from pathlib import Path

import httpx
import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli.main import main
from graph.langgraph_dev import WAKEUP_BANNER
from retrievers.loaders import sample
from tests.conftest import served_on_a_fresh_database

PROJECT_FOLDER = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def project_before():
    """The project folder's top level and the mtime of LangGraph's own folder there, before any server starts."""
    runtime_folder = PROJECT_FOLDER / ".langgraph_api"
    return set(PROJECT_FOLDER.iterdir()), runtime_folder.stat().st_mtime if runtime_folder.exists() else None


@pytest.fixture(scope="module")
def server(postgres_url, tmp_path_factory, project_before):
    with served_on_a_fresh_database(postgres_url, tmp_path_factory.mktemp("served")) as served:
        yield served


@pytest.fixture
def client(server):
    return server.client()


EURO_TOTAL = sum(
    a.row["amount"]
    for s in sample.load()
    if s.document.bucket == "invoices"
    for a in s.annotations
    if a.row.get("currency") == "EUR"
)
QUESTIONS = {
    "Which contracts have a notice period under 60 days?": lambda answer: (
        {r["doc_id"] for r in answer["rows"]} == {"sample-contract-006", "sample-contract-010"}
    ),
    "How many contracts per governing law?": lambda answer: (
        answer["value"] == 10 and "| Delaware | 3 |" in answer["text"]
    ),
    "What is the total amount of invoices in EUR?": lambda answer: answer["value"] == pytest.approx(EURO_TOTAL),
    "How do I get onto the VPN when working from home?": lambda answer: (
        answer["citations"][0]["doc_id"] == "sample-generic-002"
    ),
}


def ask(client, question: str, **run_options) -> tuple[str, dict]:
    thread = client.threads.create()["thread_id"]
    return thread, client.runs.wait(thread, "agent", input={"question": question}, **run_options)


def test_studio_gets_forms_for_the_input_the_output_and_the_runtime_context(client):
    assistant = client.assistants.search(graph_id="agent")[0]
    schemas = client.assistants.get_schemas(assistant["assistant_id"])
    assert {"question", "messages"} == set(schemas["input_schema"]["properties"]), "a question, or a chat"
    assert not schemas["input_schema"].get("required")
    assert {"answer", "decisions", "route", "plan", "messages"} <= set(schemas["output_schema"]["properties"])
    context = schemas["context_schema"]["properties"]
    assert {"scope", "planner", "max_tool_calls", "min_hits", "max_hits", "top_k", "max_catalog_reads"} == set(context)
    assert context["planner"]["enum"] == ["auto", "rules", "llm"]


def test_a_question_over_http_is_answered_with_citations(client):
    thread, output = ask(client, "Which contracts have a notice period under 60 days?")
    answer = output["answer"]
    assert answer["format"] == "table" and QUESTIONS["Which contracts have a notice period under 60 days?"](answer)
    assert {c["doc_id"] for c in answer["citations"]} == {"sample-contract-006", "sample-contract-010"}
    assert output["route"]["kind"] == "structured" and output["decisions"][-1]["action"] == "enough"
    assert client.threads.get(thread)["status"] == "idle"


def test_a_clarification_interrupts_the_thread_and_a_command_resumes_it(client):
    thread, _ = ask(client, "Which contracts have a notice period of at least 30 days?", context={"max_hits": 3})
    waiting = client.threads.get(thread)
    assert waiting["status"] == "interrupted"
    [payload] = [i["value"] for interrupts in waiting["interrupts"].values() for i in interrupts]
    assert payload["kind"] == "overload" and {"narrow", "export", "stop"} <= {o["choice"] for o in payload["options"]}
    narrow = next(o for o in payload["options"] if o["choice"] == "narrow")
    output = client.runs.wait(
        thread, "agent", command={"resume": {k: v for k, v in narrow.items() if k != "label"}}, context={"max_hits": 3}
    )
    rows = output["answer"]["rows"]
    assert output["answer"]["format"] == "table" and 0 < len(rows) <= 3
    assert all(r[narrow["field"]] == narrow["value"] for r in rows)
    assert client.threads.get(thread)["status"] == "idle"
    with pytest.raises(httpx.HTTPStatusError) as late:
        client.runs.wait(thread, "agent", command={"resume": {"choice": "stop"}})
    assert late.value.response.status_code == 409 and "is not waiting for an answer" in late.value.response.text
    assert client.threads.get_state(thread)["values"]["answer"]["rows"] == rows, "the refused resume changed nothing"


def test_a_streamed_run_shows_every_node_decision_and_each_tool_call(client):
    thread = client.threads.create()["thread_id"]
    parts = list(
        client.runs.stream(
            thread,
            "agent",
            input={"question": "Summarize the limitation of liability in contracts governed by Delaware law"},
            stream_mode=["updates", "custom"],
        )
    )
    updates = [p.data for p in parts if p.event == "updates"]
    tools = [p.data for p in parts if p.event == "custom"]
    nodes = [node for update in updates for node in update]
    assert {"decompose", "route", "plan", "review", "retrieve", "grade", "compose"} <= set(nodes)
    assert all(update[node] is not None for update in updates for node in update), (
        "every node's update carries its decision"
    )
    route = next(u["route"]["route"] for u in updates if "route" in u)
    assert route["kind"] == "hybrid"
    state = client.threads.get_state(thread)["values"]
    assert [(t["tool"], t["status"], t["total_hits"]) for t in tools] == [
        (e["call"]["tool"], e["envelope"]["status"], e["envelope"]["total_hits"]) for e in state["evidence"]
    ]
    assert len(tools) == state["tool_calls"] > 0 and nodes[-1] == "compose"


def test_documents_reach_a_running_server_through_the_ingest_graph(server, client):
    folder = server.home / "inbox" / "sample" / "handbook"
    folder.mkdir(parents=True)
    (folder / "parking.md").write_text(
        "# Parking\nVisitors park in the zorblatt garage behind building C; the gate code is at reception."
    )
    thread = client.threads.create()["thread_id"]
    report = client.runs.wait(thread, "ingest", input={"path": "handbook", "bucket": "generic"})
    assert report["added"] == 1 and report["chunks"] == 1 and not report["skipped"]
    _, output = ask(client, "Where do visitors park in the zorblatt garage?")
    assert output["answer"]["citations"][0]["doc_id"].endswith("parking.md")
    refused = client.runs.wait(
        client.threads.create()["thread_id"], "ingest", input={"path": "/etc", "bucket": "generic"}, raise_error=False
    )
    assert "/etc is outside the folders this server ingests from" in refused["__error__"]["message"]


def test_a_run_input_key_its_graph_does_not_take_is_refused_and_an_ingest_takes_a_limit(server, client):
    folder = server.home / "inbox" / "sample" / "notes"
    folder.mkdir(parents=True)
    for n in range(3):
        (folder / f"note-{n}.md").write_text(f"# Note {n}\nThe quarterly gate code rotation, part {n}.")
    thread = client.threads.create()["thread_id"]
    for graph, run_input in [
        ("ingest", {"path": "notes", "bucket": "generic", "limitt": 1}),
        ("agent", {"question": "How many contracts?", "scopee": "x"}),
    ]:
        with pytest.raises(httpx.HTTPStatusError) as refused:
            client.runs.wait(thread, graph, input=run_input)
        assert refused.value.response.status_code == 422
        assert f"the {graph} graph takes no input" in refused.value.response.text
    assert not client.runs.list(thread), "nothing ran"
    report = client.runs.wait(thread, "ingest", input={"path": "notes", "bucket": "generic", "limit": 2})
    assert report["added"] == 2
    bad = client.runs.wait(
        client.threads.create()["thread_id"], "ingest", input={"path": "notes", "limit": 0}, raise_error=False
    )
    assert "limit 0 is not a number of documents" in bad["__error__"]["message"]


def test_documents_are_listed_shown_and_deleted_through_the_documents_graph(server, client):
    assert "(graphs: agent, agent_single_loop, ingest, documents;" in server.log.read_text()
    folder = server.home / "inbox" / "sample" / "rota"
    folder.mkdir(parents=True)
    (folder / "kitchen.md").write_text("# Kitchen rota\nThe quillfeather team cleans the kitchen on Thursdays.")

    def documents(**request):
        return client.runs.wait(client.threads.create()["thread_id"], "documents", input=request, raise_error=False)

    report = client.runs.wait(
        client.threads.create()["thread_id"], "ingest", input={"path": "rota", "bucket": "generic"}
    )
    assert report["added"] == 1
    listed = documents(action="list", bucket="generic", limit=1000)
    (rota,) = [d for d in listed["documents"] if d["doc_id"].endswith("kitchen.md")]
    assert listed["scope"] == "sample" and rota["chunks"] == 1 and rota["title"]
    assert "quillfeather" in documents(action="show", doc_ids=[rota["doc_id"]])["document"]["body"]
    _, before = ask(client, "Which team cleans the kitchen, the quillfeather team?")
    assert rota["doc_id"] in {c["doc_id"] for c in before["answer"]["citations"]}

    deleted = documents(action="delete", doc_ids=[rota["doc_id"], "no-such-document"])
    assert [d["doc_id"] for d in deleted["deleted"]] == [rota["doc_id"]] and deleted["not_found"] == [
        "no-such-document"
    ]
    assert documents(action="list", bucket="generic", limit=1000)["total"] == listed["total"] - 1
    _, after = ask(client, "Which team cleans the kitchen, the quillfeather team?")
    assert rota["doc_id"] not in json.dumps(after)
    for request, reason in [
        ({"action": "shred"}, "action must be one of list, show, delete"),
        ({"action": "list", "limit": 0}, "limit must be a whole number from 1 to 10000"),
        ({"action": "show", "doc_ids": "x"}, "doc_ids must be a list of document ids"),
        ({"action": "delete", "doc_ids": ["a\u0000b"]}, "'a\\x00b' is not a document id"),
        ({"action": "delete", "doc_ids": [7]}, "'7' is not a document id"),
        ({"action": "delete"}, "nothing to delete: name the documents"),
        ({"action": "list", "bucket": "recipes"}, "bucket 'recipes' is unknown"),
    ]:
        assert reason in documents(**request)["__error__"]["message"], request


def test_threads_outlive_a_server_restart_in_postgres(server, client):
    answered, before = ask(client, "How many contracts per governing law?")
    waiting, _ = ask(client, "Which contracts have a notice period of more than 400 days?")
    server.stop()
    with psycopg.connect(server.env["DATABASE_URL"]) as conn:
        stored = conn.execute(
            "SELECT count(DISTINCT thread_id) FROM checkpoints WHERE thread_id = ANY(%s)", ([answered, waiting],)
        ).fetchone()[0]
    assert stored == 2, "both threads are checkpointed in Postgres"
    server.start()
    restarted = server.client()
    assert restarted.threads.get_state(answered)["values"]["answer"] == before["answer"]
    assert restarted.threads.get(waiting)["status"] == "interrupted"
    output = restarted.runs.wait(waiting, "agent", command={"resume": {"choice": "stop"}})
    assert output["answer"]["format"] == "stopped"


def test_twenty_threads_at_once_all_get_correct_answers(server):
    questions = [q for _ in range(5) for q in QUESTIONS]

    async def ask_all() -> list[dict]:
        client = server.async_client()

        async def one(question: str) -> dict:
            thread = await client.threads.create()
            return await client.runs.wait(thread["thread_id"], "agent", input={"question": question}, raise_error=True)

        return await asyncio.gather(*(one(q) for q in questions))

    outputs = asyncio.run(ask_all())
    assert len(outputs) == 20
    wrong = [q for q, output in zip(questions, outputs, strict=True) if not QUESTIONS[q](output["answer"])]
    assert not wrong


def test_the_server_writes_nothing_inside_the_project_folder(server, project_before):
    """The runtime's thread index and every engine's files live in the server's home, not in the project."""
    entries, runtime_mtime = project_before
    runtime_folder = PROJECT_FOLDER / ".langgraph_api"
    assert (server.home / "server" / ".langgraph_api").is_dir() and (server.home / "tantivy").is_dir()
    assert set(PROJECT_FOLDER.iterdir()) == entries
    assert (runtime_folder.stat().st_mtime if runtime_folder.exists() else None) == runtime_mtime


@pytest.mark.parametrize(
    "run_input, context, reason",
    [
        ({"question": "x" * 3000}, {}, "the question is 3000 characters; the limit is 2000"),
        ({"question": "   "}, {}, "the question must be non-empty text"),
        ({"question": "How many receipts from a\x01b?"}, {}, "the question holds a control character (U+0001"),
        ({"question": "Which contracts?"}, {"max_tool_calls": "8"}, "Input should be a valid integer"),
        ({"question": "Which contracts?"}, {"top_k": 10**9}, "less than or equal to 50"),
    ],
)
def test_a_bad_run_input_fails_the_run_with_a_clear_error(client, run_input, context, reason):
    thread = client.threads.create()["thread_id"]
    output = client.runs.wait(thread, "agent", input=run_input, context=context, raise_error=False)
    assert reason in output["__error__"]["message"] and "Traceback" not in output["__error__"]["message"]
    assert client.threads.get(thread)["status"] == "error"


def test_a_question_with_an_unpaired_surrogate_is_refused_before_a_run_starts(server, client):
    """JSON may escape a lone surrogate ("\\udcff"), which no Postgres text or JSON column takes (the CLI refuses
    one in its own words); the SDK will not send one, so the request is written by hand."""
    thread = client.threads.create()["thread_id"]
    response = httpx.post(
        f"{server.url}/threads/{thread}/runs/wait",
        content=b'{"assistant_id": "agent", "input": {"question": "\\udcffHow many receipts?"}}',
        headers={"x-api-key": server.api_key, "content-type": "application/json"},
        timeout=60,
    )
    assert response.status_code in (400, 422) and "Invalid JSON" in response.text, response.text
    assert client.threads.get(thread)["status"] == "idle" and not client.runs.list(thread)


def test_a_malformed_scope_is_refused_before_the_run_starts(client):
    thread = client.threads.create()["thread_id"]
    with pytest.raises(httpx.HTTPStatusError) as refused:
        client.runs.wait(thread, "agent", input={"question": "Which contracts?"}, context={"scope": "../other"})
    assert refused.value.response.status_code == 422 and "scope '../other' is not valid" in refused.value.response.text
    assert client.threads.get(thread)["status"] == "idle"


def test_a_scope_without_documents_is_said_in_the_answer_over_http(client):
    thread = client.threads.create(metadata={"scope": "nothing-ingested"})["thread_id"]
    output = client.runs.wait(thread, "agent", input={"question": "How many invoices are there?"})
    assert output["answer"]["text"].startswith("Scope 'nothing-ingested' holds no documents yet")
    assert client.threads.get(thread)["status"] == "idle", "answered, not waiting for a clarification"


def test_a_request_body_over_one_megabyte_is_refused(server):
    thread = server.client().threads.create()["thread_id"]
    response = httpx.post(
        f"{server.url}/threads/{thread}/runs/wait",
        json={"assistant_id": "agent", "input": {"question": "x" * 2_000_000}},
        headers={"x-api-key": server.api_key},
    )
    assert response.status_code == 413


RUN_INPUTS_TRIED = 40
json_values = st.recursive(  # integers as JSON carries them: the SDK refuses wider ones before sending
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False) | st.text(max_size=50),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=3),
    max_leaves=10,
)
hostile_text = st.one_of(
    st.text(max_size=300),
    st.sampled_from(["'; DROP TABLE documents; --", "\u202e\u0000", "{{scope}}", "x" * 2001, "%s %s"]),
)


@settings(
    max_examples=RUN_INPUTS_TRIED,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    question=st.one_of(hostile_text, json_values),
    context=st.dictionaries(
        st.sampled_from(["scope", "planner", "max_tool_calls", "top_k", "max_hits", "min_hits", "other"]),
        json_values,
        max_size=3,
    ),
)
def test_any_run_input_gets_an_answer_a_question_back_or_a_readable_error(client, question, context):
    """Hostile, random and wrongly typed run inputs: the run ends answered, interrupted or failed with a message
    a user can read, or (a scope that is not one) is refused before it starts; the server never fails internally."""
    thread = client.threads.create()["thread_id"]
    try:
        output = client.runs.wait(thread, "agent", input={"question": question}, context=context, raise_error=False)
    except httpx.HTTPStatusError as refused:
        assert refused.response.status_code == 422 and "scope" in refused.response.json()["detail"], refused
        assert client.threads.get(thread)["status"] == "idle"
        return
    status = client.threads.get(thread)["status"]
    if status == "error":
        error = output["__error__"]
        assert (
            error["error"] in ("InvalidInput", "ValidationError") and error["message"] != "An internal error occurred"
        ), error
    else:
        assert status in ("idle", "interrupted") and ("answer" in output or "__interrupt__" in output)


def test_the_run_queue_starts_each_run_when_it_is_created(server):
    """The fast path is the one taken (not a timing test): `ragent serve` runs the server through
    `graph.langgraph_dev`, whose queue each new run wakes; the library's own queue would start it at its next poll,
    0.5 to 1.0 s later (`ragent bench --only server` measures both)."""
    assert WAKEUP_BANNER in server.log.read_text()


def ragent(*args: str) -> tuple[int, str, str]:
    """The `ragent` command line in this process (the environment chooses the server and the key)."""
    with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(io.StringIO()) as err:
        status = main(list(args))
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def on_server(server, monkeypatch):
    """`ragent ask` and `ragent resume` pointed at the server by RAGENT_SERVER, with the local key of its home."""
    monkeypatch.setenv("RAGENT_SERVER", server.url)
    monkeypatch.setenv("RAGENT_HOME", str(server.home))
    monkeypatch.delenv("RAGENT_API_KEY", raising=False)
    return server


def test_ragent_ask_on_a_server_prints_the_answer_with_its_sources(on_server):
    status, out, err = ragent("ask", "How many contracts per governing law?")
    assert status == 0, err
    assert "**10**: count over 10 documents of bucket contracts" in out and "| Delaware | 3 |" in out
    assert "Sources: sample-contract-001#properties-0, sample-contract-002#properties-0" in out


def test_a_clarification_on_a_server_is_shown_and_resumed_there(on_server):
    status, out, err = ragent("ask", "Which contracts have a notice period of at least 30 days?", "--max-hits", "3")
    assert status == 0, err
    assert "I need your help (overload): 7 annotation rows match, more than 3 to list." in out
    thread = re.search(rf"ragent resume (\S+) --server {re.escape(on_server.url)} --answer N", out).group(1)
    first = re.search(r"\[1\] only (\w+) = (.+?) \(", out)
    status, out, err = ragent("resume", thread, "--answer", "1", "--explain")
    assert status == 0, err
    rows = [line for line in out.splitlines() if line.startswith("| sample-contract-")]
    assert 0 < len(rows) <= 3 and all(first.group(2) in row for row in rows)
    assert f'["{first.group(1)}", "=", "{first.group(2)}"]' in out, "--explain shows the narrowed decomposition"
    status, _, err = ragent("resume", thread, "--answer", "1")
    assert status == 2 and err == f"ragent: error: thread {thread} is not waiting for an answer\n"


@pytest.mark.parametrize(
    "args, reason",
    [
        (
            ["--server", "http://127.0.0.1:9"],
            "cannot reach the ragent server at http://127.0.0.1:9 ([Errno 111] Connection refused); "
            "start it with `ragent serve`",
        ),
        (["--api-key", "rk_00000000_wrong"], "did not accept the API key: this API key is not valid here"),
        (["--scope", "other", "--thread", "{waiting}"], "refused (403): this thread belongs to scope 'sample'"),
        (["--thread", "t-1"], "thread 't-1' is not a server thread's id: a thread on a server is named by the UUID"),
    ],
)
def test_an_unreachable_or_refusing_server_is_a_one_line_error(on_server, args, reason):
    waiting, _ = ask(on_server.client(), "Which contracts have a notice period of more than 400 days?")
    status, out, err = ragent(
        "ask", "How many contracts per governing law?", *[a.format(waiting=waiting) for a in args]
    )
    assert status == 2 and not out
    assert err.startswith("ragent: error: ") and err.count("\n") == 1 and reason in err, err
