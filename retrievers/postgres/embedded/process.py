"""The embedded Postgres's processes, as its data folder records them: the postmaster that serves the folder, the
processes pgserver lists as its users (and which of them still live), pgserver's lock over that list, and the stop.

What both the server's start and stop (`server`) and the idle watcher (`idle`) read and do, so neither imports the
other for it. pgserver keeps the ids of the processes using a server in `<data>/.handle_pids.json`; a process killed
with SIGKILL never removes its id, so ids of processes that no longer exist are forgotten here (`forget_dead_users`).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from core.errors import BackendUnavailable

USERS_FILE = ".handle_pids.json"
"""pgserver's list of the processes using the server (see the module docstring)."""
STOP_TIMEOUT_S = 60


def prepare_runtime() -> None:
    os.environ.setdefault("XDG_RUNTIME_DIR", str(Path("/tmp") / f"runtime-{os.getuid()}"))
    runtime_dir = Path(os.environ["XDG_RUNTIME_DIR"])
    runtime_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    runtime_dir.chmod(0o700)
    logging.getLogger("pgserver").setLevel(logging.WARNING)


def users_list(data_dir: Path):
    prepare_runtime()
    from pgserver.utils import DiskList

    return DiskList(data_dir / USERS_FILE)


def server_lock():
    """pgserver's own inter-process lock around its list of users: held while the list is read and rewritten, as
    pgserver holds it while a process joins or leaves."""
    prepare_runtime()
    from pgserver import PostgresServer

    return PostgresServer._lock


def alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def forget_dead_users(data_dir: Path) -> list[int]:
    """Drop the ids of processes that no longer exist from the server's list of users; returns the live ones."""
    if not (data_dir / USERS_FILE).exists():
        return []
    with server_lock():
        return live_users(data_dir)


def live_users(data_dir: Path) -> list[int]:
    """`forget_dead_users` for a caller that holds the server's lock already (pgserver's lock is not re-entrant:
    taking it again and releasing it would release the caller's hold)."""
    users = users_list(data_dir)
    listed = users.get()
    live = [pid for pid in listed if alive(pid)]
    if live != listed:
        users.put(live)
    return live


def pg_ctl_stop(data_dir: Path, mode: str = "fast") -> None:
    """Stop the server, as the OS user pgserver runs it as under root, and wait until it has stopped: a fast shutdown
    rolls back open transactions and keeps what was committed; an immediate one skips the shutdown checkpoint (the
    next start replays the write-ahead log)."""
    import subprocess

    import pgserver

    user = "pgserver" if os.geteuid() == 0 else None
    try:
        pgserver.pg_ctl(["-w", "-m", mode, "-t", str(STOP_TIMEOUT_S), "stop"], pgdata=data_dir, user=user)
    except subprocess.CalledProcessError as exc:
        said = (exc.output or b"").decode(errors="replace").strip().splitlines()
        raise BackendUnavailable(
            f"the embedded Postgres in {data_dir} did not stop ({said[-1] if said else exc}); see {data_dir / 'log'}"
        ) from None


def pid_file(data_dir: Path) -> tuple[int, Path] | None:
    """The process id and the data folder that `postmaster.pid` records, when it holds them."""
    try:
        pid, recorded = (data_dir / "postmaster.pid").read_text().split("\n")[:2]
        return int(pid), Path(recorded)
    except (OSError, ValueError):
        return None


def serves(recorded: tuple[int, Path], data_dir: Path) -> bool:
    """Whether the live process `postmaster.pid` records (`pid_file`) is the Postgres of `data_dir`: Postgres works
    in its data folder, and the link to a process's working folder follows the folder when it is moved. Where that
    link cannot be read, the folder the file records stands for it."""
    import psutil

    pid, recorded_dir = recorded
    try:
        return Path(psutil.Process(pid).cwd()) == data_dir.resolve()
    except psutil.Error:
        return recorded_dir == data_dir.resolve()


def postmaster_pid(data_dir: Path) -> int | None:
    """The id of the Postgres serving `data_dir`, or None when none runs (a `postmaster.pid` naming a process that
    ended, or another folder's server, is not one)."""
    recorded = pid_file(data_dir)
    return recorded[0] if recorded and alive(recorded[0]) and serves(recorded, data_dir) else None


def describe_process(pid: int) -> str:
    """A process as `ragent stop` and `ragent stats` name it: its id and command line."""
    import psutil

    try:
        return f"{pid} ({' '.join(' '.join(psutil.Process(pid).cmdline()).split())[:120]})"
    except psutil.Error:
        return str(pid)
