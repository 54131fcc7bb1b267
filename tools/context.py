"""What a tool call runs with: the engines, the caller's scope, limits, and a timeout around each engine call.

The scope lives here, set by whoever builds the context from the runtime (the CLI, the graph's context
schema, the server); no tool argument can change it, and every engine query of every tool takes it from here.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any, TypeVar

from core.scope import DEFAULT_SCOPE
from retrievers.stack import Stack

T = TypeVar("T")


class RateLimiter:
    """A token bucket that starts full and says how long until the next token.

    Written here rather than taken from langchain-core's InMemoryRateLimiter, which starts empty (refusing
    the first call) and cannot tell a caller when to retry, which the `rate_limited` envelope must say.
    """

    def __init__(self, per_second: float, burst: float):
        self.per_second, self.burst = per_second, burst
        self.tokens, self.updated = burst, time.monotonic()
        self._lock = threading.Lock()

    def try_acquire(self) -> float:
        """0.0 when a token was taken, else the seconds until one is available."""
        with self._lock:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.per_second)
            self.updated = now
            if self.tokens >= 1.0:
                self.tokens -= 1.0
                return 0.0
            return (1.0 - self.tokens) / self.per_second


class EngineTimeout(Exception):
    def __init__(self, engine: str, seconds: float):
        super().__init__(f"{engine} did not answer within {seconds:g} s")
        self.engine = engine


@dataclass(frozen=True)
class ToolLimits:
    engine_timeout_s: float = 10.0
    max_envelope_chars: int = 60_000
    max_prefilter_documents: int = 50_000
    calls_per_second: float | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> ToolLimits:
        """The limits an operator sets: RAGENT_ENGINE_TIMEOUT_S and RAGENT_TOOL_CALLS_PER_SECOND."""
        rate = env.get("RAGENT_TOOL_CALLS_PER_SECOND")
        return cls(
            engine_timeout_s=float(env.get("RAGENT_ENGINE_TIMEOUT_S", cls.engine_timeout_s)),
            calls_per_second=float(rate) if rate else None,
        )


def as_stored(path: str) -> str:
    return path


@dataclass
class ToolContext:
    stack: Stack
    scope: str = DEFAULT_SCOPE
    limits: ToolLimits = field(default_factory=ToolLimits)
    shown_source: Callable[[str], str] = as_stored
    """A document's source file as the caller may see it: a server's clients read tool answers in the run's state,
    and the stored absolute path would tell them where the server keeps its data (`graph.served_paths`)."""

    def __post_init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="engine")
        rate = self.limits.calls_per_second
        self.rate_limiter = RateLimiter(rate, burst=max(1.0, rate)) if rate else None

    def engine(self, name: str, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run one engine call with the per-call timeout. A call that overruns keeps its thread until it
        returns (engines cannot be interrupted), but the tool answers `timeout` at once."""
        future = self._pool.submit(call, *args, **kwargs)
        try:
            return future.result(timeout=self.limits.engine_timeout_s)
        except FutureTimeout:
            raise EngineTimeout(name, self.limits.engine_timeout_s) from None

    def buckets(self) -> dict[str, str]:
        return self.stack.store.buckets()

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
