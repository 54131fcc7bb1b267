"""Calibrate the `low_confidence` threshold of semantic search for the configured embedder.

    python -m evals.calibrate_confidence --home bench-out/all

On a stack holding SciFact and HotpotQA (both in the `generic` bucket, told apart by their tags), a query
that the corpus answers is one whose top hit is a judged-relevant document (SciFact train claims against
SciFact, HotpotQA dev questions against HotpotQA); a query the corpus cannot answer is the same question sent to
the other corpus. The threshold is the top-1 cosine score that best separates the two (highest balanced
accuracy); it goes into tools/confidence.py with the figures printed here.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import numpy as np

from core.models import SearchFilter
from core.settings import Settings
from evals.metrics import percentile
from retrievers.loaders import shared_data_dir
from retrievers.loaders.beir import load_qrels, load_queries
from retrievers.stack import open_stack

SETS = (("scifact", "train"), ("hotpotqa", "dev"))


def _summary(scores: list[float], quantiles: tuple[int, ...]) -> dict:
    return {"n": len(scores), **{f"p{q}": round(percentile(scores, q), 3) for q in quantiles}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--home", type=Path, required=True, help="RAGENT_HOME of a stack with SciFact and HotpotQA ingested"
    )
    args = parser.parse_args()
    data = shared_data_dir()
    stack = open_stack(replace(Settings.from_env(), home=args.home.resolve()))
    answered: dict[str, list[float]] = {}
    unanswerable: dict[str, list[float]] = {}
    try:
        for name, split in SETS:
            qrels = load_qrels(data / name, split)
            other = next(n for n, _ in SETS if n != name)
            answered[name], unanswerable[name] = [], []
            for qid, text in load_queries(data / name, set(qrels)).items():
                vector = stack.embedder.embed_query(text)
                own = stack.vectors.search(vector, SearchFilter(bucket="generic", tags=[name]), 1)
                if own and own[0].doc_id in qrels[qid]:
                    answered[name].append(own[0].score)
                foreign = stack.vectors.search(vector, SearchFilter(bucket="generic", tags=[other]), 1)
                if foreign:
                    unanswerable[name].append(foreign[0].score)
    finally:
        stack.close()
    positives = np.array([s for scores in answered.values() for s in scores])
    negatives = np.array([s for scores in unanswerable.values() for s in scores])
    candidates = np.linspace(0.0, 1.0, 201)
    balanced = [(np.mean(positives >= t) + np.mean(negatives < t)) / 2 for t in candidates]
    best = float(candidates[int(np.argmax(balanced))])
    report = {
        "model": stack.embedder.model_name,
        "threshold": round(best, 3),
        "balanced_accuracy": round(float(max(balanced)), 3),
        "answered_flagged": round(float(np.mean(positives < best)), 3),
        "unanswerable_flagged": round(float(np.mean(negatives < best)), 3),
        **{f"answered {n}": _summary(s, (5, 25, 50)) for n, s in answered.items()},
        **{f"unanswerable {n}": _summary(s, (50, 75, 95)) for n, s in unanswerable.items()},
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
