"""Retrieval benchmark: quality on SciFact, HNSW recall, latency at scale, ingestion throughput, index sizes.

    python -m evals.bench_retrieval [--out bench-out] [--scale-chunks 100000]

Writes `OUT/retrieval.json` and `OUT/retrieval.md` (the table pasted into docs/benchmarks.md). Each part runs in its
own data folder under OUT, so the measured sizes are those of that corpus alone. Embeddings come from the
shared on-disk cache, so a second run embeds nothing.

The scale corpus is generated: SciFact's real chunks and their real MiniLM vectors, repeated with small
Gaussian noise on the vectors and spread over scopes, buckets, authors, tags, dates and annotation values,
so that filters have realistic selectivities. Latency depends on the number of points and the filter
selectivity, not on the text being new, and generating keeps the build within minutes on two cores.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import date, timedelta
from functools import partial
from pathlib import Path

import numpy as np
import qdrant_edge as qe

from core.models import AnnotationRow, Chunk, Document, IndexedChunk, SearchFilter, SourceDocument
from core.settings import Settings
from evals.metrics import ndcg_at_k, percentile, recall_at_k
from retrievers.fusion import KEYWORD_WEIGHT
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import scifact, shared_data_dir
from retrievers.loaders.beir import load_qrels, load_queries
from retrievers.postgres.annotation_filters import Predicate
from retrievers.search import Retriever
from retrievers.stack import Stack, open_stack

SCIFACT_SPLIT = "train"
TOP_CHUNKS = 300
LATENCY_QUERIES = 300
HNSW_QUERIES = 300
FUSED_RRF = "fused, reciprocal-rank (before)"
FUSED_DEFAULT = f"fused, weighted scores {KEYWORD_WEIGHT}/{1 - KEYWORD_WEIGHT:.1f} (default)"


def _stack(out: Path, name: str, *, fresh: bool, cache: Path | None = None) -> Stack:
    home = out / name
    if fresh and home.exists():
        shutil.rmtree(home)
    settings = Settings.from_env()
    # A benchmark's folders may be deleted after it (bench_scale's are): their Postgres stops with it, not once idle.
    return open_stack(replace(settings, home=home, cache_dir=cache or settings.cache_dir, postgres_idle_stop_s=0))


def _doc_ranking(hits) -> list[str]:
    """Documents in the order of their best chunk (a document scores as its best passage)."""
    return list(dict.fromkeys(h.doc_id for h in hits))


def bench_throughput(out: Path, corpus: Path, docs: int = 300) -> dict:
    """Ingest the same documents with an empty embedding cache, then again into empty engines with it warm."""
    cache = out / "throughput-cache"
    shutil.rmtree(cache, ignore_errors=True)
    result = {}
    for label in ("cold", "warm"):
        stack = _stack(out, f"throughput-{label}", fresh=True, cache=cache)
        try:
            report = Ingestor(stack).ingest(scifact.load(corpus, limit=docs), progress=False)
        finally:
            stack.close()
        result[label] = {
            "documents": report.added,
            "chunks": report.chunks,
            "seconds": round(report.seconds, 2),
            "chunks_per_s": round(report.chunks / report.seconds, 1),
        }
    return result


def quality_modes(retriever: Retriever) -> dict[str, Callable]:
    """The rankings compared: each engine alone, fusion before (RRF) and after (the default, weighted scores)."""
    return {
        "keyword": retriever.keyword,
        "semantic": retriever.semantic,
        FUSED_RRF: partial(retriever.fused, method="rrf"),
        FUSED_DEFAULT: retriever.fused,
    }


def bench_quality(stack: Stack, corpus: Path) -> dict:
    qrels = load_qrels(corpus, SCIFACT_SPLIT)
    queries = load_queries(corpus, set(qrels))
    retriever = Retriever(stack)
    filters = SearchFilter(bucket="generic")
    result = {"queries": len(queries), "split": SCIFACT_SPLIT}
    for mode, search in quality_modes(retriever).items():
        ndcg, recall = [], []
        for qid, text in queries.items():
            ranked = _doc_ranking(search(text, filters, TOP_CHUNKS))
            ndcg.append(ndcg_at_k(ranked, qrels[qid], 10))
            recall.append(recall_at_k(ranked, qrels[qid], 100))
        result[mode] = {"ndcg@10": round(float(np.mean(ndcg)), 4), "recall@100": round(float(np.mean(recall)), 4)}
    return result


def _all_points(stack: Stack) -> tuple[list, np.ndarray]:
    shard = stack.vectors.shard
    records, offset = [], None
    while True:
        page, offset = shard.scroll(qe.ScrollRequest(offset=offset, limit=2000, with_payload=True, with_vector=True))
        records += page
        if offset is None:
            return records, np.array([r.vector for r in records], dtype=np.float32)


def bench_hnsw_recall(out: Path, stack: Stack, query_vectors: np.ndarray) -> dict:
    """recall@10 of qdrant-edge's HNSW against exact search, on SciFact's real MiniLM vectors."""
    records, vectors = _all_points(stack)
    path = out / "hnsw-shard"
    shutil.rmtree(path, ignore_errors=True)
    config = qe.EdgeConfig(
        vectors=qe.EdgeVectorParams(size=vectors.shape[1], distance=qe.Distance.Cosine),
        hnsw_config=qe.HnswIndexConfig(m=16, ef_construct=128, full_scan_threshold=10),
        optimizers=qe.EdgeOptimizersConfig(indexing_threshold=1000, default_segment_number=2),
    )
    shard = qe.EdgeShard.create(str(path), config)
    points = [qe.Point(r.id, v.tolist(), {}) for r, v in zip(records, vectors, strict=True)]
    shard.update(qe.UpdateOperation.upsert_points(points))
    shard.optimize()
    recalls = {}
    for ef in (64, 128, 256):
        found = []
        for q in query_vectors[:HNSW_QUERIES].tolist():
            exact = {
                p.id
                for p in shard.query(
                    qe.QueryRequest(limit=10, query=qe.Query.Nearest(q), params=qe.SearchParams(exact=True))
                )
            }
            approx = {
                p.id
                for p in shard.query(
                    qe.QueryRequest(limit=10, query=qe.Query.Nearest(q), params=qe.SearchParams(hnsw_ef=ef))
                )
            }
            found.append(len(exact & approx) / 10)
        recalls[f"ef={ef}"] = round(float(np.mean(found)), 4)
    info = shard.info()
    shard.close()
    return {"points": len(records), "indexed_vectors": info.indexed_vectors_count, "recall@10": recalls}


def _scale_sources(
    records: list, texts: dict[str, str], n_chunks: int, rng: random.Random
) -> list[tuple[SourceDocument, list[str]]]:
    """Documents of four chunks each, with filter fields and one annotation row, over SciFact's real texts."""
    vendors = [f"Vendor {i:03d}" for i in range(500)]
    categories = [
        "hardware",
        "software",
        "services",
        "travel",
        "office",
        "energy",
        "legal",
        "marketing",
        "logistics",
        "training",
        "rent",
        "other",
    ]
    start = date(2019, 1, 1)
    sources = []
    for d in range(n_chunks // 4):
        chunk_texts = [texts[str(records[(4 * d + k) % len(records)].id)] for k in range(4)]
        issued = start + timedelta(days=rng.randrange(5 * 365))
        document = Document(
            doc_id=f"scale-{d:06d}",
            bucket=rng.choice(["invoices", "contracts", "generic"]),
            scope="default" if rng.random() < 0.9 else "tenant_b",
            title=f"Scale document {d}",
            author=f"author{rng.randrange(20)}",
            tags=rng.sample([f"t{i}" for i in range(10)], 2),
            created_at=issued.isoformat(),
            body="\n\n".join(chunk_texts),
        )
        row = {
            "amount": round(rng.lognormvariate(6, 1.5), 2),
            "vendor": rng.choice(vendors),
            "category": rng.choice(categories),
            "issued": issued.isoformat(),
            "priority": rng.randint(1, 5),
        }
        sources.append((SourceDocument(document=document, annotations=[AnnotationRow(row=row)]), chunk_texts))
    return sources


def build_scale_corpus(out: Path, source_stack: Stack, n_chunks: int) -> tuple[Stack, dict]:
    """Write the generated corpus straight into fresh engines (no embedding: vectors are real ones plus noise)."""
    records, vectors = _all_points(source_stack)
    texts = source_stack.store.chunks_by_id("default", [str(r.id) for r in records])
    texts = {cid: row["text"] for cid, row in texts.items()}
    records = [r for r in records if str(r.id) in texts]
    vectors = np.array([r.vector for r in records], dtype=np.float32)
    rng, noise = random.Random(7), np.random.default_rng(7)
    stack = _stack(out, "scale", fresh=True)
    started = time.perf_counter()
    sources = _scale_sources(records, texts, n_chunks, rng)
    batch_chunks, batch_vectors = [], []
    for i, (source, chunk_texts) in enumerate(sources):
        doc, h = source.document, source.content_hash()
        offsets, position = [], 0
        for text in chunk_texts:
            offsets.append(Chunk(ordinal=len(offsets), start=position, end=position + len(text), text=text))
            position += len(text) + 2
        indexed = [
            IndexedChunk(
                chunk_id=IndexedChunk.make_id(doc.scope, doc.doc_id, h, c.ordinal),
                doc_id=doc.doc_id,
                scope=doc.scope,
                bucket=doc.bucket,
                content_hash=h,
                ordinal=c.ordinal,
                title=doc.title,
                text=c.text,
                author=doc.author,
                tags=doc.tags,
                created_ts=int(doc.created_at.timestamp()),
            )
            for c in offsets
        ]
        base = vectors[[(4 * i + k) % len(vectors) for k in range(4)]] + noise.normal(
            0, 0.02, size=(4, vectors.shape[1])
        )
        batch_chunks += indexed
        batch_vectors += (base / np.linalg.norm(base, axis=1, keepdims=True)).tolist()
        stack.store.commit_document(source, h, offsets, [c.chunk_id for c in indexed])
        if len(batch_chunks) >= 10_000 or i == len(sources) - 1:
            stack.keyword.upsert(batch_chunks)
            stack.vectors.upsert(batch_chunks, batch_vectors)
            batch_chunks, batch_vectors = [], []
    for scope in ("default", "tenant_b"):
        for bucket in ("invoices", "contracts", "generic"):
            stack.store.refresh_catalog(scope, bucket)
    build_s = time.perf_counter() - started
    return stack, {"chunks": n_chunks, "documents": len(sources), "build_seconds": round(build_s, 1)}


def _timed(calls: list[Callable[[], object]]) -> dict:
    for call in calls[:20]:
        call()
    times = []
    for call in calls:
        t = time.perf_counter()
        call()
        times.append((time.perf_counter() - t) * 1000)
    return {"p50_ms": round(percentile(times, 50), 2), "p95_ms": round(percentile(times, 95), 2), "n": len(times)}


def bench_latency(stack: Stack, query_texts: list[str], query_vectors: np.ndarray) -> dict:
    rng = random.Random(11)
    unfiltered = SearchFilter()
    filtered = SearchFilter(bucket="invoices", tags=["t3"], created_after="2020-01-01", created_before="2022-12-31")
    selectivity = {"unfiltered": stack.keyword.count(unfiltered), "filtered": stack.keyword.count(filtered)}
    retriever = Retriever(stack)
    result: dict = {"matching_chunks": selectivity}
    for label, f in (("no filter", unfiltered), ("filters", filtered)):
        result[f"keyword engine, {label}"] = _timed(
            [lambda q=q, f=f: stack.keyword.search(q, f, 20) for q in query_texts]
        )
        result[f"keyword + hydration, {label}"] = _timed(
            [lambda q=q, f=f: retriever.keyword(q, f, 20) for q in query_texts]
        )
        result[f"semantic engine, {label}"] = _timed(
            [lambda v=v, f=f: stack.vectors.search(v, f, 20) for v in query_vectors.tolist()]
        )
    result["MiniLM query embedding (uncached, CPU)"] = _timed(
        [lambda q=q: stack.embedder.inner.embed_query(q) for q in query_texts[:100]]
    )
    templates = [
        lambda: [Predicate(field="amount", op=">", value=round(rng.uniform(100, 5000), 2))],
        lambda: [Predicate(field="vendor", op="=", value=f"Vendor {rng.randrange(500):03d}")],
        lambda: [Predicate(field="category", op="in", value=rng.sample(["hardware", "travel", "legal", "rent"], 2))],
        lambda: [
            Predicate(field="issued", op="between", value=["2020-03-01", "2020-06-30"]),
            Predicate(field="priority", op=">=", value=4),
        ],
        lambda: [
            Predicate(field="vendor", op="~", value=f"{rng.randrange(100):02d}"),
            Predicate(field="amount", op="<", value=500),
        ],
    ]
    predicate_sets = [templates[i % len(templates)]() for i in range(LATENCY_QUERIES)]
    result["annotation predicates (rows, limit 50)"] = _timed(
        [lambda p=p: stack.store.find_annotations("default", "invoices", p, limit=50) for p in predicate_sets]
    )
    result["annotation predicates -> doc ids"] = _timed(
        [lambda p=p: stack.store.matching_doc_ids("default", "invoices", p) for p in predicate_sets]
    )
    return result


def sizes(stack: Stack) -> dict:
    return {
        "postgres_bytes": stack.store.bytes_on_disk(),
        "tantivy_bytes": stack.keyword.stats()["bytes_on_disk"],
        "qdrant_edge_bytes": stack.vectors.stats()["bytes_on_disk"],
        **stack.store.counts(),
    }


def quality_rows(quality: dict) -> list[str]:
    return [f"| {m} | {v['ndcg@10']:.3f} | {v['recall@100']:.3f} |" for m, v in quality.items() if isinstance(v, dict)]


def markdown(report: dict) -> str:
    q = report["quality"]
    lines = [
        f"SciFact {q['split']} queries ({q['queries']}), document-level, exact vector search:",
        "",
        "| ranking | nDCG@10 | recall@100 |",
        "|---|---|---|",
    ]
    lines += quality_rows(q)
    h = report["hnsw"]
    lines += [
        "",
        f"qdrant-edge HNSW (m=16, ef_construct=128) recall@10 against exact search, {h['points']} real MiniLM vectors: "
        + ", ".join(f"{k}: {v:.3f}" for k, v in h["recall@10"].items()),
        "",
    ]
    s = report["scale"]
    lines += [
        f"Latency at {s['chunks']:,} chunks ({s['documents']:,} documents, written in {s['build_seconds']} s "
        "without embedding; filters keep "
        f"{report['latency']['matching_chunks']['filtered']:,} of "
        f"{report['latency']['matching_chunks']['unfiltered']:,} chunks in scope), top 20:",
        "",
        "| query | p50 ms | p95 ms |",
        "|---|---|---|",
    ]
    lines += [
        f"| {k} | {v['p50_ms']} | {v['p95_ms']} |" for k, v in report["latency"].items() if k != "matching_chunks"
    ]
    t = report["throughput"]
    lines += ["", "| ingestion (300 SciFact abstracts) | chunks | seconds | chunks/s |", "|---|---|---|---|"]
    lines += [f"| {k} embedding cache | {v['chunks']} | {v['seconds']} | {v['chunks_per_s']} |" for k, v in t.items()]
    lines += [
        "",
        "| index sizes | documents | chunks | Postgres MB | Tantivy MB | qdrant-edge MB |",
        "|---|---|---|---|---|---|",
    ]
    for name, z in report["sizes"].items():
        lines.append(
            f"| {name} | {z['documents']:,} | {z['chunks']:,} | {z['postgres_bytes'] / 1e6:.1f} "
            f"| {z['tantivy_bytes'] / 1e6:.1f} | {z['qdrant_edge_bytes'] / 1e6:.1f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("bench-out"))
    parser.add_argument("--scale-chunks", type=int, default=100_000)
    args = parser.parse_args()
    corpus = shared_data_dir() / scifact.SHARED_FOLDER
    if not corpus.is_dir():
        raise SystemExit(f"{corpus} is absent: the retrieval benchmark needs ../shared/data/scifact")
    args.out.mkdir(parents=True, exist_ok=True)
    report: dict = {"throughput": bench_throughput(args.out, corpus)}
    print(json.dumps(report["throughput"]))
    stack = _stack(args.out, "scifact", fresh=False)
    try:
        ingest = Ingestor(stack).ingest(scifact.load(corpus))
        print(ingest.summary())
        report["quality"] = bench_quality(stack, corpus)
        print(json.dumps(report["quality"]))
        qrels = load_qrels(corpus, SCIFACT_SPLIT)
        query_texts = list(load_queries(corpus, set(qrels)).values())[:LATENCY_QUERIES]
        query_vectors = np.array(stack.embedder.embed_documents(query_texts), dtype=np.float32)
        report["hnsw"] = bench_hnsw_recall(args.out, stack, query_vectors)
        print(json.dumps(report["hnsw"]))
        report["sizes"] = {"SciFact": sizes(stack)}
        scale, report["scale"] = build_scale_corpus(args.out, stack, args.scale_chunks)
    finally:
        stack.close()
    try:
        report["latency"] = bench_latency(scale, query_texts, query_vectors)
        report["sizes"]["scale corpus"] = sizes(scale)
    finally:
        scale.close()
    (args.out / "retrieval.json").write_text(json.dumps(report, indent=2))
    (args.out / "retrieval.md").write_text(markdown(report))
    print(markdown(report))


if __name__ == "__main__":
    main()
