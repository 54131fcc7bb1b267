"""The wake-up `ragent serve`'s run queue waits on (`graph.langgraph_dev`): a run stored from the queue's own loop or
from another thread wakes it, and a wake-up that comes while the queue is busy is kept for its next wait."""

from __future__ import annotations

import asyncio
import threading

from graph.langgraph_dev import QueueWakeup

NEVER_S = 3600
"""A poll interval no test waits out: a wait that ends came from a wake-up."""


def test_a_run_stored_from_another_thread_wakes_the_waiting_queue():
    async def scenario() -> None:
        wakeup = QueueWakeup()
        waiting = asyncio.create_task(wakeup.wait(NEVER_S))
        await asyncio.sleep(0)  # the queue is waiting now
        threading.Thread(target=wakeup.wake).start()
        await asyncio.wait_for(waiting, 60)

    asyncio.run(scenario())


def test_a_wake_up_while_the_queue_is_busy_is_kept_for_its_next_wait():
    async def scenario() -> None:
        wakeup = QueueWakeup()
        first = asyncio.create_task(wakeup.wait(NEVER_S))
        await asyncio.sleep(0)
        wakeup.wake()
        await asyncio.wait_for(first, 60)
        wakeup.wake()  # a run stored while the queue hands out the last ones
        await asyncio.wait_for(wakeup.wait(NEVER_S), 60)

    asyncio.run(scenario())
