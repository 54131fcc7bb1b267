"""The run queue of `ragent serve` after a burst of thread-less runs and a crash: a real server on its own data
folder, 100 `runs.wait` without a thread (50 at a time, as the outside probe sent them), `kill -9`, a start on the
same folder, and a new run that must be answered. Before the fix, some of the burst's runs were left behind without
their temporary thread; after the restart they were the oldest pending runs, which the queue skips one by one
without ever reaching a new run, so every run stayed pending for good."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import subprocess
import sys
import time

import pytest

from cli.main import main
from evals.served_agent import ServedAgent
from tests.conftest import served_on_a_fresh_database

BURST = 100
AT_ONCE = 50
BURSTS = 2
"""One burst of 100 left 8 runs behind on a 2-core machine and the probe's 11 to 16 on its own; the queue skips
the oldest pending runs without a thread only up to its free workers (10), so two bursts are sent: 17 left
behind, enough to stop the queue on today's runtime every time it was tried."""
QUESTION = "How many contracts per governing law?"
ANSWER_DEADLINE_S = 90
"""A run answers in about a second; the first one after a start also loads the graphs."""
FLUSH_DEADLINE_S = 30
"""The in-memory runtime writes its runs and threads to disk every 10 s (and at a clean stop)."""
STOP_DEADLINE_S = 30
"""SIGTERM to a stopped server: the probe once saw a stuck one ignore it for over 60 s."""
LEFT_BEHIND = 12
"""Runs without a thread in a data folder from a server before the fix (the probe found 11, 16 and 13): more than
the queue's 10 workers, so the queue's first look at the pending runs sees only them."""


@pytest.fixture(scope="module")
def server(postgres_url, tmp_path_factory):
    with served_on_a_fresh_database(postgres_url, tmp_path_factory.mktemp("runs")) as served:
        yield served


def burst_of_thread_less_runs(server: ServedAgent) -> list[dict]:
    async def all_runs() -> list[dict]:
        client, at_once = server.async_client(timeout=300), asyncio.Semaphore(AT_ONCE)

        async def one() -> dict:
            async with at_once:
                return await client.runs.wait(None, "agent", input={"question": QUESTION}, raise_error=True)

        return await asyncio.gather(*(one() for _ in range(BURST)))

    return asyncio.run(all_runs())


def wait_for_the_runtime_to_write_its_store(server: ServedAgent, since: float) -> None:
    """A kill -9 loses what the runtime changed after its last write; the test is about what it wrote."""
    stored = server.home / "server" / ".langgraph_api" / ".langgraph_ops.pckl"
    deadline = time.monotonic() + FLUSH_DEADLINE_S
    while not (stored.exists() and stored.stat().st_mtime > since):
        assert time.monotonic() < deadline, f"the runtime did not write {stored} within {FLUSH_DEADLINE_S} s"
        time.sleep(0.2)


def answered_within(server: ServedAgent, deadline_s: float) -> str:
    """A new question on a new thread; the run's last status once it ends or the deadline passes."""
    client = server.client()
    thread = client.threads.create()["thread_id"]
    run = client.runs.create(thread, "agent", input={"question": QUESTION})
    deadline = time.monotonic() + deadline_s
    status = run["status"]
    while status in ("pending", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
        status = client.runs.get(thread, run["run_id"])["status"]
    return status


def runs_in_stats(server: ServedAgent) -> dict:
    """`ragent stats --json`'s report on the server's run queue, as its owner runs it on the data folder."""
    with contextlib.redirect_stdout(io.StringIO()) as out:
        main(["stats", "--json"])
    return json.loads(out.getvalue())["runs"]


@pytest.fixture
def on_home(server, monkeypatch):
    monkeypatch.setenv("RAGENT_HOME", str(server.home))
    monkeypatch.setenv("DATABASE_URL", server.env["DATABASE_URL"])
    return server


def test_a_burst_of_thread_less_runs_then_kill_9_leaves_a_server_that_answers(on_home):
    server = on_home
    for _ in range(BURSTS):
        outputs = burst_of_thread_less_runs(server)
        assert len(outputs) == BURST and all(o["answer"]["value"] == 10 for o in outputs), "every run answered"
    wait_for_the_runtime_to_write_its_store(server, since=time.time())
    runs = runs_in_stats(server)
    assert runs["server_running"] and runs["without_thread"] == 0 and not runs["stuck"], runs
    server.kill()
    server.start()
    assert answered_within(server, ANSWER_DEADLINE_S) == "success", (
        f"a new run was not answered within {ANSWER_DEADLINE_S} s of the restart"
    )


RUNTIME_SETTINGS = {
    "LANGGRAPH_RUNTIME_EDITION": "inmem",
    "DATABASE_URI": ":memory:",
    "REDIS_URI": "fake",
    "MIGRATIONS_PATH": "__inmem",
}
"""The settings `langgraph dev` gives its runtime: loading the runtime's store imports the server's modules, which
read them."""
LEAVE_RUNS_WITHOUT_A_THREAD = """
import copy, pickle, sys, uuid
path, count = sys.argv[1], int(sys.argv[2])
with open(path, "rb") as stored:
    store = pickle.load(stored)
run = store["runs"][-1]
for _ in range(count):
    orphan = {**copy.deepcopy(run), "run_id": uuid.uuid4(), "thread_id": uuid.uuid4(), "status": "pending"}
    store["runs"].insert(0, orphan)
with open(path, "wb") as stored:
    pickle.dump(store, stored, 2)
"""
"""What a server before the fix left behind: pending runs, older than any new one, whose thread is gone (copies of
a finished run), written by a process of its own with the runtime's settings."""


def test_a_data_folder_with_runs_left_without_a_thread_starts_a_server_that_answers(on_home):
    server = on_home
    assert answered_within(server, ANSWER_DEADLINE_S) == "success"
    stopping = time.monotonic()
    server.stop()
    assert time.monotonic() - stopping < STOP_DEADLINE_S
    assert not runs_in_stats(server)["server_running"], "`ragent serve` removed its report once its server ended"
    stored = server.home / "server" / ".langgraph_api" / ".langgraph_ops.pckl"
    subprocess.run(
        [sys.executable, "-c", LEAVE_RUNS_WITHOUT_A_THREAD, str(stored), str(LEFT_BEHIND)],
        check=True,
        env={**os.environ, "PYTHONPATH": os.getcwd(), **RUNTIME_SETTINGS},
    )
    server.start()
    assert answered_within(server, ANSWER_DEADLINE_S) == "success", (
        f"a new run was not answered within {ANSWER_DEADLINE_S} s of the start"
    )
    assert "removed runs whose thread is gone" in server.log.read_text()
