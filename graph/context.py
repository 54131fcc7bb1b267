"""Runtime settings of a run (LangGraph's `context_schema`): who is asking, which planner, which limits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

HARD_MAX_TOOL_CALLS = 24


@dataclass(frozen=True)
class AgentContext:
    """`scope` decides what every tool can see; `max_tool_calls` is clipped to HARD_MAX_TOOL_CALLS, which no
    setting or planner can raise. `planner`: auto uses the LLM planner when a chat model is configured
    (OPENAI_API_KEY), the rules otherwise; rules or llm force one."""

    scope: str = "default"
    planner: Literal["auto", "rules", "llm"] = "auto"
    max_tool_calls: int = 8
    min_hits: int = 1
    max_hits: int = 50
    top_k: int = 20

    @property
    def tool_call_cap(self) -> int:
        return max(1, min(self.max_tool_calls, HARD_MAX_TOOL_CALLS))
