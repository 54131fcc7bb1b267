"""The agent over HTTP, through `ragent serve` on the embedded defaults.

`ragent bench --only server` (`run`): the latency of one structured question at a time, from the request to the
final answer (`runs.wait` on a new thread), on the server as `ragent serve` runs it (its run queue woken by each new
run: `graph.langgraph_dev`) and, before it, with the library's queue left alone (`RAGENT_QUEUE_WAKEUP=0`: a run
starts at the queue's next 0.5 s poll), in one run on one data folder.

`python -m evals.bench_server --home bench-out/server --rounds 5` (`main`): the load test, timed from launch to
ready, then rounds of 20 threads asked at once, each question timed from thread creation to its answer; writes
OUT/server.json and server.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import time
from pathlib import Path
from typing import Any

from evals.metrics import percentile
from evals.plots import write_plot
from evals.served_agent import ServedAgent
from graph.demo_questions import DEMO_QUESTIONS
from graph.langgraph_dev import WAKEUP_ENV

CONCURRENT_THREADS = 20
LATENCY_RUNS = 30
STRUCTURED = [q for q, settings in DEMO_QUESTIONS[:3] if not settings]
"""The demo's questions answered from annotations alone (a list, a count per group, a sum)."""
QUEUES = {"library queue (0.5 s poll)": "0", "woken queue (ragent serve)": "1"}


def sequential_latency(served: ServedAgent, runs: int) -> dict[str, Any]:
    """One question at a time after a warm-up question: seconds from `runs.wait` to the answer, and the same with
    the thread's creation."""
    client = served.client()
    client.runs.wait(client.threads.create()["thread_id"], "agent", input={"question": STRUCTURED[0]})
    wait_s, total_s = [], []
    for i in range(runs):
        started = time.perf_counter()
        thread = client.threads.create()["thread_id"]
        asked = time.perf_counter()
        output = client.runs.wait(thread, "agent", input={"question": STRUCTURED[i % len(STRUCTURED)]})
        done = time.perf_counter()
        if not output.get("answer"):
            raise RuntimeError(f"no answer to {STRUCTURED[i % len(STRUCTURED)]!r}: {output}")
        wait_s.append(done - asked)
        total_s.append(done - started)
    return {
        "runs": runs,
        "wait_p50_ms": round(percentile(wait_s, 50) * 1000, 1),
        "wait_p95_ms": round(percentile(wait_s, 95) * 1000, 1),
        "with_thread_p50_ms": round(percentile(total_s, 50) * 1000, 1),
        "with_thread_p95_ms": round(percentile(total_s, 95) * 1000, 1),
    }


def run(out: Path, runs: int = LATENCY_RUNS) -> dict[str, Any]:
    """Both queues on one data folder (`OUT/server-home`, the sample corpus ingested on first use), one after the
    other."""
    home = (out / "server-home").resolve()
    report: dict[str, Any] = {"questions": STRUCTURED, "load_before": os.getloadavg()[0], "queues": {}}
    for name, wakeup in QUEUES.items():
        with ServedAgent(home, {WAKEUP_ENV: wakeup}) as served:
            report["queues"][name] = sequential_latency(served, runs)
    report["load_after"] = os.getloadavg()[0]
    before, after = (report["queues"][name]["wait_p50_ms"] for name in QUEUES)
    report["p50_speedup"] = round(before / after, 1)
    report["plot"] = write_plot("server", report, out)
    return report


def markdown(report: dict[str, Any]) -> str:
    lines = [
        f"One structured question at a time ({', '.join(repr(q) for q in report['questions'])}, in turn), "
        f"{next(iter(report['queues'].values()))['runs']} runs per queue after a warm-up; load average "
        f"{report['load_before']:.1f} before, {report['load_after']:.1f} after:",
        "",
        "| run queue | runs.wait p50 | p95 | with thread creation p50 | p95 |",
        "|---|---|---|---|---|",
        *(
            f"| {name} | {q['wait_p50_ms']} ms | {q['wait_p95_ms']} ms | {q['with_thread_p50_ms']} ms "
            f"| {q['with_thread_p95_ms']} ms |"
            for name, q in report["queues"].items()
        ),
        "",
        f"p50 {report['p50_speedup']}x faster with the woken queue.",
        "",
        report["plot"],
    ]
    return "\n".join(lines) + "\n"


STARTUP_LINE = re.compile(r"Application started up in ([0-9.]+)s")


async def ask_at_once(served: ServedAgent, questions: list[str]) -> list[tuple[float, str]]:
    """(seconds, answer format or error) for each question, all asked at the same time on their own threads."""
    client = served.async_client()

    async def one(question: str) -> tuple[float, str]:
        started = time.perf_counter()
        try:
            thread = await client.threads.create()
            output = await client.runs.wait(
                thread["thread_id"], "agent", input={"question": question}, raise_error=True
            )
            outcome = (
                output["answer"]["format"]
                if output.get("answer")
                else "clarify:" + output["__interrupt__"][0]["value"]["kind"]
            )
        except Exception as error:  # a benchmark counts failures instead of stopping at the first
            outcome = f"error: {type(error).__name__}: {error}"
        return time.perf_counter() - started, outcome

    return await asyncio.gather(*(one(q) for q in questions))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, default=Path("bench-out/server"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args()

    questions = [q for q, settings in DEMO_QUESTIONS if not settings]
    with ServedAgent(args.home.resolve()) as served:
        ready_seconds, app_startup = served.start_seconds, float(STARTUP_LINE.search(served.log.read_text()).group(1))
        first = asyncio.run(ask_at_once(served, questions[:1]))[0]
        timings: list[tuple[float, str]] = []
        for _ in range(args.rounds):
            batch = [questions[i % len(questions)] for i in range(CONCURRENT_THREADS)]
            timings += asyncio.run(ask_at_once(served, batch))
        served.stop()
        served.start()

    seconds = [s for s, _ in timings]
    errors = [outcome for _, outcome in timings if outcome.startswith("error")]
    report = {
        "ragent_serve_ready_s": round(ready_seconds, 2),
        "restart_ready_s": round(served.start_seconds, 2),
        "langgraph_app_startup_s": app_startup,
        "first_question_s": round(first[0], 2),
        "concurrent_threads": CONCURRENT_THREADS,
        "questions": len(timings),
        "errors": len(errors),
        "latency_p50_ms": round(percentile(seconds, 50) * 1000, 1),
        "latency_p95_ms": round(percentile(seconds, 95) * 1000, 1),
        "latency_max_ms": round(max(seconds) * 1000, 1),
        "outcomes": {o: sum(1 for _, x in timings if x == o) for o in sorted({x for _, x in timings})},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "server.json").write_text(json.dumps(report, indent=2))
    lines = ["| measure | value |", "|---|---|", *(f"| {k} | {v} |" for k, v in report.items() if k != "outcomes")]
    (args.out / "server.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print("outcomes:", report["outcomes"])
    for error in errors[:5]:
        print(" ", error)


if __name__ == "__main__":
    main()
