"""`langgraph dev` (the in-memory LangGraph server `ragent serve` runs) with a run queue that starts a run as soon
as it is created, instead of at the queue's next poll.

The in-memory runtime's queue (`langgraph_runtime_inmem.queue`) asks `Runs.next` for pending runs in a loop; when
idle, `Runs.next` sleeps 0.5 s first and then takes only the runs created before it began to sleep. A run created
while it sleeps therefore waits for the next round: 0.5 to 1.0 s before its first event, every time, for a graph
that answers in about 60 ms. No setting changes that interval, so this module wraps the two operations: `Runs.put`
wakes the queue once a run is stored, and `Runs.next` waits for that wake-up (the library's 0.5 s poll stays the
longest wait, which still finds runs due later, `after_seconds`) and then asks the library's own `Runs.next` for
the runs without its sleep. What a run is and which one goes first stay the library's.

    python -m graph.langgraph_dev dev --config langgraph.json ...   (the arguments of `langgraph dev`)

`RAGENT_QUEUE_WAKEUP=0` leaves the library's polling alone: the `server` benchmark's before column. Either way the
runtime's runs stay tied to their threads and the queue reports its state (`graph.runtime_runs`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
from collections.abc import AsyncIterator
from typing import Any

from core.settings import Settings
from graph.queue_report import QueueReport
from graph.refusal_log import install_refusal_log
from graph.runtime_runs import install_run_safety

WAKEUP_ENV = "RAGENT_QUEUE_WAKEUP"
POLL_SECONDS = 0.5
"""The library's idle poll (`Runs.next` sleeps this long): the longest a run waits for a wake-up it missed."""
WAKEUP_BANNER = "ragent: the run queue starts each run when it is created (no poll wait)"


class QueueWakeup:
    """Wakes the queue's loop when a run is stored. The event belongs to the loop the queue runs on; a run created
    from another thread (a background loop) sets it through that loop."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.event: asyncio.Event | None = None

    def wake(self) -> None:
        if self.loop is None or self.event is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            self.event.set()
        elif not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.event.set)

    async def wait(self, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        if self.loop is not loop:
            self.loop, self.event = loop, asyncio.Event()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.event.wait(), timeout)
        self.event.clear()


def install_queue_wakeup() -> None:
    """Wrap the in-memory runtime's `Runs.put` and `Runs.next` (module docstring) around one shared wake-up."""
    from langgraph_runtime_inmem.ops import Runs

    wakeup = QueueWakeup()
    stored, pending = Runs.put, Runs.next

    async def put(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        created = await stored(*args, **kwargs)
        wakeup.wake()
        return created

    async def next_runs(wait: bool, limit: int = 1) -> AsyncIterator[tuple[Any, int]]:
        if wait:
            await wakeup.wait(POLL_SECONDS)
        async for found in pending(wait=False, limit=limit):
            yield found

    Runs.put, Runs.next = staticmethod(put), staticmethod(next_runs)


def main() -> None:
    if level := os.environ.get("LOG_LEVEL"):
        # The welcome banner is logged by `langgraph_api.cli`, whose logging LOG_LEVEL does not reach.
        logging.getLogger("langgraph_api.cli").setLevel(level.upper())
    install_run_safety(QueueReport(Settings.from_env().home))
    install_refusal_log()
    if os.environ.get(WAKEUP_ENV, "1") != "0":
        install_queue_wakeup()
        print(WAKEUP_BANNER, flush=True)
    from langgraph_cli.cli import cli

    sys.argv[0] = "langgraph"
    cli()


if __name__ == "__main__":
    main()
