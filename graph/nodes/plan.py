"""plan: the tool calls of the chosen route, under the run's tool-call budget."""

from langgraph.runtime import Runtime

from graph.context import AgentContext
from graph.planners.base import Budget
from graph.services import AgentServices
from graph.state import AgentState


def plan(state: AgentState, runtime: Runtime[AgentContext], *, services: AgentServices) -> dict:
    before_any_plan = Budget.of(runtime.context.tool_call_cap, state.get("tool_calls", 0))
    planner = services.planner(runtime.context)
    chosen = planner.plan(state["decomposition"], state["route"], before_any_plan)
    return {"plan": chosen, "attempt": state.get("attempt", 0) + 1, "graded": [], "model_calls": list(planner.calls)}
