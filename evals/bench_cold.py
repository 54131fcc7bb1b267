"""`ragent ask` from the shell, each run a new process: the wall time a user waits, for a question answered from
annotations and for one that needs the embedder (each run with an empty embedding cache, so that its queries are
embedded), by the code before the cold-start work (`BASELINE_REVISION`, exported from git) and by this checkout, side
by side in one run; then the annotations question through `ragent ask --server` on a running `ragent serve`.

The operating system's file cache is warm after the first run (as it is for a user asking a second question), so
"cold" means a new interpreter: imports, engines opened, the model loaded when the question needs it.

    ragent bench --only cold
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from evals.exported_revision import PROJECT, exported_revision
from evals.plots import write_plot
from evals.served_agent import ServedAgent

BASELINE_REVISION = "9a122d4"
"""The project before the cold-start work: every process imported openai and numpy, made the embedder and loaded
and closed the vector index."""
RUNS = 5
QUESTIONS = {
    "annotations only": "How many contracts per governing law?",
    "needs the embedder": "How do I get onto the VPN when working from home?",
}
EXPECTED = {"annotations only": "| Delaware | 3 | 3 |", "needs the embedder": "[sample-generic-002]"}


def timed_ask(code: Path, env: dict[str, str], *args: str, expected: str) -> tuple[float, float]:
    """Seconds from launching `python -m cli ask ...` with `code` first on the path to its exit, and the CPU seconds
    (user and system) it and the processes it waited for used: less swayed than the wall time by the other work on a
    busy machine."""
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "cli", "ask", *args],
        env={**env, "PYTHONPATH": str(code)},
        cwd=code,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
    seconds = time.perf_counter() - started
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0 or expected not in result.stdout:
        raise RuntimeError(f"ragent ask {args} failed: {result.stderr[-2000:] or result.stdout[-2000:]}")
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    return seconds, cpu


def forget_embeddings(cache: Path) -> None:
    """An empty embedding cache, so that the question's queries are embedded by the process (whatever the code loads
    to do that); the rest of the cache folder (the currency table) stays, as it does for a user's next question."""
    for path in cache.glob("embeddings.sqlite*"):
        path.unlink()


def summary(timings: list[tuple[float, float]]) -> dict[str, float]:
    wall, cpu = [w for w, _ in timings], [c for _, c in timings]
    return {
        "median_s": round(statistics.median(wall), 2),
        "first_s": round(wall[0], 2),
        "min_s": round(min(wall), 2),
        "cpu_median_s": round(statistics.median(cpu), 2),
        "runs": len(timings),
    }


def run(out: Path, runs: int = RUNS) -> dict[str, Any]:
    home = (out / "cold-home").resolve()
    env = {**os.environ, "RAGENT_HOME": str(home), "RAGENT_CACHE_DIR": str(home / "cache"), "HF_HUB_OFFLINE": "1"}
    env.pop("RAGENT_SERVER", None)
    env.pop("RAGENT_EMBEDDINGS", None)
    # Built in float32, the only MiniLM the baseline knows; this checkout's default setting keeps a folder's variant.
    subprocess.run(
        [sys.executable, "-m", "cli", "ingest", "--dataset", "sample"],
        env={**env, "RAGENT_EMBEDDINGS": "minilm-float32"},
        cwd=PROJECT,
        check=True,
        timeout=1800,
    )
    codes = {"this checkout": PROJECT}
    if baseline := exported_revision(out, BASELINE_REVISION):
        codes = {f"before ({BASELINE_REVISION})": baseline, **codes}
    report: dict[str, Any] = {"load_before": os.getloadavg()[0], "cold": {}}
    for kind, question in QUESTIONS.items():
        for name, code in codes.items():
            timings = []
            for _ in range(runs):
                if kind == "needs the embedder":
                    forget_embeddings(home / "cache")
                timings.append(timed_ask(code, env, question, "--scope", "sample", expected=EXPECTED[kind]))
            report["cold"].setdefault(kind, {})[name] = summary(timings)
    with ServedAgent(home, {"RAGENT_CACHE_DIR": str(home / "cache")}) as served:
        timings = [
            timed_ask(
                PROJECT,
                env,
                "--server",
                served.url,
                "--scope",
                "sample",
                QUESTIONS["annotations only"],
                expected=EXPECTED["annotations only"],
            )
            for _ in range(runs)
        ]
    report["cold"]["annotations only"]["this checkout, --server"] = summary(timings)
    report["load_after"] = os.getloadavg()[0]
    # This checkout's Postgres outlives its last user for a while (RAGENT_POSTGRES_IDLE_STOP_S): stopped now.
    subprocess.run([sys.executable, "-m", "cli", "stop"], env=env, cwd=PROJECT, check=True, capture_output=True)
    report["plot"] = write_plot("cold", report, out)
    return report


def markdown(report: dict[str, Any]) -> str:
    names = list(dict.fromkeys(name for by_code in report["cold"].values() for name in by_code))
    lines = [
        f"`ragent ask` from the shell, a new process each run: wall time (median, first and fastest of {RUNS}) and "
        f"CPU seconds (median); load average {report['load_before']:.1f} before, {report['load_after']:.1f} after:",
        "",
        "| question | " + " | ".join(names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for kind, by_code in report["cold"].items():
        cells = [
            f"{by_code[n]['median_s']} s (first {by_code[n]['first_s']}; min {by_code[n]['min_s']}; "
            f"CPU {by_code[n]['cpu_median_s']} s)"
            if n in by_code
            else ""
            for n in names
        ]
        lines.append(f"| {kind} | " + " | ".join(cells) + " |")
    return "\n".join([*lines, "", report["plot"]]) + "\n"
