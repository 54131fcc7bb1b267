"""The engines a graph run uses: one Stack per process, opened on first use from the environment.

Engines cannot travel in the runtime context (it must be serialisable for the server), so nodes ask for them
here. The CLI and tests install the stack they opened with `use_stack`.
"""

from __future__ import annotations

import os
import threading

from langchain_core.language_models import BaseChatModel

from graph.context import AgentContext
from graph.planners import chat_breaker
from graph.planners.base import Planner
from graph.planners.llm_planner import LLMPlanner
from graph.planners.rule_planner import RulePlanner
from retrievers.errors import InvalidInput
from retrievers.stack import Stack, open_stack
from tools.context import ToolContext, ToolLimits

DEFAULT_CHAT_MODEL = "gpt-4o-mini"
CHAT_TIMEOUT_S = 30
_lock = threading.RLock()
_stack: Stack | None = None


def use_stack(stack: Stack | None) -> Stack | None:
    """Install the stack the nodes use; returns the one installed before, so a caller can put it back."""
    global _stack
    with _lock:
        previous, _stack = _stack, stack
        return previous


def stack() -> Stack:
    global _stack
    with _lock:
        if _stack is None:
            _stack = open_stack()
        return _stack


_tool_contexts: dict[str, ToolContext] = {}


def tool_context(scope: str) -> ToolContext:
    """One ToolContext (and its engine thread pool) per scope for the life of the process."""
    with _lock:
        current = stack()
        if scope not in _tool_contexts or _tool_contexts[scope].stack is not current:
            _tool_contexts[scope] = ToolContext(current, scope=scope, limits=ToolLimits.from_env())
        return _tool_contexts[scope]


_chat_model: BaseChatModel | None = None


def use_chat_model(model: BaseChatModel | None) -> None:
    global _chat_model
    with _lock:
        _chat_model = model


def chat_model() -> BaseChatModel | None:
    """The installed chat model, else one from OPENAI_API_KEY / OPENAI_BASE_URL / RAGENT_CHAT_MODEL
    (RAGENT_CHAT_TIMEOUT_S bounds each call), else None."""
    global _chat_model
    with _lock:
        if _chat_model is None and os.environ.get("OPENAI_API_KEY"):
            from langchain_openai import ChatOpenAI

            _chat_model = ChatOpenAI(model=os.environ.get("RAGENT_CHAT_MODEL", DEFAULT_CHAT_MODEL), base_url=os.environ.get("OPENAI_BASE_URL"),
                                     timeout=float(os.environ.get("RAGENT_CHAT_TIMEOUT_S", CHAT_TIMEOUT_S)), max_retries=0, temperature=0)
        return _chat_model


def planner(context: AgentContext) -> Planner:
    """The planner for a run, built per call so that it sees the catalog as it is now. While the chat model's
    circuit breaker is open (its endpoint just failed), the rules plan even when `llm` is asked for."""
    model = chat_model() if context.planner in ("auto", "llm") else None
    if context.planner == "llm" and model is None:
        raise InvalidInput("planner 'llm' needs a chat model: set OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible endpoint)")
    if model is None or chat_breaker.is_open():
        return RulePlanner(stack(), context.scope)
    return LLMPlanner(stack(), context.scope, model, tool_context(context.scope))
