"""The graph's state. Evidence and decisions accumulate (reducers add), everything else is replaced."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from graph.decomposition import Decomposition
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


class InputState(TypedDict):
    question: str


class OutputState(TypedDict, total=False):
    answer: Answer
    decisions: list[Decision]


class AgentState(InputState, total=False):
    decomposition: Decomposition
    route: Route | None
    plan: Plan | None
    pending: list[ToolCall]
    evidence: Annotated[list[Evidence], operator.add]
    graded: list[GradedHit]
    decisions: Annotated[list[Decision], operator.add]
    tool_calls: int
    attempt: int
    clarification: ClarifyReply | None
    answer: Answer | None
