"""A circuit breaker for the chat model: after a transport failure (connection refused, timeout, a 5xx or a 429)
the model is left alone for a while and the rules plan instead, so that a stalled endpoint costs one timeout,
not one per planning step of every run."""

from __future__ import annotations

import threading
import time

import openai

COOL_DOWN_S = 60.0
_lock = threading.Lock()
_open_until = 0.0


def is_transport_failure(error: Exception) -> bool:
    """The endpoint, not the answer, failed: asking again at once will not help."""
    return isinstance(error, openai.APIConnectionError) or (isinstance(error, openai.APIStatusError) and error.status_code >= 429)


def trip() -> None:
    global _open_until
    with _lock:
        _open_until = time.monotonic() + COOL_DOWN_S


def reset() -> None:
    global _open_until
    with _lock:
        _open_until = 0.0


def is_open() -> bool:
    return time.monotonic() < _open_until
