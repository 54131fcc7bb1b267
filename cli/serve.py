"""`ragent serve`: the LangGraph server (`langgraph dev`, from `langgraph.json`) on the embedded defaults, with
the sample corpus ingested, on a free port.

The server runs from a working folder inside the home (`<home>/server`) and without hot reload: the in-memory
runtime writes its thread index (`.langgraph_api/`) into its working folder and the engines write under the
home, so nothing is written into the project folder and nothing is watched (a server that writes inside the
folder it watches reloads itself endlessly). `langgraph dev` in the project folder is the way to get hot
reload while editing the code.

The engines are opened here only to ingest the sample corpus and are closed before the server starts: the
embedded vector index is single-process, and the server owns it from then on.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from retrievers.engine_lock import SERVER_URL_ENV
from retrievers.errors import BackendUnavailable, InvalidInput
from retrievers.settings import Settings

PROJECT_FOLDER = Path(__file__).resolve().parents[1]
"""The checkout this module is in; `ragent serve` needs one, since its `langgraph.json` sits at the project root
and is not in the wheel (an installed ragent is served by `langgraph dev` with a langgraph.json of one's own)."""
STUDIO_URL = "https://smith.langchain.com/studio/?baseUrl={api}"
READY_TIMEOUT_S = 180
JOBS_PER_WORKER = 10
"""Runs the server works on at once; the dev server's default of 1 would queue every other thread."""


def free_port(host: str) -> int:
    """A port nothing listens on now. `langgraph dev` moves to another port without saying so when its port is
    taken, so the port is chosen here and checked again once the server answers."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def ingest_sample_corpus() -> None:
    from retrievers.sources import ingest_source
    from retrievers.stack import open_stack

    stack = open_stack()
    try:
        print(ingest_source(stack, dataset="sample").summary(), flush=True)
    finally:
        stack.close()


def wait_until_ready(api: str, server: subprocess.Popen, timeout_s: float) -> None:
    """Poll the server's health route until it answers, the process dies, or the time is up."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise BackendUnavailable(
                f"the LangGraph server exited with status {server.returncode} before it was ready; its log is above"
            )
        try:
            with urllib.request.urlopen(f"{api}/ok", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.2)
    server.terminate()
    raise BackendUnavailable(f"the LangGraph server did not answer on {api} within {timeout_s:.0f} s")


def serve(*, host: str, port: int | None, with_sample: bool, jobs: int = JOBS_PER_WORKER) -> int:
    config = PROJECT_FOLDER / "langgraph.json"
    langgraph = Path(sys.executable).with_name("langgraph")
    if not config.is_file():
        raise InvalidInput(
            f"`ragent serve` runs from a checkout of the project and needs its langgraph.json, not found at {config} "
            "(an installed ragent has none); clone the project and `make setup`, or run `langgraph dev` with your own"
        )
    if not langgraph.is_file():
        raise InvalidInput(
            f"`ragent serve` needs langgraph-cli[inmem] in this environment ({langgraph} is missing); run `make setup`"
        )
    settings = Settings.from_env()
    if with_sample:
        print("== ingesting the sample corpus (unchanged documents are skipped)", flush=True)
        ingest_sample_corpus()
    port = port or free_port(host)
    api = f"http://{host}:{port}"
    workdir = settings.home / "server"
    workdir.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "RAGENT_HOME": str(settings.home),
        SERVER_URL_ENV: api,
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "HF_HUB_OFFLINE": "1",
    }
    command = [
        str(langgraph),
        "dev",
        "--config",
        str(config),
        "--host",
        host,
        "--port",
        str(port),
        "--no-browser",
        "--no-reload",
        "--n-jobs-per-worker",
        str(jobs),
    ]
    started = time.monotonic()
    server = subprocess.Popen(command, cwd=workdir, env=env)
    signal.signal(signal.SIGTERM, lambda *_: server.terminate())
    try:
        wait_until_ready(api, server, READY_TIMEOUT_S)
        print(
            f"\nragent server ready in {time.monotonic() - started:.1f} s (home {settings.home})\n"
            f"  API:    {api}   (graphs: agent; docs at {api}/docs)\n"
            f"  Studio: {STUDIO_URL.format(api=api)}\n",
            flush=True,
        )
        return server.wait()
    except KeyboardInterrupt:
        server.terminate()
        return server.wait()
