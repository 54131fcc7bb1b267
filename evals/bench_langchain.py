"""Our retrieval against the stack a LangChain user would build instead, on SciFact train queries.

    python -m evals.bench_langchain [--out bench-out]

Writes `OUT/langchain.json` and `OUT/langchain.md` (also one section of `ragent bench`, through `run` and
`markdown`). What is compared, document-level (a document ranks at its best chunk) over the 809 SciFact
train queries with qrels:

- ours: keyword (Tantivy BM25), semantic (qdrant-edge, exact) and fused (RRF) through `Retriever`, on an
  embedded stack of its own under OUT, into which the SciFact corpus is ingested fresh (and timed);
- LangChain: `BM25Retriever` (rank-bm25), `QdrantVectorStore` on qdrant-client's local mode **in memory**
  (`location=":memory:"`, the quick-start setup; local mode is brute force in numpy either way, `path=`
  would only add pickling to SQLite), and `EnsembleRetriever` of the two with equal weights, as its docs show.

So that differences come from the retrieval stacks only, LangChain gets exactly the chunks our ingestion
committed (read back from our Postgres store), each as the text we embed and index (the title line, then the
chunk), with its `doc_id` in the metadata; and both sides embed through the same `CachedEmbedder` (MiniLM,
the shared on-disk cache, warmed for every query before timing), so query vectors cost one cache lookup on
both sides and QPS measures retrieval, not MiniLM.

Choices, stated because they could move the figures:
- Every engine is asked for the same CHUNKS_PER_ENGINE chunks; fusion on both sides fuses those two lists
  (ours: `depth=CHUNKS_PER_ENGINE`, rather than the tools' default of 100) and returns the whole fused list,
  as `EnsembleRetriever` does. RRF uses k=60 on both sides (LangChain's `c` default equals our RRF_K): ours is
  asked for RRF explicitly, so that fusion is compared like for like (our default weighted fusion is measured
  against RRF by `evals.bench_fusion`).
- LangChain runs on its defaults: `BM25Retriever`'s preprocessing is `str.split` (no lowercasing, stemming
  or stop words), cosine distance, the ensemble deduplicates by page content. No tuning on either side.
- Ingest seconds: ours is the whole `Ingestor` run from raw documents (chunking, Postgres, Tantivy,
  qdrant-edge) with the warm embedding cache; LangChain's is building the vector store and the BM25
  retriever from our finished chunks, so chunking is not counted on its side.
- QPS is sequential on one thread after WARM_UP_QUERIES untimed queries; the machine may be shared, so the
  load average is recorded beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from langchain_classic.retrievers import EnsembleRetriever
from langchain_community.retrievers import BM25Retriever
from langchain_core.documents import Document as LangChainDocument
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from langchain_qdrant import QdrantVectorStore

from core.models import SearchFilter
from core.scope import DEFAULT_SCOPE
from evals.bench_retrieval import SCIFACT_SPLIT, _all_points, _doc_ranking, _stack
from evals.metrics import ndcg_at_k, percentile, recall_at_k
from retrievers.engines.embedders.cache import CachedEmbedder
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import scifact, shared_data_dir
from retrievers.loaders.beir import load_qrels, load_queries
from retrievers.search import Retriever
from retrievers.stack import Stack

CHUNKS_PER_ENGINE = 200
WARM_UP_QUERIES = 20
DATA_FOLDER = "langchain-ours"
OURS_FUSED = "ours: fused (RRF)"
LANGCHAIN_BM25 = "LangChain: BM25Retriever (rank-bm25)"
LANGCHAIN_VECTORS = "LangChain: QdrantVectorStore (local, in memory)"
ENSEMBLE = "LangChain: EnsembleRetriever (0.5/0.5)"
TARGET_QPS_RATIO = 3.0

Search = Callable[[str], list[str]]


class CachedEmbeddings(Embeddings):
    """LangChain's `Embeddings` over our `CachedEmbedder`: the same model, the same cache, the same vectors."""

    def __init__(self, cached: CachedEmbedder):
        self.cached = cached

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.cached.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.cached.embed_query(text)


def _resident_mb() -> float:
    """This process's resident memory, to show what an in-process LangChain stack holds."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def ingest_ours(stack: Stack, corpus: Path) -> dict:
    report = Ingestor(stack).ingest(scifact.load(corpus), progress=False)
    return {
        "documents": report.added,
        "chunks": report.chunks,
        "seconds": round(report.seconds, 2),
        "embeddings_computed": report.embeddings_computed,
    }


def committed_chunks(stack: Stack) -> list[LangChainDocument]:
    """Every chunk our ingestion committed, as the text it embedded and indexed (title line, then chunk)."""
    records, _ = _all_points(stack)
    rows = stack.store.chunks_by_id(DEFAULT_SCOPE, [str(r.id) for r in records])
    ordered = sorted(rows.values(), key=lambda row: (row["doc_id"], row["ordinal"]))
    return [
        LangChainDocument(
            id=row["chunk_id"],
            page_content=f"{row['title']}\n{row['text']}" if row["title"] else row["text"],
            metadata={"doc_id": row["doc_id"]},
        )
        for row in ordered
    ]


def build_langchain(
    chunks: list[LangChainDocument], embeddings: CachedEmbeddings
) -> tuple[dict[str, BaseRetriever], dict]:
    """The three LangChain retrievers over `chunks`, the seconds each took to build, and the memory they hold.

    Cache misses are counted because `QdrantVectorStore` embeds a probe text ("dummy_text") to learn the vector
    size: on a cache that has never seen it, that one miss loads MiniLM, into both the seconds and the memory."""
    resident_before, misses_before = _resident_mb(), embeddings.cached.misses
    started = time.perf_counter()
    store = QdrantVectorStore.from_documents(chunks, embeddings, location=":memory:", collection_name="scifact")
    vector_s = time.perf_counter() - started
    started = time.perf_counter()
    bm25 = BM25Retriever.from_documents(chunks, k=CHUNKS_PER_ENGINE)
    bm25_s = time.perf_counter() - started
    vectors = store.as_retriever(search_kwargs={"k": CHUNKS_PER_ENGINE})
    retrievers = {
        LANGCHAIN_BM25: bm25,
        LANGCHAIN_VECTORS: vectors,
        ENSEMBLE: EnsembleRetriever(retrievers=[bm25, vectors], weights=[0.5, 0.5]),
    }
    seconds = {
        LANGCHAIN_BM25: round(bm25_s, 2),
        LANGCHAIN_VECTORS: round(vector_s, 2),
        ENSEMBLE: round(bm25_s + vector_s, 2),
    }
    return retrievers, {
        "seconds": seconds,
        "resident_mb_added": round(_resident_mb() - resident_before, 1),
        "embeddings_computed": embeddings.cached.misses - misses_before,
    }


def our_searches(stack: Stack) -> dict[str, Search]:
    """Our three modes with the bucket filter the tools always push down, as document rankings."""
    retriever, filters = Retriever(stack), SearchFilter(bucket=scifact.BUCKET)
    return {
        "ours: keyword (Tantivy BM25)": lambda q: _doc_ranking(retriever.keyword(q, filters, CHUNKS_PER_ENGINE)),
        "ours: semantic (qdrant-edge, exact)": lambda q: _doc_ranking(
            retriever.semantic(q, filters, CHUNKS_PER_ENGINE)
        ),
        OURS_FUSED: lambda q: _doc_ranking(
            retriever.fused(q, filters, 2 * CHUNKS_PER_ENGINE, depth=CHUNKS_PER_ENGINE, method="rrf")
        ),
    }


def langchain_searches(retrievers: dict[str, BaseRetriever]) -> dict[str, Search]:
    """Each retriever's chunks as a document ranking, the way `_doc_ranking` ranks ours."""
    return {
        name: lambda q, r=r: list(dict.fromkeys(d.metadata["doc_id"] for d in r.invoke(q)))
        for name, r in retrievers.items()
    }


def measure(search: Search, queries: dict[str, str], qrels: dict[str, set[str]]) -> dict:
    """nDCG@10, recall@100 and sequential single-thread speed of one system over every query."""
    for text in list(queries.values())[:WARM_UP_QUERIES]:
        search(text)
    ndcg, recall, seconds = [], [], []
    for qid, text in queries.items():
        started = time.perf_counter()
        ranked = search(text)
        seconds.append(time.perf_counter() - started)
        ndcg.append(ndcg_at_k(ranked, qrels[qid], 10))
        recall.append(recall_at_k(ranked, qrels[qid], 100))
    milliseconds = [s * 1000 for s in seconds]
    return {
        "ndcg@10": round(float(np.mean(ndcg)), 4),
        "recall@100": round(float(np.mean(recall)), 4),
        "qps": round(len(seconds) / sum(seconds), 1),
        "p50_ms": round(percentile(milliseconds, 50), 2),
        "p95_ms": round(percentile(milliseconds, 95), 2),
    }


def _targets(systems: dict[str, dict]) -> dict:
    ours, ensemble = systems[OURS_FUSED], systems[ENSEMBLE]
    ratio = ours["qps"] / ensemble["qps"]
    return {
        "ndcg@10": {
            "ours": ours["ndcg@10"],
            "ensemble": ensemble["ndcg@10"],
            "met": ours["ndcg@10"] >= ensemble["ndcg@10"],
        },
        "qps_ratio": {"measured": round(ratio, 2), "target": TARGET_QPS_RATIO, "met": ratio >= TARGET_QPS_RATIO},
    }


def run(out: Path) -> dict:
    """Ingest SciFact into a fresh stack under `out`, build LangChain's retrievers on its chunks, measure all six."""
    corpus = shared_data_dir() / scifact.SHARED_FOLDER
    if not corpus.is_dir():
        raise SystemExit(f"{corpus} is absent: the LangChain comparison needs ../shared/data/scifact")
    out.mkdir(parents=True, exist_ok=True)
    qrels = load_qrels(corpus, SCIFACT_SPLIT)
    queries = load_queries(corpus, set(qrels))
    load_before = os.getloadavg()[0]
    stack = _stack(out, DATA_FOLDER, fresh=True)
    try:
        ours_ingest = ingest_ours(stack, corpus)
        chunks = committed_chunks(stack)
        stack.embedder.embed_documents(list(queries.values()))
        retrievers, langchain_ingest = build_langchain(chunks, CachedEmbeddings(stack.embedder))
        ours, langchain = our_searches(stack), langchain_searches(retrievers)
        searches = {**ours, **langchain}
        ingest_seconds = {**dict.fromkeys(ours, ours_ingest["seconds"]), **langchain_ingest["seconds"]}
        systems = {
            name: {**measure(search, queries, qrels), "ingest_seconds": ingest_seconds[name]}
            for name, search in searches.items()
        }
    finally:
        stack.close()
    return {
        "split": SCIFACT_SPLIT,
        "queries": len(queries),
        "chunks": len(chunks),
        "chunks_per_engine": CHUNKS_PER_ENGINE,
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "cpus": os.cpu_count(),
        "ingest": {"ours": ours_ingest, "langchain": langchain_ingest},
        "systems": systems,
        "targets": _targets(systems),
    }


def _met(flag: bool) -> str:
    return "met" if flag else "**not met**"


def markdown(report: dict) -> str:
    ingest, targets = report["ingest"], report["targets"]
    heading = (
        f"Ours against LangChain on SciFact {report['split']} queries ({report['queries']}), document-level, the same "
        f"{report['chunks']:,} chunks and MiniLM vectors on both sides, "
        f"top {report['chunks_per_engine']} chunks per engine; "
        f"QPS sequential on one thread (load average {report['load_average'][0]} to {report['load_average'][1]} on "
        f"{report['cpus']} CPUs):"
    )
    verdict = (
        f"Targets: fused nDCG@10 {targets['ndcg@10']['ours']:.3f} "
        f"against the ensemble's {targets['ndcg@10']['ensemble']:.3f} "
        f"({_met(targets['ndcg@10']['met'])}); fused QPS {targets['qps_ratio']['measured']}x the ensemble's, target "
        f"{targets['qps_ratio']['target']:g}x ({_met(targets['qps_ratio']['met'])})."
    )
    ingest_note = (
        "Ingest: ours writes Postgres, Tantivy and qdrant-edge from the raw abstracts "
        f"({ingest['ours']['documents']:,} documents, "
        f"chunking included); LangChain builds from our finished chunks and holds them in the Python process "
        f"(+{ingest['langchain']['resident_mb_added']} MB resident). Embeddings computed while building: ours "
        f"{ingest['ours']['embeddings_computed']}, LangChain {ingest['langchain']['embeddings_computed']}."
    )
    lines = [
        heading,
        "",
        "| system | nDCG@10 | recall@100 | QPS | p50 ms | p95 ms | ingest s |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {name} | {s['ndcg@10']:.3f} | {s['recall@100']:.3f} | {s['qps']:.1f} "
        f"| {s['p50_ms']} | {s['p95_ms']} | {s['ingest_seconds']} |"
        for name, s in report["systems"].items()
    ]
    return "\n".join([*lines, "", verdict, ingest_note]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    args = parser.parse_args()
    report = run(args.out)
    (args.out / "langchain.json").write_text(json.dumps(report, indent=2))
    (args.out / "langchain.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
