"""Field indexes made from the catalog: the store creates them when a large bucket's catalog is refreshed, the
predicates' SQL uses them (EXPLAIN), the answers stay those of the exact test, and a second refresh changes nothing."""

from __future__ import annotations

import random

import pytest
from psycopg import sql

from core.errors import InvalidInput
from core.models import AnnotationRow, Chunk, Document, FieldSpec, IndexedChunk, SourceDocument
from retrievers.postgres import annotation_aggregates, annotation_filters, annotation_indexes
from retrievers.postgres.annotation_filters import Predicate
from retrievers.postgres.annotation_indexes import bucket_prefix, existing_indexes
from tests.conftest import fresh_database

DOCUMENTS = 1000
LAWS = ["Delaware", "New York", "California", "Texas", "England and Wales", "Ontario"]


def _row(i: int, rng: random.Random) -> dict:
    row = {
        # mostly one law, sometimes two, as CUAD lists them
        "governing_law": rng.sample(LAWS, 2 if i % 10 == 0 else 1),
        "notice_period_days": [rng.choice([15, 30, 60, 90, 180])],
        "effective_date": f"{2000 + i % 25}-{1 + i % 12:02d}-{1 + i % 28:02d}",
    }
    if i % 7 == 0:
        row["notice_period_days"].append(365)
    if i % 50 == 0:  # a list whose only element in a narrow range is neither its smallest nor its largest
        row["notice_period_days"] = [10, 75, 400]
    return row


@pytest.fixture(scope="module")
def large_template(postgres_url):
    """A database holding a contracts bucket past the (lowered) size at which the store indexes fields, its catalog
    and field indexes refreshed, written once for the module: each test that needs it gets a copy (`database_url`),
    not 1,000 documents written again. Its name, and the rows by document id."""
    from psycopg.conninfo import conninfo_to_dict

    from retrievers.postgres.store import PostgresStore

    rng = random.Random(3)
    rows = {f"c{i}": _row(i, rng) for i in range(DOCUMENTS)}
    with fresh_database(postgres_url) as url, pytest.MonkeyPatch.context() as patch:
        patch.setattr(annotation_indexes, "MIN_DOCUMENTS", DOCUMENTS // 2)
        store = PostgresStore(url)
        for doc_id, row in rows.items():
            doc = Document(doc_id=doc_id, bucket="contracts", title=doc_id.upper(), body="Body.")
            source = SourceDocument(document=doc, annotations=[AnnotationRow(row=row)])
            h = source.content_hash()
            chunk_ids = [IndexedChunk.make_id("default", doc.doc_id, h, 0)]
            store.commit_document(source, h, [Chunk(ordinal=0, start=0, end=5, text="Body.")], chunk_ids)
        store.refresh_catalog("default", "contracts")
        store.close()
        yield conninfo_to_dict(url)["dbname"], rows


@pytest.fixture
def database_url(postgres_url, request):
    """A fresh database per test: a copy of the large bucket's (`large_template`) for a test that asks for it."""
    wanted = "large_bucket" in request.fixturenames
    template = request.getfixturevalue("large_template")[0] if wanted else None
    with fresh_database(postgres_url, template=template) as url:
        yield url


@pytest.fixture
def large_bucket(store, monkeypatch, large_template):
    """The contracts bucket of `large_template` in the test's own database, the size at which the store indexes
    fields lowered for it as when it was written."""
    monkeypatch.setattr(annotation_indexes, "MIN_DOCUMENTS", DOCUMENTS // 2)
    return large_template[1]


def _plan(store, predicates: list[Predicate]) -> str:
    where, params = store._annotation_where("default", "contracts", predicates, None)
    with store.pool.connection() as conn, conn.transaction():
        conn.execute("SET LOCAL enable_seqscan = off")
        query = sql.SQL("EXPLAIN SELECT a.doc_id FROM annotations a WHERE {}").format(where)
        return "\n".join(line for (line,) in conn.execute(query, params))


def test_refreshing_a_large_bucket_creates_one_index_per_field_function(store, large_bucket):
    with store.pool.connection() as conn:
        indexes = existing_indexes(conn, "contracts")
    # governing_law: a GIN over its texts; notice_period_days and effective_date: largest, smallest, spread lists
    assert len(indexes) == 7 and all(indexes.values())
    with store.pool.connection() as conn:
        assert annotation_indexes._reconcile(conn, "contracts") == []  # idempotent


def test_a_two_predicate_search_reads_the_field_indexes_and_answers_exactly(store, large_bucket):
    predicates = [
        Predicate(field="governing_law", op="=", value="delaware"),
        Predicate(field="notice_period_days", op=">=", value=180),
    ]
    plan = _plan(store, predicates)
    assert "Seq Scan" not in plan
    assert bucket_prefix("contracts") in plan, plan
    found = store.find_annotations("default", "contracts", predicates, limit=10_000)
    expected = {
        d for d, r in large_bucket.items() if "Delaware" in r["governing_law"] and max(r["notice_period_days"]) >= 180
    }
    assert {r["doc_id"] for r in found} == expected and expected


def test_a_field_index_serves_only_conditions_on_its_field(store, large_bucket):
    """The bucket and kind alone do not imply a field index's predicate, so the planner never reads a whole field
    index to apply them (as it did beside a date range at 1M rows). Shown with the table's other indexes dropped in
    a transaction rolled back: the field indexes are then the only alternative to a sequential scan."""
    where, params = store._annotation_where("default", "contracts", [], "contract")
    with store.pool.connection() as conn, conn.transaction(force_rollback=True):
        conn.execute("ALTER TABLE annotations DROP CONSTRAINT annotations_pkey")
        for index in ("annotations_bucket", "annotations_document", "annotations_row"):
            conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(index)))
        conn.execute("SET LOCAL enable_seqscan = off")
        query = sql.SQL("EXPLAIN SELECT a.doc_id FROM annotations a WHERE {}").format(where)
        plan = "\n".join(line for (line,) in conn.execute(query, params))
    assert bucket_prefix("contracts") not in plan, plan


def test_date_ranges_and_list_values_still_match_any_element(store, large_bucket):
    predicates = [
        Predicate(field="effective_date", op="between", value=["2010-01-01", "2010-12-31"]),
        Predicate(field="notice_period_days", op="<", value=20),
    ]
    assert bucket_prefix("contracts") in _plan(store, predicates)
    found = {r["doc_id"] for r in store.find_annotations("default", "contracts", predicates, limit=10_000)}
    expected = {
        d
        for d, r in large_bucket.items()
        if r["effective_date"].startswith("2010") and min(r["notice_period_days"]) < 20
    }
    assert found == expected and expected
    groups, total = store.aggregate("default", "contracts", predicates[:1], "count", ["governing_law"])
    assert total["documents"] == sum(r["effective_date"].startswith("2010") for r in large_bucket.values())


def test_a_range_between_the_ends_of_a_list_finds_its_middle_element(store, large_bucket):
    predicates = [Predicate(field="notice_period_days", op="between", value=[70, 80])]
    assert bucket_prefix("contracts") in _plan(store, predicates)
    found = {r["doc_id"] for r in store.find_annotations("default", "contracts", predicates, limit=10_000)}
    expected = {d for d, r in large_bucket.items() if any(70 <= v <= 80 for v in r["notice_period_days"])}
    assert found == expected and expected


def test_every_answer_is_the_same_without_the_field_indexes(store, large_bucket, monkeypatch):
    searches = [
        [Predicate(field="governing_law", op="=", value="delaware")],
        [Predicate(field="governing_law", op="in", value=["Texas", "ontario"])],
        [
            Predicate(field="governing_law", op="!=", value="Texas"),
            Predicate(field="notice_period_days", op=">", value=60),
        ],
        [Predicate(field="effective_date", op="=", value="2000-05-17")],
        [Predicate(field="effective_date", op="between", value=["2003-01-01", "2005-06-30"])],
        [Predicate(field="notice_period_days", op="=", value=75)],
        [Predicate(field="notice_period_days", op="between", value=[20, 100])],
        [
            Predicate(field="notice_period_days", op="<=", value=15),
            Predicate(field="governing_law", op="~", value="new"),
        ],
        [Predicate(field="notice_period_days", op="not in", value=[30, 365])],
    ]
    aggregates = [
        ([], "count", ["governing_law"]),
        (searches[4], "sum(notice_period_days)", ["governing_law"]),
        (searches[0], "avg(notice_period_days)", ["year(effective_date)"]),
        (searches[6], "max(effective_date)", ["governing_law", "month(effective_date)"]),
        (searches[2], "min(notice_period_days)", []),
    ]

    def answers() -> list:
        found = [store.find_annotations("default", "contracts", p, limit=10_000) for p in searches]
        return found + [store.aggregate("default", "contracts", p, a, g) for p, a, g in aggregates]

    indexed = answers()
    assert all(indexed)  # every search finds rows
    monkeypatch.setattr(annotation_indexes, "MIN_DOCUMENTS", float("inf"))
    assert annotation_indexes.ensure_field_indexes(store.pool, "contracts")  # dropped
    with store.pool.connection() as conn:
        assert existing_indexes(conn, "contracts") == {}
    assert answers() == indexed


def test_a_small_bucket_gets_no_field_indexes(store):
    doc = Document(doc_id="c1", bucket="contracts", title="C1", body="Body.")
    source = SourceDocument(document=doc, annotations=[AnnotationRow(row={"governing_law": ["Delaware"]})])
    h = source.content_hash()
    store.commit_document(
        source, h, [Chunk(ordinal=0, start=0, end=5, text="Body.")], [IndexedChunk.make_id("default", "c1", h, 0)]
    )
    store.refresh_catalog("default", "contracts")
    with store.pool.connection() as conn:
        assert existing_indexes(conn, "contracts") == {}


# -- the exact index conditions, which stand without the per-row JSON test ----------------------------------------

# Rows whose values test where an index condition and the exact test could part: lists of mixed types, JSON nulls,
# empty lists, other spellings and spaces, a boolean or a number where text is expected, fractions and lists of
# spread values.
ODD_ROWS = [
    {"governing_law": ["DELAWARE", None], "notice_period_days": [30, None, 90.0], "effective_date": "2010-06-01"},
    {"governing_law": [], "notice_period_days": [], "effective_date": ["2009-12-31", "2011-01-01"]},
    {"governing_law": "delaware", "notice_period_days": 90.5, "effective_date": None},
    {"governing_law": [" Delaware", "DeLaWaRe"], "notice_period_days": [89.999999999999999, 10], "effective_date": []},
    {"governing_law": None, "notice_period_days": [1e3, -5], "effective_date": ["2010-01-01"]},
    {"governing_law": ["Texas", "texas", "Delaware"], "notice_period_days": True, "effective_date": "2010-12-31"},
    {"governing_law": 7, "effective_date": "in 2010"},
    {"notice_period_days": [0.1, 0.30000000000000004], "effective_date": ["2012-01-01", "2008-01-01", "2010-05-05"]},
]


@pytest.fixture
def odd_bucket(store, large_bucket):
    """The large bucket with ODD_ROWS beside its regular rows, the fields' types declared (as a loader does), so
    that the odd values do not make them text; its catalog and indexes refreshed."""
    store.record_field_specs(
        "contracts",
        [
            FieldSpec(name="governing_law", type="string", multi=True),
            FieldSpec(name="notice_period_days", type="integer", multi=True),
            FieldSpec(name="effective_date", type="date"),
        ],
    )
    for i, row in enumerate(ODD_ROWS):
        doc = Document(doc_id=f"odd{i}", bucket="contracts", title=f"Odd {i}", body="Body.")
        source = SourceDocument(document=doc, annotations=[AnnotationRow(row=row)])
        h = source.content_hash()
        chunk_ids = [IndexedChunk.make_id("default", doc.doc_id, h, 0)]
        store.commit_document(source, h, [Chunk(ordinal=0, start=0, end=5, text="Body.")], chunk_ids)
    store.refresh_catalog("default", "contracts")
    return {**large_bucket, **{f"odd{i}": row for i, row in enumerate(ODD_ROWS)}}


EXACT_SEARCHES = [
    [Predicate(field="governing_law", op="=", value="Delaware")],
    [Predicate(field="governing_law", op="in", value=["texas", "ONTARIO", "7"])],
    [Predicate(field="notice_period_days", op=">=", value=90)],
    [Predicate(field="notice_period_days", op="<", value=1)],
    [Predicate(field="notice_period_days", op="=", value=90)],
    [Predicate(field="notice_period_days", op="between", value=[70, 80])],
    [Predicate(field="notice_period_days", op=">", value=0.1)],  # a fraction keeps its exact test
    [Predicate(field="notice_period_days", op="between", value=[0.2, 89.99999999999999])],
    [Predicate(field="effective_date", op="between", value=["2010-01-01", "2010-12-31"])],
    [Predicate(field="effective_date", op="=", value="2010-01-01")],
    [Predicate(field="effective_date", op=">", value="2010-06-01")],
    [Predicate(field="effective_date", op="<=", value="2009-12-31")],
    [
        Predicate(field="governing_law", op="=", value="delaware"),
        Predicate(field="effective_date", op="between", value=["2010-01-01", "2010-12-31"]),
    ],
    [Predicate(field="governing_law", op="=", value="texas"), Predicate(field="notice_period_days", op=">=", value=90)],
]


def test_the_exact_index_conditions_answer_as_the_exact_tests_do(store, odd_bucket, monkeypatch):
    """Each search's answer (rows, order, total) through the index conditions alone where they are exact is the
    answer of the exact JSON tests alone, on rows made to part them if they could."""
    from functools import partial

    from retrievers.postgres import annotations as postgres_annotations

    def answers() -> list:
        return [store.find_annotations("default", "contracts", p, limit=10_000) for p in EXACT_SEARCHES]

    indexed = answers()
    assert all(indexed)
    assert {"odd0", "odd2"} <= {r["doc_id"] for r in indexed[0]}  # other spellings, a list with a null
    monkeypatch.setattr(
        postgres_annotations,
        "compile_predicates",
        partial(annotation_filters.compile_predicates, index_conditions=False),
    )
    assert answers() == indexed


@pytest.mark.parametrize("bounds", ["[]", "()", "[)", "(]"])
@pytest.mark.parametrize("indexed", [True, False], ids=["field indexes", "exact tests alone"])
def test_a_range_excludes_the_ends_its_bounds_say(store, large_bucket, monkeypatch, bounds, indexed):
    """`between` with `bounds`: an element on an excluded end does not match (the index condition, which includes
    both, only finds candidates), with or without the field indexes; a list matches when any element is inside."""
    from functools import partial

    from retrievers.postgres import annotations as postgres_annotations

    monkeypatch.setattr(
        postgres_annotations,
        "compile_predicates",
        partial(annotation_filters.compile_predicates, index_conditions=indexed),
    )
    low, high = 30, 90
    inside = {
        "[]": lambda v: low <= v <= high,
        "()": lambda v: low < v < high,
        "[)": lambda v: low <= v < high,
        "(]": lambda v: low < v <= high,
    }[bounds]
    predicate = Predicate(field="notice_period_days", op="between", value=[low, high], bounds=bounds)
    found = {r["doc_id"] for r in store.find_annotations("default", "contracts", [predicate], limit=10_000)}
    expected = {d for d, row in large_bucket.items() if any(inside(v) for v in row["notice_period_days"])}
    assert found == expected and expected


def test_bounds_apply_to_between_only(store, large_bucket):
    with pytest.raises(InvalidInput, match="bounds apply to 'between' only"):
        store.find_annotations(
            "default", "contracts", [Predicate(field="notice_period_days", op=">", value=3, bounds="()")]
        )


def test_an_exact_condition_is_not_tested_again_per_row(store, large_bucket):
    """The plan of a search whose conditions are exact reads the field indexes and runs no JSON path query per
    row; a fractional bound (which the exact test compares as float8) keeps its exact test."""
    exact = [
        Predicate(field="governing_law", op="=", value="delaware"),
        Predicate(field="notice_period_days", op=">=", value=90),
    ]
    plan = _plan(store, exact)
    assert bucket_prefix("contracts") in plan and "jsonb_path_query" not in plan, plan
    ranged = [Predicate(field="effective_date", op="between", value=["2010-01-01", "2010-12-31"])]
    plan = _plan(store, ranged)
    # the exact test stays inside the third case only (a list of spread values), after the index conditions
    assert bucket_prefix("contracts") in plan and "SubPlan" in plan, plan
    fraction = [Predicate(field="notice_period_days", op=">=", value=89.5)]
    assert "jsonb_path_query" in _plan(store, fraction)


def _elements(value) -> list:
    """What `lax $[*]` visits, or [None] when it visits nothing (a missing field, an empty list)."""
    found = value if isinstance(value, list) else [value]
    return found or [None]


def _reference_aggregate(rows: dict, function: str, field: str | None, group: str) -> tuple[dict, tuple]:
    """The aggregate the tool promises, computed in Python: list values unnested, a row in every group of its
    elements (text groups case-insensitive), documents counted once, the total over the rows (not the groups); a
    measured field must be there (`exists`: an empty list is, a null is not)."""
    if field:
        rows = {d: r for d, r in rows.items() if r.get(field) is not None}

    def numbers(row) -> list:
        found = _elements(row.get(field)) if field else []
        return [v for v in found if isinstance(v, (int, float)) and not isinstance(v, bool)]

    def measure(docs: set, found: list):
        if function == "count":
            return len(docs)
        if not found:
            return None
        return {"sum": sum, "min": min, "max": max, "avg": lambda v: sum(v) / len(v)}[function](found)

    groups: dict = {}
    for doc_id, row in rows.items():
        for element in _elements(row.get(group)):
            docs, found = groups.setdefault(None if element is None else str(element).lower(), (set(), []))
            docs.add(doc_id)
            found += numbers(row)
    total = [v for row in rows.values() for v in numbers(row)]
    return (
        {key: (len(docs), measure(docs, found)) for key, (docs, found) in groups.items()},
        (len(rows), measure(set(rows), total)),
    )


@pytest.mark.parametrize("few_groups", [annotation_aggregates.FEW_GROUPS, 0], ids=["sorted apart", "presorted"])
@pytest.mark.parametrize(
    "aggregate", ["count", "sum(notice_period_days)", "avg(notice_period_days)", "max(notice_period_days)"]
)
def test_aggregates_unnest_lists_and_count_documents_as_promised(store, odd_bucket, aggregate, few_groups, monkeypatch):
    """Groups and totals against a Python reference, over rows with lists, empty lists, nulls and missing fields
    (the elements are read in the select list, where a missing value is one JSON null), the largest value first;
    with each group's documents sorted apart, and presorted (the plan for many groups: `planner_settings`)."""
    from retrievers.postgres.annotation_aggregates import parse_aggregate

    monkeypatch.setattr(annotation_aggregates, "FEW_GROUPS", few_groups)
    function, field = parse_aggregate(aggregate)
    groups, total = store.aggregate("default", "contracts", [], aggregate, ["governing_law"])
    expected_groups, expected_total = _reference_aggregate(odd_bucket, function, field, "governing_law")
    found = {None if g["group"]["governing_law"] is None else g["group"]["governing_law"].lower(): g for g in groups}
    assert found.keys() == expected_groups.keys()
    for key, (documents, value) in expected_groups.items():
        assert (found[key]["documents"], found[key]["value"]) == (documents, pytest.approx(value)), key
    assert (total["documents"], total["value"]) == (expected_total[0], pytest.approx(expected_total[1]))
    order = [(g["value"] is None, -(g["value"] or 0)) for g in groups]
    assert order == sorted(order)
    assert found["delaware"]["group"]["governing_law"] == "Delaware"  # the most common spelling


def _sort_keys(store, group_by: list[str]) -> list[str]:
    query, params, planner = store.aggregate_statement("default", "contracts", [], "avg(notice_period_days)", group_by)
    with store.planned_connection(planner) as conn:
        plan = [line for (line,) in conn.execute(sql.SQL("EXPLAIN ") + query, params)]
    return [line.split("Sort Key:")[1].strip() for line in plan if "Sort Key:" in line]


def test_few_groups_sort_each_groups_documents_apart_and_many_groups_sort_once(store, odd_bucket, monkeypatch):
    """Groups the catalog counts as few (years, laws) are sorted by the group alone, each group's documents apart;
    many groups (here: more than a lowered bound) are sorted once by (group, document), Postgres's own plan."""
    for few in (["year(effective_date)"], ["governing_law"]):
        assert not [key for key in _sort_keys(store, few) if "doc_id" in key], few
    monkeypatch.setattr(annotation_aggregates, "FEW_GROUPS", 5)  # six laws
    assert [key for key in _sort_keys(store, ["governing_law"]) if "doc_id" in key]


def test_planner_settings_last_for_their_statement_and_unknown_ones_are_left_out(database_url):
    """A setting this server lacks (a Postgres older than the one that brought it) is skipped, not an error, and
    the pooled connection goes back to the next caller with the server's own settings."""
    from retrievers.postgres.store import PostgresStore

    one_connection = PostgresStore(database_url, max_connections=1)
    try:
        with one_connection.planned_connection({"enable_presorted_aggregate": "off", "enable_no_such": "off"}) as conn:
            assert conn.execute("SHOW enable_presorted_aggregate").fetchone()[0] == "off"
        with one_connection.pool.connection() as conn:
            assert conn.execute("SHOW enable_presorted_aggregate").fetchone()[0] == "on"
    finally:
        one_connection.close()
