"""The Planner protocol: the thinking of the graph, behind one interface with a rules and an LLM implementation.

A planner is built for one run step by the agent's services (`AgentServices.planner`) with what it may use: the
run's settings (`AgentContext`: scope, limits, cutoffs), the `Catalog` of the run's scope (buckets, fields, value
lists, which bucket is closest to a question) and, for a model, the chat model. It reads the index only through
the catalog, and its answers come from tools the planner itself runs only there: while a question is read
(`decompose`), the catalog's `closeness` runs one semantic search per bucket and `text_hits` one keyword count per
word and bucket. Those reads are not the run's tool calls and do not spend its `Budget`: they have a budget of their
own (`AgentContext.max_catalog_reads`, past which a read's answer is unknown), and each is recorded in the
decomposition (`Decomposition.catalog_reads`: what was read, where, the answer, its time), which `ragent ask
--explain` shows. Every other search a planner wants it proposes as a `ToolCall`, which the retrieve node runs
under the `Budget`. A third planner implements the six methods below; `RulePlanner` is the one to delegate to for
any mode it does not want to decide.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from graph.decomposition import Decomposition
from graph.planners.model_calls import ModelCall
from graph.schemas import Answer, Decision, Evidence, GradedHit, Plan, Route, RouteKind, ToolCall

Stream = Callable[[str], None]
"""Where a composed answer's text goes piece by piece, each piece checked, as it is written."""


@dataclass(frozen=True)
class Budget:
    """The run's tool calls: how many it may make (the context's cap, and no more than the current plan asks
    for) and how many it has made. The one place the calls left are computed."""

    cap: int
    spent: int = 0

    @classmethod
    def of(cls, cap: int, spent: int, plan: Plan | None = None) -> Budget:
        return cls(min(cap, plan.max_tool_calls) if plan is not None else cap, spent)

    @property
    def left(self) -> int:
        return max(0, self.cap - self.spent)

    def allow(self, calls: list[ToolCall]) -> list[ToolCall]:
        """The calls that fit in what is left, in order."""
        return calls[: self.left]


@dataclass(frozen=True)
class Progress:
    """What review decides on: the question, the current route and plan, the evidence and grades of that plan
    only (earlier routes' are in the state, not here), and the budget."""

    decomposition: Decomposition
    route: Route
    plan: Plan
    evidence: list[Evidence]
    graded: list[GradedHit]
    budget: Budget


class Planner(Protocol):
    calls: Sequence[ModelCall]
    """The chat model's calls this planner made (none for the rules), for the run's record."""

    def decompose(self, question: str, previous: Decomposition | None = None) -> Decomposition:
        """The question in the index's terms: intent, buckets of the catalog, constraints on catalog fields, grounded
        in the catalog by `graph.planners.grounding.ground` (what cannot be is `unmapped`), with the catalog reads it
        made (`catalog_reads`).
        `previous` is the thread's previous reading: a follow-up ("which of those...", "and in 2018?") refines its
        result set and says so in `follow_up_of`; any other question ignores it."""

    def route(self, d: Decomposition, tried: list[RouteKind]) -> Route:
        """The next route to take (structured, hybrid, long_text), never one in `tried`, with its fallbacks."""

    def plan(self, d: Decomposition, route: Route, budget: Budget) -> Plan:
        """The tool calls of the route; more than `budget.left` are cut by the retrieve node."""

    def grade(self, d: Decomposition, evidence: list[Evidence]) -> list[GradedHit]:
        """Every hit of the current plan, relevant or not, and why."""

    def review(self, progress: Progress) -> Decision:
        """enough, more (with next calls), fallback (to the route's next) or clarify (no_low or overload)."""

    def compose(
        self,
        d: Decomposition,
        evidence: list[Evidence],
        graded: list[GradedHit],
        stream: Stream | None = None,
    ) -> Answer:
        """The answer from the current plan's evidence and grades: a figure, a table or sentences, every citation a
        hit of the run, its text sent to `stream` as it is written."""
