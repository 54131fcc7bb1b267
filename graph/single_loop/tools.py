"""tools: run the model's tool calls within the cap; each envelope goes back to the model and into the evidence.

The calls run as the orchestrator's retrieve runs its own (`graph.nodes.retrieve.run_calls`: side by side, in the
run's scope, each told to `custom` stream clients), and a call past the cap is not run. Every result is the tool's
envelope as JSON, failures included (an invalid argument says what was wrong and what is allowed), so the model
reads why and can call again.

Evidence keeps the orchestrator's fields: each call's route is the one the orchestrator would have taken it on, and
`attempt` says which reading of the question it belongs to. A step whose annotation call ran is a new reading (the
model changed the conditions, the bucket or the aggregate), so it starts a new attempt and revises the
decomposition to it (`graph.single_loop.reading`): grade and compose then look at that reading's evidence, and text
searches after it add to it, as a hybrid route's would.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.runtime import Runtime

from graph.context import AgentContext
from graph.nodes.retrieve import run_calls
from graph.schemas import Evidence, RouteKind, ToolCall
from graph.services import AgentServices
from graph.single_loop.reading import answering_call, as_called
from graph.single_loop.replies import requested
from graph.single_loop.state import LoopState
from graph.state import budget


def route_of(call: ToolCall) -> RouteKind:
    """Rows and figures are the structured route's, text narrowed by annotation predicates the hybrid route's, any
    other text (and whole documents) the long-text route's."""
    if call.tool.startswith("annotations_"):
        return "structured"
    return "hybrid" if call.arguments.get("filters") else "long_text"


def tools(state: LoopState, runtime: Runtime[AgentContext], *, services: AgentServices) -> dict:
    reply = next(m for m in reversed(state["loop"]) if isinstance(m, AIMessage))
    asked = requested(reply)
    taken = asked[: budget(state, runtime.context).left]
    done = state.get("tool_calls", 0)
    ran = iter(run_calls(services, runtime.context.scope, [r.call for r in taken if r.refused is None], done))
    envelopes = [r.refused or next(ran) for r in taken]
    outcomes = list(zip(taken, envelopes, strict=True))
    results = [ToolMessage(e.model_dump_json(), tool_call_id=r.id, name=r.call.tool) for r, e in outcomes]
    results += [
        ToolMessage(f"not run: the run's {runtime.context.tool_call_cap} tool calls are spent", tool_call_id=r.id)
        for r in asked[len(taken) :]
    ]
    reading = answering_call([(r.call, e) for r, e in outcomes])
    attempt = state["attempt"] + 1 if reading or not state["attempt"] else state["attempt"]
    evidence = [
        Evidence(step=done + i, attempt=attempt, route=route_of(r.call), call=r.call, envelope=e)
        for i, (r, e) in enumerate(outcomes)
    ]
    update = {"evidence": evidence, "tool_calls": done + len(taken), "attempt": attempt, "loop": results}
    if reading:
        update["decomposition"] = as_called(state["decomposition"], reading)
    return update
