"""route: structured, hybrid or long-text, skipping routes this run has already tried."""

from langgraph.runtime import Runtime

from graph import resources
from graph.context import AgentContext
from graph.state import AgentState


def route(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    tried = [e.route for e in state.get("evidence", [])] + ([state["route"].kind] if state.get("route") else [])
    chosen = resources.planner(runtime.context).route(state["decomposition"], runtime.context, list(dict.fromkeys(tried)))
    return {"route": chosen}
