"""Runtime settings of a run (LangGraph's `context_schema`): who is asking, which planner, which limits.

A pydantic dataclass, so that settings arriving as JSON (the server's `context`, an eval question's `context`)
are checked on the way in: a wrong type or an out-of-range value fails the run at once with a message naming
the setting, instead of surfacing later as a traceback inside a node.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field
from pydantic.dataclasses import dataclass

from core.scope import SCOPE_RE
from tools.arguments import TOP_K_MAX

HARD_MAX_TOOL_CALLS = 24
MAX_HITS_LIMIT = 10_000


MAX_CATALOG_READS = 100
"""Reads of the index's content one decomposition may make: the rules make at most 19 on the eval questions (a
keyword count per word of a question for text per bucket, and the closeness of the buckets), so no question they
know of meets it; past it, a read's answer is unknown, as when the index cannot answer."""


@dataclass(frozen=True, config=ConfigDict(strict=True, extra="forbid"))
class AgentContext:
    """`scope` decides what every tool can see; `max_tool_calls` is clipped to HARD_MAX_TOOL_CALLS, which no
    setting or planner can raise. `planner`: auto plans with the rules and, when a chat model is configured
    (RAGENT_CHAT, OPENAI_API_KEY), has it read the questions the rules cannot read whole; llm makes every mode the
    model's; rules uses no model."""

    scope: str = Field(
        default="default", pattern=SCOPE_RE.pattern, description="Tenant or workspace whose documents the run may see"
    )
    planner: Literal["auto", "rules", "llm"] = "auto"
    max_tool_calls: int = Field(
        default=8, ge=1, description=f"Tool calls the run may make (clipped to {HARD_MAX_TOOL_CALLS})"
    )
    min_hits: int = Field(
        default=1, ge=0, le=MAX_HITS_LIMIT, description="Fewer relevant documents than this is too little"
    )
    max_hits: int = Field(
        default=50, ge=1, le=MAX_HITS_LIMIT, description="More matching documents than this asks the user to narrow"
    )
    top_k: int = Field(default=20, ge=1, le=TOP_K_MAX, description="Hits asked of each search")
    max_catalog_reads: int = Field(
        default=MAX_CATALOG_READS,
        ge=0,
        description="Searches of the index's content reading one question may run (a closeness read searches each "
        "bucket, a keyword count once)",
    )

    @property
    def tool_call_cap(self) -> int:
        return min(self.max_tool_calls, HARD_MAX_TOOL_CALLS)


DEFAULT_CONTEXT = AgentContext()
"""The settings of a run that is given none; frozen, so one instance serves as every such default."""
