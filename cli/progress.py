"""Waiting that shows: while a question waits on the chat model (a local model on two cores reads a prompt for
seconds), the terminal says which step is waiting and, when it is done, how long it took. Written to stderr and only
to a terminal: `--json` output and logs stay as they were.

The planners name each call by its step (`graph.planners.model_calls`: run name `model:decompose`, ...); any other
chat model call (the single loop's turns, a composed answer) is named by what LangChain calls it.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler


class ModelProgress(BaseCallbackHandler):
    def __init__(self, out: TextIO = sys.stderr):
        self.out = out
        self._started: dict[UUID, tuple[str, float]] = {}

    def on_chat_model_start(self, serialized: dict[str, Any], messages: list, *, run_id: UUID, **kwargs: Any) -> None:
        name = str(kwargs.get("name") or "a step").removeprefix("model:")
        self._started[run_id] = (name, time.monotonic())
        print(f"… waiting for the chat model ({name})", file=self.out, flush=True)

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        if started := self._started.pop(run_id, None):
            name, at = started
            print(f"  the chat model answered ({name}) in {time.monotonic() - at:.1f} s", file=self.out, flush=True)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        if started := self._started.pop(run_id, None):
            print(f"  the chat model failed ({started[0]}): {type(error).__name__}", file=self.out, flush=True)


def progress_callbacks() -> list[BaseCallbackHandler]:
    """The progress printer when stderr is a terminal; none otherwise."""
    return [ModelProgress()] if sys.stderr.isatty() else []
