"""The target an eval runs: one question through the agent graph, in process, and what the evaluators need of it.

The graph runs on the services it is given with an in-memory checkpointer (a run's threads are
not kept). A clarification is answered with the question's scripted `resume` reply when it has one, as a user
would; the first clarification's kind is what `clarify` questions are scored on.

A question with `turns` is a conversation on one thread: each turn is invoked in order with the same thread id, and
the outputs are those of the last turn (its answer, its tool calls, its latency) read from the thread's state after
it; the evidence a citation or a number is checked against is the thread's, which may hold an earlier turn's. A turn
before the last that stops to ask for a clarification ends the conversation: the outputs then carry no answer, no
value, no citations and no clarification kind (so the question scores as failed whatever its kind) and say in
`failed_turn` which turn asked what.
"""

from __future__ import annotations

import json
import time
import uuid
from contextlib import nullcontext
from dataclasses import replace
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command
from langsmith.run_helpers import get_tracing_context, tracing_context

from core.models import EngineHit
from evals.evaluators import numbers_in
from graph.agent_graphs import BUILDERS
from graph.agents import AGENTS, DEFAULT_AGENT
from graph.checkpointing import SERDE
from graph.context import DEFAULT_CONTEXT, AgentContext
from graph.schemas import Evidence
from graph.services import AgentServices
from retrievers.fusion import KEYWORD_WEIGHT, reciprocal_rank_fusion, weighted_fusion
from tools.envelope import Envelope

EVIDENCE_TEXT_CHARS = 6000
"""What a model judge reads of the evidence: the graded passages and rows, cut to fit a prompt."""


SEARCH_WEIGHTS = {"search_text": KEYWORD_WEIGHT, "search_semantic": 1.0 - KEYWORD_WEIGHT, "fused_search": 1.0}
"""Each search tool's weight when its hit lists are fused, as fused search weighs its engines (a fused_search list
already holds both)."""


def evidence_ranking(evidence: list[Evidence]) -> list[str]:
    """The documents of a run's evidence: when every call that found something was a search, by the weighted fusion
    of their scored hit lists (the fused search's own fusion); otherwise (annotation rows, whole documents, which
    carry no comparable scores) by reciprocal-rank fusion of every envelope's hit list."""
    found = [e for e in evidence if e.envelope.doc_ids()]
    if found and all(e.call.tool in SEARCH_WEIGHTS for e in found):
        lists = [
            (SEARCH_WEIGHTS[e.call.tool], [EngineHit(h.chunk_id, h.doc_id, h.score) for h in e.envelope.passages()])
            for e in found
        ]
        return list(dict.fromkeys(h.doc_id for h in weighted_fusion(lists)))
    return [doc for doc, _ in reciprocal_rank_fusion([e.envelope.doc_ids() for e in found])]


def _readable(envelope: Envelope) -> str:
    """The envelope as JSON with a space after each comma, as numbers are read from it: compact JSON would run the
    items of a list together ("[60,180]" reads as one number, 60,180); and a snippet's paragraph break as a space,
    not JSON's "\\n", which would glue its "n" to the number after it."""
    return json.dumps(envelope.model_dump(mode="json")).replace("\\n", " ")


class AgentTarget:
    """Callable as a LangSmith target: {"question", "context"?, "resume"?, "turns"?} in, the run's outputs out."""

    def __init__(self, services: AgentServices, context: AgentContext = DEFAULT_CONTEXT, agent: str = DEFAULT_AGENT):
        """`agent`: which agent answers (`graph.agents.AGENTS`): the orchestrator, or the single loop."""
        self.agent: CompiledStateGraph = BUILDERS[AGENTS[agent]](services).compile(
            checkpointer=InMemorySaver(serde=SERDE)
        )
        self.context = context

    def run(
        self, question: str, context: AgentContext, resume: dict | None, thread_id: str | None = None
    ) -> tuple[dict, str | None, float]:
        """One question on `thread_id` (a new thread when none is given): the state after it, the kind of the first
        clarification it asked for (None when it asked none) and its latency in milliseconds."""
        values, clarified, _, latency = self._ask(question, context, resume, thread_id or uuid.uuid4().hex)
        return values, clarified, latency

    def _ask(
        self, question: str, context: AgentContext, resume: dict | None, thread_id: str
    ) -> tuple[dict, str | None, bool, float]:
        """`run`, also saying whether the thread is still waiting for an answer to a clarification."""
        config = {"configurable": {"thread_id": thread_id}}
        # An offline evaluation traces the target "locally"; LangChain's tracer inside the graph would still try
        # to post every node's run to LangSmith, so nested tracing is off unless the experiment is uploaded.
        offline = get_tracing_context()["enabled"] == "local"
        with tracing_context(enabled=False) if offline else nullcontext():
            started = time.perf_counter()
            self.agent.invoke({"question": question}, config, context=context)
            state = self.agent.get_state(config)
            clarified = state.interrupts[0].value["kind"] if state.interrupts else None
            if state.interrupts and resume is not None:
                self.agent.invoke(Command(resume=resume), config, context=context)
                state = self.agent.get_state(config)
            return state.values, clarified, bool(state.interrupts), (time.perf_counter() - started) * 1000

    def conversation(self, turns: list[str], context: AgentContext, resume: dict | None) -> dict[str, Any]:
        """Every turn in order on one new thread; the outputs of the last, or of the failure of an earlier one."""
        thread_id = uuid.uuid4().hex
        asked: list[dict[str, Any]] = []
        before: dict = {}
        for number, turn in enumerate(turns, start=1):
            last = number == len(turns)
            values, clarified, waiting, latency = self._ask(turn, context, resume if last else None, thread_id)
            added = _added(before.get("evidence", []), values.get("evidence", []))
            asked.append(
                {"question": turn, "clarify_kind": clarified, "tool_calls": len(added), "latency_ms": round(latency, 1)}
            )
            if not last and clarified is not None:
                failed = {"turn": number, "of": len(turns), "clarify_kind": clarified}
                outputs = self.outputs({"evidence": values.get("evidence", [])}, None, None, added)
                return {**outputs, "turns": asked, "failed_turn": failed}
            before = values
        # A last turn left waiting for an answer gave none: the answer in the state is an earlier turn's.
        answer_values = {**values, "answer": None} if waiting else values
        return {**self.outputs(answer_values, clarified, latency, added), "turns": asked, "failed_turn": None}

    def __call__(self, inputs: dict[str, Any]) -> dict[str, Any]:
        context = replace(self.context, **inputs.get("context", {}))
        if inputs.get("turns"):
            return self.conversation(inputs["turns"], context, inputs.get("resume"))
        values, clarified, latency = self.run(inputs["question"], context, inputs.get("resume"))
        return self.outputs(values, clarified, latency)

    def outputs(
        self, values: dict, clarified: str | None, latency: float | None, calls: list[Evidence] | None = None
    ) -> dict[str, Any]:
        """What the evaluators read of a run's state; `calls` are the tool calls the run made when the state also
        holds an earlier turn's (all of the state's evidence otherwise)."""
        answer, evidence = values.get("answer"), values.get("evidence", [])
        calls = evidence if calls is None else calls

        graded = "\n".join(
            f"[{g.doc_id}] {g.text or json.dumps(g.row)}" for g in values.get("graded", []) if g.relevant
        )
        return {
            "answer_text": answer.text if answer else "",
            "format": answer.format if answer else None,
            "value": answer.value if answer else None,
            "citations": [c.model_dump() for c in answer.citations] if answer else [],
            "cited_doc_ids": sorted({c.doc_id for c in answer.citations}) if answer else [],
            "clarify_kind": clarified,
            "tool_calls": [
                {
                    "tool": e.call.tool,
                    "route": e.route,
                    "status": e.envelope.status,
                    "total_hits": e.envelope.total_hits,
                }
                for e in calls
            ],
            "evidence_keys": sorted(set().union(*(e.envelope.citable() for e in evidence)), key=str),
            "evidence_numbers": sorted(
                set().union(
                    *(numbers_in(_readable(e.envelope)) | numbers_in(json.dumps(e.call.arguments)) for e in evidence)
                )
            ),
            "evidence_text": graded[:EVIDENCE_TEXT_CHARS],
            "evidence_ranking": evidence_ranking(evidence),
            "latency_ms": None if latency is None else round(latency, 1),
            "model_calls": [c.model_dump() for c in values.get("model_calls", [])],
        }


def _added(before: list, after: list) -> list:
    """The evidence a turn added: what follows the previous turn's evidence when the thread keeps it (a state that
    accumulates), all of it when the thread started afresh."""
    return after[len(before) :] if before and after[: len(before)] == before else after
