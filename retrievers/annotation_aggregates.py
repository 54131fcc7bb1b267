"""Aggregates over annotation rows (`count`, `sum(field)`, `avg`, `min`, `max`, with `group_by`), compiled to SQL.

List values are unnested: `sum(notice_period_days)` adds every listed period, and `group_by: [governing_law]`
puts a contract under each of its laws. So the total over all matching rows is computed by a query of its own
(without the groups): it is not the sum of the groups when a document falls in several groups. Text groups
are case-insensitive (the `=` predicate is too) and show their most common spelling. `count` counts distinct
documents.
"""

from __future__ import annotations

import re
from typing import Any

from psycopg import sql

from retrievers.errors import InvalidInput

FUNCTIONS = ("count", "sum", "avg", "min", "max")
_NUMERIC = ("number", "integer")
MAX_GROUP_FIELDS = 3
_AGGREGATE = re.compile(r"^\s*(count|sum|avg|min|max)\s*(?:\(\s*([A-Za-z][A-Za-z0-9_]*)?\s*\))?\s*$")


def parse_aggregate(text: str) -> tuple[str, str | None]:
    """'sum(total)' -> ('sum', 'total'); 'count' -> ('count', None)."""
    match = _AGGREGATE.match(text or "")
    if not match:
        raise InvalidInput(
            f"aggregate {text!r} is not understood; use count, sum(field), avg(field), min(field) or max(field)"
        )
    function, field = match.groups()
    if function != "count" and not field:
        raise InvalidInput(f"{function} needs a field: {function}(field)")
    return function, field


def compile_aggregate(
    function: str, field: str | None, group_by: list[str], field_types: dict[str, str], where: sql.Composable
) -> tuple[sql.Composable, list[Any]]:
    """SQL selecting (group_0.., documents, value) per group of the rows satisfying `where` (alias `a`); with no
    `group_by`, one row over all of them."""
    for name in [*(f for f in [field] if f), *group_by]:
        if name not in field_types:
            raise InvalidInput(
                f"unknown field {name!r}; fields of this bucket: {', '.join(sorted(field_types)) or 'none'}"
            )
    if len(group_by) > MAX_GROUP_FIELDS or len(set(group_by)) != len(group_by):
        raise InvalidInput(f"group_by takes up to {MAX_GROUP_FIELDS} distinct fields")
    if function in ("sum", "avg") and field_types[field] not in _NUMERIC:
        raise InvalidInput(f"{function} needs a number field; {field!r} is {field_types[field]}")
    if function in ("min", "max") and field_types[field] not in (*_NUMERIC, "date"):
        raise InvalidInput(f"{function} needs a number or date field; {field!r} is {field_types[field]}")

    params: list[Any] = []
    joins = []
    for i, name in enumerate(group_by):
        joins.append(
            sql.SQL("LEFT JOIN LATERAL jsonb_path_query(a.row -> %s, 'lax $[*]') {} (value) ON TRUE").format(
                sql.Identifier(f"g{i}")
            )
        )
        params.append(name)
    value_expr = sql.SQL("NULL::numeric")
    if field:
        joins.append(sql.SQL("LEFT JOIN LATERAL jsonb_path_query(a.row -> %s, 'lax $[*]') v (value) ON TRUE"))
        params.append(field)
        if field_types[field] in _NUMERIC:
            value_expr = sql.SQL("(CASE WHEN jsonb_typeof(v.value) = 'number' THEN v.value::numeric END)")
        else:
            value_expr = sql.SQL("(v.value #>> '{}')")
    keys = [sql.SQL("lower({}.value #>> '{{}}')").format(sql.Identifier(f"g{i}")) for i in range(len(group_by))]
    shown = [
        sql.SQL("mode() WITHIN GROUP (ORDER BY {}.value #>> '{{}}') AS {}").format(
            sql.Identifier(f"g{i}"), sql.Identifier(f"group_{i}")
        )
        for i in range(len(group_by))
    ]
    measure = (
        sql.SQL("count(DISTINCT a.doc_id)")
        if function == "count"
        else sql.SQL("{}({})").format(sql.SQL(function), value_expr)
    )
    query = sql.SQL(
        "SELECT {shown} count(DISTINCT a.doc_id) AS documents, {measure} AS value"
        " FROM annotations a {joins} WHERE {where} {grouping}"
        " ORDER BY value DESC NULLS LAST"
    ).format(
        shown=sql.SQL("").join(sql.SQL("{}, ").format(c) for c in shown),
        measure=measure,
        joins=sql.SQL(" ").join(joins),
        where=where,
        grouping=sql.SQL("GROUP BY {}").format(sql.SQL(", ").join(keys)) if keys else sql.SQL(""),
    )
    return query, params
