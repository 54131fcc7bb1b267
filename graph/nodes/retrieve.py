"""retrieve: run the pending tool calls in parallel, never past the budget, and keep every envelope as evidence."""

from concurrent.futures import ThreadPoolExecutor

from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from graph.context import AgentContext
from graph.schemas import Evidence, ToolCall
from graph.services import AgentServices
from graph.state import AgentState, budget
from tools.envelope import Envelope

PARALLEL_CALLS = 4


def run_calls(services: AgentServices, scope: str, calls: list[ToolCall], first_step: int) -> list[Envelope]:
    """The envelopes of `calls`, run in `scope` side by side, in order; each call is also told to `custom` stream
    clients (its step, tool, bucket, status, hits and time). Shared by every agent graph that runs tools."""
    with ThreadPoolExecutor(max_workers=PARALLEL_CALLS) as pool:
        envelopes = list(pool.map(lambda call: services.tools.run(scope, call.tool, call.arguments), calls))
    write = get_stream_writer()
    for step, (call, envelope) in enumerate(zip(calls, envelopes, strict=True), start=first_step):
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
    return envelopes


def retrieve(state: AgentState, runtime: Runtime[AgentContext], *, services: AgentServices) -> dict:
    done = state.get("tool_calls", 0)
    calls = budget(state, runtime.context).allow(state.get("pending", []))
    envelopes = run_calls(services, runtime.context.scope, calls, done)
    evidence = [
        Evidence(step=done + i, attempt=state["attempt"], route=state["route"].kind, call=c, envelope=e)
        for i, (c, e) in enumerate(zip(calls, envelopes, strict=True))
    ]
    return {"evidence": evidence, "tool_calls": done + len(calls), "pending": []}
