"""route: structured, hybrid or long-text, skipping routes this run has already tried."""

from langgraph.runtime import Runtime

from graph.context import AgentContext
from graph.services import AgentServices
from graph.state import AgentState


def route(state: AgentState, runtime: Runtime[AgentContext], *, services: AgentServices) -> dict:
    tried = [e.route for e in state.get("evidence", [])] + ([state["route"].kind] if state.get("route") else [])
    planner = services.planner(runtime.context)
    chosen = planner.route(state["decomposition"], list(dict.fromkeys(tried)))
    return {"route": chosen, "model_calls": list(planner.calls)}
