"""The embedded Postgres stays up for a while after its last user exits, and is stopped once it has been idle that
long (RAGENT_POSTGRES_IDLE_STOP_S, 300 s by default).

Stopping the server as the last process exits made every `ragent ask` wait about 0.1 s for the stop at its exit
(a tenth of a question answered from annotations), and the next question start the server again (0.2-0.4 s of CPU
beside its imports). Like pg_tmp's watchdog, the last process to leave instead records when the server became idle
(`IDLE_FILE`) and makes sure one watcher process runs (`WATCHER_FILE` holds its id). The watcher sleeps until the
server has been idle long enough and stops it, under pgserver's lock, unless a process uses it again by then: that
process's own exit records a new idle time, which the same watcher waits for, or starts a new watcher if this one
has gone. `ragent stop` stops the server at once as before, and the watcher then finds nothing to stop.

    python -m retrievers.postgres.embedded.idle DATA_DIR    # the watcher; started by `stop_when_idle`
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from retrievers.postgres.embedded.process import alive, live_users, pg_ctl_stop, postmaster_pid, server_lock

WATCHER_MODULE = "retrievers.postgres.embedded.idle"
"""This module, which the watcher runs as `__main__` (so not by its `__name__`)."""
IDLE_FILE = ".idle_since.json"
WATCHER_FILE = ".idle_watcher.pid"
WATCHER_LOG = "idle-stop.log"
CHECK_EVERY_S = 5.0
"""The watcher rereads the idle record at least this often, so that a later user's shorter idle time applies."""


@dataclass(frozen=True)
class Idle:
    """When the server's last user left, and how long it may then stay up unused."""

    since: float
    stop_after_s: float

    @property
    def stops_at(self) -> float:
        return self.since + self.stop_after_s


def read_idle(data_dir: Path) -> Idle | None:
    """The idle record, or None when there is none (or it is unreadable: the watcher then stops nothing)."""
    try:
        record = json.loads((data_dir / IDLE_FILE).read_text())
        return Idle(float(record["since"]), float(record["stop_after_s"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def stop_when_idle(data_dir: Path, idle_stop_s: float) -> None:
    """At a user's exit (after it left the users): if the server runs and no live process uses it, record that it
    is idle from now and make sure a watcher will stop it `idle_stop_s` seconds from now."""
    with server_lock():
        if live_users(data_dir) or postmaster_pid(data_dir) is None:
            return
        (data_dir / IDLE_FILE).write_text(json.dumps({"since": time.time(), "stop_after_s": idle_stop_s}))
        if watcher_pid(data_dir) is not None:
            return
        with open(data_dir / WATCHER_LOG, "ab") as log:
            watcher = subprocess.Popen(  # its command line ends with the module and the folder: `watcher_pid`
                [sys.executable, "-m", WATCHER_MODULE, str(data_dir)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,  # not stopped with the shell's job or a Ctrl-C to the process that left
                close_fds=True,
            )
        (data_dir / WATCHER_FILE).write_text(str(watcher.pid))


def watcher_pid(data_dir: Path) -> int | None:
    """The running watcher's id (read under the lock), or None when there is none: its process has ended (a watcher
    killed with SIGKILL leaves its file behind), the id now belongs to another program, or the file was copied with
    the folder and names the original's watcher."""
    import psutil

    try:
        pid = int((data_dir / WATCHER_FILE).read_text())
        return pid if alive(pid) and psutil.Process(pid).cmdline()[-2:] == [WATCHER_MODULE, str(data_dir)] else None
    except (OSError, ValueError, psutil.Error):
        return None


def watch(data_dir: Path) -> None:
    """Sleep until the server has been idle long enough, then stop it unless a live process uses it; leave at once
    when the server is not running (stopped by `ragent stop`), to be started again by the next user. The decision
    and this watcher's leaving are made under one hold of the lock a leaving user takes, so that a user that leaves
    meanwhile either sees this watcher gone (and starts another) or has its idle time seen by it."""
    while True:
        idle = read_idle(data_dir)
        remaining = idle.stops_at - time.time() if idle else 0
        if remaining > 0 and postmaster_pid(data_dir) is not None:
            time.sleep(min(remaining, CHECK_EVERY_S))
            continue
        with server_lock():
            if idle is not None and read_idle(data_dir) != idle:  # a user came and left meanwhile: wait from then
                continue
            if idle is not None and not live_users(data_dir) and postmaster_pid(data_dir) is not None:
                pg_ctl_stop(data_dir)
            (data_dir / IDLE_FILE).unlink(missing_ok=True)  # a user still using it records its own idle time
            if watcher_pid(data_dir) == os.getpid():
                (data_dir / WATCHER_FILE).unlink()
            return


if __name__ == "__main__":
    watch(Path(sys.argv[1]))
