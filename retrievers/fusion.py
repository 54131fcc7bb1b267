"""Fusion of a keyword and a semantic hit list, whose raw scores are not comparable (BM25, cosine).

Two methods:
- `weighted_fusion` (the default of fused search): each engine's scores are min-max normalised over its own hit
  list, a document takes its best chunk's normalised score in each engine (0 where that engine did not return it),
  and its fused score is the convex combination `KEYWORD_WEIGHT * keyword + (1 - KEYWORD_WEIGHT) * semantic`.
  Scores keep how far apart hits are, which ranks alone lose; and a document whose title matches the keywords in
  one chunk and whose meaning matches in another gets credit from both. Tuned on SciFact's train queries only:
  nDCG@10 0.735 against RRF's 0.717 (see README, "Retrieval quality and latency").
- `reciprocal_rank_fusion` (Cormack et al., 2009): ranks only. Kept for combining hit lists whose scores mean
  different things (the agent's evidence across tool calls) and as the baseline the benchmark compares against.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from typing import Literal

from retrievers.models import EngineHit

RRF_K = 60
KEYWORD_WEIGHT = 0.6
"""Weight of the keyword engine; the semantic engine gets the rest. Best of 0.2-0.7 on SciFact train."""

FusionMethod = Literal["weighted", "rrf"]
DEFAULT_FUSION: FusionMethod = "weighted"


def reciprocal_rank_fusion(rankings: Sequence[Sequence[Hashable]], k: int = RRF_K) -> list[tuple[Hashable, float]]:
    """Items by the sum of 1 / (k + rank) over the rankings they appear in (Cormack et al., 2009)."""
    scores: dict[Hashable, float] = defaultdict(float)
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] += 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])


def min_max(scores: Sequence[float]) -> list[float]:
    """Scores mapped onto [0, 1], best to 1; a list whose scores are all equal maps to 1 (each is the best)."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    return [(s - low) / (high - low) if high > low else 1.0 for s in scores]


def weighted_fusion(
    keyword: Sequence[EngineHit], semantic: Sequence[EngineHit], keyword_weight: float = KEYWORD_WEIGHT
) -> list[EngineHit]:
    """Every chunk of either list, scored by its document's weighted sum of best normalised engine scores.

    Chunks of the same document share that score and are ordered among themselves by their own weighted score
    (0 for an engine that did not return the chunk); remaining ties keep the keyword list's order, then the
    semantic list's.
    """
    weights = (keyword_weight, 1.0 - keyword_weight)
    own: dict[str, list[float]] = {}
    best: dict[str, list[float]] = {}
    doc_of: dict[str, str] = {}
    for engine, hits in enumerate((keyword, semantic)):
        for hit, score in zip(hits, min_max([h.score for h in hits]), strict=True):
            doc_of.setdefault(hit.chunk_id, hit.doc_id)
            chunk, document = own.setdefault(hit.chunk_id, [0.0, 0.0]), best.setdefault(hit.doc_id, [0.0, 0.0])
            chunk[engine], document[engine] = max(chunk[engine], score), max(document[engine], score)

    def combined(scores: list[float]) -> float:
        return weights[0] * scores[0] + weights[1] * scores[1]

    order = sorted(own, key=lambda c: (-combined(best[doc_of[c]]), -combined(own[c])))
    return [EngineHit(c, doc_of[c], combined(best[doc_of[c]])) for c in order]


def rrf_hits(keyword: Sequence[EngineHit], semantic: Sequence[EngineHit]) -> list[EngineHit]:
    """The chunks of both lists by reciprocal-rank fusion of their ranks; the score is the RRF score."""
    doc_of = {h.chunk_id: h.doc_id for h in [*semantic, *keyword]}
    fused = reciprocal_rank_fusion([[h.chunk_id for h in keyword], [h.chunk_id for h in semantic]])
    return [EngineHit(c, doc_of[c], score) for c, score in fused]


def fuse(keyword: Sequence[EngineHit], semantic: Sequence[EngineHit], method: FusionMethod) -> list[EngineHit]:
    """One fused hit list by the named method."""
    return weighted_fusion(keyword, semantic) if method == "weighted" else rrf_hits(keyword, semantic)
