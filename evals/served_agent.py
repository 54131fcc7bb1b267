"""A `ragent serve --sample` process for tests and benchmarks: started on its own home, its output kept in a log
file, its API URL read from what it prints, exactly as a user would see it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from langgraph_sdk import get_client, get_sync_client
from langgraph_sdk.client import LangGraphClient, SyncLangGraphClient

from graph.access.keys import LOCAL_KEY_FILE

START_TIMEOUT_S = 300
API_LINE = re.compile(r"^  API:\s+(http://\S+)", re.MULTILINE)


class ServedAgent:
    def __init__(self, home: Path, env: dict[str, str] | None = None):
        self.home, self.log = home, home / "serve.log"
        self.env = {**os.environ, "RAGENT_HOME": str(home), **(env or {})}
        self.process: subprocess.Popen | None = None
        self.url = ""
        self.first_started_at = time.time()
        self.start_seconds = 0.0
        """From launching `ragent serve` to its printed API URL (the server answers /ok by then); this includes
        checking the sample corpus is ingested."""

    def start(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        launched = time.monotonic()
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "cli", "serve", "--sample"], env=self.env, stdout=log, stderr=subprocess.STDOUT
            )
        deadline = launched + START_TIMEOUT_S
        while time.monotonic() < deadline and self.process.poll() is None:
            found = API_LINE.search(self.log.read_text())
            if found:
                self.url, self.start_seconds = found.group(1), time.monotonic() - launched
                return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"ragent serve did not print its API URL:\n{self.log.read_text()[-3000:]}")

    @property
    def api_key(self) -> str:
        """The local key `ragent serve` made in this home, as a user reads it from the file it names."""
        return (self.home / LOCAL_KEY_FILE).read_text(encoding="utf-8").strip()

    def client(self, **options) -> SyncLangGraphClient:
        return get_sync_client(url=self.url, api_key=self.api_key, **options)

    def async_client(self, **options) -> LangGraphClient:
        return get_client(url=self.url, api_key=self.api_key, **options)

    def stop(self) -> None:
        """SIGTERM, as a service manager stops it: the server finishes its runs and flushes its thread index."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=60)

    def kill(self) -> None:
        """kill -9, as a crash or an out-of-memory kill ends it: the LangGraph server `ragent serve` started, then
        `ragent serve` itself (which would otherwise report the server's end and release its Postgres)."""
        if self.process and self.process.poll() is None:
            children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read_text().split()
            for pid in children:
                os.kill(int(pid), signal.SIGKILL)
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=60)

    def __enter__(self) -> ServedAgent:
        self.start()
        return self

    def __exit__(self, *_) -> None:
        self.stop()
