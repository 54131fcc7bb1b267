"""A refused run is one warning line of the server's log; any other failed run keeps its traceback
(`graph.refusal_log`). The records are built as structlog hands them to `logging`: the event dict as the message,
its traceback already text."""

from __future__ import annotations

import logging

from graph.refusal_log import RefusedRunsOnOneLine

REASON = "bucket 'leases' is unknown; use one of contracts, generic or add it with `ragent buckets add leases`"


def record(event: str) -> logging.LogRecord:
    traceback = "Traceback (most recent call last):\n  ..."
    message = {"event": event, "level": "error", "exception": traceback, "run_id": "r1"}
    return logging.LogRecord("langgraph_api.worker", logging.ERROR, __file__, 1, message, (), None)


def test_a_refused_run_is_one_warning_line_without_its_traceback():
    during = record(f"Run encountered an error in graph: <class 'core.errors.InvalidInput'>({REASON})")
    ended = record(f"Background run failed. Exception: <class 'core.errors.InvalidInput'>({REASON})")
    log = RefusedRunsOnOneLine()
    assert not log.filter(during)
    assert log.filter(ended)
    assert ended.msg == {"event": f"Run refused: {REASON}", "level": "warning", "run_id": "r1"}
    assert ended.levelno == logging.WARNING


def test_a_scope_refusal_is_a_refusal_too():
    import graph.access.tenancy  # noqa: F401  (the run that raised it has loaded it)

    ended = record("Background run failed. Exception: <class 'graph.access.tenancy.ScopeRefused'>(not your scope)")
    assert RefusedRunsOnOneLine().filter(ended) and ended.msg["event"] == "Run refused: not your scope"


def test_any_other_failure_keeps_its_record_and_traceback():
    for event in (
        "Background run failed. Exception: <class 'ValueError'>(bad)",
        "Background run failed. Exception: <class 'psycopg.OperationalError'>(connection refused)",
        "Background run failed. Exception: <class 'no.such.Module'>(gone)",
        "Starting background run",
    ):
        kept = record(event)
        assert RefusedRunsOnOneLine().filter(kept) and kept.msg["exception"].startswith("Traceback"), event
    plain = logging.LogRecord("langgraph_api.worker", logging.ERROR, __file__, 1, "text %s", ("x",), None)
    assert RefusedRunsOnOneLine().filter(plain) and plain.getMessage() == "text x"
