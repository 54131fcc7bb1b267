"""Per-tool latency on the real corpora ingested together (every dataset of ../shared/data in one stack).

    for d in sroie invoices kleister_nda hotpotqa cuad scifact; do
        RAGENT_HOME=bench-out/all ragent ingest --dataset $d
    done
    python -m evals.bench_tools --home bench-out/all

Each tool gets a set of calls built from the datasets' own texts and labels (SROIE document numbers, CUAD
party names, SciFact claims, HotpotQA questions, typed predicates over the labelled fields), timed end to
end through the tool runner (validation, engines, hydration, envelope). Writes OUT/tools.json and tools.md.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from core.settings import Settings
from evals.metrics import percentile
from retrievers.loaders import shared_data_dir
from retrievers.loaders.common import read_jsonl
from retrievers.stack import open_stack
from tools.context import ToolContext
from tools.registry import call_tool

CALLS_PER_SOURCE = 40
WARM_UP_CALLS = 5


def _calls(data: Path, doc_ids: list[str], rng: random.Random) -> dict[str, list[dict[str, Any]]]:
    receipts = list(read_jsonl(data / "sroie" / "derived_receipts.jsonl"))
    numbers = [
        m.group(1)
        for r in receipts
        if (m := re.search(r"(?:DOCUMENT|INVOICE|RECEIPT) NO\.?\s*:?\s*([A-Z0-9-]{6,})", r["text"]))
    ]
    contracts = list(read_jsonl(data / "cuad" / "derived_contracts.jsonl"))
    parties = [
        p.split("(")[0].strip(' "')
        for c in contracts
        if (p := c["answers"].get("Parties")) and len(p.split("(")[0]) > 8
    ]
    claims = [q["text"] for q in read_jsonl(data / "scifact" / "queries.jsonl")]
    questions = [q["text"] for q in read_jsonl(data / "hotpotqa" / "queries.jsonl")]
    laws = ["New York", "California", "Delaware", "Texas", "Florida", "Pennsylvania"]

    def sample(items: list) -> list:
        return rng.sample(items, min(CALLS_PER_SOURCE, len(items)))

    text_searches = (
        [{"bucket": "receipts", "query": n} for n in sample(numbers)]
        + [{"bucket": "contracts", "query": p} for p in sample(parties)]
        + [{"bucket": "generic", "query": q} for q in sample(claims)]
    )
    meaning_searches = [{"bucket": "generic", "query": q} for q in sample(claims) + sample(questions)] + [
        {"bucket": "contracts", "query": q, "filters": {"governing_law": {"op": "=", "value": rng.choice(laws)}}}
        for q in sample(
            [
                "which law governs this agreement",
                "how much notice is needed to terminate",
                "who owns the intellectual property",
                "is there a cap on liability",
                "can the agreement be assigned",
            ]
            * 10
        )
    ]
    predicates = (
        [
            {"bucket": "contracts", "predicates": {"governing_law": {"op": "=", "value": rng.choice(laws)}}}
            for _ in range(CALLS_PER_SOURCE)
        ]
        + [
            {
                "bucket": "contracts",
                "predicates": {
                    "notice_period_days": {"op": "<", "value": rng.choice([30, 60, 90, 180])},
                    "exclusivity": {"op": "=", "value": True},
                },
            }
            for _ in range(CALLS_PER_SOURCE)
        ]
        + [
            {
                "bucket": "receipts",
                "predicates": {
                    "total": {"op": ">", "value": rng.randint(10, 500)},
                    "date": {"op": "between", "value": ["2017-01-01", "2018-06-30"]},
                },
            }
            for _ in range(CALLS_PER_SOURCE)
        ]
    )
    aggregates = (
        [{"bucket": "contracts", "aggregate": "count", "group_by": ["governing_law"]} for _ in range(CALLS_PER_SOURCE)]
        + [
            {
                "bucket": "receipts",
                "aggregate": "sum(total)",
                "group_by": ["company"],
                "predicates": {"date": {"op": ">=", "value": f"201{rng.randint(6, 8)}-01-01"}},
            }
            for _ in range(CALLS_PER_SOURCE)
        ]
        + [
            {
                "bucket": "contracts",
                "aggregate": "avg(term_days)",
                "predicates": {"governing_law": {"op": "in", "value": rng.sample(laws, 2)}},
            }
            for _ in range(CALLS_PER_SOURCE)
        ]
    )
    documents = rng.sample(doc_ids, min(3 * CALLS_PER_SOURCE, len(doc_ids)))
    return {
        "search_text": text_searches,
        "search_semantic": meaning_searches,
        "fused_search": meaning_searches,
        "annotations_search": predicates,
        "annotations_aggregate": aggregates,
        "get_document_metadata": [{"doc_id": d} for d in documents],
        "get_document": [{"doc_id": d, "max_chars": 4000} for d in documents],
    }


def time_tool(name: str, calls: list[dict[str, Any]], context: ToolContext) -> dict:
    """Latency of each call end to end through the tool runner, after a few warm-up calls, with the statuses
    returned (a latency is only meaningful for calls that did the work)."""
    for arguments in calls[:WARM_UP_CALLS]:
        call_tool(name, arguments, context)
    times, statuses = [], Counter()
    for arguments in calls:
        started = time.perf_counter()
        statuses[call_tool(name, arguments, context)["status"]] += 1
        times.append((time.perf_counter() - started) * 1000)
    return {
        "calls": len(calls),
        "p50_ms": round(percentile(times, 50), 2),
        "p95_ms": round(percentile(times, 95), 2),
        "statuses": dict(statuses),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args()
    stack = open_stack(replace(Settings.from_env(), home=args.home.resolve()))
    context = ToolContext(stack)
    report: dict[str, Any] = {"corpus": stack.store.counts()}
    try:
        with stack.store.pool.connection() as conn:
            doc_ids = [d for (d,) in conn.execute("SELECT doc_id FROM documents WHERE scope = 'default'")]
        for name, calls in _calls(shared_data_dir(), doc_ids, random.Random(5)).items():
            report[name] = time_tool(name, calls, context)
            print(name, json.dumps(report[name]))
    finally:
        context.close()
        stack.close()
    c = report["corpus"]
    lines = [
        f"Per-tool latency on all shared datasets in one stack ({c['documents']:,} documents, {c['chunks']:,} chunks, "
        f"{c['annotations']:,} annotation rows), end to end through the tool runner:",
        "",
        "| tool | calls | p50 ms | p95 ms | statuses |",
        "|---|---|---|---|---|",
    ]
    for name, r in report.items():
        if name != "corpus":
            lines.append(
                f"| {name} | {r['calls']} | {r['p50_ms']} | {r['p95_ms']} "
                f"| {', '.join(f'{k} {v}' for k, v in r['statuses'].items())} |"
            )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "tools.json").write_text(json.dumps(report, indent=2))
    (args.out / "tools.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
