"""What every node of the agent is wrapped in: the scope check, and engine failures outside the tools as errors a
user can read.

Tools turn every engine failure into an envelope status. The planner also reads the index through the catalog
(the buckets, the field catalog, value lists) and clarify reads an export, all from Postgres; when Postgres is
gone that raises psycopg's or the pool's own exceptions, or an EngineTimeout when it does not answer in time,
whose text means little to a user (and which the LangGraph server hides as "an internal error").
Each node is wrapped so that such a failure stops the run with a BackendUnavailable that says what failed and
what to do. The thread keeps its last checkpoint, so running it again once Postgres is back continues from the
node that failed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import psycopg
from langgraph.runtime import get_runtime
from psycopg_pool import PoolClosed, PoolTimeout

from core.errors import BackendUnavailable
from graph.access.tenancy import checked_run_scope
from tools.context import EngineTimeout

POSTGRES_FAILURES = (psycopg.OperationalError, PoolTimeout, PoolClosed, EngineTimeout)


def scope_checked(node: Callable) -> Callable:
    """Every step checks the run's scope (`graph.access.tenancy`) before it reads anything: a run may start at any
    node (a resume at clarify, a rerun after a failure at the node that failed), so the check sits on all of them."""

    @functools.wraps(node)
    def checked(state, *args, **kwargs):
        runtime = get_runtime()
        server = runtime.server_info
        checked_run_scope(runtime.context.scope, server.user if server else None, state.get("scope"))
        return node(state, *args, **kwargs)

    return checked


def readable_failures(node: Callable) -> Callable:
    @functools.wraps(node)
    def guarded(*args, **kwargs):
        try:
            return node(*args, **kwargs)
        except POSTGRES_FAILURES as error:
            raise postgres_unavailable(error, f"in step {node.__name__}") from None

    return guarded


def postgres_unavailable(error: Exception, where: str) -> BackendUnavailable:
    """A Postgres failure `where` (in a step, in the checkpointer) said as what to do about it."""
    reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
    return BackendUnavailable(
        f"Postgres is unavailable ({reason}) {where}; the thread is kept at its last "
        "checkpoint: run it again once Postgres is back and it continues from there"
    )
