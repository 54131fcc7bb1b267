"""Calibrate the `low_confidence` threshold of semantic search for the configured embedder.

    python -m evals.calibrate_confidence --home bench-out/scifact

On a stack holding SciFact, the top-1 cosine score of SciFact train queries whose top hit is relevant (the
search found what was asked) is compared with the top-1 score of HotpotQA questions, which ask about things
SciFact does not contain. The threshold is the score that best separates the two (highest balanced accuracy);
it goes into tools/confidence.py with the figures printed here.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from evals.beir_data import load_qrels, load_queries
from evals.metrics import percentile
from graph.cli import shared_data_dir
from retrievers.models import SearchFilter
from retrievers.settings import Settings
from retrievers.stack import open_stack


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True, help="RAGENT_HOME of a stack with SciFact ingested")
    args = parser.parse_args()
    data = shared_data_dir()
    qrels = load_qrels(data / "scifact", "train")
    positives_q = load_queries(data / "scifact", set(qrels))
    negative_q = [q["text"] for q in map(json.loads, (data / "hotpotqa" / "queries.jsonl").read_text().splitlines())][:400]
    stack = open_stack(replace(Settings.from_env(), home=args.home.resolve()))
    try:
        def top(text: str):
            hits = stack.vectors.search(stack.embedder.embed_query(text), SearchFilter(bucket="generic"), 1)
            return hits[0] if hits else None

        positives = [h.score for qid, text in positives_q.items() if (h := top(text)) and h.doc_id in qrels[qid]]
        negatives = [h.score for text in negative_q if (h := top(text))]
    finally:
        stack.close()
    candidates = np.linspace(0.0, 1.0, 201)
    balanced = [(np.mean(np.array(positives) >= t) + np.mean(np.array(negatives) < t)) / 2 for t in candidates]
    best = float(candidates[int(np.argmax(balanced))])
    report = {
        "model": stack.embedder.model_name,
        "threshold": round(best, 3),
        "balanced_accuracy": round(float(max(balanced)), 3),
        "answered_top1_relevant": {"n": len(positives), **{f"p{q}": round(percentile(positives, q), 3) for q in (5, 25, 50)}},
        "out_of_corpus": {"n": len(negatives), **{f"p{q}": round(percentile(negatives, q), 3) for q in (50, 75, 95)}},
        "share_of_answered_flagged": round(float(np.mean(np.array(positives) < best)), 3),
        "share_of_out_of_corpus_flagged": round(float(np.mean(np.array(negatives) < best)), 3),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
