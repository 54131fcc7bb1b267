"""Output schemas narrowed to the choices a run can use, so that a model's reply can only be one of them.

An endpoint that honours `json_schema` (llama.cpp turns it into a grammar) then cannot write a route the question's
intent rules out, a tool that does not exist, an argument a tool does not take or a bucket the question is not
about. Qwen2.5-Coder 1.5B did each of these on every HotpotQA question tried (route `structured` for a text question,
`{"keyword": ...}` for a search without its bucket, "more" without calls): each refused after the fact by the
planner's checks, one call and tens of seconds each, and the rules took over. The checks stay (a schema narrows the
form; code still judges the content); what the schema already forbids no longer costs a call.
"""

from __future__ import annotations

from typing import Any, Literal, Union, get_args

from pydantic import BaseModel, Field, create_model

from graph.decomposition import Decomposition
from graph.schemas import ROUTES, Action, Decision, Plan, RouteKind, ToolCall
from tools.langchain_tools import arguments_schema
from tools.registry import TOOLS

TEXT_TOOLS = ("search_text", "search_semantic", "fused_search")
"""What the model plans for the text routes (the structured route's calls are the rules')."""


class RouteChoice(BaseModel):
    """The model's choice of route; the cutoffs (min_hits, max_hits) stay the run's settings."""

    kind: RouteKind
    fallback_order: list[RouteKind] = Field(description="Routes to try next, in order, when this one finds too little")
    reason: str = ""


def allowed_routes(d: Decomposition, tried: list[RouteKind]) -> list[RouteKind]:
    """The routes a text question's reading leaves open: none tried already; structured only for a lookup (rows and
    figures, not text, answer it); hybrid only with constraints to narrow the documents by."""
    return [
        kind
        for kind in ROUTES
        if kind not in tried and (kind != "structured" or d.intent == "lookup") and (kind != "hybrid" or d.constraints)
    ]


def route_choice(allowed: list[RouteKind]) -> type[RouteChoice]:
    """`RouteChoice` whose kind and fallbacks are among `allowed`."""
    kinds = Literal[tuple(allowed)]
    return create_model(
        "RouteChoice",
        __base__=RouteChoice,
        kind=(kinds, ...),
        fallback_order=(list[kinds], Field(description="Routes to try next, in order, when this one finds too little")),
    )


def _call(tools: tuple[str, ...], buckets: list[str]) -> Any:
    """One call of any of `tools`, its arguments the tool's own with the bucket among `buckets`."""
    shapes = [
        create_model(f"{name}_call", tool=(Literal[name], ...), arguments=(arguments_schema(TOOLS[name], buckets), ...))
        for name in tools
    ]
    return Union[tuple(shapes)]  # noqa: UP007 - a Union built from a tuple of models has no `|` spelling


class _Planned(BaseModel):
    calls: list[Any]
    max_tool_calls: int = Field(ge=1)


def planned_searches(buckets: list[str]) -> type[_Planned]:
    """A plan of text searches over `buckets`, at least one."""
    call = _call(TEXT_TOOLS, buckets)
    return create_model("Plan", __base__=_Planned, calls=(list[call], Field(min_length=1)))


def as_plan(planned: _Planned, buckets: list[str], strategy: str) -> Plan:
    return Plan(
        buckets=buckets, strategy=strategy, calls=tool_calls(planned.calls), max_tool_calls=planned.max_tool_calls
    )


def decision_schema(buckets: list[str], *, calls_left: int, fallbacks: list[RouteKind]) -> type[Decision]:
    """`Decision` whose action is one the run can take (no "more" without calls left, no "fallback" without a
    route left), its next calls text searches over `buckets`, its clarification one a review may ask."""
    actions = [a for a in get_args(Action) if (a != "more" or calls_left > 0) and (a != "fallback" or fallbacks)]
    return create_model(
        "Decision",
        __base__=Decision,
        action=(Literal[tuple(actions)], ...),
        next_calls=(list[_call(TEXT_TOOLS, buckets)], []),
        clarify_kind=(Literal["no_low", "overload"] | None, None),
    )


def as_decision(decided: Decision) -> Decision:
    """A narrowed `Decision` as the graph keeps it, its calls as `ToolCall`s."""
    return Decision(
        action=decided.action,
        reason=decided.reason,
        next_calls=tool_calls(decided.next_calls),
        clarify_kind=decided.clarify_kind,
    )


def tool_calls(calls: list[Any]) -> list[ToolCall]:
    """Narrowed calls as the tools take them: the arguments the model set (the tools' defaults fill the rest)."""
    return [
        call
        if isinstance(call, ToolCall)
        else ToolCall(tool=call.tool, arguments=call.arguments.model_dump(mode="json", exclude_unset=True))
        for call in calls
    ]
