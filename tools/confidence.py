"""Per-embedder cosine score below which a semantic search's best hit is reported as `low_confidence`.

Calibrated with `python -m evals.calibrate_confidence` (2026-11-22) for all-MiniLM-L6-v2 on SciFact: the
top-1 score of 456 train queries whose best hit was relevant (median 0.677, 5th percentile 0.506) against
that of 400 HotpotQA questions SciFact cannot answer (median 0.236, 95th percentile 0.398). At 0.46, 2% of
the answered queries and 98.5% of the unanswerable ones are flagged (balanced accuracy 0.983). An embedder
with no calibrated threshold never reports `low_confidence`; run the script for it and add it here.
"""

from __future__ import annotations

LOW_CONFIDENCE_THRESHOLDS: dict[str, float] = {
    "sentence-transformers/all-MiniLM-L6-v2": 0.46,
}


def low_confidence_threshold(model_name: str) -> float | None:
    return LOW_CONFIDENCE_THRESHOLDS.get(model_name)
