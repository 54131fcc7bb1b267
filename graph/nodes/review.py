"""review: enough, more, fallback or clarify, from what the current route has found so far."""

from langgraph.runtime import Runtime

from graph.context import AgentContext
from graph.planners.base import Progress
from graph.services import AgentServices
from graph.state import AgentState, budget, current_evidence


def review(state: AgentState, runtime: Runtime[AgentContext], *, services: AgentServices) -> dict:
    progress = Progress(
        decomposition=state["decomposition"],
        route=state["route"],
        plan=state["plan"],
        evidence=current_evidence(state),
        graded=state.get("graded", []),
        budget=budget(state, runtime.context),
    )
    planner = services.planner(runtime.context)
    decision = planner.review(progress)
    return {"decisions": [decision], "pending": decision.next_calls, "model_calls": list(planner.calls)}


def after_review(state: AgentState) -> str:
    return {"enough": "compose", "more": "retrieve", "clarify": "clarify", "fallback": "route"}[
        state["decisions"][-1].action
    ]
