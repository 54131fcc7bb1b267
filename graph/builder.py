"""The agent graph, wired as the design draws it:

    START -> decompose -> route -> plan -> review --more--> retrieve -> grade -> review
                                             |--enough--> compose -> END
                                             |--clarify--> clarify (interrupt) -> plan | compose | decompose (retry)
                                             |--fallback--> route

`graph` is compiled without a checkpointer, for the LangGraph server (which brings its own); the CLI compiles
the same builder with a Postgres checkpointer so that threads outlive the process.
"""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from graph.context import AgentContext
from graph.failures import readable_failures
from graph.nodes.clarify import clarify
from graph.nodes.compose import compose
from graph.nodes.decompose import decompose
from graph.nodes.grade import grade
from graph.nodes.plan import plan
from graph.nodes.retrieve import retrieve
from graph.nodes.review import after_review, review
from graph.nodes.route import route
from graph.state import AgentState, InputState, OutputState


def build() -> StateGraph:
    builder = StateGraph(AgentState, context_schema=AgentContext, input_schema=InputState, output_schema=OutputState)
    builder.add_node("decompose", readable_failures(decompose))
    builder.add_node("route", readable_failures(route))
    builder.add_node("plan", readable_failures(plan))
    builder.add_node("review", readable_failures(review))
    builder.add_node("retrieve", readable_failures(retrieve))
    builder.add_node("grade", readable_failures(grade))
    builder.add_node("clarify", readable_failures(clarify), destinations=("decompose", "plan", "compose"))
    builder.add_node("compose", readable_failures(compose))
    builder.add_edge(START, "decompose")
    builder.add_edge("decompose", "route")
    builder.add_edge("route", "plan")
    builder.add_edge("plan", "review")
    builder.add_conditional_edges("review", after_review, ["retrieve", "compose", "clarify", "route"])
    builder.add_edge("retrieve", "grade")
    builder.add_edge("grade", "review")
    builder.add_edge("compose", END)
    return builder


def compile_graph(checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    return build().compile(checkpointer=checkpointer)


graph = compile_graph()
