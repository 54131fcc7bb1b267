"""CSV export of a full result set, written only inside the export folder under a name the code chooses."""

from __future__ import annotations

import csv
import uuid
from pathlib import Path
from typing import Any

from graph.decomposition import Decomposition
from tools.context import ToolContext

EXPORT_ROWS_MAX = 1_000_000


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
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path, len(rows)
