"""Who owns the embedded engines of a data folder: one process at a time, decided by an OS file lock.

The embedded keyword index (Tantivy) and vector index (qdrant-edge) are single-writer, and qdrant-edge rewrites
its shard's files merely by opening it, before it notices another process has it open: a second process that
only wanted to read would damage the index of the first. So a process takes `<home>/engines.lock` before it opens
any engine file, and a process that cannot take it opens none, and says who holds it.

The lock is `flock` on an open file: the OS drops it when the process ends, however it ends (`kill -9`
included), so a crashed owner never leaves the folder locked. The holder writes who it is into the file (pid,
command, start time, and a server's URL), which is what a refused process reports. A holder that answers one
question or search, or reads the folder's figures or documents (`ragent ask`, `resume`, `search`, `stats`,
`documents`), is done in seconds, so a process waits for it, up to `QUESTION_WAIT_S`, instead of refusing: three
questions asked at once, or beside a `ragent stats`, are answered one after another. An ingest, a check or a server
is waited for by no one.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from core.errors import BackendUnavailable

LOCK_NAME = "engines.lock"
SERVER_URL_ENV = "RAGENT_SERVER_URL"
"""Set by `ragent serve` for the server it starts, so that a refused command can point at it."""
COMMAND_CHARS = 200
QUESTION_WAIT_S = 60.0
OWNER_UNWRITTEN_WAIT_S = 2.0
"""How long a lock whose file names no owner is waited for, whatever the caller's wait: a holder writes who it is
just after taking the lock and empties the file just before giving it back, so an empty file is a moment, not a
state, and who holds the lock is read again."""
QUESTION_COMMANDS = ("ask", "resume", "search", "stats", "documents")
"""Commands that hold the engines for seconds (one question, search, count or document listing or deletion): a
second process waits for them."""


class EnginesBusy(BackendUnavailable):
    """The engines of the data folder belong to another process; `owner` is what it wrote about itself."""

    def __init__(self, home: Path, owner: dict[str, Any]):
        self.home, self.owner = home, owner
        who = f"process {owner.get('pid', '?')} ({owner.get('command') or 'unknown command'})"
        since = f", since {owner['started']}" if owner.get("started") else ""
        advice = _advice(owner.get("server_url"), _me()["command"].split()[1:2])
        super().__init__(f"the search engines in {home} are in use by {who}{since}; {advice}")


class EngineLock:
    """Held from `acquire` to `release`; the engines opened under it are closed before it is released."""

    def __init__(self, home: Path):
        self.home = Path(home)
        self.path = self.home / LOCK_NAME
        self._fd: int | None = None

    def acquire(self, wait_s: float = QUESTION_WAIT_S) -> EngineLock:
        """Take the lock; while its holder answers a question, wait for it (up to `wait_s`), else refuse."""
        self.home.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        started = time.monotonic()
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                owner, waited = read_owner(self.home), time.monotonic() - started
                unwritten = not owner and waited <= max(wait_s, OWNER_UNWRITTEN_WAIT_S)
                if not unwritten and (not _answers_a_question(owner) or waited > wait_s):
                    os.close(fd)
                    raise EnginesBusy(self.home, owner) from None
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(_me()).encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def read_owner(home: Path) -> dict[str, Any]:
    """What the current holder wrote about itself (empty if it has not written yet or the file is gone)."""
    try:
        return json.loads((Path(home) / LOCK_NAME).read_text(encoding="utf-8") or "{}")
    except (OSError, json.JSONDecodeError):
        return {}


def _answers_a_question(owner: dict[str, Any]) -> bool:
    """The holder is one of the `QUESTION_COMMANDS` (not a server, whose questions never end)."""
    words = str(owner.get("command") or "").split()
    return not owner.get("server_url") and len(words) > 1 and words[1] in QUESTION_COMMANDS


def _advice(server: str | None, command: list[str]) -> str:
    """What the refused command can do instead: a question goes through the server that holds the engines, an ingest
    through the server's `ingest` graph; anything else waits for the holder or uses a data folder of its own."""
    if not server:
        return "wait for it to finish or stop it, or give this command its own RAGENT_HOME"
    if command == ["ingest"]:
        return f"ingest through that server (its `ingest` graph at {server}: see docs/operations.md) or stop it first"
    return f"ask through that server (`ragent ask --server {server} ...`, or Studio) or stop it first"


def _me() -> dict[str, Any]:
    command = " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv and sys.argv[0] else "python"
    return {
        "pid": os.getpid(),
        "command": command[:COMMAND_CHARS],
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "server_url": os.environ.get(SERVER_URL_ENV),
    }
