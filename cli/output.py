"""Machine-readable output of the read commands (`--json`)."""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from pydantic import BaseModel


def print_json(value: Any) -> None:
    """Records as JSON: models as their fields, dates in ISO 8601, ids and decimals as the text and numbers they are."""

    def plain(item: Any) -> Any:
        if isinstance(item, BaseModel):
            return item.model_dump(mode="json")
        if isinstance(item, datetime | date):
            return item.isoformat()
        if isinstance(item, Decimal):
            return float(item)
        return str(item)  # UUIDs and paths

    print(json.dumps(value, indent=2, ensure_ascii=False, default=plain))


def run_record(values: dict[str, Any], clarification: dict[str, Any] | None, thread: str) -> dict[str, Any]:
    """What `ragent ask --json` prints of a run (from this process's state or a server's): the answer with its
    citations and how it was reached, or the clarification the run waits on and how to answer it."""
    record: dict[str, Any] = {"thread": thread, "question": values.get("question"), "scope": values.get("scope")}
    if clarification is not None:
        record |= {
            "status": "waiting_for_answer",
            "clarification": clarification,
            "resume": f"ragent resume {thread} --answer N",
        }
    else:
        record |= {"status": "answered", "answer": values.get("answer")}
    return record | {name: values.get(name) for name in ("decomposition", "decisions", "evidence", "model_calls")}
