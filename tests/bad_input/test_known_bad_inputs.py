"""Known bad inputs, one case each, that once broke a tool or the field catalog.

A `scope` argument, text no engine can take (NUL, lone surrogates), numbers that are not finite and huge arguments
are refused as `invalid_request` with a short reason a model can read, never as an internal error; whole and
fractional numbers in one `in` list are taken; and a text value in a field declared a number leaves the catalog
the range of the numbers. Hostile arguments drawn at random are tests/bad_input/test_hostile_tool_arguments.py's.
"""

from __future__ import annotations

from collections import Counter

import pytest

from core.models import FieldSpec
from retrievers.postgres.field_catalog import build_field
from tests.bad_input.conftest import HINT_CHARS_MAX
from tests.bad_input.hostile_argument_strategies import SEARCH_TOOLS
from tools.registry import TOOLS, call_tool

VALID = {
    **{tool: {"bucket": "contracts", "query": "notice period"} for tool in SEARCH_TOOLS},
    "annotations_search": {"bucket": "contracts"},
    "annotations_aggregate": {"bucket": "contracts", "aggregate": "count"},
    "get_document_metadata": {"doc_id": "sample-contract-001"},
    "get_document": {"doc_id": "sample-contract-001"},
}


@pytest.mark.parametrize("tool", list(TOOLS))
def test_every_tool_refuses_a_scope_argument_and_says_so(context, tool):
    """The scope comes from the runtime alone; a model told (or tricked) to pass one learns it cannot."""
    assert call_tool(tool, VALID[tool], context)["status"] in ("ok", "low_confidence")
    for scope in ("tenant_b", "'; DROP TABLE documents; --", {"$ne": None}, ["default", "tenant_b"]):
        result = call_tool(tool, VALID[tool] | {"scope": scope}, context)
        assert result["status"] == "invalid_request" and "scope: Extra inputs are not permitted" in result["hint"], (
            result
        )


REFUSED_NOT_FAILED = [
    ("get_document", {"doc_id": "sample-invoice-001\x00"}, "doc_id: Value error, contains a NUL (\\x00) character"),
    ("get_document_metadata", {"doc_id": "\x00"}, "doc_id: Value error, contains a NUL (\\x00) character"),
    (
        "annotations_search",
        {"bucket": "contracts", "predicates": {"governing_law": {"op": "=", "value": "Dela\x00ware"}}},
        "the value for field 'governing_law' contains a NUL (\\x00) character",
    ),
    (
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "count", "predicates": {"parties": {"op": "~", "value": "\ud800"}}},
        "the value for field 'parties' is not valid Unicode text (it has an unpaired surrogate)",
    ),
    (
        "search_text",
        {"bucket": "contracts", "query": "notice", "filters": {"governing_law": {"op": "in", "value": ["x\x00"]}}},
        "the value for field 'governing_law' contains a NUL",
    ),
    (
        "search_text",
        {"bucket": "contracts", "query": "notice", "filter": {"author": ["\ud800"]}},
        "filter.author.0: Value error, is not valid Unicode text",
    ),
    (
        "search_semantic",
        {"bucket": "contracts", "query": "notice", "filter": {"tags": ["a\udfff"]}},
        "filter.tags.0: Value error, is not valid Unicode text",
    ),
]


@pytest.mark.parametrize(
    "tool, arguments, reason", REFUSED_NOT_FAILED, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(REFUSED_NOT_FAILED)]
)
def test_text_no_engine_can_take_is_refused_not_an_internal_error(context, tool, arguments, reason):
    """A NUL or an unpaired surrogate once reached Postgres or Tantivy, which raised, and the agent read
    `unavailable: internal error`: a model would retry or give up instead of fixing its argument."""
    result = call_tool(tool, arguments, context)
    assert result["status"] == "invalid_request" and reason in result["hint"], result["hint"]


@pytest.mark.parametrize("value", [float("nan"), float("inf"), "1e400", "-inf", [1, float("nan")]])
def test_a_number_that_is_not_finite_is_refused_not_matched_by_nothing(context, value):
    """NaN compares false with everything and 1e400 reads as infinity: both once gave 0 rows, as if none matched."""
    op = "between" if isinstance(value, list) else ">"
    result = call_tool(
        "annotations_search",
        {"bucket": "contracts", "predicates": {"notice_period_days": {"op": op, "value": value}}},
        context,
    )
    assert result["status"] == "invalid_request" and "is not a finite number" in result["hint"], result


def test_in_takes_whole_and_fractional_numbers_together(context):
    """psycopg refuses to send a list mixing int and float, so `in: [30, 60.0]` was an internal error."""

    def doc_ids(condition: dict) -> set[str]:
        result = call_tool(
            "annotations_search",
            {"bucket": "contracts", "predicates": {"notice_period_days": condition}, "top_k": 50},
            context,
        )
        assert result["status"] in ("ok", "no_results"), result["hint"]
        return {h["doc_id"] for h in result["hits"]}

    together = doc_ids({"op": "in", "value": [30, 60.0]})
    assert together and together == doc_ids({"op": "=", "value": 30}) | doc_ids({"op": "=", "value": 60})


HUGE = "x" * 300_000
ECHOING = [
    ("search_text", {"bucket": "contracts", "query": "notice", HUGE: 1}),
    ("annotations_search", {"bucket": "contracts", "predicates": {HUGE: {"op": "exists"}}}),
    ("annotations_search", {"bucket": "contracts", "predicates": {"governing_law": {"op": "~", "value": HUGE}}}),
    ("annotations_search", {"bucket": "contracts", "predicates": {"notice_period_days": {"op": "<", "value": HUGE}}}),
    ("annotations_aggregate", {"bucket": "contracts", "aggregate": "count", "group_by": [HUGE]}),
    ("search_text", {"bucket": HUGE, "query": "notice"}),
    ("search_text", {"bucket": "contracts", "query": "\u202e" * 1000}),
    ("get_document", {"doc_id": "sample-invoice-001", **{f"unknown_{i}": i for i in range(1000)}}),
]


@pytest.mark.parametrize("tool, arguments", ECHOING, ids=[f"{t}-{i}" for i, (t, _) in enumerate(ECHOING)])
def test_a_reason_quotes_a_huge_argument_in_short(context, tool, arguments):
    """Reasons quote the argument they refuse; a 300 KB key or value once came back whole, in an envelope
    meant to stay under its size bound, and a thousand unknown keys gave a reason of a thousand parts."""
    result = call_tool(tool, arguments, context)
    assert result["status"] in ("invalid_request", "no_results") and len(result["hint"]) <= HINT_CHARS_MAX, len(
        result["hint"]
    )


def test_a_field_declared_a_number_that_holds_a_text_value_still_gets_its_range():
    """A loader's spec says `total` is a number; one row says "n/a". The catalog (refreshed after every ingest)
    used to fail comparing the text with the numbers; the range is the numbers'."""
    counts = Counter({12.5: 3, 40: 1, "n/a": 2})
    field = build_field("receipt", "total", counts, 6, False, FieldSpec(name="total", type="number"))
    assert (field.min, field.max, field.distinct_count) == (12.5, 40, 3)
    dates = Counter({"2019-03-01": 1, "2018-01-31": 1, "unknown": 1})
    field = build_field("contract", "effective_date", dates, 3, False, FieldSpec(name="effective_date", type="date"))
    assert (field.min, field.max) == ("2018-01-31", "2019-03-01")
