"""The run queue's report (`graph.queue_report`) and the sweep of runs without a thread (`graph.runtime_runs`), on
stores shaped as the in-memory runtime keeps them: what `ragent stats` and `ragent check` say of a queue that moves,
of one that is stuck, and of a server that is gone. The real server is in tests/test_server_runs.py."""

from __future__ import annotations

import json
import os
import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from graph.queue_report import REPORT_PATH, STALE_AFTER_S, queue_facts, queue_line, read_queue, stuck_reason
from graph.runtime_runs import sweep_runs_without_a_thread

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
ANSWERING, IDLE, GONE = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()


def run(thread: uuid.UUID, status: str, waited_s: float = 0.0) -> dict:
    created = NOW - timedelta(seconds=waited_s)
    return {"run_id": uuid.uuid4(), "thread_id": thread, "status": status, "created_at": created}


def store() -> dict:
    """A thread answering with a second run queued behind it, a question ready to start for two minutes, a run
    whose thread is gone, and one scheduled for later (`after_seconds`)."""
    return {
        "threads": [{"thread_id": ANSWERING}, {"thread_id": IDLE}],
        "runs": [
            run(ANSWERING, "running", 300),
            run(ANSWERING, "pending", 200),
            run(IDLE, "pending", 120),
            run(GONE, "pending", 400),
            run(IDLE, "pending", -60),
        ],
    }


def test_the_facts_tell_a_ready_run_from_one_behind_its_thread_or_without_one():
    facts = queue_facts(store(), busy=1, workers=10, now=NOW)
    assert facts["running"] == 1 and facts["pending"] == 3 and facts["ready"] == 1
    assert facts["longest_ready_wait_s"] == 120 and facts["without_thread"] == 1
    assert facts["pid"] == os.getpid() and abs(facts["reported_at"] - time.time()) < 60


def test_the_sweep_removes_only_the_runs_whose_thread_is_gone():
    kept = store()
    swept = sweep_runs_without_a_thread(kept)
    assert [r["thread_id"] for r in swept] == [GONE]
    assert len(kept["runs"]) == 4 and GONE not in {r["thread_id"] for r in kept["runs"]}
    assert sweep_runs_without_a_thread(kept) == [], "nothing more to sweep"


def facts(**changes) -> dict:
    moving = {"reported_at": time.time(), "workers": 10, "busy": 1, "ready": 0, "longest_ready_wait_s": 0.0}
    return {**moving, "pid": os.getpid(), "running": 1, "pending": 0, "without_thread": 0, **changes}


@pytest.mark.parametrize(
    "changes, reason",
    [
        ({}, None),
        ({"ready": 1, "longest_ready_wait_s": 5}, None),
        ({"ready": 3, "longest_ready_wait_s": 400, "busy": 10}, None),
        ({"ready": 3, "longest_ready_wait_s": 400}, "3 run(s) ready to start have waited up to 400 s with 9 of 10"),
        ({"without_thread": 12}, "12 run(s) have no thread left and can never run"),
        ({"reported_at": time.time() - STALE_AFTER_S - 30}, "has not reported its queue for"),
    ],
)
def test_a_queue_is_stuck_only_when_a_free_worker_leaves_a_ready_run_waiting_or_runs_lost_their_thread(changes, reason):
    said = stuck_reason(facts(**changes), time.time())
    assert said is None if reason is None else reason in said, said


def test_stats_and_check_read_the_server_s_report_and_say_when_none_runs(tmp_path):
    report = tmp_path / REPORT_PATH
    assert queue_line(read_queue(tmp_path)) == "runs     no server is running on this data folder (`ragent serve`)"
    report.parent.mkdir()
    for written in ("{not json", json.dumps(["a list"]), json.dumps(facts(pid=2**22 + 1))):
        report.write_text(written)
        assert read_queue(tmp_path) == {"server_running": False}, "unreadable, or its server is gone"
    report.write_text(json.dumps(facts(ready=2, longest_ready_wait_s=90)))
    line = queue_line(read_queue(tmp_path))
    assert line.startswith("runs     STUCK: 2 run(s) ready to start") and f"server pid {os.getpid()}" in line
    report.write_text(json.dumps(facts()))
    assert queue_line(read_queue(tmp_path)).endswith("1 running (1 of 10 workers busy), 0 waiting; reported 0 s ago")
