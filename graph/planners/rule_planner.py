"""RulePlanner: the deterministic planner, needing no model. It decides the route, the tool calls, what is
relevant and when there is enough, from the decomposition and the envelopes the tools returned.

Routes, in the order they are tried:
- structured: the question names fields; annotations answer it (a list of rows, or an aggregate).
- hybrid: fields narrow the documents, then keyword and semantic search find the passages inside them.
- long_text: no fields; semantic and keyword search over the text, one pair of calls per sub-query.
"""

from __future__ import annotations

import re

from graph.context import AgentContext
from graph.decomposition import Decomposition
from graph.planners.rule_decomposer import RuleDecomposer
from graph.schemas import (
    Decision,
    Evidence,
    GradedHit,
    Plan,
    Route,
    RouteKind,
    ToolCall,
)
from retrievers.stack import Stack
from tools.confidence import low_confidence_threshold
from tools.envelope import SOURCE_FAILED

STRUCTURED_ROWS = 50
MAX_SUB_QUERIES = 3


class RulePlanner:
    def __init__(self, stack: Stack, scope: str):
        self.stack = stack
        self.decomposer = RuleDecomposer(stack, scope)
        self.threshold = low_confidence_threshold(stack.embedder.model_name)

    def decompose(self, question: str) -> Decomposition:
        return self.decomposer.decompose(question)

    def route(self, d: Decomposition, context: AgentContext, tried: list[RouteKind]) -> Route:
        if (d.constraints and d.intent in ("list", "count", "sum", "lookup")) or (d.intent in ("count", "sum") and d.aggregate and d.group_by):
            order: list[RouteKind] = ["structured", "hybrid", "long_text"]
        elif d.constraints:
            order = ["hybrid", "structured", "long_text"]
        else:
            order = ["long_text"]
        remaining = [r for r in order if r not in tried] or ["long_text"]
        return Route(kind=remaining[0], fallback_order=remaining[1:], min_hits=context.min_hits, max_hits=context.max_hits)

    def plan(self, d: Decomposition, route: Route, context: AgentContext) -> Plan:
        calls: list[ToolCall] = []
        constrained = [b for b in d.buckets if d.predicates(b)] or d.buckets
        if route.kind == "structured":
            for bucket in constrained:
                if d.intent in ("count", "sum"):
                    calls.append(ToolCall(tool="annotations_aggregate", purpose="the figure asked for", arguments={
                        "bucket": bucket, "aggregate": d.aggregate or "count", "group_by": d.group_by, "predicates": d.predicates(bucket)}))
                calls.append(ToolCall(tool="annotations_search", purpose="the matching rows, to list and cite",
                                      arguments={"bucket": bucket, "predicates": d.predicates(bucket), "top_k": STRUCTURED_ROWS}))
        elif route.kind == "hybrid":
            query = " ".join(d.topic_terms) or d.question
            for bucket in constrained:
                for tool in ("search_text", "search_semantic"):
                    calls.append(ToolCall(tool=tool, purpose="passages inside the documents the fields allow",
                                          arguments={"bucket": bucket, "query": query, "filters": d.predicates(bucket), "top_k": context.top_k}))
        else:
            for query in d.sub_queries[:MAX_SUB_QUERIES]:
                for bucket in d.buckets:
                    for tool in ("search_semantic", "search_text"):
                        calls.append(ToolCall(tool=tool, purpose=f"passages about: {query}",
                                              arguments={"bucket": bucket, "query": query, "top_k": context.top_k}))
        return Plan(buckets=d.buckets, strategy=route.kind, calls=calls, max_tool_calls=context.tool_call_cap)

    def grade(self, d: Decomposition, evidence: list[Evidence]) -> list[GradedHit]:
        """Annotation rows match by construction; a passage is relevant when it scores above the embedder's
        confidence threshold (semantic) or holds at least half of the question's topic words (keyword). When the
        question is only field constraints (no topic words), text cannot show that a passage meets them, so no
        passage is relevant: the run clarifies rather than answer from look-alike documents."""
        graded: dict[tuple[str, str | None, str | None], GradedHit] = {}
        terms = [t[:5] for t in d.topic_terms]
        for e in evidence:
            for hit in e.envelope.get("hits", []):
                if e.call.tool == "annotations_search":
                    item = GradedHit(doc_id=hit["doc_id"], annotation_id=hit["annotation_id"], relevant=True,
                                     why="its annotations satisfy every constraint", row=hit["row"])
                elif "chunk_id" in hit:
                    text = hit["snippet"].lower()
                    overlap = sum(re.search(rf"\b{re.escape(t)}", text) is not None for t in terms) / len(terms) if terms else 0.0
                    semantic = e.call.tool == "search_semantic" and self.threshold is not None and hit["score"] >= self.threshold
                    checkable = bool(terms) or not d.constraints
                    relevant = checkable and (semantic or overlap >= 0.5 or (e.call.tool == "fused_search" and overlap > 0))
                    why = "close in meaning" if semantic else f"holds {overlap:.0%} of the topic words"
                    item = GradedHit(doc_id=hit["doc_id"], chunk_id=hit["chunk_id"], relevant=relevant, why=why, score=hit["score"], text=hit["snippet"])
                else:
                    continue
                key = (item.doc_id, item.annotation_id, item.chunk_id)
                if key not in graded or (item.relevant and not graded[key].relevant):
                    graded[key] = item
        return list(graded.values())

    def review(self, d: Decomposition, route: Route, plan: Plan, evidence: list[Evidence], graded: list[GradedHit],
               tool_calls: int, context: AgentContext) -> Decision:
        """`evidence` and `graded` are those of the current plan only."""
        left = context.tool_call_cap - tool_calls
        if not evidence:
            if left <= 0:
                return Decision(action="clarify", clarify_kind="no_low", reason=f"the tool-call budget ({context.tool_call_cap} calls) is spent")
            return Decision(action="more", reason=f"run the {route.kind} plan", next_calls=plan.calls)
        failures = sorted({e.call.tool for e in evidence if e.envelope["status"] in SOURCE_FAILED})
        note = f" ({', '.join(failures)} failed)" if failures else ""
        if route.kind == "structured":
            total = sum(e.envelope.get("total_hits", 0) for e in evidence if e.call.tool == "annotations_search")
            if total == 0:
                return self._too_little(route, left, f"no annotation row matches the constraints{note}")
            if d.intent == "list" and total > route.max_hits:
                return Decision(action="clarify", clarify_kind="overload", reason=f"{total} documents match, more than {route.max_hits} to list")
            return Decision(action="enough", reason=f"{total} matching row(s){note}")
        relevant = {g.doc_id for g in graded if g.relevant}
        if len(relevant) >= route.min_hits:
            return Decision(action="enough", reason=f"{len(relevant)} relevant document(s){note}")
        searched = {c.arguments.get("bucket") for c in plan.calls} | {e.call.arguments.get("bucket") for e in evidence}
        others = [b for b in self.decomposer.buckets if b not in searched]
        if route.kind == "long_text" and others and left > 0 and (d.topic_terms or not d.constraints):
            calls = [ToolCall(tool="search_semantic", purpose=f"the question in bucket {b}", arguments={"bucket": b, "query": d.question, "top_k": context.top_k})
                     for b in others][:left]
            return Decision(action="more", reason=f"nothing relevant in {', '.join(sorted(filter(None, searched)))}{note}; try the other buckets",
                            next_calls=calls)
        return self._too_little(route, left, f"no relevant passage{note}")

    @staticmethod
    def _too_little(route: Route, left: int, reason: str) -> Decision:
        if route.fallback_order and left > 0:
            return Decision(action="fallback", reason=f"{reason}; next route: {route.fallback_order[0]}")
        return Decision(action="clarify", clarify_kind="no_low", reason=reason)

