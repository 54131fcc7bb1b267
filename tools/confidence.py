"""Per-embedder cosine score below which a semantic search's best hit is reported as `low_confidence`.

Calibrated with `python -m evals.calibrate_confidence --home bench-out/all` (2026-11-22) for all-MiniLM-L6-v2:
the top-1 score of queries whose best hit was judged relevant (456 SciFact train claims: median 0.677, 5th
percentile 0.506; 206 HotpotQA dev questions: median 0.648, 5th percentile 0.466) against the top-1 score of
the same queries sent to the other corpus, which cannot answer them (1,059 queries, 95th percentiles 0.366 and
0.405). At 0.41, 0.9% of the answered queries and 98.1% of the unanswerable ones are flagged (balanced accuracy
0.986). On CUAD, contract questions ("which law governs this agreement", "is there a cap on liability") score
0.57 to 0.71 and "recipe for chocolate cake" 0.27; the short clauses of the sample corpus score lower (0.35 to
0.50 for relevant notice clauses), so a flagged hit is a warning to read, not a verdict: hits are returned
either way. An embedder with no calibrated threshold never reports `low_confidence`; run the script
for it and add it here.
"""

from __future__ import annotations

LOW_CONFIDENCE_THRESHOLDS: dict[str, float] = {
    "sentence-transformers/all-MiniLM-L6-v2": 0.41,
    # The bfloat16 variant's vectors are at cosine >= 0.9999 of float32's: its scores differ in the third decimal.
    "sentence-transformers/all-MiniLM-L6-v2:bfloat16": 0.41,
}


def low_confidence_threshold(model_name: str) -> float | None:
    return LOW_CONFIDENCE_THRESHOLDS.get(model_name)
