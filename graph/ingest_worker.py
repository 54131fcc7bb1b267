"""The server's ingest and extraction work, on one worker thread of lower CPU priority.

Why: a server's questions and its ingests share its cores. An ingest through the server ran on the runtime's own
threads at the priority of every question, any number at once, so one tenant's big ingest took another tenant's
first question from under a second to 19.6 s on two cores (issue 34). Here each ingest or extraction waits for the
one before it (a request's work is already bounded by `core.settings.IngestLimits`, so the wait is too), and runs
`INGEST_NICE` nicer than the server: Linux schedules each thread by its own nice value, so the cores go to a
question first and to the ingest whenever no question needs them. Threads the ingest's work starts (the document
embedder's pool is started by the first ingest) inherit the value.
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from typing import TypeVar

INGEST_NICE = 10
"""Added to the server's own nice value: a thread 10 below another gets about a tenth of a core's time beside it
while both are busy, and all of it while the other waits."""
NICEST = 19

T = TypeVar("T")


def _lower_priority() -> None:
    with suppress(AttributeError, OSError):  # no per-thread priority on this system: run at the normal one
        thread = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread, min(os.getpriority(os.PRIO_PROCESS, thread) + INGEST_NICE, NICEST))


_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragent-ingest", initializer=_lower_priority)


def on_ingest_worker(work: Callable[[], T]) -> T:
    """`work()` run on the ingest worker, after the ingests before it, in the caller's context (the run's stream
    writer and config); its result or its exception, as if called here."""
    return _worker.submit(contextvars.copy_context().run, work).result()
