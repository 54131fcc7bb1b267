"""Aggregates over annotation rows (`count`, `sum(field)`, `avg`, `min`, `max`, with `group_by`), compiled to SQL.

List values are unnested: `sum(notice_period_days)` adds every listed period, and `group_by: [governing_law]`
puts a contract under each of its laws. So the total over all matching rows is aggregated apart from the groups
(from the same rows, read once): it is not the sum of the groups when a document falls in several groups. Text groups
are case-insensitive (the `=` predicate is too) and show their most common spelling. `count` counts distinct
documents. A group_by entry `year(field)` or `month(field)` groups by the year ("2018") or month ("2018-03") of a
date field instead of by the whole date.
"""

from __future__ import annotations

import math
import re
from typing import Any

from psycopg import sql

from core.errors import InvalidInput
from retrievers.postgres.annotation_filters import shown
from retrievers.postgres.field_catalog import CatalogField

FUNCTIONS = ("count", "sum", "avg", "min", "max")
_NUMERIC = ("number", "integer")
MAX_GROUP_FIELDS = 3
_AGGREGATE = re.compile(r"^\s*(count|sum|avg|min|max)\s*(?:\(\s*([A-Za-z][A-Za-z0-9_]*)?\s*\))?\s*$")
_DATE_PART = re.compile(r"^\s*(year|month)\s*\(\s*([A-Za-z][A-Za-z0-9_]*)\s*\)\s*$")
# How many leading characters of an ISO date (YYYY-MM-DD) a date part keeps.
_DATE_PART_CHARS = {"year": 4, "month": 7}
# Distinct documents, compared byte by byte: the same count under any deterministic collation (the database's must
# be), without the collation's comparisons in the sort that DISTINCT needs (a third of an aggregate's time over
# 200,000 matching rows). The group keys are compared so too (the same groups); their labels keep the database's
# collation. Groups of equal value come in no promised order, as before.
_DOCUMENTS = 'count(DISTINCT a.doc_id COLLATE "C")'
# Up to this many groups (as the catalog counts them), each group's documents are sorted apart: `planner_settings`.
FEW_GROUPS = 10_000


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


def parse_group(entry: str) -> tuple[str, str | None]:
    """'month(date)' -> ('date', 'month'); 'company' -> ('company', None). Only the form is read here; whether
    the field exists and is a date is checked against the catalog by `compile_aggregate`."""
    match = _DATE_PART.match(entry)
    return (match.group(2), match.group(1)) if match else (entry, None)


def _group(i: int, entry: str, field_types: dict[str, str]) -> tuple[str, sql.Composable, sql.Composable]:
    """(field, key, shown) of the i-th group_by entry, read from the join `g<i>`: text groups are case-insensitive
    and show their most common spelling; a date part groups by, and shows, the leading characters of the ISO date."""
    field, part = parse_group(entry)
    dates = ", ".join(sorted(name for name, t in field_types.items() if t == "date")) or "none"
    if part is None and ("(" in entry or ")" in entry):
        raise InvalidInput(
            f"group_by entry {shown(entry)} is not understood; give a field name, year(field) or month(field) "
            f"(date fields of this bucket: {dates})"
        )
    if field not in field_types:
        raise InvalidInput(
            f"unknown field {field!r}; fields of this bucket: {', '.join(sorted(field_types)) or 'none'}"
        )
    if part and field_types[field] != "date":
        raise InvalidInput(f"{part}() needs a date field; {field!r} is {field_types[field]} (date fields: {dates})")
    g = sql.SQL("a.{}").format(sql.Identifier(f"g{i}"))
    if part:
        key = sql.SQL("left({} #>> '{{}}', {})").format(g, sql.Literal(_DATE_PART_CHARS[part]))
        bytewise = sql.SQL('{} COLLATE "C"').format(key)
        return field, bytewise, sql.SQL('({}) COLLATE "default"').format(bytewise)
    return (
        field,
        sql.SQL("lower({} #>> '{{}}') COLLATE \"C\"").format(g),
        sql.SQL("mode() WITHIN GROUP (ORDER BY {} #>> '{{}}')").format(g),
    )


def planner_settings(group_by: list[str], fields: dict[str, CatalogField]) -> dict[str, str]:
    """Postgres planner settings for the aggregate's statement (its connection sets them for that statement alone).

    Counting each group's distinct documents needs them sorted. From Postgres 16 the planner sorts all the rows once
    by (group, document) ("presorted aggregation"); with few groups nearly every comparison then ties on the group
    and goes on to the document, and one sort by the group with a sort of each group's documents apart (a single
    key, which the sort abbreviates) is faster: on a million contracts 20-31% for years, months, contract types and
    5,000 shops, but 9% slower for parties (nearly a group per row), where a sort per group costs more than it
    saves. So it is turned off when the catalog counts few groups. The rows are the same either way; a stale count
    costs time only."""
    estimates = [_groups_estimate(entry, fields) for entry in group_by]
    if not group_by or None in estimates or math.prod(estimates) > FEW_GROUPS:
        return {}
    return {"enable_presorted_aggregate": "off"}


def _groups_estimate(entry: str, fields: dict[str, CatalogField]) -> int | None:
    """How many groups a group_by entry makes, from the catalog: a field's distinct values (and no value); the years
    (or months) its dates span for a date part. None for a field the catalog does not have."""
    field, part = parse_group(entry)
    spec = fields.get(field)
    if spec is None:
        return None
    if part:
        try:
            years = int(str(spec.max)[:4]) - int(str(spec.min)[:4]) + 1
            return (years if part == "year" else 12 * years) + 1
        except ValueError:  # no dates yet: a part has no more values than the dates
            pass
    return spec.distinct_count + 1


def _each_element(source: sql.Composable, keep: list[str], column: str, name: str) -> sql.Composable:
    """`source` with a row per element of its JSON `column` (`lax $[*]`: a list's elements, or the value itself),
    named `name`. The function is called in the select list, where Postgres runs it as the rows stream by (a
    ProjectSet), not as a LATERAL join, which stores each row's elements in a tuplestore of their own (a third
    of an aggregate's time over 200,000 rows). A missing value or an empty list gives one JSON null, where the
    LATERAL LEFT JOIN gave an SQL NULL: every reading of the element (`#>> '{}'`, `jsonb_typeof`) reads both as
    NULL. One function a level: two in one select list would be read in step, not crossed."""
    return sql.SQL(
        "(SELECT {keep}, jsonb_path_query(coalesce(nullif(s.{column}, '[]'::jsonb), 'null'::jsonb), 'lax $[*]')"
        " AS {name} FROM {source} s)"
    ).format(
        keep=sql.SQL(", ").join(sql.SQL("s.{}").format(sql.Identifier(c)) for c in keep),
        column=sql.Identifier(column),
        name=sql.Identifier(name),
        source=source,
    )


def compile_aggregate(
    function: str, field: str | None, group_by: list[str], field_types: dict[str, str], where: sql.Composable
) -> tuple[sql.Composable, list[Any]]:
    """SQL selecting (total, group_0.., documents, value): a row per group of the rows satisfying `where` (alias
    `a`), the largest value first, then the row (total true) over all of them; only that one with no `group_by`.

    The matching rows are read once, into a materialized CTE of the values the aggregate needs, which both the
    groups and the total read: reading the rows is most of an aggregate's cost on a large bucket (they lie all
    over the table), and a query for each read them twice."""
    if field and field not in field_types:
        raise InvalidInput(
            f"unknown field {field!r}; fields of this bucket: {', '.join(sorted(field_types)) or 'none'}"
        )
    if len(group_by) > MAX_GROUP_FIELDS or len(set(group_by)) != len(group_by):
        raise InvalidInput(f"group_by takes up to {MAX_GROUP_FIELDS} distinct fields")
    if function in ("sum", "avg") and field_types[field] not in _NUMERIC:
        raise InvalidInput(f"{function} needs a number field; {field!r} is {field_types[field]}")
    if function in ("min", "max") and field_types[field] not in (*_NUMERIC, "date"):
        raise InvalidInput(f"{function} needs a number or date field; {field!r} is {field_types[field]}")

    groups = [_group(i, entry, field_types) for i, entry in enumerate(group_by)]
    params: list[Any] = [name for name, _, _ in groups]
    columns = [sql.SQL("a.row -> %s AS {}").format(sql.Identifier(f"f{i}")) for i in range(len(groups))]
    value_expr = sql.SQL("NULL::numeric")
    if field:
        columns.append(sql.SQL("a.row -> %s AS measured"))
        params.append(field)
        if field_types[field] in _NUMERIC:
            value_expr = sql.SQL("(CASE WHEN jsonb_typeof(a.v) = 'number' THEN a.v::numeric END)")
        else:
            value_expr = sql.SQL("(a.v #>> '{}')")
    # the rows crossed with the measured field's elements (the total), and with each group's too (the groups)
    measured: sql.Composable = sql.SQL("matching")
    if field:
        measured = _each_element(measured, ["doc_id"], "measured", "v")
    crossed: sql.Composable = sql.SQL("matching")
    carried = ["doc_id", *(f"f{i}" for i in range(len(groups))), *(["measured"] if field else [])]
    for i in range(len(groups)):
        carried.remove(f"f{i}")
        crossed = _each_element(crossed, carried, f"f{i}", f"g{i}")
        carried.append(f"g{i}")
    if field:
        carried.remove("measured")
        crossed = _each_element(crossed, carried, "measured", "v")
    measure = sql.SQL(_DOCUMENTS) if function == "count" else sql.SQL("{}({})").format(sql.SQL(function), value_expr)
    total = sql.SQL(
        "SELECT TRUE AS total, {nulls} {documents} AS documents, {measure} AS value FROM {measured} a"
    ).format(
        nulls=sql.SQL("").join(
            sql.SQL("NULL AS {}, ").format(sql.Identifier(f"group_{i}")) for i in range(len(groups))
        ),
        measure=measure,
        measured=measured,
        documents=sql.SQL(_DOCUMENTS),
    )
    if groups:
        grouped = sql.SQL(
            "SELECT FALSE AS total, {labels} {documents} AS documents, {measure} AS value"
            " FROM {crossed} a GROUP BY {keys} ORDER BY value DESC NULLS LAST"
        ).format(
            labels=sql.SQL("").join(
                sql.SQL("{} AS {}, ").format(label, sql.Identifier(f"group_{i}"))
                for i, (_, _, label) in enumerate(groups)
            ),
            measure=measure,
            documents=sql.SQL(_DOCUMENTS),
            crossed=crossed,
            keys=sql.SQL(", ").join(key for _, key, _ in groups),
        )
        select = sql.SQL("({}) UNION ALL ({})").format(grouped, total)
    else:
        select = total
    query = sql.SQL(
        "WITH matching AS MATERIALIZED (SELECT a.doc_id{columns} FROM annotations a WHERE {where}) {select}"
    ).format(
        columns=sql.SQL("").join(sql.SQL(", {}").format(c) for c in columns),
        where=where,
        select=select,
    )
    return query, params
