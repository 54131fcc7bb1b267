"""retrieve: run the pending tool calls in parallel, never past the budget, and keep every envelope as evidence."""

from concurrent.futures import ThreadPoolExecutor

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from graph.context import AgentContext
from graph.schemas import Evidence
from graph.services import AgentServices
from graph.state import AgentState, budget

PARALLEL_CALLS = 4


def retrieve(state: AgentState, runtime: Runtime[AgentContext], *, services: AgentServices) -> dict:
    done = state.get("tool_calls", 0)
    calls = budget(state, runtime.context).allow(state.get("pending", []))
    scope = runtime.context.scope
    with ThreadPoolExecutor(max_workers=PARALLEL_CALLS) as pool:
        envelopes = list(pool.map(lambda call: services.tools.run(scope, call.tool, call.arguments), calls))
    write = get_stream_writer()
    for step, (call, envelope) in enumerate(zip(calls, envelopes, strict=True), start=done):
        write(
            {
                "event": "tool",
                "step": step,
                "tool": call.tool,
                "bucket": call.arguments.get("bucket"),
                "status": envelope.status,
                "total_hits": envelope.total_hits,
                "took_ms": envelope.took_ms,
            }
        )
    evidence = [
        Evidence(step=done + i, attempt=state["attempt"], route=state["route"].kind, call=c, envelope=e)
        for i, (c, e) in enumerate(zip(calls, envelopes, strict=True))
    ]
    return {"evidence": evidence, "tool_calls": done + len(calls), "pending": []}
