"""A run the server refused (an `InvalidInput`: an unknown bucket, a question over the limit, a scope the key may
not use) logged as one line of `ragent serve`'s log, as a refused request is, instead of two full tracebacks.

`langgraph_api.worker` logs every run that raised twice, each with its traceback: "Run encountered an error in
graph" as the exception leaves the graph, and "Background run failed" as the run ends. For a refusal the traceback
says nothing the reason does not (the input was wrong, not the server), and two screens of it per refused upload
hide the faults an operator looks for. So, for a refusal only: the first record is dropped, and the second becomes
the warning "Run refused: <reason>" with the run's ids and without the traceback. Any other exception is logged
as the library logs it. The records are structlog's event dicts (`record.msg`) whose traceback
`format_exc_info` has already written as text, so the exception is known by the class its message names.
"""

from __future__ import annotations

import logging
import re
import sys

from core.errors import InvalidInput

WORKER_LOGGER = "langgraph_api.worker"
RUN_FAILED = re.compile(
    r"(?P<when>Run encountered an error in graph|Background run failed\. Exception): "
    r"<class '(?P<kind>[\w.]+)'>\((?P<reason>.*)\)",
    re.DOTALL,
)


def is_refusal(kind: str) -> bool:
    """Whether the exception class named `module.Name` (a class the run raised, so its module is loaded) is an
    `InvalidInput`."""
    module, _, name = kind.rpartition(".")
    found = getattr(sys.modules.get(module), name, None)
    return isinstance(found, type) and issubclass(found, InvalidInput)


class RefusedRunsOnOneLine(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        event = record.msg
        failed = RUN_FAILED.fullmatch(str(event.get("event", ""))) if isinstance(event, dict) else None
        if failed is None or not is_refusal(failed["kind"]):
            return True
        if failed["when"].startswith("Run encountered"):
            return False  # the run's end says it
        event.pop("exception", None)
        event["event"] = f"Run refused: {failed['reason']}"
        event["level"] = "warning"
        record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def install_refusal_log() -> None:
    logging.getLogger(WORKER_LOGGER).addFilter(RefusedRunsOnOneLine())
