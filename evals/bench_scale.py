"""Cost as the work grows: ingest time, per-tool latency, index sizes and peak memory from 10k to 1M chunks.

    python -m evals.bench_scale [--out bench-out] [--sizes 10000 100000 1000000]

Each size is a generated corpus (`evals.bench_retrieval.build_scale_corpus`: SciFact's real chunks and real
MiniLM vectors repeated with small noise, four chunks and one annotation row per document, spread over
scopes, buckets, authors, tags, dates and annotation values so filters have realistic selectivity), written
through the real embedded engines (Postgres, Tantivy, qdrant-edge) into a data folder of its own under OUT,
measured, and deleted so that the disk holds one corpus at a time. Measured for each size:

- ingest seconds: generating the documents and writing documents, chunks, annotation rows and the
  precomputed vectors (nothing is embedded), then refreshing the field catalogs, as build_scale_corpus times it;
- p50/p95 of each of the seven tools, called end to end through `tools.registry.call_tool` with a
  `ToolContext` (validation, filter resolution, engines, hydration, envelope) with arguments that fit the
  corpus: its buckets, tags, dates and annotation fields, existing document ids, and SciFact train claims as
  queries. Those claims' vectors are in the on-disk embedding cache, so embedding a query is a SQLite lookup;
  the report counts any query embedding that had to be computed (expected: none);
- the size on disk of each engine and of the whole folder, and the peak RSS of the process that built and
  queried the corpus (the engines run in it, except the Postgres server, a separate process).

Vector search is exact: the corpora are written without the `optimize` that ends an ingest, so no HNSW graph is
built and every query scans the points its filter selects (`evals.bench_vector_scale` measures HNSW, the default
past 50k points, at 1M chunks).

Each size runs in a fresh process, so its peak RSS is its own and a size that kills its process (out of
memory) is recorded rather than ending the run. Before each size, its time, memory and disk are projected
linearly from the previous size; a size projected beyond the budget (TIME_BUDGET_S, the memory available,
the free disk) is not attempted, and the report says which resource is the limit. The machine may be shared
with other work, so latencies can include contention.

Writes OUT/scale.json, OUT/scale.md and OUT/scale.png, copied to evals/reports/scale.png for docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import resource
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from core.settings import Settings
from evals.bench_retrieval import SCIFACT_SPLIT, _stack, build_scale_corpus
from evals.bench_retrieval import sizes as engine_sizes
from evals.bench_tools import time_tool
from retrievers.engines.disk_usage import disk_usage
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import scifact, shared_data_dir
from retrievers.loaders.beir import load_qrels, load_queries
from retrievers.stack import Stack
from tools.context import ToolContext
from tools.registry import TOOLS

CALLS_PER_TOOL = 120
TIME_BUDGET_S = 40 * 60
RESOURCE_SHARE = 0.8
REPORT_PNG = Path(__file__).resolve().parent / "reports" / "scale.png"
"""docs/benchmarks.md's copy of the figure, refreshed only in a checkout: evals/reports/ is not in the wheel, and an
installed package's folder is no place to write. The figure itself is always written to the output folder."""

# Values build_scale_corpus draws from (evals.bench_retrieval._scale_sources).
BUCKETS = ("invoices", "contracts", "generic")
VENDORS = 500
TAGS = 10
CATEGORIES = ("hardware", "travel", "legal", "rent")


def _scifact_folder() -> Path:
    corpus = shared_data_dir() / scifact.SHARED_FOLDER
    if not corpus.is_dir():
        raise SystemExit(
            f"{corpus} is absent: the scale corpus is made of SciFact's chunks and needs ../shared/data/scifact"
        )
    return corpus


def _require_embedded_engines() -> None:
    """The benchmark builds and deletes one data folder per size, which only the embedded engines live in."""
    settings = Settings.from_env()
    servers = [
        name
        for name, url in (
            ("DATABASE_URL", settings.database_url),
            ("OPENSEARCH_URL", settings.opensearch_url),
            ("QDRANT_URL", settings.qdrant_url),
        )
        if url
    ]
    if servers:
        raise SystemExit(f"unset {', '.join(servers)}: the scale benchmark measures the embedded engines")


def _close(stack: Stack) -> None:
    """Close the engines and stop the stack's embedded Postgres, which would otherwise run until the process
    exits, holding files in a folder that is about to be deleted."""
    stack.close()
    import pgserver  # imported by retrievers.postgres.embedded.server when the stack opened

    pgserver.get_server(stack.settings.home / "postgres").cleanup()


def prepare_source(out: Path) -> None:
    """SciFact in OUT/scifact, the corpus the scale corpora repeat (quick when bench_retrieval already built it:
    unchanged documents are skipped)."""
    stack = _stack(out, "scifact", fresh=False)
    try:
        Ingestor(stack).ingest(scifact.load(_scifact_folder()), progress=False)
    finally:
        _close(stack)


def _claims() -> list[str]:
    """SciFact train claims: the queries bench_retrieval embeds, so their vectors are in the embedding cache."""
    corpus = _scifact_folder()
    return list(load_queries(corpus, set(load_qrels(corpus, SCIFACT_SPLIT))).values())[:CALLS_PER_TOOL]


def tool_calls(claims: list[str], doc_ids: list[str], rng: random.Random) -> dict[str, list[dict[str, Any]]]:
    """CALLS_PER_TOOL argument sets per tool, cycling over the buckets and, for searches, from no filter to
    a document filter (one tag and a three-year range) to an annotation pre-filter (one vendor of 500)."""

    def vendor() -> str:
        return f"Vendor {rng.randrange(VENDORS):03d}"

    narrowings: list[Callable[[], dict]] = [
        dict,
        lambda: {
            "filter": {
                "tags": [f"t{rng.randrange(TAGS)}"],
                "created_after": "2020-01-01",
                "created_before": "2022-12-31",
            }
        },
        lambda: {"filters": {"vendor": {"op": "=", "value": vendor()}}},
    ]
    predicates: list[Callable[[], dict]] = [
        lambda: {"amount": {"op": ">", "value": round(rng.uniform(100, 5000), 2)}},
        lambda: {"vendor": {"op": "=", "value": vendor()}},
        lambda: {"category": {"op": "in", "value": rng.sample(CATEGORIES, 2)}},
        lambda: {
            "issued": {"op": "between", "value": ["2020-03-01", "2020-06-30"]},
            "priority": {"op": ">=", "value": 4},
        },
        lambda: {"vendor": {"op": "~", "value": f"{rng.randrange(100):02d}"}, "amount": {"op": "<", "value": 500}},
    ]
    aggregates: list[Callable[[], dict]] = [
        lambda: {"aggregate": "count", "group_by": ["category"]},
        lambda: {
            "aggregate": "sum(amount)",
            "group_by": ["vendor"],
            "predicates": {"issued": {"op": ">=", "value": f"202{rng.randrange(4)}-01-01"}},
        },
        lambda: {
            "aggregate": "avg(amount)",
            "predicates": {"category": {"op": "in", "value": rng.sample(CATEGORIES, 2)}},
        },
    ]
    searches = [
        {"bucket": BUCKETS[i % 3], "query": claim, **narrowings[i // 3 % 3]()} for i, claim in enumerate(claims)
    ]
    documents = rng.sample(doc_ids, min(CALLS_PER_TOOL, len(doc_ids)))
    return {
        "search_text": searches,
        "search_semantic": searches,
        "fused_search": searches,
        "annotations_search": [
            {"bucket": BUCKETS[i % 3], "predicates": predicates[i % 5]()} for i in range(CALLS_PER_TOOL)
        ],
        "annotations_aggregate": [
            {"bucket": BUCKETS[i % 3], **aggregates[i // 3 % 3]()} for i in range(CALLS_PER_TOOL)
        ],
        "get_document_metadata": [{"doc_id": d} for d in documents],
        "get_document": [{"doc_id": d, "max_chars": 4000} for d in documents],
    }


def bench_tools(stack: Stack) -> tuple[dict, int]:
    """Per-tool latency on the corpus, and how many query embeddings were computed rather than read from the cache."""
    with stack.store.pool.connection() as conn:
        doc_ids = [d for (d,) in conn.execute("SELECT doc_id FROM documents WHERE scope = 'default'")]
    context = ToolContext(stack)
    misses_before = stack.embedder.misses
    try:
        result = {
            name: time_tool(name, calls, context)
            for name, calls in tool_calls(_claims(), doc_ids, random.Random(5)).items()
        }
    finally:
        context.close()
    return result, stack.embedder.misses - misses_before


def measure_size(out: Path, n_chunks: int) -> dict:
    """Build one corpus in its own folder, measure it, delete it. Runs in a process of its own (see `run`)."""
    started = time.perf_counter()
    home = out / f"scale-{n_chunks}"
    source = _stack(out, "scifact", fresh=False)
    try:
        stack, built = build_scale_corpus(home, source, n_chunks)
    finally:
        _close(source)
    print(f"{n_chunks:,} chunks written in {built['build_seconds']} s", flush=True)
    try:
        tools, embedded = bench_tools(stack)
        result = {
            "chunks": n_chunks,
            "documents": built["documents"],
            "ingest_seconds": built["build_seconds"],
            "chunks_per_s": round(n_chunks / built["build_seconds"]),
            "exact_vector_search": stack.vectors.stats()["exact"],
            "tools": tools,
            "query_embeddings_computed": embedded,
            "engines": engine_sizes(stack),
        }
    finally:
        _close(stack)
    result["disk_bytes"] = disk_usage(home)
    shutil.rmtree(home)
    result["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    result["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps({k: v for k, v in result.items() if k != "tools"}), flush=True)
    return result


def _available_memory_bytes() -> int:
    with open("/proc/meminfo") as meminfo:
        return next(int(line.split()[1]) * 1024 for line in meminfo if line.startswith("MemAvailable:"))


def projection(previous: dict, n_chunks: int, out: Path) -> dict:
    """The size's time, peak RSS and disk, scaled linearly from the previous size, against what the machine
    has now (a share of the available memory and of the free disk: other work runs here too)."""
    factor = n_chunks / previous["chunks"]
    return {
        "chunks": n_chunks,
        "seconds": round(previous["seconds"] * factor),
        "seconds_budget": TIME_BUDGET_S,
        "peak_rss_bytes": round(previous["peak_rss_bytes"] * factor),
        "memory_budget_bytes": round(_available_memory_bytes() * RESOURCE_SHARE),
        "disk_bytes": round(previous["disk_bytes"] * factor),
        "disk_budget_bytes": round(shutil.disk_usage(out).free * RESOURCE_SHARE),
    }


def over_budget(projected: dict) -> str | None:
    """Why the projected size should not be attempted, or None."""
    reasons = [
        f"{what} projected at {projected[key] / scale:.1f} {unit}, "
        f"over the budget of {projected[budget] / scale:.1f} {unit}"
        for what, key, budget, scale, unit in (
            (
                "time (ingest with Postgres, Tantivy and qdrant-edge, then tool calls)",
                "seconds",
                "seconds_budget",
                60,
                "min",
            ),
            (
                "peak RSS (qdrant-edge's vectors, Tantivy's writer and the generated documents, "
                "in the benchmark process)",
                "peak_rss_bytes",
                "memory_budget_bytes",
                1e9,
                "GB",
            ),
            ("disk (Postgres holds the chunk texts and document bodies)", "disk_bytes", "disk_budget_bytes", 1e9, "GB"),
        )
        if projected[key] > projected[budget]
    ]
    return "; ".join(reasons) or None


def _measure_in_fresh_process(out: Path, n_chunks: int) -> dict:
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(measure_size, out, n_chunks).result()


def run(out: Path, sizes: list[int]) -> dict:
    """Measure each size in turn, smallest first, stopping at the first size that is over budget or fails; plot
    what was measured into OUT/scale.png and evals/reports/scale.png."""
    _require_embedded_engines()
    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    prepare_source(out)
    report: dict[str, Any] = {"results": [], "projections": [], "limit": None}
    for n_chunks in sorted(sizes):
        if report["results"]:
            projected = projection(report["results"][-1], n_chunks, out)
            report["projections"].append(projected)
            print("projected:", json.dumps(projected), flush=True)
            if reason := over_budget(projected):
                report["limit"] = f"{n_chunks:,} chunks not attempted: {reason}"
                break
        try:
            report["results"].append(_measure_in_fresh_process(out, n_chunks))
        except BrokenProcessPool:
            report["limit"] = (
                f"{n_chunks:,} chunks: the process building the corpus died (most likely killed when memory ran out); "
                f"its folder {out / f'scale-{n_chunks}'} is left for inspection"
            )
            break
    if report["results"]:
        plot(report, out / "scale.png")
        if REPORT_PNG.parent.is_dir():
            shutil.copyfile(out / "scale.png", REPORT_PNG)
    return report


def plot(report: dict, path: Path) -> None:
    """Ingest seconds and per-tool p95 against corpus size, both axes logarithmic."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = report["results"]
    chunks = [r["chunks"] for r in results]
    figure, (ingest, latency) = plt.subplots(1, 2, figsize=(12, 4.8))
    ingest.plot(chunks, [r["ingest_seconds"] for r in results], marker="o")
    ingest.set(
        xscale="log",
        yscale="log",
        xlabel="chunks",
        ylabel="seconds",
        title="Ingest (Postgres + Tantivy + qdrant-edge, vectors precomputed)",
    )
    for name in TOOLS:
        latency.plot(chunks, [r["tools"][name]["p95_ms"] for r in results], marker="o", label=name)
    latency.set(
        xscale="log",
        yscale="log",
        xlabel="chunks",
        ylabel="p95 ms",
        title="Tool latency p95 (end to end, exact vector search)",
    )
    latency.legend(fontsize=8)
    for axes in (ingest, latency):
        axes.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)


def _limit_line(report: dict) -> str:
    if report["limit"]:
        return f"Limit: {report['limit']}."
    largest = report["results"][-1]
    return (
        f"No limit reached: the largest size, {largest['chunks']:,} chunks, "
        f"took {largest['seconds'] / 60:.1f} min in all "
        f"with a peak RSS of {largest['peak_rss_bytes'] / 1e9:.1f} GB."
    )


def _projection_lines(report: dict) -> list[str]:
    return [
        f"Projected before running {p['chunks']:,} chunks (linear from the size before): {p['seconds'] / 60:.0f} min "
        f"(budget {p['seconds_budget'] / 60:.0f}), peak RSS {p['peak_rss_bytes'] / 1e9:.1f} GB "
        f"(budget {p['memory_budget_bytes'] / 1e9:.1f}), "
        f"disk {p['disk_bytes'] / 1e9:.1f} GB (budget {p['disk_budget_bytes'] / 1e9:.0f})."
        for p in report["projections"]
    ]


def markdown(report: dict) -> str:
    embedded = sum(r["query_embeddings_computed"] for r in report["results"])
    lines = [
        (
            "Cost as the corpus grows (generated from SciFact's chunks and MiniLM vectors; "
            "4 chunks and 1 annotation row per document). "
            "Ingest writes documents, chunks, annotation rows and precomputed vectors "
            "through embedded Postgres, Tantivy and qdrant-edge. "
            f"Tool p95 over {CALLS_PER_TOOL} calls each, end to end through the tool runner; exact vector search; "
            f"query embeddings from the on-disk cache ({embedded} computed). "
            "The machine is shared, so latencies may include contention."
        ),
        "",
        "| chunks | ingest s | chunks/s | "
        + " | ".join(f"{name} p95 ms" for name in TOOLS)
        + " | Postgres MB | Tantivy MB | qdrant-edge MB | folder MB | peak RSS MB |",
        "|---" * (3 + len(TOOLS) + 5) + "|",
    ]
    for r in report["results"]:
        e = r["engines"]
        lines.append(
            f"| {r['chunks']:,} | {r['ingest_seconds']} | {r['chunks_per_s']:,} | "
            + " | ".join(str(r["tools"][name]["p95_ms"]) for name in TOOLS)
            + f" | {e['postgres_bytes'] / 1e6:.0f} | {e['tantivy_bytes'] / 1e6:.0f} "
            f"| {e['qdrant_edge_bytes'] / 1e6:.0f} "
            f"| {r['disk_bytes'] / 1e6:.0f} | {r['peak_rss_bytes'] / 1e6:.0f} |"
        )
    return "\n".join([*lines, "", *_projection_lines(report), _limit_line(report)]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    args = parser.parse_args()
    report = run(args.out, args.sizes)
    (args.out / "scale.json").write_text(json.dumps(report, indent=2))
    (args.out / "scale.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
