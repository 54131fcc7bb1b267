"""The agent over HTTP: `ragent serve` on the embedded defaults, timed from launch to ready, then rounds of 20
threads asked at once through `langgraph_sdk`, each question timed from thread creation to its answer.

    python -m evals.bench_server --home bench-out/server --rounds 5

Writes OUT/server.json and server.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from pathlib import Path

from evals.demo_questions import DEMO_QUESTIONS
from evals.metrics import percentile
from evals.served_agent import ServedAgent

CONCURRENT_THREADS = 20
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
