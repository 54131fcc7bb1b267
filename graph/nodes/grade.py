"""grade: label every hit of the current plan relevant or not, and why."""

from langgraph.runtime import Runtime

from graph import resources
from graph.context import AgentContext
from graph.state import AgentState


def grade(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    current = [e for e in state.get("evidence", []) if e.attempt == state["attempt"]]
    return {"graded": resources.planner(runtime.context).grade(state["decomposition"], current)}
