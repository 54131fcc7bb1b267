"""The graph's state. Messages, evidence and decisions accumulate (reducers add), everything else is replaced."""

from __future__ import annotations

import operator
from typing import Annotated, Any

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from graph.context import AgentContext
from graph.decomposition import Decomposition
from graph.planners.base import Budget
from graph.planners.model_calls import ModelCall
from graph.schemas import (
    Answer,
    ClarifyReply,
    Decision,
    Evidence,
    GradedHit,
    Plan,
    Route,
    ToolCall,
)


class Conversation(TypedDict, total=False):
    """The thread as a chat, in LangGraph's convention (so Studio's chat view and chat front ends can drive it):
    every question as a HumanMessage and every answer as an AIMessage, kept across the thread's runs."""

    messages: Annotated[list[AnyMessage], add_messages]


class InputState(Conversation, total=False):
    """A run's input: `{"question": ...}`, or `{"messages": [...]}` ending on the user's message."""

    question: str


class OutputState(Conversation, total=False):
    """What a client sees of a run: the answer and every node's decision. A stream in `updates` mode shows a
    node's update only for these keys, so each node writes at least one of them (retrieve's per-call statuses
    go out as `custom` events; the full envelopes stay in the thread's state)."""

    decomposition: Decomposition
    route: Route | None
    plan: Plan | None
    graded: list[GradedHit]
    decisions: Annotated[list[Decision], operator.add]
    tool_calls: int
    model_calls: Annotated[list[ModelCall], operator.add]
    """Every call of the chat model the run made, in order (none with the rules)."""
    answer: Answer | None
    answers: Annotated[dict[str, dict[str, Any]], operator.or_]
    """Each answer message's answer as the page shows it again, by the message's id (`graph.shown_answers`)."""


class AgentState(InputState, OutputState, total=False):
    question_id: str
    """The id of the HumanMessage the run answers: tells a message no run has taken up yet from one a run took and
    did not answer (a clarification left open, a failure)."""
    pending: list[ToolCall]
    evidence: Annotated[list[Evidence], operator.add]
    attempt: int
    clarification: ClarifyReply | None
    scope: str
    """The scope of the thread's first run; every later run on the thread must have the same
    (`graph.access.tenancy`)."""


def current_evidence(state: AgentState) -> list[Evidence]:
    """The evidence of the current plan (an earlier route's stays in the state, for the record)."""
    return [e for e in state.get("evidence", []) if e.attempt == state.get("attempt")]


def budget(state: AgentState, context: AgentContext) -> Budget:
    """The run's tool-call budget under its current plan."""
    return Budget.of(context.tool_call_cap, state.get("tool_calls", 0), state.get("plan"))
