"""What every tool call goes through, whatever the tool: the caller's scope, the argument checks, the bounds and
failures of the engines behind it, and the LangChain tools and schemas a chat model sees.

A second tenant's secret document is never returned, counted or quoted outside its scope; invalid arguments are
`invalid_request` with a reason; envelopes stay under their size bound; a slow engine is `timeout`, a throttled one
`rate_limited` and a closed Postgres `unavailable`, never a crash.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.tool_calls.conftest import SECRET_WORD, call
from tools.context import ToolContext, ToolLimits
from tools.envelope import AggregateGroup, Envelope
from tools.guard import _bounded
from tools.langchain_tools import build_tools
from tools.registry import TOOLS, call_tool


@pytest.fixture(scope="module")
def tenant_b(context):
    return ToolContext(context.stack, scope="tenant_b")


# -- scope isolation ----------------------------------------------------------------------------------


ISOLATION_CALLS = [
    ("search_text", {"bucket": "contracts", "query": SECRET_WORD}),
    ("search_text", {"bucket": "contracts", "query": SECRET_WORD, "doc_id": "tenant-b-secret"}),
    ("search_text", {"bucket": "contracts", "query": SECRET_WORD, "filter": {"doc_id": ["tenant-b-secret"]}}),
    ("search_semantic", {"bucket": "contracts", "query": f"{SECRET_WORD} supply agreement Delaware", "top_k": 50}),
    ("fused_search", {"bucket": "contracts", "query": f"{SECRET_WORD} supply agreement", "top_k": 50}),
    ("annotations_search", {"bucket": "contracts", "predicates": {"parties": {"op": "~", "value": SECRET_WORD}}}),
    (
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "count", "predicates": {"parties": {"op": "~", "value": SECRET_WORD}}},
    ),
    ("get_document_metadata", {"doc_id": "tenant-b-secret"}),
    ("get_document", {"doc_id": "tenant-b-secret"}),
]


@pytest.mark.parametrize(
    "name, arguments", ISOLATION_CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(ISOLATION_CALLS)]
)
def test_another_scope_is_never_seen(context, tenant_b, name, arguments):
    """Outside its scope the secret document is never returned, counted or quoted; inside it, it is found."""
    outside, inside = call(context, name, **arguments), call(tenant_b, name, **arguments)
    assert "tenant-b-secret" not in json.dumps(outside["hits"]) and SECRET_WORD not in json.dumps(outside["hits"])
    assert inside["status"] in ("ok", "low_confidence")
    if name == "annotations_aggregate":
        assert (outside["total"] or {}).get("documents", 0) == 0 and inside["total"]["documents"] == 1
    else:
        assert "tenant-b-secret" in json.dumps(inside["hits"])


def test_scope_cannot_be_set_by_an_argument(context):
    result = call(context, "search_text", bucket="contracts", query=SECRET_WORD, scope="tenant_b")
    assert result["status"] == "invalid_request" and "scope: Extra inputs are not permitted" in result["hint"]


# -- invalid arguments ---------------------------------------------------------------------------------


INVALID = [
    (
        "search_text",
        {"bucket": "recipes", "query": "x"},
        "bucket 'recipes' does not exist; allowed buckets: certificates, contracts",
    ),
    ("search_text", {"query": "x"}, "bucket: Field required"),
    ("search_text", {"bucket": "invoices", "query": "   "}, "query is blank"),
    ("search_text", {"bucket": "invoices", "query": "x" * 5000}, "query: String should have at most 1000 characters"),
    (
        "search_text",
        {"bucket": "invoices", "query": "x", "top_k": 51},
        "top_k: Input should be less than or equal to 50",
    ),
    (
        "search_text",
        {"bucket": "invoices", "query": "x", "top_k": 0},
        "top_k: Input should be greater than or equal to 1",
    ),
    ("search_text", {"bucket": "invoices", "query": "x", "context_chars": 10**6}, "context_chars"),
    (
        "search_text",
        {"bucket": "invoices", "query": "x", "filter": {"created_after": "last tuesday"}},
        "filter.created_after",
    ),
    ("search_text", {"bucket": "invoices", "query": "x", "filter": {"bucket": "receipts"}}, "give the bucket once"),
    (
        "search_text",
        {"bucket": "invoices", "query": "x", "filters": {"colour": {"op": "=", "value": "red"}}},
        "unknown field 'colour'; fields of this bucket:",
    ),
    (
        "search_semantic",
        {"bucket": "invoices", "query": "x", "min_score": 7},
        "min_score: Input should be less than or equal to 1",
    ),
    (
        "annotations_search",
        {"bucket": "contracts", "predicates": {"notice_period_days": {"op": "<", "value": "soon"}}},
        "is a number",
    ),
    (
        "annotations_search",
        {"bucket": "contracts", "predicates": {"agreement_date": {"op": ">", "value": "31/12/2019"}}},
        "YYYY-MM-DD",
    ),
    (
        "annotations_search",
        {"bucket": "contracts", "predicates": {"governing_law": {"op": "<", "value": "A"}}},
        "use one of =, !=, ~, in, not in, exists",
    ),
    (
        "annotations_search",
        {"bucket": "contracts", "predicates": {"governing_law": {"op": "like", "value": "A"}}},
        "predicates.governing_law.op",
    ),
    (
        "annotations_search",
        {"bucket": "contracts", "predicates": {"governing_law' OR 1=1 --": {"op": "=", "value": "x"}}},
        "unknown field",
    ),
    (
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "median(notice_period_days)"},
        "use count, sum(field)",
    ),
    ("annotations_aggregate", {"bucket": "contracts", "aggregate": "sum(governing_law)"}, "sum needs a number field"),
    (
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "count", "group_by": ["a", "b", "c", "d"]},
        "group_by",
    ),
    (
        "annotations_search",
        {"bucket": "contracts", "order_by": {"field": "governing_law"}},
        "cannot order by string field 'governing_law'; number and date fields of this bucket:",
    ),
    (
        "annotations_search",
        {"bucket": "contracts", "order_by": {"field": "agreement_date", "direction": "up"}},
        "order_by.direction: Input should be 'desc' or 'asc'",
    ),
    ("annotations_search", {"bucket": "contracts", "order_by": "agreement_date"}, "order_by: Input should be"),
    ("annotations_search", {"bucket": "contracts", "doc_id": []}, "doc_id: List should have at least 1 item"),
    (
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "count", "doc_id": ["x"] * 1001},
        "doc_id: List should have at most 1000 items",
    ),
    (
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "count", "group_by": ["year(governing_law)"]},
        "year() needs a date field; 'governing_law' is string",
    ),
    (
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "count", "group_by": ["week(agreement_date)"]},
        "group_by entry 'week(agreement_date)' is not understood; give a field name, year(field) or month(field)",
    ),
    (
        "annotations_aggregate",
        {"bucket": "contracts", "aggregate": "count", "group_by": ["month(colour)"]},
        "unknown field 'colour'; fields of this bucket:",
    ),
    (
        "get_document",
        {"doc_id": "sample-invoice-001", "max_chars": 10**7},
        "max_chars: Input should be less than or equal to 20000",
    ),
    ("get_document_metadata", {"doc_id": ""}, "doc_id: String should have at least 1 character"),
]


@pytest.mark.parametrize("name, arguments, reason", INVALID, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(INVALID)])
def test_invalid_arguments_return_invalid_request_with_a_reason(context, name, arguments, reason):
    result = call(context, name, **arguments)
    assert result["status"] == "invalid_request" and reason in result["hint"], result["hint"]
    assert result["hits"] == []


def test_order_and_date_part_refusals_list_the_fields_that_would_do(context):
    catalog = context.stack.store.field_catalog("default", "contracts")
    orderable = ", ".join(sorted({f.name for f in catalog if f.type in ("number", "integer", "date")}))
    dates = ", ".join(sorted({f.name for f in catalog if f.type == "date"}))
    ordered = call(context, "annotations_search", bucket="contracts", order_by={"field": "colour"})
    assert (
        f"cannot order by unknown field 'colour'; number and date fields of this bucket: {orderable}"
        in (ordered["hint"])
    )
    grouped = call(context, "annotations_aggregate", bucket="contracts", aggregate="count", group_by=["year(parties)"])
    assert f"(date fields: {dates})" in grouped["hint"]


def test_unknown_tool_and_non_object_arguments_are_invalid_requests(context):
    assert call_tool("drop_table", {}, context)["status"] == "invalid_request"
    assert call_tool("search_text", ["contracts", "x"], context)["status"] == "invalid_request"


# -- limits and failures --------------------------------------------------------------------------------


def test_envelopes_are_bounded_in_size(context):
    small = ToolContext(context.stack, limits=ToolLimits(max_envelope_chars=3000))
    result = call(small, "search_text", bucket="contracts", query="agreement", top_k=50, context_chars=2000)
    compact = json.dumps(result, ensure_ascii=False, separators=(",", ":"))  # as the bound measures it
    assert len(compact) <= 3000 and result["hits"] and "left out" in result["hint"]
    small.close()


def test_a_long_envelope_keeps_the_most_hits_that_fit():
    # groups of growing size, as an aggregate of thousands of groups returns them
    groups = [AggregateGroup(group={"company": "shop " * (i % 7)}, documents=i, value=i * 1.5) for i in range(3000)]
    bounded = _bounded(Envelope(status="ok", hits=list(groups), total_hits=3000, hint="a hint"), 20_000)
    kept = len(bounded.hits)
    assert 0 < kept < 3000 and bounded.hits == groups[:kept]
    assert len(bounded.model_dump_json()) <= 20_000
    assert bounded.hint.startswith(f"a hint {3000 - kept} hit(s) left out")
    note = bounded.hint.replace(f"{3000 - kept} hit(s)", f"{3000 - kept - 1} hit(s)")
    one_more = bounded.model_copy(update={"hits": groups[: kept + 1], "hint": note})
    assert len(one_more.model_dump_json()) > 20_000


def test_an_engine_call_over_its_timeout_returns_timeout(context):
    hurried = ToolContext(context.stack, limits=ToolLimits(engine_timeout_s=1e-6))
    result = call(hurried, "search_semantic", bucket="contracts", query="notice period before termination")
    assert result["status"] == "timeout" and "did not answer within" in result["hint"]
    hurried.close()


def test_rate_limit_answers_with_when_to_retry(context):
    limited = ToolContext(context.stack, limits=ToolLimits(calls_per_second=0.01))
    assert call(limited, "get_document_metadata", doc_id="sample-invoice-001")["status"] == "ok"
    second = call(limited, "get_document_metadata", doc_id="sample-invoice-001")
    assert second["status"] == "rate_limited" and 99.0 < second["retry_after_s"] <= 100.0
    limited.close()


def test_a_rate_limited_backend_becomes_a_rate_limited_envelope(context):
    from core.errors import RateLimited
    from tools.arguments import DocumentMetadataArgs
    from tools.guard import run_tool

    def throttled(args, ctx):
        raise RateLimited("embeddings endpoint http://x is rate limiting requests", 7.0)

    result = run_tool("get_document_metadata", DocumentMetadataArgs, throttled, {"doc_id": "x"}, context)
    assert result.status == "rate_limited" and result.retry_after_s == 7.0 and "retry after 7 s" in result.hint


def test_an_unreachable_postgres_is_unavailable_not_a_crash(context, database_url):
    from dataclasses import replace

    from retrievers.postgres.store import PostgresStore

    closed = PostgresStore(database_url)
    closed.close()
    broken = ToolContext(replace(context.stack, store=closed))
    for name, arguments in [("annotations_search", {"bucket": "contracts"}), ("get_document", {"doc_id": "x"})]:
        result = call(broken, name, **arguments)
        assert result["status"] == "unavailable" and "Postgres" in result["hint"]
    broken.close()


# -- what a chat model sees ---------------------------------------------------------------------------------


def test_langchain_tools_carry_bucket_enums_fields_examples_and_costs(context):
    tools = {t.name: t for t in build_tools(context)}
    assert set(tools) == set(TOOLS)
    schema = tools["annotations_search"].args_schema.model_json_schema()
    assert set(schema["properties"]["bucket"]["enum"]) == {
        "contracts",
        "invoices",
        "receipts",
        "datasheets",
        "certificates",
        "generic",
    }
    description = tools["annotations_search"].description
    assert "Cost: cheap." in description and "Example:" in description and "Bad at:" in description
    assert re.search(r"notice_period_days: integer list;.* from \d+ to \d+; e\.g\. ", description)
    assert "Cost: expensive." in tools["get_document"].description


def test_every_tool_converts_to_an_openai_function_schema(context):
    from langchain_core.utils.function_calling import convert_to_openai_tool

    for tool in build_tools(context):
        function = convert_to_openai_tool(tool)["function"]
        assert function["name"] == tool.name and function["description"].startswith(tool.description[:40])
        assert (
            "bucket" not in function["parameters"]["properties"]
            or function["parameters"]["properties"]["bucket"]["enum"]
        )


def test_langchain_tool_returns_an_envelope_for_an_enum_violation(context):
    tools = {t.name: t for t in build_tools(context)}
    content = tools["search_text"].invoke({"bucket": "nope", "query": "x"})
    assert json.loads(content)["status"] == "invalid_request" and "bucket" in json.loads(content)["hint"]
    message = tools["search_text"].invoke(
        {
            "type": "tool_call",
            "id": "1",
            "name": "search_text",
            "args": {"bucket": "invoices", "query": "INV-2023-0147"},
        }
    )
    assert (
        message.artifact["status"] == "ok" and json.loads(message.content)["hits"][0]["doc_id"] == "sample-invoice-001"
    )


def test_langchain_schemas_and_descriptions_name_order_by_doc_id_and_date_parts(context):
    tools = {t.name: t for t in build_tools(context)}
    search = tools["annotations_search"].args_schema.model_json_schema()
    assert {"order_by", "doc_id"} <= set(search["properties"])
    assert search["$defs"]["OrderBy"]["properties"]["direction"]["enum"] == ["desc", "asc"]
    assert "doc_id" in tools["annotations_aggregate"].args_schema.model_json_schema()["properties"]
    assert "order_by" in tools["annotations_search"].description
    assert "year(field)" in tools["annotations_aggregate"].description
