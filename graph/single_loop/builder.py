"""The single-loop agent, wired as the design draws it:

    START -> decompose -> model --more--> tools -> grade -> model
                 |          |--enough (or the cap spent)--> compose -> END
                 |          |--clarify--> clarify (interrupt) -> model | compose | decompose (retry)
                 |--empty scope--> compose

One chat model with the tools bound decides every step: which calls to make, and after their results whether it has
enough or must ask. Everything else is the orchestrator's (`graph.builder`), imported, not copied: the first node,
grading, the clarification's interrupt, the compose that computes figures and checks every citation, the state, the
tool runner and the hard cap. The decisions route as review's do (`after_review`: more to the tools, enough to
compose, clarify to clarify). The LangGraph server serves it as `agent_single_loop` (`graph.server`), compiled
without a checkpointer; the CLI compiles it with its own (`ragent ask --agent single-loop`).
"""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from graph.builder import binder
from graph.context import AgentContext
from graph.nodes.compose import compose
from graph.nodes.decompose import after_decompose
from graph.nodes.grade import grade
from graph.nodes.review import after_review
from graph.services import AgentServices
from graph.single_loop.clarify import clarify
from graph.single_loop.decompose import decompose
from graph.single_loop.model import model
from graph.single_loop.state import LoopState
from graph.single_loop.tools import tools
from graph.state import InputState, OutputState


def build_single_loop(services: AgentServices) -> StateGraph:
    bound = binder(services)
    builder = StateGraph(LoopState, context_schema=AgentContext, input_schema=InputState, output_schema=OutputState)
    builder.add_node("decompose", bound(decompose))
    builder.add_node("model", bound(model))
    builder.add_node("tools", bound(tools))
    builder.add_node("grade", bound(grade))
    builder.add_node("clarify", bound(clarify), destinations=("decompose", "model", "compose"))
    builder.add_node("compose", bound(compose))
    builder.add_edge(START, "decompose")
    builder.add_conditional_edges("decompose", after_decompose, {"route": "model", "compose": "compose"})
    builder.add_conditional_edges(
        "model", after_review, {"retrieve": "tools", "compose": "compose", "clarify": "clarify"}
    )
    builder.add_edge("tools", "grade")
    builder.add_edge("grade", "model")
    builder.add_edge("compose", END)
    return builder


def compile_single_loop(services: AgentServices, checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    return build_single_loop(services).compile(checkpointer=checkpointer)
