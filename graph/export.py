"""CSV export of a full result set, written only inside the export folder under a name the code chooses.

Every cell comes from documents, and a spreadsheet runs a cell that starts like a formula (`=HYPERLINK(...)`,
`+cmd|' /C calc'!A0`, `@SUM(...)`, `-2+3`). As OWASP recommends against CSV injection, every text cell (values,
titles, ids, bucket and field names) that starts with `=`, `+`, `-`, `@`, a tab or a carriage return gets a
leading `'`, and every text cell is quoted (quotes inside doubled). Numbers stay numbers: a value stored as a number
is written unquoted and unchanged (`-5` as `-5`), since it cannot hold a formula and a spreadsheet should still add
it up; quoting only text keeps the two apart for any reader (Python's `csv.QUOTE_NONNUMERIC` reads them back as
float and str). A negative number stored as text is text, and neutralised like any other.
"""

from __future__ import annotations

import csv
import uuid
from pathlib import Path
from typing import Any

from graph.decomposition import Decomposition
from tools.context import ToolContext

EXPORT_ROWS_MAX = 1_000_000
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any) -> Any:
    """A value as the CSV writer should see it: numbers as they are, anything else as neutralised text."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    text = "" if value is None else str(value)
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def _matching_rows(context: ToolContext, bucket: str, d: Decomposition) -> list[dict[str, Any]]:
    predicates = [c.predicate() for c in d.constraints if c.bucket == bucket]
    return context.engine(
        "Postgres (annotations)",
        context.stack.store.find_annotations,
        context.scope,
        bucket,
        predicates,
        limit=EXPORT_ROWS_MAX,
    )


def export_csv(context: ToolContext, d: Decomposition, folder: Path) -> tuple[Path, int]:
    """Every annotation row of the decomposition's constraints in the context's scope (all of them, not the top_k a
    tool returns), read under the scope's engine timeout like any tool call."""
    rows: list[dict[str, Any]] = []
    for bucket in d.buckets:
        for r in _matching_rows(context, bucket, d):
            rows.append(
                {
                    "bucket": bucket,
                    "doc_id": r["doc_id"],
                    "annotation_id": r["annotation_id"],
                    "title": r["title"],
                    **{k: "; ".join(map(str, v)) if isinstance(v, list) else v for k, v in r["row"].items()},
                }
            )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"export-{uuid.uuid4().hex[:12]}.csv"
    columns = list(dict.fromkeys(k for row in rows for k in row)) or ["bucket", "doc_id", "annotation_id", "title"]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_NONNUMERIC)
        writer.writerow([_cell(column) for column in columns])
        writer.writerows([_cell(row.get(column)) for column in columns] for row in rows)
    return path, len(rows)
