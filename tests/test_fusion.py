"""Fused search: the arithmetic of weighted score fusion, and that it is the fusion every fused search uses."""

from __future__ import annotations

import pytest

from core.models import EngineHit, SearchFilter
from retrievers.fusion import DEFAULT_FUSION, KEYWORD_WEIGHT, fuse, min_max, rrf_hits
from retrievers.search import FUSION_DEPTH, Retriever
from tools.context import ToolContext
from tools.registry import call_tool

KEYWORD = [EngineHit("c1", "d1", 10.0), EngineHit("c2", "d2", 7.0), EngineHit("c3", "d3", 2.0)]
SEMANTIC = [EngineHit("c4", "d2", 0.8), EngineHit("c1", "d1", 0.5), EngineHit("c5", "d4", 0.4)]


def test_min_max_maps_best_to_one_and_worst_to_zero():
    assert min_max([10.0, 7.0, 2.0]) == [1.0, 0.625, 0.0]
    assert min_max([0.3, 0.3]) == [1.0, 1.0] and min_max([5.0]) == [1.0] and min_max([]) == []


def test_weighted_fusion_scores_a_document_by_its_best_chunk_in_each_engine():
    # keyword normalised: c1 1.0, c2 0.625, c3 0.0; semantic: c4 1.0, c1 0.25, c5 0.0 (weights 0.6 / 0.4).
    # d2's lead chunk c4 (own 0.4 > c2's 0.375) scores as d2: 0.6 * 0.625 (c2) + 0.4 * 1.0 (c4) = 0.775, above
    # d1 (c1: 0.6 * 1.0 + 0.4 * 0.25 = 0.7); c2 keeps its own 0.375; d3 and d4 score 0, in the keyword list's order.
    assert KEYWORD_WEIGHT == 0.6
    fused = fuse(KEYWORD, SEMANTIC, "weighted")
    assert [(h.chunk_id, h.doc_id) for h in fused] == [
        ("c4", "d2"),
        ("c1", "d1"),
        ("c2", "d2"),
        ("c3", "d3"),
        ("c5", "d4"),
    ]
    assert [h.score for h in fused] == pytest.approx([0.775, 0.7, 0.375, 0.0, 0.0])
    # RRF sees only ranks: c1 is first and second, so d1 leads there.
    assert rrf_hits(KEYWORD, SEMANTIC)[0].chunk_id == "c1"


def test_weighted_fusion_of_one_engine_alone_keeps_its_order():
    assert [h.chunk_id for h in fuse([], SEMANTIC, "weighted")] == ["c4", "c1", "c5"]
    assert [h.score for h in fuse(KEYWORD, [], "weighted")] == pytest.approx([0.6, 0.375, 0.0])
    assert fuse([], [], "weighted") == []


QUERY = "RoHS compliant low-dropout regulator"


def test_fused_search_uses_weighted_fusion_by_default(sample_stack):
    """The tool (and so the agent's evidence), and `Retriever.fused` (`ragent search fused`, the evals) both give
    exactly the weighted fusion of the two engines' own hit lists, not RRF."""
    assert DEFAULT_FUSION == "weighted"
    filters = SearchFilter(bucket="datasheets")
    keyword = sample_stack.keyword.search(QUERY, filters, FUSION_DEPTH)
    semantic = sample_stack.vectors.search(sample_stack.embedder.embed_query(QUERY), filters, FUSION_DEPTH)
    expected = [(h.chunk_id, h.score) for h in fuse(keyword, semantic, "weighted")[:5]]
    rrf = [(h.chunk_id, h.score) for h in rrf_hits(keyword, semantic)[:5]]
    assert keyword and semantic and expected != rrf

    fused = Retriever(sample_stack).fused(QUERY, filters, 5)
    assert [(h.chunk_id, h.score) for h in fused] == expected

    context = ToolContext(sample_stack)
    try:
        result = call_tool("fused_search", {"bucket": "datasheets", "query": QUERY, "top_k": 5}, context)
    finally:
        context.close()
    assert [(h["chunk_id"], h["score"]) for h in result["hits"]] == [(c, round(s, 4)) for c, s in expected]
