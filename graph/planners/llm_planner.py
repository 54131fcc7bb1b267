"""LLMPlanner: decompose, route, plan, review and compose by a chat model, with the rules as a safety net.

Each planning mode asks the model for its typed output (`with_structured_output`), checks it against the index
(buckets, catalog fields, tool names and arguments, routes left), asks once more with the error when it is
invalid, and then hands the mode to the RulePlanner. Compose has the model write the answer from the evidence and
checks every sentence (`graph.answer.written`), with the rules' answer as its fallback. Grading stays with the
rules: it is cheap and deterministic. A tool call that comes back `invalid_request` is recovered by the rule
planner's calls for the same route. The planning calls are tagged `nostream`: their JSON is not for the user.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langgraph.constants import TAG_NOSTREAM
from pydantic import BaseModel, Field

from core.errors import InvalidInput
from graph.answer.written import AnswerWriter
from graph.context import AgentContext
from graph.decomposition import STRUCTURED_INTENTS, Decomposition
from graph.planners.base import Budget, Progress, Stream
from graph.planners.chat_breaker import ChatBreaker, is_transport_failure
from graph.planners.grounding import ModelReading, ground, ground_reading
from graph.planners.rule_decomposer import RuleDecomposer
from graph.planners.rule_planner import RulePlanner
from graph.schemas import ROUTES, Answer, Decision, Evidence, GradedHit, Plan, Route, RouteKind
from prompts import load as load_prompts
from tools.catalog import Catalog
from tools.langchain_tools import fields_text
from tools.registry import TOOLS

ATTEMPTS = 2
T = TypeVar("T", bound=BaseModel)


class RouteChoice(BaseModel):
    """The model's choice of route; the cutoffs (min_hits, max_hits) stay the run's settings."""

    kind: RouteKind
    fallback_order: list[RouteKind] = Field(description="Routes to try next, in order, when this one finds too little")
    reason: str = ""


def prompts() -> dict[str, dict[str, str]]:
    return load_prompts("planner")


class LLMPlanner:
    """`breaker` is shared by every planner of the process: a failed endpoint sends them all to the rules."""

    def __init__(
        self,
        context: AgentContext,
        catalog: Catalog,
        model: BaseChatModel,
        breaker: ChatBreaker,
        decomposer: RuleDecomposer | None = None,
    ):
        self.catalog = catalog
        self.rules = RulePlanner(context, catalog, decomposer)
        self.model = model
        self.breaker = breaker
        self.fallbacks: list[str] = []

    def _ask(self, mode: str, schema: type[T], variables: dict[str, Any], check: Callable[[T], None]) -> T | None:
        """The model's output for `mode`, checked; one retry with the error; None when both fail."""
        text = prompts()[mode]
        messages: list[tuple[str, str]] = [
            ("system", text["system"].format(**variables)),
            ("human", text["human"].format(**variables)),
        ]
        structured = self.model.with_structured_output(schema).with_config(tags=[TAG_NOSTREAM])
        for _ in range(ATTEMPTS):
            try:
                output = structured.invoke(messages)
                if not isinstance(output, schema):
                    output = schema.model_validate(output)
                check(output)
                return output
            except Exception as exc:  # parsing, validation and our own checks all mean "ask again, then fall back"
                if is_transport_failure(exc):
                    self.breaker.trip()
                    self.fallbacks.append(f"{mode}: the chat model failed ({type(exc).__name__})")
                    return None
                messages.append(
                    (
                        "human",
                        f"That answer cannot be used: {exc}. Answer again, following the schema and the lists given.",
                    )
                )
        self.fallbacks.append(f"{mode}: no usable answer after {ATTEMPTS} attempts")
        return None

    def _fields(self, buckets: list[str]) -> str:
        return fields_text(self.catalog, buckets)

    def decompose(self, question: str, previous: Decomposition | None = None) -> Decomposition:
        """The model sees the previous turn's reading and decides itself whether the question follows up on it;
        `follow_up_of` is then set from that reading, never from the model's text."""
        buckets = self.catalog.buckets
        variables = {
            "question": question,
            "fields": self._fields(list(buckets)),
            "buckets": "\n".join(f"{name}: {info.description}" for name, info in buckets.items()),
            "previous": previous.model_dump_json(exclude={"follow_up_of", "catalog_reads"}) if previous else "none",
        }
        said = self._ask("decompose", ModelReading, variables, self._check_decomposition)
        if said is None:
            return self.rules.decompose(question, previous)
        follow_up = previous is not None and bool(said.follow_up_of)
        decomposer = self.rules.decomposer
        d = ground_reading(said, decomposer.vocabulary, decomposer.read_conditions)
        d = ground(d, decomposer.vocabulary, within=previous.buckets if follow_up else None, today=decomposer.today)
        return d.model_copy(update={"follow_up_of": previous.question if follow_up else None})

    def _check_decomposition(self, d: ModelReading) -> None:
        for bucket in d.buckets:
            if bucket not in self.catalog.buckets:
                raise InvalidInput(
                    f"bucket {bucket!r} does not exist; allowed buckets: {', '.join(self.catalog.buckets)}"
                )
        for c in d.constraints:
            if isinstance(c, str):
                continue  # a condition in words: grounded, or reported unmapped
            known = {f.name for f in self.catalog.fields(c.bucket)}
            if c.field not in known:
                raise InvalidInput(
                    f"field {c.field!r} is not a field of bucket {c.bucket!r}; "
                    f"fields: {', '.join(sorted(known)) or 'none'}"
                )

    def route(self, d: Decomposition, tried: list[RouteKind]) -> Route:
        """The model's route, checked: not one tried already; structured only for a list, count or sum (whose
        figure passages cannot give) and only for what fields can answer; hybrid only with constraints to narrow by."""
        variables = {"decomposition": d.model_dump_json(exclude={"catalog_reads"}), "tried": ", ".join(tried) or "none"}

        def check(choice: RouteChoice) -> None:
            routes = [choice.kind, *choice.fallback_order]
            if again := [kind for kind in routes if kind in tried]:
                raise InvalidInput(f"route {again[0]} was already tried")
            if len(set(routes)) != len(routes):
                raise InvalidInput("a route appears twice")
            if d.intent in STRUCTURED_INTENTS and routes != ["structured"]:
                raise InvalidInput(f"a {d.intent} question is answered by the structured route only, with no fallback")
            if "structured" in routes and d.intent not in (*STRUCTURED_INTENTS, "lookup"):
                raise InvalidInput(f"the structured route gives rows and figures, not text for a {d.intent} question")
            if "hybrid" in routes and not d.constraints:
                raise InvalidInput("the hybrid route needs constraints to narrow the documents by; there are none")

        choice = self._ask("select_route", RouteChoice, variables, check) if set(ROUTES) - set(tried) else None
        if choice is None:
            return self.rules.route(d, tried)
        context = self.rules.context
        return Route(
            kind=choice.kind, fallback_order=choice.fallback_order, min_hits=context.min_hits, max_hits=context.max_hits
        )

    def plan(self, d: Decomposition, route: Route, budget: Budget) -> Plan:
        variables = {
            "route": route.kind,
            "decomposition": d.model_dump_json(exclude={"catalog_reads"}),
            "fields": self._fields(d.buckets),
            "max_tool_calls": budget.cap,
        }
        planned = self._ask("plan", Plan, variables, self._check_plan)
        if planned is None:
            return self.rules.plan(d, route, budget)
        return planned.model_copy(
            update={"max_tool_calls": min(planned.max_tool_calls, budget.cap), "strategy": route.kind}
        )

    def _check_plan(self, plan: Plan) -> None:
        if not plan.calls:
            raise InvalidInput("the plan has no tool calls")
        for call in plan.calls:
            if call.tool not in TOOLS:
                raise InvalidInput(f"no tool {call.tool!r}; tools: {', '.join(TOOLS)}")
            TOOLS[call.tool].arguments.model_validate(call.arguments)

    def grade(self, d: Decomposition, evidence: list[Evidence]) -> list[GradedHit]:
        return self.rules.grade(d, evidence)

    def review(self, progress: Progress) -> Decision:
        d, route, evidence, budget = progress.decomposition, progress.route, progress.evidence, progress.budget
        rejected = [e for e in evidence if e.envelope.status == "invalid_request"]
        left = budget.left
        if rejected and left > 0:
            reasons = "; ".join(e.envelope.hint or "" for e in rejected)
            return Decision(
                action="more",
                reason=f"recovering from rejected calls ({reasons})",
                next_calls=budget.allow(self.rules.plan(d, route, budget).calls),
            )
        if not evidence:
            return self.rules.review(progress)
        lines = "\n".join(
            f"- {e.call.tool} {json.dumps(e.call.arguments)[:200]}: {e.envelope.status}, {e.envelope.total_said()} hits"
            for e in evidence
        )
        variables = {
            "question": d.question,
            "route": route.kind,
            "fallbacks": ", ".join(route.fallback_order) or "none",
            "max_hits": route.max_hits,
            "calls_left": left,
            "evidence": lines,
        }

        def check(decision: Decision) -> None:
            if decision.action == "fallback" and not route.fallback_order:
                raise InvalidInput("no route is left to fall back to")
            if decision.action == "clarify" and decision.clarify_kind is None:
                raise InvalidInput("clarify needs clarify_kind no_low or overload")
            if decision.action == "more":
                if not decision.next_calls or left <= 0:
                    raise InvalidInput("more needs next_calls and tool calls left")
                self._check_plan(
                    Plan(buckets=d.buckets, strategy=route.kind, calls=decision.next_calls, max_tool_calls=left)
                )

        decided = self._ask("review", Decision, variables, check)
        if decided:
            return decided
        ruled = self.rules.review(progress)
        return ruled.model_copy(
            update={"reason": f"{ruled.reason} (decided by the rules; {'; '.join(self.fallbacks)})"}
        )

    def compose(
        self,
        d: Decomposition,
        evidence: list[Evidence],
        graded: list[GradedHit],
        stream: Stream | None = None,
    ) -> Answer:
        """The model's answer, every sentence checked; the rules' answer, with the reason, when it cannot be had.
        An export or a stop (clarify's answers) never reaches here."""
        computed = self.rules.compose(d, evidence, graded)
        writer = AnswerWriter(self.model, self.breaker)
        written = writer.write(d, computed, evidence, [g for g in graded if g.relevant], stream)
        return written or computed.model_copy(update={"notes": [*computed.notes, *writer.notes]})
