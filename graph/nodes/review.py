"""review: enough, more, fallback or clarify, from what the current route has found so far; a figure or list over a
field most of the bucket was not read for yet asks first (`graph.unread_fields`)."""

from langgraph.runtime import Runtime

from graph.context import AgentContext
from graph.planners.base import Progress
from graph.schemas import Decision
from graph.services import AgentServices
from graph.state import AgentState, budget, current_evidence
from graph.unread_fields import unread_field


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
    settled = decision.action != "more" and progress.route.kind == "structured"  # a figure, rows or none of them
    if settled and progress.evidence and not _asked_unread(state):
        unread = unread_field(progress.evidence, services.catalog(runtime.context.scope))
        decision = Decision(action="clarify", clarify_kind="unread", reason=unread.reason()) if unread else decision
    return {"decisions": [decision], "pending": decision.next_calls, "model_calls": list(planner.calls)}


def _asked_unread(state: AgentState) -> bool:
    """The question already asked about an unread field (once a question: its answer was to read, or not)."""
    return any(d.clarify_kind == "unread" for d in state.get("decisions", []))


def after_review(state: AgentState) -> str:
    return {"enough": "compose", "more": "retrieve", "clarify": "clarify", "fallback": "route"}[
        state["decisions"][-1].action
    ]
