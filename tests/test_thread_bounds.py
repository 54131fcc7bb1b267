"""A thread stays bounded without a server: the turns it keeps (`graph.history.trimmed`) and the rows the Postgres
checkpointer keeps for it (`graph.checkpointing.KeepsThreadsBounded`). The served agent is tested over HTTP in
tests/test_server_bounds.py."""

from __future__ import annotations

import uuid

import psycopg
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, StateGraph

from core.errors import InvalidInput
from graph.checkpointing import postgres_checkpointer
from graph.history import (
    RUN_CHARS_MAX,
    STORED_MESSAGES_MAX,
    THREAD_CHARS_KEPT,
    THREAD_MESSAGES_KEPT,
    checked_run_messages,
    trimmed,
)
from graph.state import Conversation


def turns(count: int, chars: int = 10) -> list:
    return [
        message
        for i in range(count)
        for message in (HumanMessage("q" * chars, id=f"q{i}"), AIMessage("a" * chars, id=f"a{i}"))
    ]


def kept(messages: list, question) -> list:
    removed = {r.id for r in trimmed(messages, question)}
    return [m for m in [*messages, question] if m.id not in removed]


def test_older_turns_are_trimmed_whole_and_the_question_is_kept():
    question = HumanMessage("How many contracts?", id="new")
    left = kept(turns(40), question)
    assert len(left) <= THREAD_MESSAGES_KEPT and left[-1] is question
    assert isinstance(left[0], HumanMessage) and [m.id for m in left[:2]] == ["q31", "a31"], "the latest turns"
    long = kept(turns(12, chars=THREAD_CHARS_KEPT // 8), question)
    assert sum(len(m.content) for m in long) <= THREAD_CHARS_KEPT and len(long) < 12 and long[-1] is question
    assert trimmed(turns(3), question) == [], "a short thread keeps everything"


def test_a_run_input_with_a_conversation_is_refused_with_what_to_send():
    checked_run_messages([{"type": "human", "content": "How many contracts?"}])
    for given in ([{"type": "human", "content": "x"}] * 451, [{"type": "human", "content": "x" * RUN_CHARS_MAX}]):
        with pytest.raises(InvalidInput, match="send the new question only"):
            checked_run_messages(given)


def _chat(checkpointer):
    """A chat in LangGraph's convention: each run's question answered by one AI message."""

    def answer(state: Conversation) -> dict:
        return {"messages": [AIMessage(f"answer to {state['messages'][-1].content}")]}

    builder = StateGraph(Conversation)
    builder.add_node("answer", answer)
    builder.add_edge(START, "answer")
    return builder.compile(checkpointer=checkpointer)


def _rows(url: str, thread: str) -> int:
    with psycopg.connect(url) as conn:
        return sum(
            conn.execute(f"SELECT count(*) FROM {table} WHERE thread_id = %s", (thread,)).fetchone()[0]
            for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes")
        )


def test_a_threads_rows_hold_its_latest_run_and_go_with_the_thread(database_url):
    with postgres_checkpointer(database_url) as saver:
        chat, config = _chat(saver), {"configurable": {"thread_id": str(uuid.uuid4())}}
        rows = []
        for i in range(8):
            chat.invoke({"messages": [HumanMessage(f"question {i}")]}, config)
            rows.append(_rows(database_url, config["configurable"]["thread_id"]))
        assert rows[-1] == rows[2], f"the rows grow with each run: {rows}"
        assert chat.get_state(config).values["messages"][-1].content == "answer to question 7", "the state is whole"
        assert len(list(chat.get_state_history(config))) < 5, "the history is the last run's"
        saver.delete_thread(config["configurable"]["thread_id"])
        assert _rows(database_url, config["configurable"]["thread_id"]) == 0


def test_a_state_written_around_the_graph_beyond_the_bounds_is_refused(database_url):
    with postgres_checkpointer(database_url) as saver:
        chat, config = _chat(saver), {"configurable": {"thread_id": str(uuid.uuid4())}}
        chat.invoke({"messages": [HumanMessage("question")]}, config)
        with pytest.raises(InvalidInput, match="start a new thread"):
            chat.update_state(config, {"messages": turns(STORED_MESSAGES_MAX)})
        assert len(chat.get_state(config).values["messages"]) == 2, "the thread is as it was"
