"""Hypothesis strategies for hostile tool arguments, drawn from the sample corpus's field catalog.

Arguments shaped like each tool's own with hostile parts (SQL metacharacters, NUL, lone surrogates, RTL and emoji,
300 KB strings, deep nesting, huge and non-finite numbers, wrong types, unknown keys, a `scope` key), valid parts
seven times in eight so that a bad part reaches deeper code; and fully random JSON-like arguments.
tests/bad_input/test_hostile_tool_arguments.py calls every tool with them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from hypothesis import strategies as st

from core.models import Document
from retrievers.loaders import sample
from retrievers.postgres.annotation_aggregates import FUNCTIONS
from retrievers.postgres.annotation_filters import OPS_BY_TYPE, Op
from retrievers.postgres.field_catalog import CatalogField
from retrievers.postgres.schema import DEFAULT_BUCKETS
from tools.arguments import Condition, Filter
from tools.registry import TOOLS

SEARCH_TOOLS = ("search_text", "search_semantic", "fused_search")
ARGUMENT_NAMES = {
    name for model in (*(t.arguments for t in TOOLS.values()), Filter, Condition) for name in model.model_fields
}
"""The tools' own argument names ('doc_id', 'bucket') name columns too; as keys of a call they are not values.
Likewise the catalog's field names ('description'): those travel as parameters, which the first test of
test_hostile_tool_arguments.py checks."""

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
