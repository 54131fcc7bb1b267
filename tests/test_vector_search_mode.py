"""The embedded vector index searches exactly below its HNSW threshold and through HNSW past it (once ingestion has
run `optimize`), and a filter narrower than the threshold is still answered exactly on an indexed shard."""

from __future__ import annotations

import numpy as np

from core.models import IndexedChunk, SearchFilter
from core.settings import Settings
from retrievers.engines.vector.qdrant_edge_index import QdrantEdgeVectorIndex

DIM = 16
POINTS = 1200


def _chunks(n: int) -> list[IndexedChunk]:
    return [
        IndexedChunk(
            chunk_id=IndexedChunk.make_id("default", f"d{i}", "h", 0),
            doc_id=f"d{i}",
            scope="default",
            bucket=("contracts", "invoices")[i % 2],
            content_hash="h",
            ordinal=0,
            title="",
            text="",
        )
        for i in range(n)
    ]


def _vectors(n: int, seed: int = 3) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, DIM))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _loaded(path, threshold: int) -> QdrantEdgeVectorIndex:
    index = QdrantEdgeVectorIndex(path, hnsw_threshold=threshold)
    index.ensure_model("test-model", DIM)
    index.upsert(_chunks(POINTS), _vectors(POINTS).tolist())
    index.optimize()
    return index


def test_hnsw_is_the_default():
    assert Settings.from_env({}).exact_vector_search is False
    assert Settings.from_env({"RAGENT_EXACT_VECTOR_SEARCH": "true"}).exact_vector_search is True


def test_a_corpus_below_the_threshold_is_searched_exactly(tmp_path):
    index = _loaded(tmp_path / "small", threshold=POINTS * 2)
    try:
        stats = index.stats()
        assert stats["hnsw_indexed_chunks"] == 0 and stats["exact"] is True
    finally:
        index.close()


def test_a_corpus_past_the_threshold_gets_an_hnsw_graph(tmp_path):
    index = _loaded(tmp_path / "large", threshold=POINTS // 4)
    try:
        stats = index.stats()
        assert stats["hnsw_indexed_chunks"] == POINTS and stats["exact"] is False
        # A filter selecting fewer points than the threshold is scanned exactly: the same top 10 as NumPy's.
        chunks, vectors = _chunks(POINTS), _vectors(POINTS)
        query = _vectors(1, seed=11)[0]
        narrow = SearchFilter(doc_ids=[c.doc_id for c in chunks[:100]])
        expected = [chunks[i].chunk_id for i in np.argsort(-(vectors[:100] @ query))[:10]]
        assert [h.chunk_id for h in index.search(query.tolist(), narrow, 10)] == expected
    finally:
        index.close()


def test_forced_exact_search_builds_no_graph(tmp_path):
    index = QdrantEdgeVectorIndex(tmp_path / "exact", exact=True, hnsw_threshold=POINTS // 4)
    index.ensure_model("test-model", DIM)
    index.upsert(_chunks(POINTS), _vectors(POINTS).tolist())
    index.optimize()
    try:
        assert index.stats()["exact"] is True and index.stats()["hnsw_indexed_chunks"] == 0
    finally:
        index.close()
