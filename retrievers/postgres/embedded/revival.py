"""A long-running process (the LangGraph server) brings back the embedded Postgres it uses when its postmaster dies.

A CLI command starts the server as it begins, and any later command starts it again; a server process joins it once,
and pgserver keeps that join for the life of the process, so after a `kill -9` of the postmaster (or an out-of-memory
kill) every run failed "Postgres is unavailable" for as long as one waited, until some CLI command happened to start
it. `keep_embedded_postgres_up` starts a watcher thread in the process: once the postmaster the folder records is gone,
it starts it again with a back-off between failed tries (1 s doubling to `MAX_BACKOFF_S`; the old server's backends
may still hold its shared memory for a moment, and Postgres then refuses to start), logs each death, try and
restart, and records the restart in the data folder (`RESTART_FILE`) for `ragent stats`.

A restart holds the lock every start, join and stop takes (pgserver's), and starts nothing when a postmaster serves
the folder by then: a CLI command that started it first is joined, never raced, and no second postmaster is started
on the folder (Postgres would refuse it anyway, by its `postmaster.pid`). The connection pools then replace their
broken connections (both check a connection before handing it out), and a run that failed meanwhile is run again on
its thread, whose checkpoints the restarted server still holds (a kill -9 loses nothing committed: the start replays
the write-ahead log).
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import threading
import time
from pathlib import Path

from retrievers.postgres.embedded.process import postmaster_pid, server_lock

RESTART_FILE = ".restarted.json"
WATCH_EVERY_S = 0.5
MAX_BACKOFF_S = 30.0

log = logging.getLogger(__name__)
_keepers: dict[Path, threading.Event] = {}
_keepers_lock = threading.Lock()


def keep_embedded_postgres_up(data_dir: Path) -> None:
    """Watch the embedded Postgres of `data_dir` from now until this process exits (once per folder and process),
    restarting it whenever its postmaster has died. The process must have joined the server already."""
    data_dir = data_dir.resolve()
    with _keepers_lock:
        if data_dir in _keepers:
            return
        stopping = _keepers[data_dir] = threading.Event()
    # Registered after pgserver's own exit handler, so run before it: a server stopped at this process's exit (with
    # RAGENT_POSTGRES_IDLE_STOP_S=0) is not started again.
    atexit.register(stopping.set)
    threading.Thread(target=_watch, args=(data_dir, stopping), name="postgres-revival", daemon=True).start()


def _watch(data_dir: Path, stopping: threading.Event) -> None:
    serving = postmaster_pid(data_dir)
    while not stopping.wait(WATCH_EVERY_S):
        now = postmaster_pid(data_dir)
        if now is None and serving is not None:
            log.warning("the embedded Postgres in %s died (pid %s); starting it again", data_dir, serving)
            now = _restart_until_up(data_dir, serving, stopping)
        serving = now


def _restart_until_up(data_dir: Path, died: int, stopping: threading.Event) -> int | None:
    """Try until a postmaster serves the folder again (started here, or by another process meanwhile), waiting
    longer after each failure; None when this process exits first."""
    backoff = 1.0
    while not stopping.is_set():
        try:
            return _restart(data_dir, died, stopping)
        except Exception as exc:  # pgserver surfaces pg_ctl's failures as several types
            log.warning(
                "the embedded Postgres in %s did not start (%s: %s); trying again in %.0f s (see %s)",
                data_dir,
                type(exc).__name__,
                str(exc).strip().splitlines()[0] if str(exc).strip() else "",
                backoff,
                data_dir / "log",
            )
        stopping.wait(backoff)
        backoff = min(backoff * 2, MAX_BACKOFF_S)
    return None


def _restart(data_dir: Path, died: int, stopping: threading.Event) -> int | None:
    import pgserver

    with server_lock():
        if stopping.is_set():
            return None
        running = postmaster_pid(data_dir)
        if running is not None:
            log.warning("the embedded Postgres in %s is back (pid %s), started by another process", data_dir, running)
            return running
        server = pgserver.PostgresServer._instances[data_dir]
        server.ensure_postgres_running()
        started = server.get_pid()
        _record_restart(data_dir, died, started)
    log.warning("restarted the embedded Postgres in %s (pid %s; pid %s had died)", data_dir, started, died)
    return started


def _record_restart(data_dir: Path, died: int, started: int) -> None:
    earlier = read_restart(data_dir)
    count = earlier["count"] + 1 if earlier and earlier.get("by") == os.getpid() else 1
    record = {"at": time.time(), "by": os.getpid(), "pid": started, "died": died, "count": count}
    (data_dir / RESTART_FILE).write_text(json.dumps(record))


def read_restart(data_dir: Path) -> dict | None:
    """The last restart made by a process watching the folder's Postgres: when, by which process, the postmaster it
    started and the one that had died, and how many times that process restarted it. None when there is none (or
    the file is unreadable)."""
    try:
        record = json.loads((data_dir / RESTART_FILE).read_text())
        return record if {"at", "by", "pid", "died", "count"} <= set(record) else None
    except (OSError, ValueError, TypeError):
        return None
