"""grade: label every hit of the current plan relevant or not, and why."""

from langgraph.runtime import Runtime

from graph.context import AgentContext
from graph.services import AgentServices
from graph.state import AgentState, current_evidence


def grade(state: AgentState, runtime: Runtime[AgentContext], *, services: AgentServices) -> dict:
    return {"graded": services.planner(runtime.context).grade(state["decomposition"], current_evidence(state))}
