"""The one wrapper every tool call goes through: validate, check the bucket, run, bound, and never raise.

Each failure becomes an envelope a model can act on: `invalid_request` with the reason and the allowed values,
`unavailable` or `timeout` naming the engine, `rate_limited` with when to retry. An unexpected error is
logged with its traceback for the operator and reported to the agent as `unavailable`, in one line.
"""

from __future__ import annotations

import bisect
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

import psycopg
from psycopg_pool import PoolClosed, PoolTimeout
from pydantic import BaseModel, ValidationError

from core.errors import BackendUnavailable, EmbeddingModelMismatch, IndexUnreadable, InvalidInput, RateLimited
from retrievers.postgres.annotation_filters import shown
from tools.context import EngineTimeout, ToolContext
from tools.envelope import Envelope, failure

log = logging.getLogger(__name__)


REASONS_SHOWN = 5
KEY_CHARS_SHOWN = 60


def _shown_key(part: str | int) -> str:
    """A key of the arguments as a reason names it. Keys are the caller's (a predicate's field, an unknown
    argument), so an empty, overlong or unprintable one is quoted and cut short rather than echoed whole."""
    text = str(part)
    return text if text and len(text) <= KEY_CHARS_SHOWN and text.isprintable() else shown(text)


def validation_reason(error: ValidationError) -> str:
    """Pydantic's errors as one line:
    'top_k: Input should be less than or equal to 50; scope: Extra inputs are not permitted',
    the first few of them only, so that arguments wrong in a thousand places still get a reason a model can read."""
    items = error.errors(include_url=False)
    parts = [
        f"{'.'.join(_shown_key(p) for p in item['loc']) or 'arguments'}: {item['msg']}"
        for item in items[:REASONS_SHOWN]
    ]
    if len(items) > REASONS_SHOWN:
        parts.append(f"and {len(items) - REASONS_SHOWN} more")
    return "; ".join(parts)


def require_bucket(context: ToolContext, bucket: str | None) -> None:
    known = context.buckets()
    if bucket not in known:
        raise InvalidInput(f"bucket {bucket!r} does not exist; allowed buckets: {', '.join(known)}")


def _bounded(envelope: Envelope, max_chars: int) -> Envelope:
    """Drop hits from the end until the envelope, with the note saying so, serialises within `max_chars`.

    Its length falls as hits are dropped (a hit is longer than the digit the note's count may gain), so the number
    kept is found by bisection: a few serialisations, where dropping one hit at a time serialised the envelope once
    per dropped hit (seconds for an aggregate of thousands of groups)."""
    if not envelope.hits or len(envelope.model_dump_json()) <= max_chars:
        return envelope
    hits, hint = envelope.hits, envelope.hint

    def keeping(kept: int) -> Envelope:
        note = (
            f"{len(hits) - kept} hit(s) left out to keep the result under {max_chars} characters; "
            "lower top_k or context_chars, or narrow the query"
        )
        return envelope.model_copy(update={"hits": hits[:kept], "hint": f"{hint} {note}" if hint else note})

    # the fewest hits that are too many, among fewer than all (all are); none kept if even that is too long
    too_many = bisect.bisect_left(
        range(len(hits)), True, key=lambda kept: len(keeping(kept).model_dump_json()) > max_chars
    )
    return keeping(max(too_many - 1, 0))


def run_tool(
    name: str,
    arguments_model: type[BaseModel],
    implementation: Callable[[Any, ToolContext], Envelope],
    arguments: Mapping[str, Any] | BaseModel,
    context: ToolContext,
) -> Envelope:
    """Call one tool and return its envelope, bounded and timed."""
    started = time.perf_counter()
    wait_s = context.rate_limiter.try_acquire() if context.rate_limiter is not None else 0.0
    if wait_s > 0:
        envelope = failure(
            "rate_limited", f"too many tool calls; call {name} again in {wait_s:.1f} s", round(wait_s, 2)
        )
    else:
        envelope = _call(name, arguments_model, implementation, arguments, context)
    envelope = _bounded(envelope, context.limits.max_envelope_chars)
    envelope.took_ms = round((time.perf_counter() - started) * 1000, 2)
    return envelope


def _call(name, arguments_model, implementation, arguments, context) -> Envelope:
    if not isinstance(arguments, (Mapping, arguments_model)):
        return failure(
            "invalid_request", f"{name}: arguments must be an object of named arguments, not {type(arguments).__name__}"
        )
    try:
        parsed = (
            arguments if isinstance(arguments, arguments_model) else arguments_model.model_validate(dict(arguments))
        )
        return implementation(parsed, context)
    except ValidationError as exc:
        return failure("invalid_request", f"{name}: {validation_reason(exc)}")
    except InvalidInput as exc:
        return failure("invalid_request", f"{name}: {exc}")
    except RateLimited as exc:
        return failure("rate_limited", f"{name}: {exc}; retry after {exc.retry_after_s:g} s", exc.retry_after_s)
    except EngineTimeout as exc:
        return failure("timeout", f"{name}: {exc}; try again, narrow the filters, or use another search tool")
    except (BackendUnavailable, IndexUnreadable, EmbeddingModelMismatch) as exc:
        return failure("unavailable", f"{name}: {exc}")
    except (psycopg.OperationalError, PoolTimeout, PoolClosed) as exc:
        return failure(
            "unavailable",
            f"{name}: Postgres (documents and annotations) is unavailable ({type(exc).__name__}); "
            "tools that use only the search engines may still work",
        )
    except Exception as exc:  # the agent must never see a traceback; the operator finds it in the log
        log.exception("tool %s failed", name)
        return failure(
            "unavailable", f"{name}: internal error ({type(exc).__name__}); the failure is logged; try another tool"
        )
