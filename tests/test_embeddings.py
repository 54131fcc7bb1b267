"""Embedders: the bundled MiniLM, an OpenAI-compatible endpoint over real HTTP, and the on-disk cache."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import BackendUnavailable, IndexUnreadable
from retrievers.engines.embedders.cache import CachedEmbedder
from retrievers.engines.embedders.openai_embedder import OpenAIEmbedder
from retrievers.protocols import ForwardingEmbedder


def test_minilm_gives_normalised_384_dim_vectors_that_rank_paraphrases_first(minilm):
    a, b, c = np.array(
        minilm.embed_documents(
            [
                "Either party may terminate the agreement with sixty days notice.",
                "The contract can be ended by one side giving two months' warning.",
                "Receipt for two coffees and a croissant paid by card.",
            ]
        )
    )
    assert a.shape == (384,) and np.linalg.norm(a) == pytest.approx(1.0, abs=1e-4)
    assert a @ b > a @ c + 0.2


def test_minilm_token_spans_are_offsets_into_the_text(minilm):
    text = "Invoice INV-2024-0042: total €1,234.50"
    spans = minilm.token_spans(text)
    assert [text[s:e] for s, e in spans[:3]] == ["In", "vo", "ice"]
    assert all(0 <= s < e <= len(text) for s, e in spans)
    assert [s for s, _ in spans] == sorted(s for s, _ in spans)
    assert "".join(text[s:e] for s, e in spans) == text.replace(" ", "")


class _Counting(ForwardingEmbedder):
    """Wraps a real embedder and counts the texts it is asked to embed."""

    def __init__(self, inner):
        self.inner, self.calls = inner, 0

    def embed_documents(self, texts):
        self.calls += len(texts)
        return self.inner.embed_documents(texts)


def test_cache_embeds_each_text_once_across_processes(minilm, tmp_path):
    counting = _Counting(minilm)
    first = CachedEmbedder(counting, tmp_path / "cache.sqlite")
    vectors = first.embed_documents(["alpha", "beta", "alpha"])
    assert counting.calls == 2 and (first.hits, first.misses) == (1, 2)
    first.close()
    second = CachedEmbedder(counting, tmp_path / "cache.sqlite")
    assert np.allclose(second.embed_documents(["beta", "alpha"]), [vectors[1], vectors[0]], atol=1e-6)
    assert counting.calls == 2 and second.hits == 2
    second.close()


def test_openai_compatible_endpoint_is_used_for_documents_and_dimension(embeddings_endpoint):
    embedder = OpenAIEmbedder("tiny", base_url=embeddings_endpoint, api_key="test-key")
    assert embedder.model_name == "openai:tiny" and embedder.dimension == 3
    assert embedder.embed_documents(["banana", "kiwi"]) == [[6.0, 3.0, 1.0], [4.0, 0.0, 1.0]]
    assert embedder.token_spans("two words") == [(0, 3), (4, 9)]


def test_unreachable_embeddings_endpoint_is_a_clear_error():
    with pytest.raises(
        BackendUnavailable, match=r"embeddings endpoint http://127\.0\.0\.1:9/v1 failed .*OPENAI_BASE_URL"
    ):
        OpenAIEmbedder("tiny", base_url="http://127.0.0.1:9/v1", api_key="k")


def test_a_rate_limiting_endpoint_says_when_to_retry(embeddings_endpoint):
    from core.errors import RateLimited

    embedder = OpenAIEmbedder("tiny", base_url=embeddings_endpoint, api_key="test-key")
    with pytest.raises(RateLimited, match="rate limiting") as info:
        embedder.embed_documents(["please rate limit"])
    assert info.value.retry_after_s == 1.0


def test_an_embedding_cache_that_cannot_be_used_is_a_clear_error(minilm, tmp_path):
    """A damaged cache file, or a cache folder under a file, stops with what to do, not a traceback."""
    damaged = tmp_path / "cache.sqlite"
    damaged.write_bytes(b"not a database" * 1000)
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    for path in (damaged, not_a_folder / "cache.sqlite"):
        with pytest.raises(IndexUnreadable, match="cannot be used .* delete it, or set RAGENT_CACHE_DIR"):
            CachedEmbedder(minilm, path)


class _FixedEmbedder:
    """A stand-in model for tests of the cache alone: every text gets the same small vector."""

    model_name, dimension, window_tokens = "fixed", 4, 100

    def embed_documents(self, texts):
        return [[1.0, 0.0, 0.0, 0.0] for _ in texts]


def test_an_embedding_cache_damaged_past_its_header_is_a_clear_error_when_read(tmp_path):
    """The file opens (its header is whole) but the pages a lookup reads are not: the lookup says what to do."""
    path = tmp_path / "cache.sqlite"
    filled = CachedEmbedder(_FixedEmbedder(), path)
    filled.embed_documents([f"text {i}" for i in range(3000)])
    filled.close()
    size = path.stat().st_size
    assert size > 64 * 1024, "the cache spans many pages"
    with path.open("r+b") as file:
        file.seek(8192)
        file.write(b"\xff" * (size - 8192))
    damaged = CachedEmbedder(_FixedEmbedder(), path)
    with pytest.raises(IndexUnreadable, match="cannot be used .* delete it, or set RAGENT_CACHE_DIR"):
        damaged.embed_documents([f"text {i}" for i in range(3000)])


def test_vectors_embedded_before_a_failure_stay_cached(tmp_path, monkeypatch):
    """An outside probe killed a long ingest three times and every run embedded all 480 chunks again: the cache
    was written once the whole batch was embedded. It is written as it goes, so a failed or killed run keeps the
    vectors it computed."""
    from retrievers.engines.embedders import cache

    class _FailingOnTheSecondCall(_FixedEmbedder):
        calls = 0

        def embed_documents(self, texts):
            self.calls += 1
            if self.calls == 2:
                raise KeyboardInterrupt  # the user's Ctrl-C, or the machine's kill, mid-way
            return super().embed_documents(texts)

    monkeypatch.setattr(cache, "STORED_EVERY", 3)
    texts = [f"chunk {i}" for i in range(7)]
    first = CachedEmbedder(_FailingOnTheSecondCall(), tmp_path / "cache.sqlite")
    with pytest.raises(KeyboardInterrupt):
        first.embed_documents(texts)
    first.close()
    second = CachedEmbedder(_FixedEmbedder(), tmp_path / "cache.sqlite")
    second.embed_documents(texts)
    assert (second.hits, second.misses) == (3, 4), "the first three were kept"
    second.close()
