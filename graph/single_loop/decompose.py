"""decompose: the orchestrator's first node (the question checked, the turn begun in the thread's messages, the
run's state afresh, a scope without documents answered at once), with the question read by the rules whatever the
run's planner, and the conversation with the model begun afresh.

The rules read without a model call, in milliseconds. Their reading shapes the answer and the grading until the
model's first annotation call revises it (`graph.single_loop.reading`); the model reads the question itself, through
its calls. The chat model is looked for first: without one the single loop cannot run, and says so.
"""

from __future__ import annotations

from dataclasses import replace

from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from graph.context import AgentContext
from graph.nodes.decompose import decompose as read_question
from graph.services import AgentServices
from graph.single_loop.model import chat_model
from graph.single_loop.state import LoopState


def decompose(state: LoopState, runtime: Runtime[AgentContext], *, services: AgentServices) -> dict:
    chat_model(services)
    by_rules = runtime.override(context=replace(runtime.context, planner="rules"))
    return read_question(state, by_rules, services=services) | {"loop": Overwrite([])}
