"""One suite, run unchanged against every VectorIndex adapter (see the `vector_index` fixture).

Vectors are seeded random unit vectors: the suite checks filtering, exact ranking and versioning, which
do not depend on where vectors come from. The reference ranking is exact cosine similarity in NumPy.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import EmbeddingModelMismatch
from core.models import IndexedChunk, SearchFilter
from tests.conformance.corpus import FILTERS, bulk_chunks, make_chunks, matches_filter

DIM = 16


def _vectors(n: int, seed: int = 7) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, DIM))
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.fixture
def loaded_index(vector_index):
    vector_index.ensure_model("test-model", DIM)
    vector_index.upsert(make_chunks(), _vectors(len(make_chunks())).tolist())
    return vector_index


@pytest.mark.parametrize("name", sorted(FILTERS))
def test_filtered_top10_equals_exact_reference(loaded_index, name):
    f = FILTERS[name]
    chunks, vectors = make_chunks(), _vectors(len(make_chunks()))
    query = _vectors(1, seed=99)[0]
    scores = vectors @ query
    allowed = [i for i, c in enumerate(chunks) if matches_filter(c, f)]
    expected = [chunks[i].chunk_id for i in sorted(allowed, key=lambda i: -scores[i])[:10]]
    hits = loaded_index.search(query.tolist(), f, limit=10)
    assert [h.chunk_id for h in hits] == expected
    assert [round(h.score, 4) for h in hits] == [
        round(float(scores[chunks.index(next(c for c in chunks if c.chunk_id == h.chunk_id))]), 4) for h in hits
    ]
    assert loaded_index.count(f) == len(allowed)


def test_a_vector_finds_itself_first(loaded_index):
    chunks, vectors = make_chunks(), _vectors(len(make_chunks()))
    hits = loaded_index.search(vectors[5].tolist(), SearchFilter(scope=chunks[5].scope), limit=3)
    assert hits[0].chunk_id == chunks[5].chunk_id and hits[0].doc_id == chunks[5].doc_id
    assert hits[0].score == pytest.approx(1.0, abs=1e-4)


def test_upsert_of_the_same_chunk_does_not_duplicate(loaded_index):
    loaded_index.upsert(make_chunks()[:4], _vectors(len(make_chunks()))[:4].tolist())
    assert loaded_index.count(SearchFilter(scope="tenant_a")) == sum(c.scope == "tenant_a" for c in make_chunks())


def test_delete_document_keeps_only_the_new_version(loaded_index):
    new = IndexedChunk(
        chunk_id=IndexedChunk.make_id("tenant_a", "doc-01", "v2", 0),
        doc_id="doc-01",
        scope="tenant_a",
        bucket="contracts",
        content_hash="v2",
        ordinal=0,
        title="Document 1",
        text="rewritten",
    )
    loaded_index.upsert([new], _vectors(1, seed=3).tolist())
    loaded_index.delete_document("tenant_a", "doc-01", keep_hash="v2")
    only_doc = SearchFilter(scope="tenant_a", doc_ids=["doc-01"])
    assert [h.chunk_id for h in loaded_index.search(_vectors(1, seed=3)[0].tolist(), only_doc, limit=10)] == [
        new.chunk_id
    ]
    loaded_index.delete_document("tenant_a", "doc-01")
    assert loaded_index.count(only_doc) == 0
    assert loaded_index.count(SearchFilter(scope="tenant_b")) == sum(c.scope == "tenant_b" for c in make_chunks())


def test_chunk_ids_are_every_chunk_held_by_scope(loaded_index):
    chunks = make_chunks()
    assert loaded_index.chunk_ids() == {c.chunk_id for c in chunks}
    assert loaded_index.chunk_ids("tenant_b") == {c.chunk_id for c in chunks if c.scope == "tenant_b"}
    assert loaded_index.chunk_ids("nobody") == set()


def test_stored_points_are_every_chunk_with_its_document_and_its_vector_of_unit_length(vector_index):
    """What `ragent check` reads to find zeroed or overwritten storage: every point, over several pages."""
    vector_index.ensure_model("test-model", DIM)
    bulk = bulk_chunks(2500)
    vector_index.upsert(bulk, (_vectors(len(bulk)) * 3).tolist())
    points = [point for page in vector_index.stored_points() for point in page]
    assert sorted((chunk_id, doc_id) for chunk_id, doc_id, _ in points) == sorted((c.chunk_id, c.doc_id) for c in bulk)
    assert np.allclose(np.linalg.norm([vector for _, _, vector in points], axis=1), 1.0, atol=1e-5)


def test_an_empty_index_holds_no_chunk_ids(vector_index):
    vector_index.ensure_model("test-model", DIM)
    assert vector_index.chunk_ids() == set()


def test_delete_chunks_removes_exactly_those_and_ignores_unknown_ids(loaded_index):
    chunks, vectors = make_chunks(), _vectors(len(make_chunks()))
    loaded_index.delete_chunks(
        [chunks[5].chunk_id, chunks[7].chunk_id, IndexedChunk.make_id("tenant_a", "never-indexed", "v1", 0)]
    )
    loaded_index.delete_chunks([])
    assert loaded_index.chunk_ids() == {c.chunk_id for c in chunks} - {chunks[5].chunk_id, chunks[7].chunk_id}
    hits = loaded_index.search(vectors[5].tolist(), SearchFilter(scope=chunks[5].scope), limit=50)
    assert chunks[5].chunk_id not in {h.chunk_id for h in hits}
    assert loaded_index.count(SearchFilter(scope="tenant_a")) == sum(c.scope == "tenant_a" for c in chunks) - 2


def test_enumeration_and_deletion_page_through_thousands_of_chunks(vector_index):
    vector_index.ensure_model("test-model", DIM)
    bulk = bulk_chunks(2500)
    vector_index.upsert(bulk, _vectors(len(bulk)).tolist())
    assert vector_index.chunk_ids("bulk") == {c.chunk_id for c in bulk}
    vector_index.delete_chunks([c.chunk_id for c in bulk[:2100]])
    assert vector_index.chunk_ids() == {c.chunk_id for c in bulk[2100:]}


def test_another_embedding_model_is_refused(loaded_index, vector_index_factory):
    with pytest.raises(EmbeddingModelMismatch, match="test-model"):
        vector_index_factory().ensure_model("other-model", DIM)
    with pytest.raises(EmbeddingModelMismatch, match="dimension 32"):
        vector_index_factory().ensure_model("test-model", DIM * 2)


def test_an_index_open_in_another_process_is_reported_not_called_corrupt(tmp_path):
    """qdrant-edge locks its write-ahead log: a second process must be told to wait, never to rebuild."""
    import subprocess
    import sys

    from core.errors import BackendUnavailable
    from retrievers.engines.vector.qdrant_edge_index import QdrantEdgeVectorIndex

    holder = QdrantEdgeVectorIndex(tmp_path / "edge")
    holder.ensure_model("test-model", DIM)
    probe = (
        "from retrievers.engines.vector.qdrant_edge_index import QdrantEdgeVectorIndex\n"
        f"QdrantEdgeVectorIndex(r'{tmp_path / 'edge'}').ensure_model('test-model', {DIM})\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    holder.close()
    assert result.returncode != 0 and "is open in another process" in result.stderr and "--force" not in result.stderr
    assert BackendUnavailable.__name__ in result.stderr
