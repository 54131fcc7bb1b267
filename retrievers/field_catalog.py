"""The field catalog of a bucket: what each annotation field is, derived from the data.

A loader may declare a field's type and description (`FieldSpec`); everything else (which kind of row it
is on, how many documents have it, example values, and the full value list of low-cardinality fields)
is computed from the stored rows, so the catalog always describes what a predicate will actually match.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from pydantic import BaseModel

from retrievers.models import FieldSpec

LOW_CARDINALITY = 40
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class CatalogField(BaseModel):
    """One field of one row kind in a bucket, as the agent and the tool schemas see it."""

    kind: str
    name: str
    type: str
    multi: bool
    description: str = ""
    doc_count: int
    distinct_count: int
    examples: list[Any]
    values: list[Any] | None = None
    min: Any = None
    max: Any = None


def infer_type(values: list[Any]) -> str:
    """The narrowest type every value fits: boolean, integer, number, date (ISO strings) or string."""
    if all(isinstance(v, bool) for v in values):
        return "boolean"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "integer"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return "number"
    if all(isinstance(v, str) and _ISO_DATE.match(v) for v in values):
        return "date"
    return "string"


def build_field(
    kind: str, name: str, value_counts: Counter, doc_count: int, multi: bool, spec: FieldSpec | None
) -> CatalogField:
    """Catalog entry from the (value -> rows) counts of one field."""
    values = list(value_counts)
    ftype = spec.type if spec else infer_type(values)
    by_frequency = [v for v, _ in value_counts.most_common()]
    ordered = sorted(values) if ftype in ("integer", "number", "date") else None
    return CatalogField(
        kind=kind,
        name=name,
        type=ftype,
        multi=multi or bool(spec and spec.multi),
        description=spec.description if spec else "",
        doc_count=doc_count,
        distinct_count=len(values),
        examples=by_frequency[:5],
        values=by_frequency if ftype in ("string", "boolean") and len(values) <= LOW_CARDINALITY else None,
        min=ordered[0] if ordered else None,
        max=ordered[-1] if ordered else None,
    )
