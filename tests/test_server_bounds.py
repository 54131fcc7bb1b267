"""A thread's history over HTTP stays bounded: what one run may carry, what a thread keeps after many runs, and the
space a deleted thread gives back. A real `ragent serve --sample`, as a client with a read-only key would drive it
(issue 34, item 2: 12 runs of 450 messages each grew Postgres by 500 MB, and deleting the threads freed nothing)."""

from __future__ import annotations

import random
import string

import httpx
import psycopg
import pytest

from graph.history import RUN_MESSAGES_MAX, THREAD_MESSAGES_KEPT
from tests.conftest import served_on_a_fresh_database

TABLES = ["checkpoints", "checkpoint_blobs", "checkpoint_writes"]


@pytest.fixture(scope="module")
def server(postgres_url, tmp_path_factory):
    with served_on_a_fresh_database(postgres_url, tmp_path_factory.mktemp("bounds")) as served:
        yield served


def filler(rng: random.Random, chars: int) -> str:
    return "".join(rng.choice(string.ascii_letters + " ") for _ in range(chars))


def stored_bytes(server, thread: str) -> int:
    """What the thread takes in the checkpointer's tables, row by row."""
    with psycopg.connect(server.env["DATABASE_URL"]) as conn:
        return sum(
            conn.execute(
                f"SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM {table} t WHERE thread_id = %s", (thread,)
            ).fetchone()[0]
            for table in TABLES
        )


def test_a_run_carrying_a_pasted_history_is_refused_before_anything_is_stored(server):
    """The probe's body: 450 random 2 KB messages and a question, 892 KB (under the 1 MiB request limit)."""
    client, rng = server.client(), random.Random(34)
    thread = client.threads.create()["thread_id"]
    pasted = [{"type": "human", "content": filler(rng, 2000)} for _ in range(450)]
    messages = [*pasted, {"type": "human", "content": "How many contracts per governing law?"}]
    with pytest.raises(httpx.HTTPStatusError) as refused:
        client.runs.wait(thread, "agent", input={"messages": messages})
    assert refused.value.response.status_code == 413
    assert f"451 messages; a run takes at most {RUN_MESSAGES_MAX}" in refused.value.response.text
    assert stored_bytes(server, thread) == 0, "nothing of it was stored"


def test_many_runs_on_one_thread_keep_its_stored_state_bounded_and_follow_ups_working(server):
    client, rng = server.client(), random.Random(35)
    thread = client.threads.create()["thread_id"]
    sizes = []
    for _ in range(12):
        earlier = [{"type": "human", "content": filler(rng, 1500)} for _ in range(RUN_MESSAGES_MAX - 1)]
        asked = {"type": "human", "content": "How many contracts per governing law?"}
        output = client.runs.wait(thread, "agent", input={"messages": [*earlier, asked]})
        assert output["answer"]["value"] == 10
        sizes.append(stored_bytes(server, thread))
    messages = client.threads.get_state(thread)["values"]["messages"]
    assert len(messages) <= THREAD_MESSAGES_KEPT + 1, "older turns trimmed; the last question and its answer kept"
    assert messages[-2]["content"] == "How many contracts per governing law?" and messages[-1]["type"] == "ai"
    assert sizes[-1] <= sizes[5] * 1.2, f"the thread's rows grow with each run: {sizes}"
    follow_up = client.runs.wait(thread, "agent", input={"question": "Which of those are governed by Delaware law?"})
    assert follow_up["decomposition"]["follow_up_of"] == "How many contracts per governing law?"
    assert len(follow_up["answer"]["rows"]) == 3


def test_a_deleted_threads_checkpoints_are_removed_and_their_space_made_reusable(server):
    client = server.client()
    thread = client.threads.create()["thread_id"]
    client.runs.wait(thread, "agent", input={"question": "How many contracts per governing law?"})
    assert stored_bytes(server, thread) > 0
    client.threads.delete(thread)
    assert stored_bytes(server, thread) == 0
    with psycopg.connect(server.env["DATABASE_URL"]) as conn:
        vacuumed = conn.execute(
            "SELECT relname FROM pg_stat_user_tables WHERE relname = ANY(%s) AND last_vacuum IS NOT NULL", (TABLES,)
        ).fetchall()
    assert {name for (name,) in vacuumed} == set(TABLES), "VACUUM ran after the delete"
