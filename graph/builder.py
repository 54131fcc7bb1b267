"""The agent graph, wired as the design draws it:

    START -> decompose -> route -> plan -> review --more--> retrieve -> grade -> review
                 |                           |--enough--> compose -> END
                 |                           |--clarify--> clarify (interrupt) -> plan | compose | decompose (retry)
                 |                           |--fallback--> route
                 |--empty scope--> compose

Each node gets the services it runs with bound here (`services=`), so what a node uses is in its signature. The
LangGraph server compiles it without a checkpointer (`graph.server`, which brings its own); the CLI and the evals
compile it with theirs.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from graph.context import AgentContext
from graph.failures import readable_failures, scope_checked
from graph.nodes.clarify import clarify
from graph.nodes.compose import compose
from graph.nodes.decompose import after_decompose, decompose
from graph.nodes.grade import grade
from graph.nodes.plan import plan
from graph.nodes.retrieve import retrieve
from graph.nodes.review import after_review, review
from graph.nodes.route import route
from graph.services import AgentServices
from graph.state import AgentState, InputState, OutputState


def binder(services: AgentServices) -> Callable[[Callable], Callable]:
    """How every node of an agent graph is added: with the services it runs with bound in, its run's scope checked
    and engine failures made readable (`graph.failures`)."""

    def bound(node: Callable) -> Callable:
        return partial(readable_failures(scope_checked(node)), services=services)

    return bound


def build_agent(services: AgentServices) -> StateGraph:
    bound = binder(services)
    builder = StateGraph(AgentState, context_schema=AgentContext, input_schema=InputState, output_schema=OutputState)
    builder.add_node("decompose", bound(decompose))
    builder.add_node("route", bound(route))
    builder.add_node("plan", bound(plan))
    builder.add_node("review", bound(review))
    builder.add_node("retrieve", bound(retrieve))
    builder.add_node("grade", bound(grade))
    builder.add_node("clarify", bound(clarify), destinations=("decompose", "plan", "compose"))
    builder.add_node("compose", bound(compose))
    builder.add_edge(START, "decompose")
    builder.add_conditional_edges("decompose", after_decompose, ["route", "compose"])
    builder.add_edge("route", "plan")
    builder.add_edge("plan", "review")
    builder.add_conditional_edges("review", after_review, ["retrieve", "compose", "clarify", "route"])
    builder.add_edge("retrieve", "grade")
    builder.add_edge("grade", "review")
    builder.add_edge("compose", END)
    return builder


def compile_agent(services: AgentServices, checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    return build_agent(services).compile(checkpointer=checkpointer)
