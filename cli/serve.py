"""`ragent serve`: the LangGraph server (`langgraph dev`, from `langgraph.json`) on the embedded defaults, on a free
port; with `--sample`, the demo: the sample corpus ingested into its own scope, which runs naming none then read. It
runs through `graph.langgraph_dev`, whose run queue starts a run when it is created instead of up to a second later.

The server runs from a working folder inside the home (`<home>/server`) and without hot reload: the in-memory
runtime writes its thread index (`.langgraph_api/`) into its working folder and the engines write under the
home, so nothing is written into the project folder and nothing is watched (a server that writes inside the
folder it watches reloads itself endlessly). `langgraph dev` in the project folder is the way to get hot
reload while editing the code.

The engines are opened here only to ingest the sample corpus and are closed before the server starts: the
embedded vector index is single-process, and the server owns it from then on.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from core.errors import BackendUnavailable, InvalidInput
from core.scope import DEFAULT_SCOPE, SAMPLE_SCOPE
from core.settings import Settings
from graph.access.auth import LOOPBACK_HOSTS, NO_AUTH_ENV
from graph.access.keys import KEYS_ENV, LOCAL_KEY_FILE, KeyRing, ensure_local_key
from graph.access.tenancy import SERVED_SCOPE_ENV
from graph.queue_report import forget_queue_report
from retrievers.engines.lock import SERVER_URL_ENV, EngineLock
from retrievers.postgres.embedded.server import release_embedded_postgres
from retrievers.stack import uses_embedded_engines

PROJECT_FOLDER = Path(__file__).resolve().parents[1]
"""The checkout this module is in; `ragent serve` needs one, since its `langgraph.json` sits at the project root
and is not in the wheel (an installed ragent is served by `langgraph dev` with a langgraph.json of one's own)."""
STUDIO_URL = "https://smith.langchain.com/studio/?baseUrl={api}"
READY_TIMEOUT_S = 180
PAGE_PATH = "/web/"
"""Where the server serves the web page (`graph.page`)."""
QUIET_LOG_LEVEL = "WARNING"
"""LangGraph's log level unless `--verbose`: its warnings and errors, not a line per request."""
JOBS_PER_WORKER = 10
"""Runs the server works on at once; the dev server's default of 1 would queue every other thread."""


def free_port(host: str) -> int:
    """A port nothing listens on now. `langgraph dev` moves to another port without saying so when its port is
    taken, so the port is chosen here and checked again once the server answers."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def ingest_sample_corpus() -> None:
    from retrievers.ingestion.sources import ingest_source
    from retrievers.stack import open_stack

    stack = open_stack()
    try:
        print(ingest_source(stack, dataset="sample", scope=SAMPLE_SCOPE).summary(), flush=True)
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


def served_graphs(config: Path) -> list[str]:
    """The graphs `langgraph.json` serves, as the ready banner lists them."""
    return list(json.loads(config.read_text())["graphs"])


def sample_banner(with_sample: bool) -> str:
    """Which scope runs that name none read: the sample corpus's own in the demo, else the user's documents."""
    if with_sample:
        return (
            f"  Scope:  runs that name none read the sample corpus (scope {SAMPLE_SCOPE!r}); "
            f'context={{"scope": "{DEFAULT_SCOPE}"}} reads your own documents\n'
        )
    return (
        f"  Scope:  runs that name none read your documents (scope {DEFAULT_SCOPE!r}); "
        f"`ragent serve --sample` serves the sample corpus\n"
    )


def access_banner(settings: Settings, api: str, no_auth: bool) -> str:
    """How to call this server: the local key's file (created on first use when the data folder has no key), the
    keys configured by hand, or the loopback-only development mode."""
    if no_auth:
        return "  Auth:   none (--no-auth): only this machine's clients are served, as identity 'local'\n"
    ring = KeyRing(settings.home)
    if ensure_local_key(ring) is not None:
        where = ring.path.with_name(LOCAL_KEY_FILE)
        return (
            f"  Auth:   API key in {where} (identity 'local', every scope; `ragent keys` manages keys)\n"
            f'          get_client(url="{api}", api_key=open("{where}").read().strip())\n'
            f"          curl -H \"x-api-key: $(cat {where})\" {api}/threads/search -d '{{}}'\n"
        )
    source = f"${KEYS_ENV}" if ring.from_env else str(ring.path)
    return f"  Auth:   API keys from {source} ({len(ring.keys())}; `ragent keys list`); send one as x-api-key\n"


def serve(
    *, host: str, port: int | None, with_sample: bool, no_auth: bool, jobs: int = JOBS_PER_WORKER, verbose: bool = False
) -> int:
    config = PROJECT_FOLDER / "langgraph.json"
    if not config.is_file():
        raise InvalidInput(
            f"`ragent serve` runs from a checkout of the project and needs its langgraph.json, not found at {config} "
            "(an installed ragent has none); clone the project and `make setup`, or run `langgraph dev` with your own"
        )
    if not all(importlib.util.find_spec(name) for name in ("langgraph_cli", "langgraph_runtime_inmem")):
        raise InvalidInput("`ragent serve` needs langgraph-cli[inmem] in this environment; run `make setup`")
    if no_auth and host not in LOOPBACK_HOSTS:
        raise InvalidInput(
            f"--no-auth serves without keys and is for this machine only; it cannot listen on {host} "
            "(use 127.0.0.1, or keys: `ragent keys add`)"
        )
    settings = Settings.from_env()
    if with_sample:
        print(f"== ingesting the sample corpus into scope {SAMPLE_SCOPE!r} (unchanged ones are skipped)", flush=True)
        ingest_sample_corpus()
    if uses_embedded_engines(settings):
        # The server takes the engines at its first run; a holder now (an ingest, a question) is named here in one
        # line instead of in the server's log after it failed to load its graphs.
        EngineLock(settings.home).acquire().release()
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
        NO_AUTH_ENV: "1" if no_auth else "0",
        SERVED_SCOPE_ENV: SAMPLE_SCOPE if with_sample else DEFAULT_SCOPE,
        **({} if verbose else {"LOG_LEVEL": QUIET_LOG_LEVEL}),
    }
    command = [
        sys.executable,
        "-m",
        "graph.langgraph_dev",
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
            f"  Page:   {api}{PAGE_PATH}   (open it in a browser; sign in with the API key below)\n"
            f"  API:    {api}   (graphs: {', '.join(served_graphs(config))}; docs at {api}/docs)\n"
            f"{access_banner(settings, api, no_auth)}"
            f"{sample_banner(with_sample)}"
            f"  Studio: {STUDIO_URL.format(api=api)}\n"
            "          (Studio sends the key as a header: its connection dialog's advanced settings, x-api-key)\n",
            flush=True,
        )
        return server.wait()
    except KeyboardInterrupt:
        server.terminate()
        return server.wait()
    finally:
        forget_queue_report(settings.home)
        release_postgres(settings)


def release_postgres(settings: Settings) -> None:
    """The server process leaves the embedded Postgres's list of users only through its atexit, which a server
    stopped by a signal does not run; so `ragent serve` lets it go once the server has exited."""
    data_dir = settings.embedded_postgres_dir
    if data_dir is not None:
        release_embedded_postgres(data_dir, idle_stop_s=settings.postgres_idle_stop_s)
