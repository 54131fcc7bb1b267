"""The one result every tool returns, success or failure: the agent reads a status, never a traceback."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Status = Literal["ok", "no_results", "low_confidence", "timeout", "unavailable", "invalid_request", "rate_limited"]
SOURCE_FAILED: tuple[Status, ...] = ("unavailable", "timeout", "rate_limited")
"""Statuses that say a source failed, not that it found nothing: an answer names them."""


class Envelope(BaseModel):
    """`hint` says what to try next (for `no_results`), why (for `invalid_request`, with the allowed values),
    or which source failed (for `unavailable` and `timeout`). `total` is set by annotations_aggregate only:
    the aggregate over all matching rows, beside the groups in `hits`."""

    status: Status
    hits: list[dict[str, Any]] = Field(default_factory=list)
    total_hits: int = 0
    hint: str | None = None
    retry_after_s: float | None = None
    took_ms: float = 0.0
    total: dict[str, Any] | None = None


def failure(status: Status, hint: str, retry_after_s: float | None = None) -> Envelope:
    return Envelope(status=status, hint=hint, retry_after_s=retry_after_s)
