"""review: enough, more, fallback or clarify, from what the current route has found so far."""

from langgraph.runtime import Runtime

from graph import resources
from graph.context import AgentContext
from graph.state import AgentState


def review(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
    current = [e for e in state.get("evidence", []) if e.attempt == state["attempt"]]
    decision = resources.planner(runtime.context).review(
        state["decomposition"], state["route"], state["plan"], current, state.get("graded", []),
        state.get("tool_calls", 0), runtime.context,
    )
    return {"decisions": [decision], "pending": decision.next_calls}


def after_review(state: AgentState) -> str:
    return {"enough": "compose", "more": "retrieve", "clarify": "clarify", "fallback": "route"}[state["decisions"][-1].action]
