"""One suite, run unchanged against every Embedder adapter (see the `embedder` fixture)."""

from __future__ import annotations

import numpy as np

from retrievers.engines.embedders.cache import CachedEmbedder
from retrievers.protocols import Embedder

TEXTS = ["The supplier ships within thirty days.", "", "Receipt total RM 12.30", "ünïcödé — 数据 🚀"]


def test_adapter_satisfies_the_protocol(embedder):
    assert isinstance(embedder, Embedder)
    assert embedder.model_name and embedder.dimension > 0 and embedder.window_tokens > 32


def test_documents_keep_their_order_and_dimension(embedder):
    vectors = embedder.embed_documents(TEXTS)
    assert len(vectors) == len(TEXTS) and all(len(v) == embedder.dimension for v in vectors)
    assert embedder.embed_documents([]) == []
    reversed_vectors = embedder.embed_documents(TEXTS[::-1])
    assert np.allclose(reversed_vectors[::-1], vectors, atol=1e-5)


def test_a_query_points_where_the_same_text_as_a_document_points(embedder):
    """Within cosine 0.9999, not bit for bit: an adapter may embed queries by another path (MiniLM's bfloat16
    variant embeds documents in bfloat16 and queries in float32)."""
    for text in TEXTS:
        query, document = np.array(embedder.embed_query(text)), np.array(embedder.embed_documents([text])[0])
        assert query.shape == document.shape and query @ document >= 0.9999 * np.linalg.norm(query) ** 2


def test_token_spans_are_ordered_offsets_into_the_text(embedder):
    for text in TEXTS:
        spans = embedder.token_spans(text)
        assert all(0 <= start < end <= len(text) for start, end in spans)
        assert spans == sorted(spans)
    assert embedder.token_spans("") == []


def test_cache_returns_what_the_adapter_returns(embedder, tmp_path):
    cached = CachedEmbedder(embedder, tmp_path / "cache.sqlite")
    assert np.allclose(cached.embed_documents(TEXTS), embedder.embed_documents(TEXTS), atol=1e-6)
    # A query's vector is the adapter's query vector, even once the same text is cached as a document.
    assert np.allclose(cached.embed_query(TEXTS[0]), embedder.embed_query(TEXTS[0]), atol=1e-6)
    assert np.allclose(cached.embed_documents(TEXTS), embedder.embed_documents(TEXTS), atol=1e-6)
    assert cached.hits == len(TEXTS)
    cached.close()
