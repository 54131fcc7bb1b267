"""A cold `ragent ask` pays only for what the question needs: one answered from annotations makes no embedder,
imports no model library and never opens the vector index, and the vector index's model guard still refuses an
index of another model before anything reads it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from retrievers.deferred import DeferredEmbedder, DeferredVectors
from retrievers.errors import EmbeddingModelMismatch
from retrievers.models import SearchFilter
from retrievers.qdrant_edge_index import QdrantEdgeVectorIndex

MODEL_LIBRARIES = ("torch", "sentence_transformers", "transformers", "onnxruntime", "openai", "langchain_openai")
EMBEDDER_MODULES = ("retrievers.minilm_embedder", "retrievers.openai_embedder")
"""The modules of the embedders `make_embedder` makes for `minilm` (the default) and `openai`: imported only there."""
PROBE = """
import json, sys
from cli.main import main
status = main(sys.argv[1:])
print("LOADED " + json.dumps(sorted(sys.modules)))
sys.exit(status)
"""
"""`ragent ask` in a fresh interpreter, then the names of every module it imported (the test's hook)."""


def test_a_question_answered_from_annotations_makes_no_embedder_and_opens_no_vector_index(sample_stack):
    """The test process holds the sample's vector index open (qdrant-edge serves one process at a time), so a
    CLI that opened it would fail instead of answering."""
    home = sample_stack.settings.home
    env = {
        **os.environ,
        "RAGENT_HOME": str(home),
        "RAGENT_CACHE_DIR": str(home / "cache"),
        "DATABASE_URL": sample_stack.store.url,
    }
    result = subprocess.run(
        [sys.executable, "-c", PROBE, "ask", "How many receipts are there?"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    answer, _, loaded = result.stdout.rpartition("LOADED ")
    assert "**8**: count over 8 documents of bucket receipts" in answer
    modules = set(json.loads(loaded))
    assert "langgraph" in modules and "psycopg" in modules, "the probe sees what the run imported"
    assert not {m for m in modules if m.split(".")[0] in MODEL_LIBRARIES}, "no model library is imported"
    assert not modules & set(EMBEDDER_MODULES), "no embedder is made"


def test_the_model_guard_runs_before_the_first_use_of_a_deferred_vector_index(tmp_path, minilm):
    other = QdrantEdgeVectorIndex(tmp_path / "edge")
    other.ensure_model("another-model", minilm.dimension)
    other.close()

    embedder = DeferredEmbedder(lambda: minilm)
    vectors = DeferredVectors(QdrantEdgeVectorIndex(tmp_path / "edge"), embedder)
    vectors.close()
    assert not embedder.loaded and not vectors.opened, "closing an unused index checks and makes nothing"
    with pytest.raises(EmbeddingModelMismatch, match="another-model"):
        vectors.count(SearchFilter())
    assert embedder.loaded and not vectors.opened
