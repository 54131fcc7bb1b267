"""The engines a graph run uses: one Stack per process, opened on first use from the environment.

Engines cannot travel in the runtime context (it must be serialisable for the server), so nodes ask for them
here. The CLI and tests install the stack they opened with `use_stack`.
"""

from __future__ import annotations

import threading

from graph.planners.rule_planner import RulePlanner
from retrievers.stack import Stack, open_stack
from tools.context import ToolContext, ToolLimits

_lock = threading.Lock()
_stack: Stack | None = None


def use_stack(stack: Stack | None) -> None:
    global _stack
    with _lock:
        _stack = stack


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
        if scope not in _tool_contexts or _tool_contexts[scope].stack is not _stack:
            _tool_contexts[scope] = ToolContext(_stack or open_stack(), scope=scope, limits=ToolLimits())
        return _tool_contexts[scope]


def planner(scope: str) -> RulePlanner:
    """The planner for a run; built per call so that it sees the catalog as it is now."""
    return RulePlanner(stack(), scope)
