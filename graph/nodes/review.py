"""review: enough, more, fallback or clarify, from what the current route has found so far; a question about one
document by a name several documents share asks which before anything is searched (`graph.planners.reading.which`),
and a figure or list over a field most of the bucket was not read for yet asks first (`graph.unread_fields`)."""

from langgraph.runtime import Runtime

from graph.context import AgentContext
from graph.decomposition import Several
from graph.planners.base import Progress
from graph.schemas import ClarifyKind, Decision
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
    if (several := progress.decomposition.several) and not progress.evidence and not _asked(state, "which"):
        decision = Decision(action="clarify", clarify_kind="which", reason=which_reason(several))
        return {"decisions": [decision], "pending": []}
    planner = services.planner(runtime.context)
    decision = planner.review(progress)
    settled = decision.action != "more" and progress.route.kind == "structured"  # a figure, rows or none of them
    if settled and progress.evidence and not _asked(state, "unread"):
        unread = unread_field(progress.evidence, services.catalog(runtime.context.scope))
        decision = Decision(action="clarify", clarify_kind="unread", reason=unread.reason()) if unread else decision
    return {"decisions": [decision], "pending": decision.next_calls, "model_calls": list(planner.calls)}


def _asked(state: AgentState, kind: ClarifyKind) -> bool:
    """The question already asked this (once a question: which document, or whether to read an unread field)."""
    return any(d.clarify_kind == kind for d in state.get("decisions", []))


def which_reason(several: Several) -> str:
    """Why the run asks which document: how many match the name, and how many are offered."""
    count = f"more than {several.matched}" if several.more else str(several.matched)
    where = {"title": "titles or file names hold", "text": "their text holds"}.get(several.by, "documents name")
    shown = len(several.documents)
    offered = f"; the first {shown} are offered" if several.more or several.matched > shown else ""
    return f"{count} documents match {several.name!r} ({where} it), and the question asks about one of them{offered}"


def after_review(state: AgentState) -> str:
    return {"enough": "compose", "more": "retrieve", "clarify": "clarify", "fallback": "route"}[
        state["decisions"][-1].action
    ]
