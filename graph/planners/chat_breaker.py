"""A circuit breaker for the chat model: after a transport failure (connection refused, timeout, a 5xx or a 429)
the model is left alone for a while and the rules plan instead, so that a stalled endpoint costs one timeout,
not one per planning step of every run. One breaker lives with the chat model in the agent's services."""

from __future__ import annotations

import threading
import time

COOL_DOWN_S = 60.0


def is_transport_failure(error: Exception) -> bool:
    """The endpoint, not the answer, failed: asking again at once will not help. (openai is imported here: only
    a chat model's failure gets here, and importing it costs every process without one 0.4 s.)"""
    import openai

    return isinstance(error, openai.APIConnectionError) or (
        isinstance(error, openai.APIStatusError) and error.status_code >= 429
    )


class ChatBreaker:
    def __init__(self, cool_down_s: float = COOL_DOWN_S):
        self.cool_down_s = cool_down_s
        self._open_until = 0.0
        self._lock = threading.Lock()

    def trip(self) -> None:
        with self._lock:
            self._open_until = time.monotonic() + self.cool_down_s

    def reset(self) -> None:
        with self._lock:
            self._open_until = 0.0

    @property
    def is_open(self) -> bool:
        return time.monotonic() < self._open_until
