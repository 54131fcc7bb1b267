"""Hostile, malformed and random arguments for every tool, on the sample corpus (issue: reliability and security).

Whatever a model (or a prompt injection steering one) puts in a tool call, the tool must answer with an envelope
and never raise; refuse bad arguments as `invalid_request` with a reason a model can read; build no SQL from a
value; write nothing; and never widen the caller's scope. Every statement psycopg is asked to run during a call
is captured, so the SQL claims are checked on what reached Postgres, not on what the code looks like.

What reaches SQL: values and field names travel as query parameters (`row -> %s`); the only caller-chosen SQL
text is an aggregate function name, which must match the closed list count/sum/avg/min/max first; aliases
(`a`, `g0`, `group_0`) are generated `sql.Identifier`s. The last test prints the inputs tried per tool.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import cached_property, wraps
from typing import Any
from unittest.mock import patch

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg import sql
from pydantic import ValidationError

from core.models import Document, FieldSpec
from retrievers.loaders import sample
from retrievers.postgres.annotation_aggregates import FUNCTIONS
from retrievers.postgres.annotation_filters import OPS_BY_TYPE, Op
from retrievers.postgres.field_catalog import CatalogField, build_field
from retrievers.postgres.schema import DEFAULT_BUCKETS
from tools.arguments import Condition, Filter
from tools.context import ToolContext
from tools.envelope import Envelope, Status
from tools.registry import TOOLS, call_tool

TARGETED_EXAMPLES = 1200
"""Arguments shaped like the tool's own, with hostile parts, per tool."""
RANDOM_EXAMPLES = 150
"""Fully random JSON-like arguments, per tool."""
ELSEWHERE_EXAMPLES = 150
"""Targeted arguments in a scope that holds no document, per tool."""

REPRODUCIBLE = settings(
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
EMPTY_SCOPE = "tenant_without_documents"
SEARCH_TOOLS = ("search_text", "search_semantic", "fused_search")
HEALTHY_STATUSES = {"ok", "no_results", "low_confidence", "invalid_request"}
"""On a healthy stack with no rate limit, any other status is an internal error reported as a failing source."""
HINT_CHARS_MAX = 2000
ENVELOPE_SLACK_CHARS = 300
"""The size bound drops hits, then adds a note saying so and the time taken: a few hundred characters over at most."""
INTERNALS = (
    "Traceback",
    'File "',
    " object at 0x",
    "<class '",
    "Predicate(",
    "Condition(",
    "Decimal(",
    "psycopg",
    "pydantic_core",
)
WRITES = re.compile(
    r"\b(INSERT|UPDATE|DELETE|MERGE|CREATE|DROP|ALTER|TRUNCATE|COPY|GRANT|REVOKE|VACUUM)\b", re.IGNORECASE
)
CHECKED_TEXT_MIN_CHARS = 6
"""Shorter values ('%s', 'a', 'min') occur in any SQL by chance; longer ones appear there only if spliced in."""
ARGUMENT_NAMES = {
    name for model in (*(t.arguments for t in TOOLS.values()), Filter, Condition) for name in model.model_fields
}
"""The tools' own argument names ('doc_id', 'bucket') name columns too; as keys of a call they are not values.
Likewise the catalog's field names ('description'): those travel as parameters, which the first test checks."""

SAMPLE = list(sample.load())
DOC_BUCKETS = {s.document.doc_id: s.document.bucket for s in SAMPLE}
"""Every sample document is in the default scope: a hit outside this map comes from another scope."""

BUCKETS = sorted(DEFAULT_BUCKETS)
OPS = list(Op.__args__)

# -- strategies --------------------------------------------------------------------------------------------

SQL_AND_TEXT_PAYLOADS = [
    "'; DROP TABLE documents; --",
    '"; DELETE FROM annotations WHERE true; --',
    "x' OR '1'='1",
    "1) OR (1=1",
    "governing_law' OR 1=1 --",
    "count(*) FROM documents; TRUNCATE chunks; --",
    "sum(total)); DROP TABLE buckets; --",
    "1; SELECT pg_sleep(30)",
    "%s",
    "%(scope)s",
    "%%s",
    "$1",
    "\\",
    "\\'",
    "''",
    '"',
    "`",
    ";",
    "--",
    "a.row -> 'x'",
    "lax $[*]",
    "#>> '{}'",
    "{}",
    "[]",
    "null",
    "NaN",
    "Infinity",
    "1e309",
    "-0",
    "\x00",
    "nul\x00inside",
    "\u202eevil\u202c",
    "\u200f\u0645\u0631\u062d\u0628\u0627",
    "😀🔥💥",
    "\ud800",
    "lone\udfffsurrogate",
    "contracts\x00",
    " contracts",
    "CONTRACTS",
    "contracts; --",
    "default",
    "tenant_b",
    "scope",
]
UNKNOWN_KEYS = ["scope", "tenant", "workspace", "__class__", "sql", "limit"]
QUERIES = ["notice period", "INV-2023-0147", "governing law of Delaware", "RoHS compliant regulator", "total paid"]
BAD_AGGREGATES = ["count()", "median(total)", "sum", "sum(governing_law)", "count(*)", "COUNT", "max(a) FROM documents"]
BAD_BOUNDS = [
    0,
    -1,
    51,
    10**6,
    2**31,
    2**63,
    -(2**63) - 1,
    10**100,
    float("nan"),
    float("inf"),
    float("-inf"),
    1e308,
    True,
    False,
]
MISSING = object()
BAD_ONE_TIME_IN = 8


def _repeated(unit: str, chars: int) -> str:
    return (unit * (chars // len(unit) + 1))[:chars]


def _nested(leaf: Any, depth: int, container: str) -> Any:
    """`depth` levels of lists or dicts around `leaf`, built without recursion."""
    value = leaf
    for _ in range(depth):
        value = [value] if container == "list" else {container: value}
    return value


def usually(valid: st.SearchStrategy, bad: st.SearchStrategy) -> st.SearchStrategy:
    """`valid` seven times in eight: a bad part in a call whose other parts are valid reaches deeper code than a
    call bad all over, which the argument models refuse at once."""
    return st.integers(1, BAD_ONE_TIME_IN).flatmap(lambda pick: bad if pick == 1 else valid)


long_text = st.builds(
    _repeated, st.sampled_from(["x", "😀", "\u202e", "'; DROP TABLE documents; --"]), st.integers(1_000, 300_000)
)
odd_characters = st.text(st.characters(categories=["Cs", "Cf", "Cc", "Zs", "Lo", "So"]), min_size=1, max_size=30)
hostile_text = st.one_of(st.sampled_from(SQL_AND_TEXT_PAYLOADS), st.text(max_size=40), odd_characters, long_text)
numbers = st.one_of(st.integers(), st.floats(), st.booleans(), st.sampled_from(BAD_BOUNDS))
scalars = st.one_of(st.none(), numbers, hostile_text)
json_like = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(hostile_text, inner, max_size=4), max_leaves=12
)
deeply_nested = st.builds(
    _nested, scalars, st.integers(50, 500), st.sampled_from(["list", "op", "value", "scope", "bucket"])
)
anything = st.one_of(hostile_text, numbers, json_like, deeply_nested)
absent_or_anything = st.just(MISSING) | anything
unknown_keys = usually(
    st.just({}), st.dictionaries(st.sampled_from(UNKNOWN_KEYS) | hostile_text, anything, min_size=1, max_size=2)
)
bad_counts = st.integers(-10, 10**9) | numbers | anything
dates = usually(
    st.dates().map(str), st.sampled_from(["9999-12-31", "0001-01-01", "2020-02-30", "last tuesday"]) | anything
)


def arguments(
    required: dict[str, st.SearchStrategy], optional: dict[str, st.SearchStrategy]
) -> st.SearchStrategy[dict]:
    """Arguments with the required ones (which a draw may leave out as MISSING), some optional ones, and now
    and then keys no tool takes, `scope` among them."""
    drawn = st.fixed_dictionaries(required, optional=optional).map(
        lambda a: {k: v for k, v in a.items() if v is not MISSING}
    )
    return st.builds(lambda a, extra: a | extra, drawn, unknown_keys)


def condition(f: CatalogField) -> st.SearchStrategy[dict]:
    """A condition valid for the field: an operator its type takes and values drawn from its own examples."""
    one = st.sampled_from([v for v in f.examples if v is not None] or ["x"])
    by_op = {
        "exists": st.just({"op": "exists"}),
        "in": st.lists(one, min_size=1, max_size=3).map(lambda values: {"op": "in", "value": values}),
        "between": st.lists(one, min_size=2, max_size=2).map(lambda pair: {"op": "between", "value": sorted(pair)}),
        "~": one.map(lambda value: {"op": "~", "value": str(value)[:8]}),
    }
    return st.sampled_from(OPS_BY_TYPE[f.type]).flatmap(
        lambda op: by_op[op] if op in by_op else one.map(lambda value: {"op": op, "value": value})
    )


def bad_condition(f: CatalogField) -> st.SearchStrategy:
    """A hostile operator, a hostile value under any operator, an unknown key, or no condition at all."""
    return st.one_of(
        st.builds(lambda op, c: c | {"op": op}, anything, condition(f)),
        st.builds(lambda op, value: {"op": op, "value": value}, st.sampled_from(OPS), anything),
        st.builds(lambda c, value: c | {"value": value}, condition(f), st.lists(scalars, min_size=1, max_size=4)),
        st.builds(lambda c, scope: c | {"scope": scope}, condition(f), anything),
        anything,
    )


def predicates(fields: list[CatalogField]) -> st.SearchStrategy:
    """Predicates on fields of one row kind (as a query takes them), with hostile field names, operators and values
    mixed in."""
    on_a_field = st.sampled_from(fields).flatmap(
        lambda f: st.tuples(st.just(f.name), usually(condition(f), bad_condition(f)))
    )
    on_a_hostile_name = st.tuples(hostile_text, st.sampled_from(fields).flatmap(condition) | anything)
    return usually(st.lists(usually(on_a_field, on_a_hostile_name), min_size=1, max_size=3).map(dict), anything)


@dataclass(frozen=True)
class Corpus:
    """What valid predicates and aggregates are drawn from: the sample corpus's field catalog."""

    fields: dict[str, dict[str, list[CatalogField]]]
    """bucket -> row kind -> fields"""

    @cached_property
    def vocabulary(self) -> set[str]:
        """Names of the tools' arguments and of the catalog's fields: a closed set, which SQL may share by chance."""
        return ARGUMENT_NAMES | {f.name for kinds in self.fields.values() for fields in kinds.values() for f in fields}

    def bucket_and_fields(self) -> st.SearchStrategy[tuple[str, list[CatalogField]]]:
        pairs = [(bucket, fields) for bucket, kinds in sorted(self.fields.items()) for fields in kinds.values()]
        return st.sampled_from(pairs)


def _documents(bucket: str) -> list[Document]:
    return [s.document for s in SAMPLE if s.document.bucket == bucket]


def search_filter(bucket: str) -> st.SearchStrategy:
    documents = _documents(bucket)
    authors = sorted({d.author for d in documents if d.author}) or ["nobody"]
    tags = sorted({t for d in documents for t in d.tags}) or ["none"]
    ids = [d.doc_id for d in documents]
    some_hostile = st.lists(hostile_text, min_size=1, max_size=3) | anything
    valid = st.fixed_dictionaries(
        {},
        optional={
            "bucket": usually(st.just(bucket), anything),
            "author": usually(st.lists(st.sampled_from(authors), min_size=1, max_size=2), some_hostile),
            "tags": usually(st.lists(st.sampled_from(tags), max_size=1), some_hostile),
            "created_after": dates,
            "created_before": dates,
            "doc_id": usually(
                st.lists(st.sampled_from(ids), min_size=1, max_size=3),
                st.lists(hostile_text | anything, min_size=1, max_size=3) | anything,
            ),
        },
    )
    return usually(valid, anything | st.builds(lambda f, scope: f | {"scope": scope}, valid, anything))


def search_arguments(corpus: Corpus, tool: str) -> st.SearchStrategy[dict]:
    def for_bucket(bucket: str, fields: list[CatalogField]) -> st.SearchStrategy[dict]:
        semantic = {"min_score": usually(st.floats(-1, 1), bad_counts)} if tool == "search_semantic" else {}
        return arguments(
            {
                "bucket": usually(st.just(bucket), absent_or_anything),
                "query": usually(st.sampled_from(QUERIES), absent_or_anything),
            },
            {
                "top_k": usually(st.integers(1, 50), bad_counts),
                "context_chars": usually(st.integers(50, 2000), bad_counts),
                "doc_id": usually(st.sampled_from([d.doc_id for d in _documents(bucket)]), hostile_text | anything),
                "filter": search_filter(bucket),
                "filters": predicates(fields),
                **semantic,
            },
        )

    return corpus.bucket_and_fields().flatmap(lambda pair: for_bucket(*pair))


def annotations_search_arguments(corpus: Corpus) -> st.SearchStrategy[dict]:
    def for_bucket(bucket: str, fields: list[CatalogField]) -> st.SearchStrategy[dict]:
        return arguments(
            {"bucket": usually(st.just(bucket), absent_or_anything)},
            {"predicates": predicates(fields), "top_k": usually(st.integers(1, 50), bad_counts)},
        )

    return corpus.bucket_and_fields().flatmap(lambda pair: for_bucket(*pair))


def annotations_aggregate_arguments(corpus: Corpus) -> st.SearchStrategy[dict]:
    def for_bucket(bucket: str, fields: list[CatalogField]) -> st.SearchStrategy[dict]:
        names = [f.name for f in fields]
        numeric = [f.name for f in fields if f.type in ("number", "integer")]
        ordered = numeric + [f.name for f in fields if f.type == "date"]
        valid = [
            "count",
            *(f"{fn}({n})" for fn in ("sum", "avg") for n in numeric),
            *(f"{fn}({n})" for fn in ("min", "max") for n in ordered),
        ]
        bad = (
            st.sampled_from(BAD_AGGREGATES)
            | st.builds("{}({})".format, st.sampled_from(FUNCTIONS), hostile_text)
            | absent_or_anything
        )
        return arguments(
            {"bucket": usually(st.just(bucket), absent_or_anything), "aggregate": usually(st.sampled_from(valid), bad)},
            {
                "group_by": usually(
                    st.lists(st.sampled_from(names), unique=True, max_size=2),
                    st.lists(hostile_text | st.sampled_from(names), min_size=1, max_size=5) | anything,
                ),
                "predicates": predicates(fields),
            },
        )

    return corpus.bucket_and_fields().flatmap(lambda pair: for_bucket(*pair))


doc_ids = usually(st.sampled_from(sorted(DOC_BUCKETS)), hostile_text | absent_or_anything)
document_metadata_arguments = arguments({"doc_id": doc_ids}, {})
document_arguments = arguments({"doc_id": doc_ids}, {"max_chars": usually(st.integers(100, 20_000), bad_counts)})


def targeted(corpus: Corpus, tool: str) -> st.SearchStrategy[dict]:
    if tool in SEARCH_TOOLS:
        return search_arguments(corpus, tool)
    return {
        "annotations_search": annotations_search_arguments,
        "annotations_aggregate": annotations_aggregate_arguments,
        "get_document_metadata": lambda _: document_metadata_arguments,
        "get_document": lambda _: document_arguments,
    }[tool](corpus)


random_arguments = st.one_of(
    st.dictionaries(
        st.sampled_from(["bucket", "query", "doc_id", "predicates", "filter", "filters", "aggregate"]) | hostile_text,
        anything,
        max_size=6,
    ),
    anything,
)

# -- capturing what reaches Postgres ------------------------------------------------------------------------


@dataclass
class Statement:
    text: str
    params: Any


def _sql_text(query: Any, cursor: psycopg.Cursor) -> str:
    if isinstance(query, sql.Composable):
        return query.as_string(cursor)
    return bytes(query).decode() if isinstance(query, (bytes, bytearray, memoryview)) else query


@contextmanager
def captured_sql() -> Iterator[list[Statement]]:
    """Every statement psycopg is asked to run while the block runs, in any thread, with its parameters.

    The store runs all its SQL through pooled connections, whose `execute` and cursors end in these `Cursor`
    methods; a `sql.Composed` is rendered to the text Postgres receives (its placeholders still `%s`).
    """
    statements: list[Statement] = []

    def recording(original):
        @wraps(original)
        def run(cursor, query, params=None, *args, **kwargs):
            statements.append(Statement(_sql_text(query, cursor), params))
            return original(cursor, query, params, *args, **kwargs)

        return run

    with ExitStack() as patches:
        for method in ("execute", "executemany", "stream", "copy"):
            patches.enter_context(patch.object(psycopg.Cursor, method, recording(getattr(psycopg.Cursor, method))))
        yield statements


# -- the properties ---------------------------------------------------------------------------------------

TRIED: dict[str, Counter] = defaultdict(Counter)
"""tool -> status -> calls"""
PLANNED: Counter = Counter()
CALLER_TEXT_SENT: Counter = Counter()
"""tool -> calls whose caller text (hostile or not) reached Postgres, as parameters: what the SQL check had to check."""


def text_in(value: Any) -> Iterator[str]:
    """Every string in `value`, keys included, walked without recursion (values may nest hundreds deep)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, Mapping):
            pending += [*item.keys(), *item.values()]
        elif isinstance(item, (list, tuple)):
            pending += item


def parses(tool: str, arguments: Any) -> bool:
    if not isinstance(arguments, Mapping):
        return False
    try:
        TOOLS[tool].arguments.model_validate(dict(arguments))
    except ValidationError:
        return False
    return True


def assert_is_an_envelope(result: Any) -> None:
    assert isinstance(result, dict) and set(result) == set(Envelope.model_fields), result
    assert result["status"] in Status.__args__
    assert (
        isinstance(result["hits"], list)
        and isinstance(result["total_hits"], int)
        and isinstance(result["took_ms"], float)
    )


def assert_status_fits(tool: str, arguments: Any, result: dict, context: ToolContext) -> None:
    """Bad arguments are refused with a readable reason; nothing else fails on a healthy stack."""
    assert result["status"] in HEALTHY_STATUSES, result["hint"]
    if not parses(tool, arguments):
        assert result["status"] == "invalid_request", result
    if isinstance(arguments, Mapping) and "scope" in arguments:
        assert result["status"] == "invalid_request"  # named in the reason unless other problems come first
    hint = result["hint"]
    if result["status"] == "invalid_request":
        assert isinstance(hint, str) and hint.startswith(f"{tool}: ") and result["hits"] == []
    if hint is not None:
        assert len(hint) <= HINT_CHARS_MAX, f"a hint of {len(hint)} characters: {hint[:300]!r}"
        assert not [marker for marker in INTERNALS if marker in hint], hint
    serialised = json.dumps(result, ensure_ascii=False)
    serialised.encode("utf-8")  # what a chat API carries: a lone surrogate here would fail at the model's door
    assert len(serialised) <= context.limits.max_envelope_chars + ENVELOPE_SLACK_CHARS


def assert_no_sql_from_values(arguments: Any, statements: list[Statement], vocabulary: set[str]) -> set[str]:
    """The caller's text that reached Postgres; none of it may be inside a statement's SQL text."""
    checked = {t for t in text_in(arguments) if len(t.strip()) >= CHECKED_TEXT_MIN_CHARS and t not in vocabulary}
    spliced = [(t, s.text) for t in checked for s in statements if t in s.text]
    assert not spliced, f"caller text inside SQL: {spliced[0][0][:80]!r} in {spliced[0][1][:300]!r}"
    sent = {t for s in statements for t in text_in(list(s.params or []))}
    return {t for t in checked if any(t in p for p in sent)}


def assert_read_only(statements: list[Statement]) -> None:
    writes = [s.text for s in statements if WRITES.search(s.text)]
    assert not writes, writes[0][:300]


def assert_in_scope(tool: str, arguments: Any, result: dict, context: ToolContext) -> None:
    """Hits come from the context's scope (the sample corpus is all in the default scope; EMPTY_SCOPE holds
    nothing) and from the bucket and document asked for: arguments narrow a search, never widen it."""
    hit_ids = [h["doc_id"] for h in result["hits"] if "doc_id" in h]
    if context.scope == EMPTY_SCOPE:
        assert not hit_ids and (result["total"] or {}).get("documents", 0) == 0, result
        return
    assert set(hit_ids) <= set(DOC_BUCKETS), hit_ids
    if result["status"] in ("ok", "low_confidence") and tool in (*SEARCH_TOOLS, "annotations_search"):
        assert {DOC_BUCKETS[d] for d in hit_ids} == {arguments["bucket"]}, (arguments["bucket"], hit_ids)
    if result["status"] in ("ok", "low_confidence") and isinstance(arguments.get("doc_id"), str):
        assert set(hit_ids) == {arguments["doc_id"]}


def call_and_check(context: ToolContext, corpus: Corpus, tool: str, arguments: Any) -> None:
    with captured_sql() as statements:
        result = call_tool(tool, arguments, context)
    assert_is_an_envelope(result)
    TRIED[tool][result["status"]] += 1
    assert_status_fits(tool, arguments, result, context)
    if assert_no_sql_from_values(arguments, statements, corpus.vocabulary):
        CALLER_TEXT_SENT[tool] += 1
    assert_read_only(statements)
    assert_in_scope(tool, arguments, result, context)


def run_property(tool: str, examples: int, arguments: st.SearchStrategy, context: ToolContext, corpus: Corpus) -> None:
    """`examples` calls of `tool` with drawn arguments, each checked; reproducible run to run."""
    PLANNED[tool] += examples

    @settings(REPRODUCIBLE, max_examples=examples)
    @given(arguments=arguments)
    def check(arguments):
        call_and_check(context, corpus, tool, arguments)

    check()


# -- fixtures -----------------------------------------------------------------------------------------------


def stored(stack) -> dict[str, Any]:
    """What a write would change: rows per table, the buckets, and the chunks each engine holds."""
    return {
        "rows": stack.store.counts(),
        "buckets": stack.store.buckets(),
        "keyword_chunks": stack.keyword.stats()["chunks"],
        "vector_chunks": stack.vectors.stats()["chunks"],
    }


@pytest.fixture(scope="module")
def stored_before(sample_stack):
    return stored(sample_stack)


@pytest.fixture(scope="module")
def corpus(sample_stack) -> Corpus:
    fields: dict[str, dict[str, list[CatalogField]]] = {}
    for bucket in BUCKETS:
        for f in sample_stack.store.field_catalog("default", bucket):
            fields.setdefault(bucket, {}).setdefault(f.kind, []).append(f)
    return Corpus(fields)


@pytest.fixture(scope="module")
def context(sample_stack, stored_before):
    ctx = ToolContext(sample_stack)
    yield ctx
    ctx.close()


@pytest.fixture(scope="module")
def elsewhere(sample_stack, stored_before):
    """A caller whose scope holds no document: whatever it sends, it must see nothing of the sample corpus."""
    ctx = ToolContext(sample_stack, scope=EMPTY_SCOPE)
    yield ctx
    ctx.close()


# -- tests ----------------------------------------------------------------------------------------------------


def test_capture_sees_the_store_queries_and_values_travel_as_parameters(context):
    """The SQL checks below mean something only if the capture sees the store's statements with their values."""
    hostile = "Delaware'; DROP TABLE documents; --"
    with captured_sql() as statements:
        result = call_tool(
            "annotations_search",
            {"bucket": "contracts", "predicates": {"governing_law": {"op": "=", "value": hostile}}},
            context,
        )
    assert result["status"] == "no_results"
    predicate_query = next(s for s in statements if "FROM annotations a WHERE" in s.text)
    assert {"governing_law", hostile} <= set(text_in(list(predicate_query.params)))
    assert not [s for s in statements if "governing_law" in s.text or hostile in s.text]


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


@pytest.mark.parametrize("tool", list(TOOLS))
def test_targeted_hostile_arguments(context, corpus, tool):
    run_property(tool, TARGETED_EXAMPLES, targeted(corpus, tool), context, corpus)


@pytest.mark.parametrize("tool", list(TOOLS))
def test_random_json_arguments(context, corpus, tool):
    run_property(tool, RANDOM_EXAMPLES, random_arguments, context, corpus)


@pytest.mark.parametrize("tool", list(TOOLS))
def test_an_empty_scope_sees_nothing_whatever_the_arguments(elsewhere, corpus, tool):
    run_property(tool, ELSEWHERE_EXAMPLES, targeted(corpus, tool), elsewhere, corpus)


def test_inputs_tried_per_tool_and_nothing_written(sample_stack, stored_before, capsys):
    """The last test of the module: how many inputs each tool answered, and proof that none of them wrote."""
    assert stored(sample_stack) == stored_before
    with capsys.disabled():
        print()
        for tool in TOOLS:
            statuses = ", ".join(f"{status} {n}" for status, n in TRIED[tool].most_common())
            print(
                f"bad-input {tool}: {sum(TRIED[tool].values())} inputs tried (planned {PLANNED[tool]}): {statuses}; "
                f"caller text sent to Postgres as parameters in {CALLER_TEXT_SENT[tool]}"
            )
    for tool, planned in PLANNED.items():
        assert sum(TRIED[tool].values()) >= planned, tool


def test_a_field_declared_a_number_that_holds_a_text_value_still_gets_its_range():
    """A loader's spec says `total` is a number; one row says "n/a". The catalog (refreshed after every ingest)
    used to fail comparing the text with the numbers; the range is the numbers'."""
    counts = Counter({12.5: 3, 40: 1, "n/a": 2})
    field = build_field("receipt", "total", counts, 6, False, FieldSpec(name="total", type="number"))
    assert (field.min, field.max, field.distinct_count) == (12.5, 40, 3)
    dates = Counter({"2019-03-01": 1, "2018-01-31": 1, "unknown": 1})
    field = build_field("contract", "effective_date", dates, 3, False, FieldSpec(name="effective_date", type="date"))
    assert (field.min, field.max) == ("2018-01-31", "2019-03-01")
