"""Fusion of a keyword and a semantic hit list, whose raw scores are not comparable (BM25, cosine).

Two methods:
- `weighted_fusion` (the default of fused search): each engine's scores are min-max normalised over its own hit
  list, and a chunk's fused score is the convex combination `KEYWORD_WEIGHT * keyword + (1 - KEYWORD_WEIGHT) *
  semantic` of them (0 where an engine did not return it); a document's lead chunk takes its document's best
  score in each engine instead.
  Scores keep how far apart hits are, which ranks alone lose; and a document whose title matches the keywords in
  one chunk and whose meaning matches in another gets credit from both. Tuned on SciFact's train queries only:
  nDCG@10 0.735 against RRF's 0.717 (see docs/benchmarks.md, "Retrieval quality and latency").
  The agent's evidence is ranked the same way over its search calls' hit lists (`evals.agent_target`).
- `reciprocal_rank_fusion` (Cormack et al., 2009): ranks only. Kept for hit lists without comparable scores
  (annotation rows, documents) and as the baseline the benchmark compares against.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from typing import Literal

from core.models import EngineHit

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


def weighted_fusion(lists: Sequence[tuple[float, Sequence[EngineHit]]]) -> list[EngineHit]:
    """Every chunk of the (weight, hit list) pairs, by weighted sum of its min-max normalised scores (0 in a list
    that missed it).

    A document's lead chunk (its best by that sum) scores as the document: the weighted sum of the document's best
    normalised score in each list, so keyword evidence in one chunk and semantic evidence in another add up. Its
    other chunks keep their own sums, which are lower, so they do not crowd other documents out of the top hits.
    Ties keep the order of the first list, then of the next.
    """
    own: dict[str, list[float]] = {}
    best: dict[str, list[float]] = {}
    doc_of: dict[str, str] = {}
    for index, (_, hits) in enumerate(lists):
        for hit, score in zip(hits, min_max([h.score for h in hits]), strict=True):
            doc_of.setdefault(hit.chunk_id, hit.doc_id)
            chunk = own.setdefault(hit.chunk_id, [0.0] * len(lists))
            document = best.setdefault(hit.doc_id, [0.0] * len(lists))
            chunk[index], document[index] = max(chunk[index], score), max(document[index], score)

    def combined(scores: list[float]) -> float:
        return sum(weight * score for (weight, _), score in zip(lists, scores, strict=True))

    lead: dict[str, str] = {}
    for chunk_id, scores in own.items():
        current = lead.get(doc_of[chunk_id])
        if current is None or combined(scores) > combined(own[current]):
            lead[doc_of[chunk_id]] = chunk_id
    fused = {c: combined(best[doc_of[c]] if lead[doc_of[c]] == c else scores) for c, scores in own.items()}
    return [EngineHit(c, doc_of[c], fused[c]) for c in sorted(fused, key=lambda c: -fused[c])]


def rrf_hits(keyword: Sequence[EngineHit], semantic: Sequence[EngineHit]) -> list[EngineHit]:
    """The chunks of both lists by reciprocal-rank fusion of their ranks; the score is the RRF score."""
    doc_of = {h.chunk_id: h.doc_id for h in [*semantic, *keyword]}
    fused = reciprocal_rank_fusion([[h.chunk_id for h in keyword], [h.chunk_id for h in semantic]])
    return [EngineHit(c, doc_of[c], score) for c, score in fused]


def fuse(keyword: Sequence[EngineHit], semantic: Sequence[EngineHit], method: FusionMethod) -> list[EngineHit]:
    """One fused hit list by the named method."""
    if method == "rrf":
        return rrf_hits(keyword, semantic)
    return weighted_fusion([(KEYWORD_WEIGHT, keyword), (1.0 - KEYWORD_WEIGHT, semantic)])
