"""Reciprocal-rank fusion: combine rankings from engines whose scores are not comparable (BM25, cosine)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence

RRF_K = 60


def reciprocal_rank_fusion(rankings: Sequence[Sequence[Hashable]], k: int = RRF_K) -> list[tuple[Hashable, float]]:
    """Items by the sum of 1 / (k + rank) over the rankings they appear in (Cormack et al., 2009)."""
    scores: dict[Hashable, float] = defaultdict(float)
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] += 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])
