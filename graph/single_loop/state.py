"""The single loop's state: the orchestrator's (`graph.state.AgentState`: the same question, messages,
decomposition, evidence, decisions, grades, tool calls and answer, which Studio, the server and the evals read),
and the conversation with the model."""

from __future__ import annotations

from typing import Annotated

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from graph.state import AgentState


class LoopState(AgentState, total=False):
    loop: Annotated[list[AnyMessage], add_messages]
    """This run's conversation with the model: its replies (tool calls, decisions) and the tools' results, as the
    model reads them. The thread's `messages` stay its questions and answers, as in the orchestrator."""
