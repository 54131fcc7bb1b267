"""Load: 50 agent runs at a time for 5 minutes, in process and through the server, counting errors and
watching latency and memory.

    python -m evals.bench_load --seconds 300 --concurrency 50 --out bench-out

In process, 50 worker threads each ask question after question on the embedded stack, every run checkpointed
in Postgres (one connection pool shared by the savers, as a service would run it). Through the server,
`ragent serve` on a fresh data folder gets 50 client loops over HTTP. The questions are the demo's: every
route, and one that asks for a clarification, answered "stop" (a resumed run). Memory is the resident set of
the process doing the work (the server's worker process for the HTTP part), sampled at the start and the end;
growth is what a long-running deployment would see.

Writes OUT/load.json and load.md.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.types import Command
from psycopg_pool import ConnectionPool

from evals.eval_corpus import eval_services
from evals.metrics import percentile
from evals.served_agent import ServedAgent
from graph.builder import compile_agent
from graph.checkpointing import CONNECTION_OPTIONS, SERDE
from graph.context import AgentContext
from graph.demo_questions import DEMO_QUESTIONS
from retrievers.ingestion.sources import ingest_source

QUESTIONS = [(q, AgentContext(**settings)) for q, settings in DEMO_QUESTIONS]
STOP = {"choice": "stop"}


def _rss_mb(process: psutil.Process) -> float:
    return round(sum(p.memory_info().rss for p in [process, *process.children(recursive=True)]) / 2**20, 1)


def _summary(latencies: list[float], errors: list[str], rss_start: float, rss_end: float, seconds: float) -> dict:
    return {
        "runs": len(latencies),
        "errors": len(errors),
        "runs per second": round(len(latencies) / seconds, 1),
        "latency p50 ms": round(percentile(latencies, 50), 1),
        "latency p95 ms": round(percentile(latencies, 95), 1),
        "latency max ms": round(max(latencies, default=0), 1),
        "RSS start MB": rss_start,
        "RSS end MB": rss_end,
        "RSS growth MB": round(rss_end - rss_start, 1),
        "first errors": errors[:3],
    }


def in_process(home: Path, seconds: float, concurrency: int) -> dict:
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    with eval_services(home) as services:
        ingest_source(services.stack, dataset="sample", progress=False)
        with ConnectionPool(
            services.stack.store.url, min_size=4, max_size=concurrency, kwargs=CONNECTION_OPTIONS
        ) as pool:
            saver = PostgresSaver(pool, serde=SERDE)
            saver.setup()
            agent = compile_agent(services, saver)
            deadline = time.monotonic() + seconds

            def worker(number: int) -> None:
                turn = number
                while time.monotonic() < deadline:
                    question, context = QUESTIONS[turn % len(QUESTIONS)]
                    turn += 1
                    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
                    started = time.perf_counter()
                    try:
                        agent.invoke({"question": question}, config, context=context)
                        if agent.get_state(config).interrupts:
                            agent.invoke(Command(resume=STOP), config, context=context)
                        with lock:
                            latencies.append((time.perf_counter() - started) * 1000)
                    except Exception as error:  # a load test counts failures instead of stopping at the first
                        with lock:
                            errors.append(f"{type(error).__name__}: {error}")

            me = psutil.Process()
            agent.invoke(
                {"question": QUESTIONS[0][0]}, {"configurable": {"thread_id": "warm-up"}}, context=QUESTIONS[0][1]
            )
            rss_start, started = _rss_mb(me), time.monotonic()
            with ThreadPoolExecutor(max_workers=concurrency) as workers:
                list(workers.map(worker, range(concurrency)))
            return _summary(latencies, errors, rss_start, _rss_mb(me), time.monotonic() - started)


def through_server(seconds: float, concurrency: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="ragent-load-") as home, ServedAgent(Path(home)) as served:
        server = psutil.Process(served.process.pid)

        async def load() -> tuple[list[float], list[str], float]:
            client = served.async_client(timeout=120)
            latencies: list[float] = []
            errors: list[str] = []
            await client.runs.wait(
                (await client.threads.create())["thread_id"], "agent", input={"question": QUESTIONS[0][0]}
            )
            rss_start = _rss_mb(server)
            deadline = time.monotonic() + seconds

            async def loop(number: int) -> None:
                turn = number
                while time.monotonic() < deadline:
                    question, context = QUESTIONS[turn % len(QUESTIONS)]
                    turn += 1
                    started = time.perf_counter()
                    try:
                        thread = (await client.threads.create())["thread_id"]
                        context_json = dataclasses.asdict(context)
                        output = await client.runs.wait(
                            thread, "agent", input={"question": question}, context=context_json, raise_error=True
                        )
                        if "__interrupt__" in output:
                            await client.runs.wait(
                                thread, "agent", command={"resume": STOP}, context=context_json, raise_error=True
                            )
                        latencies.append((time.perf_counter() - started) * 1000)
                    except Exception as error:  # counted, not raised: the figure is the error count
                        errors.append(f"{type(error).__name__}: {error}")

            await asyncio.gather(*(loop(n) for n in range(concurrency)))
            return latencies, errors, rss_start

        started = time.monotonic()
        latencies, errors, rss_start = asyncio.run(load())
        return _summary(latencies, errors, rss_start, _rss_mb(server), time.monotonic() - started)


def markdown(report: dict) -> str:
    keys = [k for k in report["in process"] if k != "first errors"]
    lines = [
        f"{report['concurrency']} runs at a time for {report['seconds']:.0f} s each way:",
        "",
        "| measure | in process | through the server |",
        "|---|---|---|",
    ]
    lines += [f"| {k} | {report['in process'][k]} | {report['through the server'][k]} |" for k in keys]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args()
    report = {
        "concurrency": args.concurrency,
        "seconds": args.seconds,
        "in process": in_process((args.out / "load").resolve(), args.seconds, args.concurrency),
        "through the server": through_server(args.seconds, args.concurrency),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "load.json").write_text(json.dumps(report, indent=2))
    (args.out / "load.md").write_text(markdown(report) + "\n")
    print(markdown(report))
    for part in ("in process", "through the server"):
        for error in report[part]["first errors"]:
            print(f"  {part}: {error}")


if __name__ == "__main__":
    main()
