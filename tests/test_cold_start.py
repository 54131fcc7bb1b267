"""A cold `ragent ask` pays only for what the question needs: one answered from annotations makes no embedder,
imports no model library and never opens the vector index; one that needs semantic search embeds its queries
without PyTorch; the currency words are read from the cache folder after the first process; and the vector index's
model guard still refuses an index of another model before anything reads it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from core.errors import EmbeddingModelMismatch
from core.models import SearchFilter
from english import currencies
from retrievers.engines.deferred import DeferredEmbedder, DeferredVectors
from retrievers.engines.vector.qdrant_edge_index import QdrantEdgeVectorIndex

MODEL_LIBRARIES = ("torch", "sentence_transformers", "transformers", "onnxruntime", "openai", "langchain_openai")
EMBEDDER_MODULES = (
    "retrievers.engines.embedders.minilm",
    "retrievers.engines.embedders.openai_embedder",
    "retrievers.engines.embedders.adapted",
    "retrievers.engines.embedders.minilm_query_encoder",
)
"""The modules of the embedders `make_embedder` makes for `minilm` (the default), `openai` and `adapted:NAME`, and
of MiniLM's query encoder (SciPy, 0.1 s to import): imported only there."""
PROBE = """
import gc, json, sys
collections_of_unfrozen_imports = []
def watch_collections(phase, info):
    if phase == "start" and "cli.ask" in sys.modules and not gc.get_freeze_count():
        collections_of_unfrozen_imports.append(info["generation"])
gc.callbacks.append(watch_collections)
import retrievers.postgres.embedded.server as embedded_postgres
start_in_background = embedded_postgres.start_in_background
def recording_start(data_dir, **options):
    print("POSTGRES STARTED " + ("AFTER" if "langgraph" in sys.modules else "BEFORE") + " LANGGRAPH WAS IMPORTED")
    start_in_background(data_dir, **options)
embedded_postgres.start_in_background = recording_start
import atexit
def report():  # registered first, so run last: after the command's exit status is set and its objects frozen
    collector = {"collections_of_unfrozen_imports": collections_of_unfrozen_imports, "unfrozen": len(gc.get_objects())}
    print("COLLECTOR " + json.dumps(collector))
    print("LOADED " + json.dumps(sorted(sys.modules)))
atexit.register(report)
from cli.entry import entry_point
sys.argv[0] = "ragent"
entry_point()
"""
"""`ragent ...` in a fresh interpreter, then the names of every module it imported (the test's hooks: the modules,
whether the embedded Postgres began starting before LangGraph was imported, and what the garbage collector did: any
collection while the agent's imports were not frozen, and how many objects finalisation would still walk)."""


def _run_python(env: dict[str, str], *args: str) -> str:
    """`python ARGS` in a fresh interpreter; its standard output, once it has exited with 0."""
    result = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=900, stdin=subprocess.DEVNULL
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _run_cli_in_a_fresh_interpreter(env: dict[str, str], *arguments: str) -> tuple[str, set[str]]:
    output, _, loaded = _run_python(env, "-c", PROBE, *arguments).rpartition("LOADED ")
    return output, set(json.loads(loaded))


def _ask_in_a_fresh_interpreter(env: dict[str, str], question: str, *options: str) -> tuple[str, set[str]]:
    return _run_cli_in_a_fresh_interpreter(env, "ask", *options, question)


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
    answer, modules = _ask_in_a_fresh_interpreter(env, "How many receipts are there?")
    assert "**8**: count over 8 documents of bucket receipts" in answer
    assert "langgraph" in modules and "psycopg" in modules, "the probe sees what the run imported"
    assert not {m for m in modules if m.split(".")[0] in MODEL_LIBRARIES}, "no model library is imported"
    assert not modules & set(EMBEDDER_MODULES), "no embedder is made"
    collector = json.loads(answer.split("COLLECTOR ", 1)[1].splitlines()[0])
    assert collector["collections_of_unfrozen_imports"] == [], "the agent is imported with the collector paused"
    assert collector["unfrozen"] < 1_000, "at exit, finalisation's collections skip what the process holds"


def test_ingesting_and_a_question_that_needs_semantic_search_embed_without_loading_pytorch(tmp_path):
    """A home of its own, since the sample stack's vector index is held open by the test process. The ingest's and
    the question's cache folders are empty, so the documents and the queries are embedded in their own processes:
    the documents by OpenVINO's graph, the queries by NumPy."""
    home = tmp_path / "home"
    env = {**os.environ, "RAGENT_HOME": str(home), "RAGENT_CACHE_DIR": str(tmp_path / "ingest-cache")}
    env.pop("DATABASE_URL", None)
    report, modules = _run_cli_in_a_fresh_interpreter(env, "ingest", "--dataset", "sample")
    from retrievers.engines.embedders.minilm import default_precision

    # The variant chosen for this processor runs on its own runtime: ONNX Runtime for int8, OpenVINO otherwise.
    runtime, encoder = (
        ("onnxruntime", "minilm_int8") if default_precision() == "int8" else ("openvino", "minilm_openvino")
    )
    assert runtime in modules and f"retrievers.engines.embedders.{encoder}" in modules, (
        f"the documents were embedded by {runtime}"
    )
    assert not {m for m in modules if m.split(".")[0] in set(MODEL_LIBRARIES) - {runtime}}, "no other model library"
    assert re.search(r"embeddings: [1-9]\d* computed, 0 from cache", report), report
    ask_env = {**env, "RAGENT_CACHE_DIR": str(tmp_path / "empty-cache")}
    answer, modules = _ask_in_a_fresh_interpreter(
        ask_env, "How do I get onto the VPN when working from home?", "--scope", "sample"
    )
    assert "[sample-generic-002]" in answer
    assert "POSTGRES STARTED BEFORE LANGGRAPH WAS IMPORTED" in answer, "the start overlaps the imports"
    assert "retrievers.engines.embedders.minilm_query_encoder" in modules, "the question was embedded in this process"
    assert not {m for m in modules if m.split(".")[0] in (*MODEL_LIBRARIES, "openvino")}, "nothing compiles a model"


def test_currency_words_are_read_from_the_cache_folder_once_written(tmp_path, monkeypatch):
    """The first process reads CLDR through Babel (about a second) and keeps the table; later ones read the file,
    and a damaged file is read from Babel again and replaced."""
    monkeypatch.setenv("RAGENT_CACHE_DIR", str(tmp_path))
    currencies._tables.cache_clear()
    assert [m.codes for m in currencies.currency_mentions("over 100 € or 5 rupees", {"EUR", "INR"})] == [
        ["EUR"],
        ["INR"],
    ]
    (kept,) = tmp_path.glob("currencies-babel-*.json")

    def babel_is_not_read():
        raise AssertionError("Babel was read although the table is in the cache folder")

    currencies._tables.cache_clear()
    with monkeypatch.context() as patched:
        patched.setattr(currencies, "_symbols_from_cldr", babel_is_not_read)
        patched.setattr(currencies, "_names_from_cldr", babel_is_not_read)
        assert currencies._symbols()["€"] == frozenset({"EUR"})
    for damaged in ('{"names": 3', '{"names": {"euro": ["USD"]}, "symbols": {}}'):
        kept.write_text(damaged)
        currencies._tables.cache_clear()
        assert currencies._symbols()["€"] == frozenset({"EUR"})
    assert json.loads(kept.read_text())["symbols"]["€"] == ["EUR"]
    currencies._tables.cache_clear()


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
