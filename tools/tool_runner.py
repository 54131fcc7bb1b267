"""The tool runner the agent holds: every tool call made on behalf of a question, in the question's scope.

It owns one ToolContext per scope (the engine thread pool that enforces timeouts, the rate limiter, the limits),
made on first use and closed with the runner, so a process can serve many tenants without a pool per call and
without leaking one when it is done.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from retrievers.stack import Stack
from tools.context import ToolContext, ToolLimits
from tools.envelope import Envelope
from tools.registry import run_named


class ToolRunner:
    def __init__(
        self,
        stack: Stack,
        limits: ToolLimits | None = None,
        shown_source: Callable[[str], Callable[[str], str]] | None = None,
    ):
        self.stack = stack
        self.limits = limits or ToolLimits.from_env()
        self.shown_source = shown_source
        """For a scope, how its callers see a document's source file (`ToolContext.shown_source`); as stored when
        None."""
        self._contexts: dict[str, ToolContext] = {}
        self._lock = threading.Lock()

    def context(self, scope: str) -> ToolContext:
        with self._lock:
            if scope not in self._contexts:
                shown = {"shown_source": self.shown_source(scope)} if self.shown_source else {}
                self._contexts[scope] = ToolContext(self.stack, scope=scope, limits=self.limits, **shown)
            return self._contexts[scope]

    def run(self, scope: str, tool: str, arguments: Mapping[str, Any]) -> Envelope:
        return run_named(tool, arguments, self.context(scope))

    def close(self) -> None:
        with self._lock:
            for context in self._contexts.values():
                context.close()
            self._contexts.clear()
