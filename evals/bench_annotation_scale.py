"""Annotations at 1M documents: the annotation tools before and after the catalog's field indexes, in one run.

    python -m evals.bench_annotation_scale [--out bench-out] [--documents 1000000]

A fixture, not an ingest: a data folder of its own with the embedded Postgres, into which COPY writes documents and
one annotation row each, straight into `documents` and `annotations`, in two buckets shaped like the real datasets'
fields (`retrievers/loaders`): contracts as CUAD labels them (contract_type, parties and governing_law as lists,
effective/agreement/expiration dates, notice and renewal periods as lists of days, clause flags) and receipts as
SROIE does (company, address, date, total). Values are skewed as real ones are (a few governing laws and shops
hold most rows). Then, in one process:

1. before: the catalogs are refreshed with the field indexes held back, and each call template is timed end to end
   through the tool runner (`tools.registry.call_tool`, as the agent calls `annotations_search` and
   `annotations_aggregate`), with EXPLAIN ANALYZE of one call's predicates;
2. `ensure_field_indexes` builds the indexes the catalogs ask for (timed), as `refresh_catalog` does;
3. after: the same calls, the same EXPLAIN.

Every search has two predicates, every aggregate a group-by with one predicate; predicate values are drawn
uniformly from the catalog's values, so a common value (Delaware, a big shop) is drawn as often as a rare one.
Reported: p50/p95 per template and over all calls, rows matched, index build time and size, the peak RSS of
the benchmark process and of the Postgres processes (VmHWM), the embedded server's memory and parallel workers (sized
from the machine: `retrievers.postgres.embedded.sizing.machine_settings`) and the load average before and after each
side (the machine may be shared, and the timings follow it). The EXPLAIN of each template shows where its rows come
from and how many pages it touched (BUFFERS). Writes OUT/annotation_scale.json, .md and .png.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from psycopg import sql

from core.settings import Settings
from evals.bench_tools import time_tool
from evals.plots import write_plot
from retrievers.postgres import annotation_indexes
from retrievers.stack import Stack, open_stack
from tools.arguments import AnnotationsAggregateArgs, AnnotationsSearchArgs, to_predicates
from tools.context import ToolContext

BEFORE_CALLS = 3
AFTER_CALLS = 60
LAWS = [
    "Delaware",
    "New York",
    "California",
    "Texas",
    "Illinois",
    "Massachusetts",
    "New Jersey",
    "Florida",
    "Georgia",
    "Washington",
    "Nevada",
    "Colorado",
    "Pennsylvania",
    "Ohio",
    "Michigan",
    "Virginia",
    "Minnesota",
    "England and Wales",
    "Ontario",
    "British Columbia",
    "Hong Kong",
    "Singapore",
    "Germany",
    "France",
    "Switzerland",
    "Israel",
    "Japan",
    "Netherlands",
    "Ireland",
    "Cayman Islands",
]
CONTRACT_TYPES = [
    "License Agreement",
    "Supply Agreement",
    "Distribution Agreement",
    "Service Agreement",
    "Collaboration Agreement",
    "Non-Disclosure Agreement",
    "Joint Venture Agreement",
    "Consulting Agreement",
    "Reseller Agreement",
    "Franchise Agreement",
    "Hosting Agreement",
    "Maintenance Agreement",
    "Manufacturing Agreement",
    "Marketing Agreement",
    "Sponsorship Agreement",
    "Outsourcing Agreement",
    "Development Agreement",
    "Endorsement Agreement",
    "Agency Agreement",
    "Promotion Agreement",
]
CLAUSES = ("exclusivity", "non_compete", "change_of_control", "anti_assignment", "audit_rights")
SHOPS = 5000
PARTIES = 200_000
BUCKETS = {"contracts": "contract", "receipts": "receipt"}


def _zipf(n: int, exponent: float) -> list[float]:
    """Cumulative Zipf weights of n ranks: the first values are the common ones (Delaware, the big chains)."""
    weights = [1 / (rank + 1) ** exponent for rank in range(n)]
    return [sum(weights[: i + 1]) for i in range(n)]


LAW_WEIGHTS = _zipf(len(LAWS), 1.1)
TYPE_WEIGHTS = _zipf(len(CONTRACT_TYPES), 1.0)
SHOP_WEIGHTS = _zipf(SHOPS, 1.0)


def _skewed(rng: random.Random, values: list, cumulative: list[float]):
    return rng.choices(values, cum_weights=cumulative)[0]


def _day(rng: random.Random, first_year: int, last_year: int) -> date:
    return date(first_year, 1, 1) + timedelta(days=rng.randrange((last_year - first_year + 1) * 365))


def contract_row(i: int, rng: random.Random) -> dict[str, Any]:
    effective = _day(rng, 1995, 2024)
    row: dict[str, Any] = {
        "contract_type": _skewed(rng, CONTRACT_TYPES, TYPE_WEIGHTS),
        "parties": [f"Party {rng.randrange(PARTIES):06d} Inc." for _ in range(2)],
        "governing_law": [_skewed(rng, LAWS, LAW_WEIGHTS) for _ in range(2 if rng.random() < 0.05 else 1)],
        "agreement_date": (effective - timedelta(days=rng.randrange(60))).isoformat(),
        "effective_date": effective.isoformat(),
        "perpetual": rng.random() < 0.2,
    }
    if not row["perpetual"]:
        row["expiration_date"] = (effective + timedelta(days=365 * rng.randint(1, 10))).isoformat()
    if rng.random() < 0.6:
        row["notice_period_days"] = [rng.choice([10, 15, 30, 45, 60, 90, 120, 180])]
        if rng.random() < 0.1:
            row["notice_period_days"].append(rng.choice([30, 90, 365]))
    if rng.random() < 0.4:
        row["renewal_term_days"] = [rng.choice([30, 90, 365, 730])]
    row |= {clause: rng.random() < 0.3 for clause in CLAUSES if rng.random() < 0.5}
    return row


def receipt_row(i: int, rng: random.Random) -> dict[str, Any]:
    shop = _skewed(rng, range(SHOPS), SHOP_WEIGHTS)
    return {
        "company": f"{('Kedai', 'Restoran', 'Mart')[shop % 3]} {shop:04d} Sdn Bhd",
        "address": f"{shop % 997} Jalan {shop % 89}, Kuala Lumpur",
        "date": _day(rng, 2015, 2024).isoformat(),
        "total": round(rng.lognormvariate(3.2, 1.0), 2),
    }


def load(stack: Stack, documents: int) -> dict:
    """COPY `documents` contracts and as many receipts, one annotation row each, into the store's tables (the
    catalogs are not marked stale: `run` refreshes them)."""
    rng = random.Random(16)
    started = time.perf_counter()
    with stack.store.pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
        for bucket, kind in BUCKETS.items():
            with cur.copy(
                "COPY documents (scope, doc_id, bucket, title, source, body, content_hash) FROM STDIN"
            ) as copy:
                for i in range(documents):
                    copy.write_row(("default", f"{bucket}-{i}", bucket, f"{kind} {i}", "bench", "", "h"))
            with cur.copy("COPY annotations (scope, annotation_id, doc_id, bucket, kind, row) FROM STDIN") as copy:
                for i in range(documents):
                    row = contract_row(i, rng) if bucket == "contracts" else receipt_row(i, rng)
                    doc_id = f"{bucket}-{i}"
                    copy.write_row(("default", f"{doc_id}#{kind}-0", doc_id, bucket, kind, json.dumps(row)))
        cur.execute("ANALYZE documents")
        cur.execute("ANALYZE annotations")
    return {"documents": documents * len(BUCKETS), "load_seconds": round(time.perf_counter() - started, 1)}


def _values(stack: Stack, bucket: str, field: str) -> list:
    """Values of a text field to draw predicates from: its 500 most common, all equally likely."""
    return [value for value, _ in stack.store.field_values("default", bucket, field, limit=500)]


def call_templates(stack: Stack, rng: random.Random) -> dict[str, Callable[[], dict]]:
    """Argument makers by template name: two-predicate searches and group-by aggregates with one predicate."""
    laws = _values(stack, "contracts", "governing_law")
    kinds = _values(stack, "contracts", "contract_type")
    shops = _values(stack, "receipts", "company")

    def year() -> list[str]:
        y = rng.randint(1995, 2024)
        return [f"{y}-01-01", f"{y}-12-31"]

    def month() -> list[str]:
        y, m = rng.randint(2015, 2024), rng.randint(1, 12)
        return [f"{y}-{m:02d}-01", f"{y}-{m:02d}-28"]

    def search(bucket: str, predicates: Callable[[], dict]) -> Callable[[], dict]:
        return lambda: {"bucket": bucket, "predicates": predicates()}

    return {
        "search: governing_law = X and effective_date in a year": search(
            "contracts",
            lambda: {
                "governing_law": {"op": "=", "value": rng.choice(laws)},
                "effective_date": {"op": "between", "value": year()},
            },
        ),
        "search: governing_law = X and notice_period_days >= N": search(
            "contracts",
            lambda: {
                "governing_law": {"op": "=", "value": rng.choice(laws)},
                "notice_period_days": {"op": ">=", "value": rng.choice([90, 120, 180])},
            },
        ),
        "search: contract_type = X and expiration_date before D": search(
            "contracts",
            lambda: {
                "contract_type": {"op": "=", "value": rng.choice(kinds)},
                "expiration_date": {"op": "<", "value": f"{rng.randint(2000, 2010)}-01-01"},
            },
        ),
        "search: company = X and date in a month": search(
            "receipts",
            lambda: {"company": {"op": "=", "value": rng.choice(shops)}, "date": {"op": "between", "value": month()}},
        ),
        "search: company = X and total > T": search(
            "receipts",
            lambda: {
                "company": {"op": "=", "value": rng.choice(shops)},
                "total": {"op": ">", "value": rng.choice([50, 100, 200])},
            },
        ),
        "aggregate: count by governing_law, effective_date in a year": lambda: {
            "bucket": "contracts",
            "aggregate": "count",
            "group_by": ["governing_law"],
            "predicates": {"effective_date": {"op": "between", "value": year()}},
        },
        "aggregate: sum(total) by company, date in a month": lambda: {
            "bucket": "receipts",
            "aggregate": "sum(total)",
            "group_by": ["company"],
            "predicates": {"date": {"op": "between", "value": month()}},
        },
        "aggregate: avg(notice_period_days) by year(effective_date), governing_law = X": lambda: {
            "bucket": "contracts",
            "aggregate": "avg(notice_period_days)",
            "group_by": ["year(effective_date)"],
            "predicates": {"governing_law": {"op": "=", "value": rng.choice(laws)}},
        },
    }


def _tool(template: str) -> str:
    return "annotations_search" if template.startswith("search") else "annotations_aggregate"


def explain(stack: Stack, template: str, arguments: dict) -> str:
    """EXPLAIN ANALYZE of the statement the call's tool runs, with the tool's defaults for what the call leaves out."""
    if _tool(template) == "annotations_search":
        args = AnnotationsSearchArgs.model_validate(arguments)
        query, params = stack.store.search_statement(
            "default", args.bucket, to_predicates(args.predicates), limit=args.top_k
        )
        planner = {}
    else:
        args = AnnotationsAggregateArgs.model_validate(arguments)
        query, params, planner = stack.store.aggregate_statement(
            "default", args.bucket, to_predicates(args.predicates), args.aggregate, args.group_by
        )
    with stack.store.planned_connection(planner) as conn:
        plan = conn.execute(sql.SQL("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ") + query, params)
        return "\n".join(line for (line,) in plan)


def postgres_settings(stack: Stack) -> dict:
    names = (
        "shared_buffers",
        "work_mem",
        "effective_cache_size",
        "maintenance_work_mem",
        "max_parallel_workers_per_gather",
    )
    with stack.store.pool.connection() as conn:
        return {name: conn.execute(sql.SQL("SHOW {}").format(sql.Identifier(name))).fetchone()[0] for name in names}


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def measure_calls(stack: Stack, calls: dict[str, list[dict]], n: int) -> dict:
    context = ToolContext(stack)
    try:
        return {template: time_tool(_tool(template), args[:n], context) for template, args in calls.items()}
    finally:
        context.close()


def _summary(per_template: dict) -> dict:
    searches = [r for t, r in per_template.items() if t.startswith("search")]
    aggregates = [r for t, r in per_template.items() if t.startswith("aggregate")]
    return {
        "search_p95_ms_worst_template": max(r["p95_ms"] for r in searches),
        "aggregate_p95_ms_worst_template": max(r["p95_ms"] for r in aggregates),
    }


def postgres_peak_rss_bytes(home: Path) -> dict:
    """VmHWM of the Postgres server of `home` and its backends: the largest one, and their sum (which counts the
    shared buffers once per process that touched them)."""
    postmaster = int((home / "postgres" / "postmaster.pid").read_text().split()[0])
    peaks = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
        except OSError:
            continue
        if int(fields.get("PPid", "0")) == postmaster or int(fields["Pid"]) == postmaster:
            peaks.append(int(fields.get("VmHWM", "0 kB").split()[0]) * 1024)
    return {"largest": max(peaks, default=0), "sum": sum(peaks)}


def index_bytes(stack: Stack) -> int:
    with stack.store.pool.connection() as conn:
        return conn.execute(
            "SELECT coalesce(sum(pg_relation_size(indexrelid)), 0)::bigint FROM pg_index i JOIN pg_class c"
            " ON c.oid = i.indexrelid WHERE starts_with(c.relname, 'annf_')"
        ).fetchone()[0]


def run(out: Path, documents: int = 1_000_000) -> dict:
    out = out.resolve()
    home = out / f"annotations-{documents}"
    shutil.rmtree(home, ignore_errors=True)
    # Its Postgres stops with the benchmark (the folder is deleted then), not once idle.
    stack = open_stack(replace(Settings.from_env(), home=home, postgres_idle_stop_s=0))
    try:
        report: dict[str, Any] = load(stack, documents)
        report["postgres_settings"] = postgres_settings(stack)
        print(json.dumps(report), flush=True)
        held_back, annotation_indexes.MIN_DOCUMENTS = annotation_indexes.MIN_DOCUMENTS, float("inf")
        started = time.perf_counter()
        try:
            for bucket in BUCKETS:
                stack.store.refresh_catalog("default", bucket)
        finally:
            annotation_indexes.MIN_DOCUMENTS = held_back
        report["catalog_seconds"] = round(time.perf_counter() - started, 1)
        rng = random.Random(5)
        templates = call_templates(stack, rng)
        calls = {name: [make() for _ in range(AFTER_CALLS)] for name, make in templates.items()}
        report["load_average"] = {"before": load_average()}
        report["before"] = measure_calls(stack, calls, BEFORE_CALLS)
        report["explain_before"] = {name: explain(stack, name, args[0]) for name, args in calls.items()}
        print("before", json.dumps(report["before"]), flush=True)
        started = time.perf_counter()
        created = [name for b in BUCKETS for name in annotation_indexes.ensure_field_indexes(stack.store.pool, b)]
        report["index_build_seconds"] = round(time.perf_counter() - started, 1)
        report["indexes"] = len(created)
        report["index_bytes"] = index_bytes(stack)
        report["load_average"]["after"] = load_average()
        report["after"] = measure_calls(stack, calls, AFTER_CALLS)
        report["load_average"]["end"] = load_average()
        report["explain_after"] = {name: explain(stack, name, args[0]) for name, args in calls.items()}
        report["summary"] = {"before": _summary(report["before"]), "after": _summary(report["after"])}
        report["postgres_bytes"] = stack.store.bytes_on_disk()
        report["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        report["postgres_peak_rss_bytes"] = postgres_peak_rss_bytes(home)
        print("after", json.dumps(report["after"]), flush=True)
    finally:
        stack.close()
    import pgserver  # imported by retrievers.postgres.embedded.server when the stack opened

    pgserver.get_server(home / "postgres").cleanup()
    shutil.rmtree(home)
    report["plot"] = write_plot("annotations_scale", report, out)
    (out / "annotation_scale.json").write_text(json.dumps(report, indent=2))
    (out / "annotation_scale.md").write_text(markdown(report))
    return report


def _scans(plan: str) -> str:
    """The plan's scan nodes, index conditions, per-row JSON tests (SubPlan), the elements an aggregate reads
    (ProjectSet), the pages the whole statement touched (its first Buffers line) and the execution time: where the
    rows come from and what is done with each, not the filters."""
    keep = ("Scan", "Index Cond", "BitmapOr", "BitmapAnd", "ProjectSet", "Heap Blocks", "Execution Time")
    lines = plan.splitlines()
    buffers = next((line for line in lines if "Buffers:" in line), None)
    return "\n".join(
        line
        for line in lines
        if line is buffers
        or line.lstrip().startswith("SubPlan")
        or (any(word in line for word in keep) and not line.lstrip().startswith(("Filter", "Recheck")))
    )


def markdown(report: dict) -> str:
    lines = [
        f"{report['documents']:,} documents with one annotation row each (contracts and receipts, "
        f"{report['documents'] // len(BUCKETS):,} a bucket), loaded by "
        f"COPY in {report['load_seconds']} s; catalogs refreshed in {report['catalog_seconds']} s; "
        f"{report['indexes']} field indexes built in {report['index_build_seconds']} s "
        f"({report['index_bytes'] / 1e6:.0f} MB; Postgres {report['postgres_bytes'] / 1e9:.2f} GB in all). "
        f"Calls end to end through the tool runner, {BEFORE_CALLS} per template before and {AFTER_CALLS} after. "
        f"Peak RSS: benchmark process {report['peak_rss_bytes'] / 1e6:.0f} MB, largest Postgres process "
        f"{report['postgres_peak_rss_bytes']['largest'] / 1e6:.0f} MB. Embedded Postgres settings: "
        + ", ".join(f"{name} {value}" for name, value in report["postgres_settings"].items())
        + ". Load average (1, 5, 15 min) on "
        + f"{os.cpu_count()} cores: "
        + "; ".join(f"{when} {' '.join(map(str, la))}" for when, la in report["load_average"].items())
        + ".",
        "",
        "| call | before p50 / p95 ms (no field indexes) | after p50 / p95 ms | ratio (p95) |",
        "|---|---|---|---|",
    ]
    for template, before in report["before"].items():
        after = report["after"][template]
        lines.append(
            f"| {template} | {before['p50_ms']} / {before['p95_ms']} | {after['p50_ms']} / {after['p95_ms']} "
            f"| {before['p95_ms'] / max(after['p95_ms'], 0.01):.0f}x |"
        )
    lines += [
        "",
        "EXPLAIN ANALYZE of the statement each template's first call runs, before and after (the scan lines; the "
        "whole plans are in annotation_scale.json):",
        "",
    ]
    for template, plan in report["explain_after"].items():
        lines += [f"{template}:", "", "```", "before:", _scans(report["explain_before"][template]), "after:"]
        lines += [_scans(plan), "```", ""]
    return "\n".join([*lines, report["plot"]]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    parser.add_argument("--documents", type=int, default=1_000_000)
    args = parser.parse_args()
    print(markdown(run(args.out, args.documents)))


if __name__ == "__main__":
    main()
