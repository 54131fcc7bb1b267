"""A written answer streams to a client of the real server: `ragent serve` with its chat model on a local
OpenAI-compatible endpoint (`tests.chat_endpoint`), driven through `langgraph_sdk` in `messages-tuple` mode as
Studio and chat front ends consume it."""

from __future__ import annotations

import pytest

from tests.chat_endpoint import ChatEndpoint
from tests.conftest import served_on_a_fresh_database

VPN = "How do I get onto the VPN when working from home?"
LLM = {"planner": "llm"}
"""Every mode the model's: `auto`, the default, has the rules compose and plan a question they read whole."""


@pytest.fixture(scope="module")
def endpoint():
    with ChatEndpoint() as endpoint:
        yield endpoint


@pytest.fixture(scope="module")
def client(postgres_url, tmp_path_factory, endpoint):
    env = {"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": endpoint.url, "RAGENT_CHAT_MODEL": "test-model"}
    with served_on_a_fresh_database(postgres_url, tmp_path_factory.mktemp("served"), env) as served:
        yield served.client()


def test_the_checked_answer_streams_as_it_is_written_and_is_the_final_message(client, endpoint):
    thread = client.threads.create()["thread_id"]
    stream = client.runs.stream(thread, "agent", input={"question": VPN}, stream_mode="messages-tuple", context=LLM)
    chunks = [
        part.data[0] for part in stream if part.event == "messages" and part.data[0].get("type") == "AIMessageChunk"
    ]
    values = client.threads.get_state(thread)["values"]
    answer = values["answer"]
    assert answer["composed_by"] == "model" and answer["citations"][0]["doc_id"] == "sample-generic-002"
    assert [s["verdict"] for s in answer["sentences"]] == ["supported"]
    assert len(chunks) >= 2 and "".join(c["content"] for c in chunks) == answer["text"]
    assert {c["id"] for c in chunks} == {values["messages"][-1]["id"]}, "the streamed message is the one kept"
    assert len(endpoint.answer_requests()) == 1, "one model call writes the answer"


def test_the_planning_calls_do_not_stream_their_structured_output(client, endpoint):
    thread = client.threads.create()["thread_id"]
    before = len(endpoint.requests)
    parts = list(
        client.runs.stream(thread, "agent", input={"question": VPN}, stream_mode="messages-tuple", context=LLM)
    )
    structured = [r for r in endpoint.requests[before:] if r.get("tools") or r.get("response_format")]
    assert structured, "the planner asked the model for its modes (and was refused, so the rules planned)"
    streamed = [p.data[0] for p in parts if p.event == "messages"]
    assert all(m.get("type") in ("AIMessageChunk", "ai", "human") for m in streamed)
    assert not any(m.get("tool_calls") for m in streamed)
