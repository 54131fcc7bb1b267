"""Start, find, report and stop the data folder's local chat server (`chat.local.server`), like the embedded
Postgres: started by the first command that needs a model, one per data folder, shared by every command and the
LangGraph server of that folder, stopped when idle (by itself) or by `ragent stop`.

Starting happens under a file lock, so that two commands asking at once start one server: the second finds the
first's state file and its server answering. A state file whose process has ended (killed with SIGKILL) or
belongs to another program is stale and ignored.
"""

from __future__ import annotations

import fcntl
import json
import signal
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from chat.local.server import SERVER_MODULE
from chat.local.weights import local_model, weights_file
from chat.settings import ChatSettings
from core.errors import BackendUnavailable, InvalidInput

STATE_FILE = "server.json"
LOCK_FILE = "server.lock"
LOG_FILE = "server.log"
START_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class LocalChatStatus:
    folder: Path
    pid: int | None = None
    url: str | None = None
    model: str | None = None
    started: float | None = None
    idle_stop_s: float | None = None

    @property
    def running(self) -> bool:
        return self.pid is not None

    def as_json(self) -> dict:
        return {
            "running": self.running,
            "pid": self.pid,
            "url": self.url,
            "model": self.model,
            "started": self.started,
            "stops_after_idle_s": self.idle_stop_s,
            "log": str(self.folder / LOG_FILE),
        }


def chat_folder(home: Path) -> Path:
    return home / "chat"


@contextmanager
def _locked(folder: Path):
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / LOCK_FILE, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _ours(pid: int, state_file: Path) -> bool:
    """The process runs and is this folder's server (a pid can be reused by another program after a SIGKILL)."""
    import psutil

    try:
        process = psutil.Process(pid)
        return process.status() != psutil.STATUS_ZOMBIE and str(state_file) in process.cmdline()
    except psutil.Error:
        return False


def local_chat_status(home: Path) -> LocalChatStatus:
    """Read from the data folder alone: asking does not start the server."""
    folder = chat_folder(home)
    try:
        state = json.loads((folder / STATE_FILE).read_text())
    except (OSError, ValueError):
        return LocalChatStatus(folder)
    if not _ours(int(state.get("pid", 0)), folder / STATE_FILE):
        return LocalChatStatus(folder)
    return LocalChatStatus(
        folder, state["pid"], state["url"], state.get("model"), state.get("started"), state.get("idle_stop_s")
    )


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def local_chat_url(home: Path, cache_dir: Path, settings: ChatSettings) -> str:
    """The URL of the folder's server for `settings.model`, started if none runs (or the one running holds another
    model: it is stopped first). The weights are joined and verified before anything starts."""
    model = local_model(settings.model)
    try:
        import xllamacpp  # noqa: F401  (only to say clearly that the runtime is missing)
    except ImportError:
        raise InvalidInput("RAGENT_CHAT=local needs llama.cpp: pip install 'ragent[local-llm]'") from None
    folder = chat_folder(home)
    with _locked(folder):
        status = local_chat_status(home)
        if status.running and status.model == model.name and _answers(status.url):
            return status.url
        if status.running:
            _terminate(status)
        model_file = weights_file(model, cache_dir)
        return _start(folder, model_file, model.name, settings)


def _start(folder: Path, model_file: Path, model_name: str, settings: ChatSettings) -> str:
    state_file = folder / STATE_FILE
    state_file.unlink(missing_ok=True)
    command = [
        sys.executable,
        "-m",
        SERVER_MODULE,
        str(state_file),
        str(model_file),
        model_name,
        f"--threads={settings.threads}",
        f"--context={settings.context}",
        f"--idle-stop-s={settings.idle_stop_s}",
    ]
    with open(folder / LOG_FILE, "ab") as log:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # outlives the command that started it, and its Ctrl-C
            close_fds=True,
        )
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise BackendUnavailable(
                f"the local chat model {model_name} did not start (exit {process.returncode}); "
                f"see {folder / LOG_FILE}: {_log_tail(folder)}"
            )
        status = local_chat_status(folder.parent)
        if status.pid == process.pid and _answers(status.url):
            return status.url
        time.sleep(0.2)
    process.kill()
    raise BackendUnavailable(
        f"the local chat model {model_name} did not answer in {START_TIMEOUT_S:.0f} s; see {folder / LOG_FILE}"
    )


def _log_tail(folder: Path, lines: int = 3) -> str:
    try:
        text = (folder / LOG_FILE).read_text(errors="replace").strip().splitlines()
    except OSError:
        return "no log"
    return " / ".join(text[-lines:])


def _terminate(status: LocalChatStatus) -> None:
    """SIGTERM, then SIGKILL if it has not ended in STOP_TIMEOUT_S."""
    import psutil

    try:
        process = psutil.Process(status.pid)
        process.send_signal(signal.SIGTERM)
        process.wait(STOP_TIMEOUT_S)
    except psutil.TimeoutExpired:
        process.kill()
    except psutil.Error:
        pass
    (status.folder / STATE_FILE).unlink(missing_ok=True)


def stop_local_chat(home: Path) -> LocalChatStatus:
    """Stop the folder's server now (a question waiting on it fails, and its planner falls back to the rules).
    Returns what was running."""
    with _locked(chat_folder(home)):
        status = local_chat_status(home)
        if status.running:
            _terminate(status)
    return status
