"""Annotation predicates (`{field: {op, value}}`) and sort keys, checked against the field catalog and compiled to SQL.

Every value travels as a query parameter; field names are parameters too (`row -> %s`), so no text a
caller supplies is ever spliced into SQL. A field may hold one value or a list of values (a CUAD cell
such as "60 days; 180 days"): `jsonb_path_query(..., 'lax $[*]')` visits the elements of a list and the
value itself otherwise, and a predicate holds when any element satisfies it.
"""

from __future__ import annotations

import math
import reprlib
from datetime import date
from decimal import Decimal
from typing import Any, Literal

from psycopg import sql
from pydantic import BaseModel, ConfigDict

from core.errors import InvalidInput

Op = Literal["=", "!=", ">", ">=", "<", "<=", "~", "in", "not in", "between", "not between", "exists", "missing"]
Bounds = Literal["[]", "[)", "(]", "()"]
"""Which ends a `between` includes, as Postgres's range constructors say it: "[]" both (the default), "()" neither."""


def bound_operators(bounds: str) -> tuple[str, str]:
    """The comparisons a `between` with `bounds` makes of its low and its high end: "[)" -> (">=", "<")."""
    return (">=" if bounds[0] == "[" else ">"), ("<=" if bounds[1] == "]" else "<")


def bounds_of(above: str, below: str) -> str:
    """The `bounds` of a range whose ends are compared by `above` and `below` (">", "<=" -> "(]")."""
    return ("[" if above == ">=" else "(") + ("]" if below == "<=" else ")")


OPS_BY_TYPE: dict[str, tuple[str, ...]] = {
    "string": ("=", "!=", "~", "in", "not in", "exists", "missing"),
    "number": ("=", "!=", ">", ">=", "<", "<=", "in", "not in", "between", "not between", "exists", "missing"),
    "integer": ("=", "!=", ">", ">=", "<", "<=", "in", "not in", "between", "not between", "exists", "missing"),
    "date": ("=", "!=", ">", ">=", "<", "<=", "in", "not in", "between", "not between", "exists", "missing"),
    "boolean": ("=", "!=", "exists", "missing"),
}
ORDERABLE = ("number", "integer", "date")
_COMPARISONS = {"=", ">", ">=", "<", "<="}
_SHORT = reprlib.Repr()
_SHORT.maxstring = _SHORT.maxother = 80


def shown(value: Any) -> str:
    """A caller's value as a message quotes it: a repr cut to about 80 characters, so that a huge or deeply
    nested value does not come back whole in the reason it was refused."""
    return _SHORT.repr(value)


def unstorable(text: str) -> str | None:
    """Why Postgres cannot take `text`, or None: its text holds no NUL, and the driver cannot encode unpaired
    surrogates. Such a value can match nothing stored, so it is refused before it reaches the driver."""
    if "\x00" in text:
        return "contains a NUL (\\x00) character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid Unicode text (it has an unpaired surrogate)"
    return None


class Predicate(BaseModel):
    """One condition on an annotation field."""

    model_config = ConfigDict(extra="forbid")

    field: str
    op: Op
    value: Any = None
    bounds: Bounds = "[]"


def _scalar(field: str, ftype: str, value: Any) -> Any:
    """The value as the type the field holds, or an InvalidInput that says what was expected."""
    if ftype in ("number", "integer"):
        number = value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            try:
                number = float(str(value).replace(",", ""))
            except ValueError:
                raise InvalidInput(f"field {field!r} is a number; {shown(value)} is not a number") from None
        if not math.isfinite(number):  # NaN compares false with everything, and 1e400 is read as infinity
            raise InvalidInput(f"field {field!r} is a number; {shown(value)} is not a finite number")
        return number
    if ftype == "date":
        try:
            return date.fromisoformat(str(value)).isoformat()
        except ValueError:
            raise InvalidInput(f"field {field!r} is a date; give {shown(value)} as YYYY-MM-DD") from None
    if ftype == "boolean":
        if isinstance(value, bool):
            return value
        if str(value).lower() in ("true", "yes"):
            return True
        if str(value).lower() in ("false", "no"):
            return False
        raise InvalidInput(f"field {field!r} is true/false; {shown(value)} is neither")
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise InvalidInput(f"field {field!r} is text; give a string, not {type(value).__name__}")
    if problem := unstorable(str(value)):
        raise InvalidInput(f"the value for field {field!r} {problem}")
    return str(value)


def _element_test(ftype: str, op: str, bounds: str = "[]") -> sql.Composable:
    """SQL that tests one element `x` (a jsonb value) against the parameter(s) that follow."""
    above, below = bound_operators(bounds)
    if ftype in ("number", "integer"):
        # a CASE, not `jsonb_typeof(x) = 'number' AND x::numeric ...`: the planner may reorder an AND, and a cast
        # of a boolean or text element then fails the whole statement
        number = "(CASE WHEN jsonb_typeof(x) = 'number' THEN x::numeric END)"
        target = sql.SQL(f"({number} {{}} %s)")
        array_target = sql.SQL(f"({number} = ANY(%s::numeric[]))")
        between = sql.SQL(f"({number} {above} %s AND {number} {below} %s)")
    elif ftype == "date":
        target = sql.SQL("((x #>> '{{}}') {} %s)")
        array_target = sql.SQL("((x #>> '{}') = ANY(%s::text[]))")
        between = sql.SQL(f"((x #>> '{{}}') {above} %s AND (x #>> '{{}}') {below} %s)")
    elif ftype == "boolean":
        return sql.SQL("(x = to_jsonb(%s::boolean))")
    else:
        if op == "~":
            return sql.SQL("(strpos(lower(x #>> '{}'), lower(%s)) > 0)")
        target = sql.SQL("(lower(x #>> '{{}}') {} lower(%s))")
        array_target = sql.SQL("(lower(x #>> '{}') = ANY(%s::text[]))")
        between = sql.SQL("")
    if op in ("in", "not in"):
        return array_target
    if op in ("between", "not between"):
        return between
    return target.format(sql.SQL("=" if op == "!=" else op))


def index_condition(
    field: str,
    ftype: str,
    op: str,
    value_params: list[Any],
    row_alias: str,
    exact_test: tuple[sql.Composable, list[Any]] | None = None,
) -> tuple[sql.Composable, list[Any]] | None:
    """A condition implied by the predicate, written over the expressions `annotation_indexes` indexes, so that
    Postgres can find the candidate rows through an index; None when no index serves the operator. Text: its
    lowercased elements contain the value (`=`) or share one with the values (`in`). Numbers and dates: the largest
    element passes a lower bound and the smallest an upper bound; a range holds the largest or the smallest element,
    or lies between them (see `annotation_indexes` for the indexes of each case).

    `exact_test`, given for a range, is the predicate's exact test, added to the third case only (a list of spread
    values may have no element in the range): the condition is then exact, and `is_exact` says whether the exact test
    is still needed beside it.

    The field travels as a parameter like every other caller value; the store plans each statement with its values
    (no generic plans), which is what lets `fn(row -> $1)` match the index on `fn(row -> 'field')`."""
    row = sql.SQL("{}.row").format(sql.Identifier(row_alias))

    def on(function: str) -> tuple[sql.Composable, list[Any]]:
        return sql.SQL("{}({} -> %s)").format(sql.Identifier(function), row), [field]

    if ftype == "string":
        texts, texts_params = on("ragent_texts")
        if op == "=":
            return sql.SQL("{} @> ARRAY[lower(%s::text)]").format(texts), [*texts_params, *value_params]
        if op == "in":
            return sql.SQL("{} && %s::text[]").format(texts), [*texts_params, *value_params]
        return None
    if ftype not in ("number", "integer", "date"):
        return None
    suffix, cast = ("text", sql.SQL("text")) if ftype == "date" else ("number", sql.SQL("numeric"))
    largest, smallest = on(f"ragent_max_{suffix}")[0], on(f"ragent_min_{suffix}")[0]
    if op in (">", ">="):
        return sql.SQL("{} {} %s::{}").format(largest, sql.SQL(op), cast), [field, *value_params]
    if op in ("<", "<="):
        return sql.SQL("{} {} %s::{}").format(smallest, sql.SQL(op), cast), [field, *value_params]
    if op in ("=", "between"):
        low, high = (value_params * 2)[:2] if op == "=" else value_params
        in_range = sql.SQL("{} BETWEEN %s::{c} AND %s::{c}")
        test, test_params = exact_test or (sql.SQL("TRUE"), [])
        # the third case: a list of spread values whose smallest is below the range and largest above it
        condition = sql.SQL("({} OR {} OR ({} < %s::{c} AND {} > %s::{c} AND {}))").format(
            in_range.format(largest, c=cast),
            in_range.format(smallest, c=cast),
            on(f"ragent_spread_min_{suffix}")[0],
            largest,
            test,
            c=cast,
        )
        return condition, [field, low, high, field, low, high, field, low, field, high, *test_params]
    return None


def is_exact(ftype: str, op: str, value_params: list[Any]) -> bool:
    """Whether `index_condition` (given the exact test for a range) holds exactly when the predicate does, so that
    the exact test, a JSON path query per row, can be left out: the answers are the same, and a row the indexes
    found is not parsed again.

    Text `=` and `in`: `ragent_texts` is the lowercased text of each element the exact test visits (`lax $[*]` and
    `jsonb_array_elements` visit the same ones), compared with the same lowercased values. Dates: ISO text whose
    largest (smallest) element passes a bound exactly when some element does, in the same text order. Numbers: the
    same, but only for whole-number values. A Python float travels as float8, and the exact test `x::numeric > %s`
    then compares in float8 while the index condition casts the value to numeric; the two differ past 15
    significant digits, so a fractional bound keeps its exact test."""
    if ftype == "string":
        return op in ("=", "in")
    if ftype == "date":
        return op in ("=", "between", ">", ">=", "<", "<=")
    if ftype in ("number", "integer"):
        values = value_params[0] if op == "in" else value_params
        return op in ("=", "between", ">", ">=", "<", "<=") and all(
            isinstance(v, int) and not isinstance(v, bool) for v in values
        )
    return False


def compile_predicates(
    predicates: list[Predicate], field_types: dict[str, str], row_alias: str = "a", *, index_conditions: bool = True
) -> tuple[sql.Composable, list[Any]]:
    """AND of the predicates over one annotation row, with the parameters in order: each predicate's exact test,
    its `index_condition` beside it, or the condition alone where it is exact (`is_exact`). With `index_conditions`
    false, the exact tests alone: what the answers mean, which the tests compare the indexed form with.

    `field_types` maps each field of the bucket's catalog to its type; any other field is refused with
    the list of fields that exist.
    """
    clauses: list[sql.Composable] = []
    params: list[Any] = []
    row = sql.SQL("{}.row").format(sql.Identifier(row_alias))
    for p in predicates:
        if p.field not in field_types:
            known = ", ".join(sorted(field_types)) or "none"
            raise InvalidInput(f"unknown field {p.field!r}; fields of this bucket: {known}")
        ftype = field_types[p.field]
        if p.op not in OPS_BY_TYPE[ftype]:
            raise InvalidInput(
                f"operator {p.op!r} does not apply to {ftype} field {p.field!r}; "
                f"use one of {', '.join(OPS_BY_TYPE[ftype])}"
            )
        if p.op == "exists":
            clauses.append(sql.SQL("(coalesce(jsonb_typeof({} -> %s), 'null') <> 'null')").format(row))
            params.append(p.field)
            continue
        if p.op == "missing":  # no value, as coverage counts it: absent, null or an empty list
            clauses.append(
                sql.SQL("(coalesce(jsonb_typeof({0} -> %s), 'null') = 'null' OR {0} -> %s = '[]')").format(row)
            )
            params += [p.field, p.field]
            continue
        if p.bounds != "[]" and p.op not in ("between", "not between"):
            raise InvalidInput(
                f"bounds apply to 'between' only; {p.op!r} on {p.field!r} already says whether its end is included"
            )
        test = _element_test(ftype, p.op, p.bounds)
        if p.op in ("in", "not in"):
            if not isinstance(p.value, list) or not p.value:
                raise InvalidInput(f"operator {p.op!r} on {p.field!r} takes a non-empty list of values")
            values = [_scalar(p.field, ftype, v) for v in p.value]
            if ftype == "string":
                values = [v.lower() for v in values]
            elif ftype in ("number", "integer"):
                values = [Decimal(str(v)) for v in values]  # one type: psycopg refuses a list mixing int and float
            value_params: list[Any] = [values]
        elif p.op in ("between", "not between"):
            if not isinstance(p.value, list) or len(p.value) != 2:
                raise InvalidInput(f"operator {p.op!r} on {p.field!r} takes [low, high]")
            value_params = [_scalar(p.field, ftype, v) for v in p.value]
        else:
            if isinstance(p.value, (list, dict)) or p.value is None:
                raise InvalidInput(f"operator {p.op!r} on {p.field!r} takes one value")
            value_params = [_scalar(p.field, ftype, p.value)]
        exists = sql.SQL("EXISTS (SELECT 1 FROM jsonb_path_query({} -> %s, 'lax $[*]') AS v(x) WHERE {})").format(
            row, test
        )
        if p.op in ("!=", "not in", "not between"):  # the field is there and none of its values is one named
            clauses.append(sql.SQL("({} ? %s AND NOT {})").format(row, exists))
            params += [p.field, p.field, *value_params]
            continue
        # an excluded end: the index condition (both ends included) finds a superset, the exact test excludes it
        exact = index_conditions and p.bounds == "[]" and is_exact(ftype, p.op, value_params)
        indexed = index_conditions and index_condition(
            p.field, ftype, p.op, value_params, row_alias, (exists, [p.field, *value_params]) if exact else None
        )
        if not (indexed and exact):
            clauses.append(exists)
            params += [p.field, *value_params]
        if indexed:
            clauses.append(indexed[0])
            params += indexed[1]
    return (sql.SQL(" AND ").join(clauses) if clauses else sql.SQL("TRUE")), params


def compile_order(
    field: str, descending: bool, field_types: dict[str, str], row_alias: str = "a"
) -> tuple[sql.Composable, list[Any]]:
    """The value a row is sorted by, with its parameter: the row's largest value of `field` when sorting
    descending and its smallest when ascending (a list field holds several), NULL when the row has none.

    Only number and date fields have an order worth asking for ("the biggest total", "the oldest contract");
    dates are ISO text, so their text order is their date order.
    """
    if field_types.get(field) not in ORDERABLE:
        what = f"{field_types[field]} field" if field in field_types else "unknown field"
        orderable = ", ".join(sorted(name for name, t in field_types.items() if t in ORDERABLE)) or "none"
        raise InvalidInput(f"cannot order by {what} {field!r}; number and date fields of this bucket: {orderable}")
    if field_types[field] == "date":
        element = sql.SQL("x #>> '{}'")
        kind = "string"
    else:
        element = sql.SQL("x::numeric")
        kind = "number"
    key = sql.SQL(
        "(SELECT {}({}) FROM jsonb_path_query({}.row -> %s, 'lax $[*]') AS v(x) WHERE jsonb_typeof(x) = {})"
    ).format(sql.SQL("max" if descending else "min"), element, sql.Identifier(row_alias), sql.Literal(kind))
    return key, [field]
