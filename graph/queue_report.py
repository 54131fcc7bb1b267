"""The run queue of `ragent serve`, as `ragent stats` and `ragent check` see it: the server writes what its queue
holds to `<home>/server/queue.json` every few seconds, and these commands judge it.

The queue is stuck when a run that nothing holds back (its thread exists and runs nothing else) has waited more
than `STUCK_AFTER_S` while a worker is free (a free worker takes such a run within a second), when runs have no
thread left (they can never run; the server removes them at its start and at each sweep), or when a server that is
still alive has stopped reporting (its loop no longer turns). `ragent serve` removes the report once its server has
exited; a report left by a killed one names a process that is gone, and says only that no server runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPORT_PATH = Path("server", "queue.json")
"""Under the data folder: the server's working folder (`cli/serve.py`)."""
REPORT_EVERY_S = 10.0
STALE_AFTER_S = 6 * REPORT_EVERY_S
STUCK_AFTER_S = 60.0


def queue_facts(store: dict[str, list[dict[str, Any]]], busy: int, workers: int, now: datetime) -> dict[str, Any]:
    """What the runtime's store (its `runs` and `threads`) says, with the queue's busy and total workers."""
    threads = {thread["thread_id"] for thread in store["threads"]}
    runs = store["runs"]
    running = [run for run in runs if run["status"] == "running"]
    working_threads = {run["thread_id"] for run in running}
    due = [run for run in runs if run["status"] == "pending" and run["created_at"] <= now]
    ready = [run for run in due if run["thread_id"] in threads and run["thread_id"] not in working_threads]
    return {
        "pid": os.getpid(),
        "reported_at": time.time(),
        "workers": workers,
        "busy": busy,
        "running": len(running),
        "pending": len(due),
        "ready": len(ready),
        "longest_ready_wait_s": max(((now - run["created_at"]).total_seconds() for run in ready), default=0.0),
        "without_thread": sum(run["thread_id"] not in threads for run in runs),
    }


class QueueReport:
    """Started once on the queue's loop (by the queue's first sweep, `graph.runtime_runs`); written off the loop,
    since the server refuses blocking calls on it. The server cannot remove it as it stops (uvicorn ends the
    process by raising the stop signal again once it has shut down, before any task's cleanup), so `ragent serve`
    removes it once the server has exited (`forget_queue_report`)."""

    def __init__(self, home: Path) -> None:
        self.path = home / REPORT_PATH
        self.task: asyncio.Task | None = None

    def start(self) -> None:
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self.report_every_few_seconds())

    async def report_every_few_seconds(self) -> None:
        from langgraph_api import config
        from langgraph_runtime_inmem import queue
        from langgraph_runtime_inmem.database import connect

        while True:
            async with connect() as conn:
                facts = queue_facts(conn.store, len(queue.WORKERS), config.N_JOBS_PER_WORKER, datetime.now(UTC))
            await asyncio.to_thread(self.write, facts)
            await asyncio.sleep(REPORT_EVERY_S)

    def write(self, facts: dict[str, Any]) -> None:
        written = self.path.with_suffix(".tmp")
        written.write_text(json.dumps(facts), encoding="utf-8")
        os.replace(written, self.path)


def forget_queue_report(home: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        (home / REPORT_PATH).unlink()


def read_queue(home: Path) -> dict[str, Any]:
    """The last report with `server_running` and, when the queue is stuck, `stuck` (why, and what to do)."""
    try:
        facts = json.loads((home / REPORT_PATH).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"server_running": False}
    if not isinstance(facts, dict) or not alive(facts.get("pid")):
        return {"server_running": False}
    return {**facts, "server_running": True, "stuck": stuck_reason(facts, time.time())}


def alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stuck_reason(facts: dict[str, Any], now: float) -> str | None:
    silent = now - facts["reported_at"]
    if silent > STALE_AFTER_S:
        return f"the server has not reported its queue for {silent:.0f} s (its loop is blocked); restart it"
    if facts["without_thread"]:
        return (
            f"{facts['without_thread']} run(s) have no thread left and can never run; the server removes them at its "
            "next sweep (within minutes) or at its next start"
        )
    free = facts["workers"] - facts["busy"]
    if facts["ready"] and facts["longest_ready_wait_s"] > STUCK_AFTER_S and free > 0:
        return (
            f"{facts['ready']} run(s) ready to start have waited up to {facts['longest_ready_wait_s']:.0f} s with "
            f"{free} of {facts['workers']} workers free; restart the server (`ragent serve`)"
        )
    return None


def queue_line(queue: dict[str, Any]) -> str:
    """One line for `ragent stats` and `ragent check`."""
    if not queue["server_running"]:
        return "runs     no server is running on this data folder (`ragent serve`)"
    state = (
        f"server pid {queue['pid']}: {queue['running']} running ({queue['busy']} of {queue['workers']} workers busy), "
        f"{queue['pending']} waiting"
    )
    if queue["stuck"]:
        return f"runs     STUCK: {queue['stuck']} ({state})"
    return f"runs     {state}; reported {time.time() - queue['reported_at']:.0f} s ago"
