"""Choosing `ragent adapt`'s settings on train only: hold a fifth of the train queries out of fine-tuning.

    python -m evals.adapt_heldout split --beir ../shared/data/scifact --out DIR
    ragent adapt --beir DIR --name NAME [--hard-negatives 1 ...]          # learns from DIR's qrels/train.tsv
    RAGENT_EMBEDDINGS=adapted:NAME python -m evals.adapt_heldout score --beir DIR --home HOME

`split` writes a BEIR folder whose corpus and queries are the source's (linked, not copied) and whose qrels are the
source's train split cut in two by query: `train.tsv` (four fifths, what `ragent adapt` learns from) and
`heldout.tsv` (the other fifth, what `score` ranks). The cut is a seeded shuffle of the query ids, so every setting
is compared on the same held-out queries. The source's other splits (the test split) are not read.

`score` ingests the corpus into HOME with the configured embedder (unchanged documents are skipped, embeddings come
from the cache) and ranks every held-out query by keyword and semantic search, as `Retriever` does, and by the
weighted fusion of the two at several keyword weights (the default is `retrievers.fusion.KEYWORD_WEIGHT`), so that
the weight can be chosen for an adapted model without rerunning its searches. It prints and returns
nDCG@10 and recall@100 per ranking.
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import replace
from pathlib import Path

import numpy as np

from core.errors import InvalidInput
from evals.metrics import ndcg_at_k, recall_at_k
from retrievers.loaders.beir import load_qrels, load_queries

HELD_OUT_FRACTION = 0.2
SEED = 0
FIT_SPLIT = "train"
HELD_OUT_SPLIT = "heldout"
KEYWORD_WEIGHTS = (0.3, 0.4, 0.5, 0.6, 0.7)
SEARCH_DEPTH = 300
"""Chunks asked of keyword and semantic search alone, enough for 100 distinct documents at recall@100."""


def split(source: Path, out: Path, *, fraction: float = HELD_OUT_FRACTION, seed: int = SEED) -> dict[str, int]:
    """Write the held-out BEIR folder; returns how many queries each part holds."""
    for required in (source / "corpus.jsonl", source / "queries.jsonl", source / "qrels" / "train.tsv"):
        if not required.is_file():
            raise InvalidInput(f"{source} is not a BEIR folder with a train split: {required} is missing")
    lines = (source / "qrels" / "train.tsv").read_text(encoding="utf-8").splitlines()
    header, rows = lines[0], [line for line in lines[1:] if line.strip()]
    ids = sorted({row.split("\t")[0].strip() for row in rows})
    random.Random(seed).shuffle(ids)
    held = set(ids[: round(len(ids) * fraction)])
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    for name in ("corpus.jsonl", "queries.jsonl"):
        link = out / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to((source / name).resolve())
    parts = {FIT_SPLIT: [r for r in rows if r.split("\t")[0].strip() not in held]}
    parts[HELD_OUT_SPLIT] = [r for r in rows if r.split("\t")[0].strip() in held]
    for part, kept in parts.items():
        (out / "qrels" / f"{part}.tsv").write_text("\n".join([header, *kept]) + "\n", encoding="utf-8")
    return {FIT_SPLIT: len(ids) - len(held), HELD_OUT_SPLIT: len(held)}


def score(folder: Path, home: Path, *, split_name: str = HELD_OUT_SPLIT, weights=KEYWORD_WEIGHTS) -> dict:
    """nDCG@10 and recall@100 of keyword, semantic and weighted fused search (one row per keyword weight)."""
    from core.models import SearchFilter
    from core.settings import Settings
    from retrievers.fusion import weighted_fusion
    from retrievers.ingestion.pipeline import Ingestor
    from retrievers.loaders.beir import load_corpus
    from retrievers.search import FUSION_DEPTH
    from retrievers.stack import open_stack

    qrels = load_qrels(folder, split_name)
    queries = load_queries(folder, set(qrels))
    stack = open_stack(replace(Settings.from_env(), home=home))
    try:
        Ingestor(stack).ingest(load_corpus(folder, bucket="generic", tag=folder.resolve().name), progress=False)
        filters = SearchFilter(bucket="generic")
        rankings: dict[str, dict[str, list[str]]] = {}
        for qid, text in sorted(queries.items()):
            vector = stack.embedder.embed_query(text)
            keyword = stack.keyword.search(text, filters, SEARCH_DEPTH)
            semantic = stack.vectors.search(vector, filters, SEARCH_DEPTH)
            rankings.setdefault("keyword", {})[qid] = _documents(keyword)
            rankings.setdefault("semantic", {})[qid] = _documents(semantic)
            for w in weights:
                fused = weighted_fusion([(w, keyword[:FUSION_DEPTH]), (1.0 - w, semantic[:FUSION_DEPTH])])
                rankings.setdefault(f"fused {w:.1f}", {})[qid] = _documents(fused)
        model = stack.embedder.model_name
    finally:
        stack.close()
    result = {"model": model, "split": split_name, "queries": len(queries)}
    for name, ranked in rankings.items():
        result[name] = {
            "ndcg@10": round(float(np.mean([ndcg_at_k(ranked[q], qrels[q], 10) for q in ranked])), 4),
            "recall@100": round(float(np.mean([recall_at_k(ranked[q], qrels[q], 100) for q in ranked])), 4),
        }
    return result


def _documents(hits) -> list[str]:
    return list(dict.fromkeys(h.doc_id for h in hits))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("split", help="write the held-out BEIR folder")
    p.add_argument("--beir", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--fraction", type=float, default=HELD_OUT_FRACTION)
    p.add_argument("--seed", type=int, default=SEED)
    p = sub.add_parser("score", help="rank the held-out queries with the configured embedder")
    p.add_argument("--beir", type=Path, required=True)
    p.add_argument("--home", type=Path, required=True, help="data folder for this embedder's indexes")
    p.add_argument("--split", default=HELD_OUT_SPLIT)
    p.add_argument("--json", type=Path, help="also write the result here")
    args = parser.parse_args()
    if args.command == "split":
        print(json.dumps(split(args.beir, args.out, fraction=args.fraction, seed=args.seed)))
        return
    result = score(args.beir, args.home, split_name=args.split)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
