"""Asking the chat model for a typed output, and the record of every call.

Each call asks for JSON that follows the output's schema (`method="json_schema"`: llama.cpp compiles the schema
into a grammar, so a local model's output always parses; an OpenAI model follows it as structured output). What
comes back is checked by the caller's `check` (against the catalog, the tools, the routes left); an output that
fails is asked for once more, and then the mode is the rules'. A reply that does not parse (cut short) is asked for
again as it was: a small model shown its own broken reply and an error drifts from the question; a reply that
parses but fails a check is asked for again with the reason. A transport failure (the endpoint
down or too slow) trips the breaker at once: every planner of the process then plans with the rules for a while.

Every call is recorded as a `ModelCall` (its mode, seconds, prompt and output tokens, and what became of it), which
the nodes put in the run's state and `ragent ask --explain` lists.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, Literal, TypeVar

from langchain_core.language_models import BaseChatModel
from langgraph.constants import TAG_NOSTREAM
from pydantic import BaseModel

from graph.planners.chat_breaker import ChatBreaker, is_transport_failure

ATTEMPTS = 2
T = TypeVar("T", bound=BaseModel)
Messages = list[tuple[str, str]]


class ModelCall(BaseModel):
    """One call of the chat model: `outcome` used (its output was taken), invalid (asked again or left to the
    rules, `detail` says why) or failed (the endpoint: the rules took over)."""

    mode: str
    seconds: float
    prompt_tokens: int | None = None
    output_tokens: int | None = None
    outcome: Literal["used", "invalid", "failed"]
    detail: str = ""

    @classmethod
    def since(
        cls, mode: str, started: float, usage: Mapping[str, Any] | None, outcome: str, detail: str = ""
    ) -> ModelCall:
        """A call begun at `started` (`time.perf_counter()`), with the tokens its reply's `usage_metadata` reports
        (none when the call failed before a reply)."""
        usage = usage or {}
        return cls(
            mode=mode,
            seconds=round(time.perf_counter() - started, 3),
            prompt_tokens=usage.get("input_tokens"),
            output_tokens=usage.get("output_tokens"),
            outcome=outcome,
            detail=detail,
        )


class ModelAsker:
    def __init__(self, model: BaseChatModel, breaker: ChatBreaker):
        self.model = model
        self.breaker = breaker
        self.calls: list[ModelCall] = []
        self.fallbacks: list[str] = []

    def ask(self, mode: str, schema: type[T], messages: Messages, check: Callable[[T], None] | None = None) -> T | None:
        """The model's output for `mode`, checked; once more with the error; None when neither can be used."""
        structured = self.model.with_structured_output(schema, method="json_schema", include_raw=True)
        structured = structured.with_config(tags=[TAG_NOSTREAM], run_name=f"model:{mode}")
        messages = list(messages)
        for _ in range(ATTEMPTS):
            started = time.perf_counter()
            try:
                reply = structured.invoke(messages)
            except Exception as exc:  # the endpoint, or a reply the client could not read
                if is_transport_failure(exc):
                    self._record(mode, started, None, "failed", f"{type(exc).__name__}: {exc}")
                    self.breaker.trip()
                    self.fallbacks.append(f"{mode}: the chat model failed ({type(exc).__name__})")
                    return None
                self._record(mode, started, None, "invalid", f"{type(exc).__name__}: {exc}")
                continue  # a reply cut short or unreadable: the same question again
            output, error = reply.get("parsed"), reply.get("parsing_error")
            if error is not None or output is None:
                self._record(mode, started, reply.get("raw"), "invalid", str(error or "no output")[:300])
                continue
            try:
                if check is not None:
                    check(output)
            except ValueError as invalid:  # our checks (InvalidInput) and pydantic's: said to the model
                self._record(mode, started, reply.get("raw"), "invalid", str(invalid)[:300])
                messages.append(("human", f"That answer cannot be used: {invalid}. Answer again from what is listed."))
                continue
            self._record(mode, started, reply.get("raw"), "used")
            return output
        self.fallbacks.append(f"{mode}: no usable answer after {ATTEMPTS} attempts")
        return None

    def _record(self, mode: str, started: float, raw, outcome: str, detail: str = "") -> None:
        self.calls.append(ModelCall.since(mode, started, getattr(raw, "usage_metadata", None), outcome, detail))
