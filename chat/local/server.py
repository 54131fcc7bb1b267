"""The local chat server's process: llama.cpp (`xllamacpp.Server`, its OpenAI-compatible HTTP API on a loopback
port) holding one model, in a process of its own so that it outlives the command that started it and serves every
later command of the data folder without loading the model again.

It writes where it listens to its state file once the model is loaded, and stops by itself, removing the file, when
no request has come for its idle time: the counters of its `/metrics` endpoint say whether any token was read or
written since the last look. SIGTERM (`ragent stop`) stops it at once.

    python -m chat.local.server STATE_FILE MODEL_FILE MODEL_NAME --threads N --context N --idle-stop-s S
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import threading
import time
import urllib.request
from pathlib import Path

SERVER_MODULE = "chat.local.server"
CHECK_EVERY_S = 5.0
ACTIVITY_COUNTERS = ("llamacpp:prompt_tokens_total", "llamacpp:tokens_predicted_total", "llamacpp:requests_processing")


def _activity(url: str) -> tuple[float, ...] | None:
    """The counters that change with every request (None when the endpoint does not answer)."""
    try:
        with urllib.request.urlopen(f"{url}/metrics", timeout=CHECK_EVERY_S) as response:
            text = response.read().decode()
    except OSError:
        return None
    values = dict(line.rsplit(" ", 1) for line in text.splitlines() if line and not line.startswith("#"))
    return tuple(float(values.get(name, 0)) for name in ACTIVITY_COUNTERS)


def serve(state_file: Path, model_file: Path, model_name: str, threads: int, context: int, idle_stop_s: float) -> None:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model_file)
    params.model_alias = model_name
    params.port = 0  # a free loopback port, read back from the server
    params.n_parallel = 1  # one question at a time: two cores gain nothing from a second slot
    params.use_jinja = True  # the model's own chat template, which reads and writes tool calls
    params.n_ctx = context
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.cache_prompt = True  # the prompts share a fixed prefix: read once, reused by the next question
    params.endpoint_metrics = True
    server = xllamacpp.Server(params)
    url = server.listening_address
    started = time.time()
    stopping = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    state_file.write_text(
        json.dumps(
            {"pid": os.getpid(), "url": url, "model": model_name, "started": started, "idle_stop_s": idle_stop_s}
        )
    )
    try:
        last, last_change = _activity(url), time.monotonic()
        while not stopping.wait(CHECK_EVERY_S):
            now = _activity(url)
            if now != last or (now and now[-1] > 0):
                last, last_change = now, time.monotonic()
            elif time.monotonic() - last_change >= idle_stop_s:
                break
    finally:
        try:
            if json.loads(state_file.read_text()).get("pid") == os.getpid():
                state_file.unlink()
        except (OSError, ValueError):
            pass
        del server


def main() -> None:
    parser = argparse.ArgumentParser(prog=f"python -m {SERVER_MODULE}")
    parser.add_argument("state_file", type=Path)
    parser.add_argument("model_file", type=Path)
    parser.add_argument("model_name")
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--context", type=int, required=True)
    parser.add_argument("--idle-stop-s", type=float, required=True)
    args = parser.parse_args()
    serve(args.state_file, args.model_file, args.model_name, args.threads, args.context, args.idle_stop_s)


if __name__ == "__main__":
    main()
