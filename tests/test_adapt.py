"""`ragent adapt`: a MiniLM fine-tuned on a BEIR folder's labelled pairs, under a model name of its own."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evals.adapt_embedder import BATCH_SIZE, adapt
from retrievers.adapted_embedder import AdaptedEmbedder, adapted_folder
from retrievers.errors import EmbeddingModelMismatch, InvalidInput
from retrievers.qdrant_payload import check_model_signature, model_signature
from retrievers.settings import Settings
from retrievers.stack import make_embedder
from tests.conftest import shared_dataset

QUERIES = 100


def _small_beir(source: Path, folder: Path, queries: int) -> None:
    """The first `queries` train queries of a BEIR folder with their relevant documents, as a BEIR folder."""
    lines = (source / "qrels" / "train.tsv").read_text().splitlines()
    qrels = [line.split("\t") for line in lines[1:]]
    chosen = list(dict.fromkeys(q for q, _, _ in qrels))[:queries]
    kept = [(q, d) for q, d, _ in qrels if q in chosen]
    docs = {d for _, d in kept}
    (folder / "qrels").mkdir(parents=True)
    (folder / "qrels" / "train.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t1\n" for q, d in kept)
    )
    for name, wanted in (("queries.jsonl", set(chosen)), ("corpus.jsonl", docs)):
        with (source / name).open() as src, (folder / name).open("w") as out:
            out.writelines(line for line in src if json.loads(line)["_id"] in wanted)


@pytest.mark.shared_data
def test_adapted_model_is_saved_under_its_own_name_and_embeds_differently(tmp_path, monkeypatch, minilm):
    folder = tmp_path / "beir"
    _small_beir(shared_dataset("scifact"), folder, QUERIES)
    monkeypatch.setenv("RAGENT_CACHE_DIR", str(tmp_path / "cache"))
    made = adapt(folder, name="tiny", epochs=1)
    assert made["model_name"] == "ragent/all-MiniLM-L6-v2-adapted-tiny" and made["trained_on"]["pairs"] >= QUERIES
    assert Path(made["folder"]) == adapted_folder(tmp_path / "cache", "tiny") and not list(
        (tmp_path / "cache" / "models").glob(".*")
    )

    embedder = make_embedder(
        Settings.from_env({"RAGENT_CACHE_DIR": str(tmp_path / "cache"), "RAGENT_EMBEDDINGS": "adapted:tiny"})
    )
    assert isinstance(embedder, AdaptedEmbedder)
    assert (embedder.model_name, embedder.dimension, embedder.window_tokens) == (
        made["model_name"],
        384,
        minilm.window_tokens,
    )
    text = "Vitamin D deficiency is associated with multiple sclerosis."
    assert embedder.token_spans(text) == minilm.token_spans(text)
    adapted, base = np.array(embedder.embed_query(text)), np.array(minilm.embed_query(text))
    assert np.linalg.norm(adapted) == pytest.approx(1.0, abs=1e-5) and float(adapted @ base) < 0.9999

    # An index built with the base model refuses the adapted one, so their vectors never mix.
    with pytest.raises(EmbeddingModelMismatch, match="adapted-tiny"):
        check_model_signature(model_signature(minilm.model_name, 384), embedder.model_name, 384, "vector index")


@pytest.mark.shared_data
def test_adapt_refuses_bad_input_before_training(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGENT_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(InvalidInput, match="not valid"):
        adapt(shared_dataset("scifact"), name="../elsewhere")
    with pytest.raises(InvalidInput, match="split 'dev'.*missing"):
        adapt(shared_dataset("scifact"), name="scifact", split="dev")
    folder = tmp_path / "few"
    _small_beir(shared_dataset("scifact"), folder, 40)
    with pytest.raises(InvalidInput, match=f"adapting needs {2 * BATCH_SIZE}"):
        adapt(folder, name="few")
    with pytest.raises(InvalidInput, match="no adapted model"):
        make_embedder(
            Settings.from_env({"RAGENT_CACHE_DIR": str(tmp_path / "cache"), "RAGENT_EMBEDDINGS": "adapted:missing"})
        )
    assert not (tmp_path / "cache" / "models").exists()
