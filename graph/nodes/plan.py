"""plan: the tool calls of the chosen route, under the run's tool-call cap."""

from langgraph.runtime import Runtime

from graph import resources
from graph.context import AgentContext
from graph.state import AgentState


def plan(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    chosen = resources.planner(runtime.context).plan(state["decomposition"], state["route"], runtime.context)
    return {"plan": chosen, "attempt": state.get("attempt", 0) + 1, "graded": []}
