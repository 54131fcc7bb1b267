"""Keeps every run of `ragent serve`'s in-memory runtime (`langgraph_runtime_inmem`) tied to a thread, so that its
queue never stops.

A run without a thread (`runs.wait(None, ...)`, the SDK's stateless call) gets a temporary thread that the worker
deletes once the run ends. The runtime's `Threads.delete` finds the thread's position in its list, waits for the
checkpointer to drop the thread's checkpoints (Postgres here), and then removes the item at that position. Two
deletes at once (a burst of stateless runs ending together) shift the list under each other, so the second removes
another run's thread: that run, still working, is left "running" without a thread, and its own thread stays behind.
After a restart the runtime sets such runs back to pending; its queue looks only at the oldest pending runs, as
many as it has free workers, skips each one whose thread is gone ("Unexpected missing thread in Runs.next"), and
with ten of them never reaches a new run (issue 34, item 1). So:
- `Threads.delete` runs one at a time: the position it found is still the thread's when it removes it, and each
  temporary thread lives until its own run ends;
- the queue's sweep hook (`Runs.sweep`, a no-op in the library, called when the queue starts and every few
  minutes) removes runs whose thread is gone: nothing can read them (a run is read through its thread) and none
  can ever run; a data folder left by a server before this fix starts again;
- the same hook starts the queue's report (`graph.queue_report`), which `ragent stats` and `ragent check` read.
The runs themselves, and which one goes first, stay the library's.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator
from typing import Any

import structlog

from graph.queue_report import QueueReport

logger = structlog.stdlib.get_logger(__name__)


def sweep_runs_without_a_thread(store: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Remove the runs whose thread is gone from the runtime's store and return them. The runtime stores a run only
    after its thread and removes a thread's runs before the thread, so such a run is one no delete will reach. One
    step with no await: nothing else changes the store meanwhile."""
    threads = {thread["thread_id"] for thread in store["threads"]}
    kept = [run for run in store["runs"] if run["thread_id"] in threads]
    orphaned = [run for run in store["runs"] if run["thread_id"] not in threads]
    if orphaned:
        store["runs"] = kept
    return orphaned


class OneAtATime:
    """A lock per event loop (an asyncio lock belongs to one loop): the server's requests and its runs share one,
    `langgraph dev`'s default (BG_JOB_ISOLATED_LOOPS off)."""

    def __init__(self) -> None:
        self.locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()

    def lock(self) -> asyncio.Lock:
        return self.locks.setdefault(asyncio.get_running_loop(), asyncio.Lock())


def install_run_safety(report: QueueReport) -> None:
    """Wrap the runtime's `Threads.delete` and fill its `Runs.sweep` hook (module docstring); the first sweep starts
    `report` on the queue's own loop."""
    from langgraph_runtime_inmem.database import connect
    from langgraph_runtime_inmem.ops import Runs, Threads

    deletes, delete = OneAtATime(), Threads.delete

    async def delete_alone(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        async with deletes.lock():
            return await delete(*args, **kwargs)

    async def sweep() -> None:
        async with connect() as conn:
            orphaned = sweep_runs_without_a_thread(conn.store)
        if orphaned:
            await logger.awarning(
                "ragent: removed runs whose thread is gone (they could never run, and would stop the queue)",
                run_ids=[str(run["run_id"]) for run in orphaned],
                statuses=sorted({run["status"] for run in orphaned}),
            )
        report.start()

    Threads.delete, Runs.sweep = staticmethod(delete_alone), staticmethod(sweep)
