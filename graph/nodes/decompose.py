"""decompose: the question in the index's terms (intent, buckets, constraints on catalog fields)."""

from langgraph.runtime import Runtime

from graph import resources
from graph.context import AgentContext
from graph.state import AgentState


def decompose(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    return {"decomposition": resources.planner(runtime.context).decompose(state["question"]), "tool_calls": state.get("tool_calls", 0)}
