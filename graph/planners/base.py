"""The Planner protocol: the thinking of the graph, behind one interface with a rules and an LLM implementation."""

from __future__ import annotations

from typing import Protocol

from graph.context import AgentContext
from graph.decomposition import Decomposition
from graph.planners.rule_decomposer import RuleDecomposer
from graph.schemas import Decision, Evidence, GradedHit, Plan, Route, RouteKind


class Planner(Protocol):
    decomposer: RuleDecomposer
    """The index as the planner reads it (buckets, catalogs, value lists); clarify uses it to check answers."""

    def decompose(self, question: str) -> Decomposition: ...

    def route(self, d: Decomposition, context: AgentContext, tried: list[RouteKind]) -> Route: ...

    def plan(self, d: Decomposition, route: Route, context: AgentContext) -> Plan: ...

    def grade(self, d: Decomposition, evidence: list[Evidence]) -> list[GradedHit]: ...

    def review(self, d: Decomposition, route: Route, plan: Plan, evidence: list[Evidence], graded: list[GradedHit],
               tool_calls: int, context: AgentContext) -> Decision: ...
