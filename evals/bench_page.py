"""The web page's latency beside the SDK's, for one structured question on `ragent serve --sample`.

`python -m evals.bench_page --home bench-out/page --runs 20` times the same question, one at a time on a new
thread each: through the page in Debian's Chromium (driven by Playwright, timed by the page's own performance marks:
from the run's request to its first streamed event, and to the answer shown, which includes the page reading the
thread back) and through `langgraph_sdk` (`runs.stream` in `updates` mode: to the first event, and to the stream's
end), and prints the p50 and p95 of each as a Markdown table.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from evals.metrics import percentile
from evals.served_agent import ServedAgent
from graph.demo_questions import DEMO_QUESTIONS

QUESTION = next(q for q, settings in DEMO_QUESTIONS if not settings)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


def through_sdk(served: ServedAgent, runs: int) -> tuple[list[float], list[float]]:
    client = served.client()
    first, final = [], []
    for _ in range(runs):
        thread = client.threads.create()["thread_id"]
        started, seen = time.perf_counter(), None
        for part in client.runs.stream(thread, "agent", input={"question": QUESTION}, stream_mode="updates"):
            if seen is None and part.event != "metadata":
                seen = time.perf_counter()
        final.append(time.perf_counter() - started)
        first.append(seen - started)
    return first, final


def through_page(served: ServedAgent, runs: int) -> tuple[list[float], list[float]]:
    from playwright.sync_api import sync_playwright

    first, final = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(bypass_csp=True)  # wait_for_function evaluates its test, which the page's CSP forbids
        page.goto(f"{served.url}/web/")
        page.get_by_label("API key").fill(served.api_key)
        page.get_by_label("API key").press("Enter")
        page.get_by_text("Signed in as").wait_for()
        for _ in range(runs):
            page.get_by_role("button", name="New thread").click()
            page.get_by_label("Question").fill(QUESTION)
            page.evaluate("performance.clearMarks()")
            page.get_by_label("Question").press("Enter")
            page.wait_for_function("performance.getEntriesByName('ragent:shown').length > 0")
            asked, seen, shown = (
                page.evaluate(f"performance.getEntriesByName('ragent:{name}')[0].startTime")
                for name in ("asked", "first-event", "shown")
            )
            first.append((seen - asked) / 1000)
            final.append((shown - asked) / 1000)
        browser.close()
    return first, final


def ms(values: list[float], p: int) -> str:
    return f"{percentile(values, p) * 1000:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="a data folder of its own (made if missing)")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with ServedAgent(args.home) as served:
        through_sdk(served, 2)  # warm-up: the engines' first reads
        sdk, page = through_sdk(served, args.runs), through_page(served, args.runs)
    print(f"{QUESTION!r}, {args.runs} runs each\n")
    print("| client | first streamed event p50 / p95 ms | final answer p50 / p95 ms |\n|---|---|---|")
    for name, (first, final) in (("langgraph_sdk", sdk), ("web page (Chromium)", page)):
        print(f"| {name} | {ms(first, 50)} / {ms(first, 95)} | {ms(final, 50)} / {ms(final, 95)} |")


if __name__ == "__main__":
    main()
