"""Field indexes made from the catalog: the store creates them when a large bucket's catalog is refreshed, the
predicates' SQL uses them (EXPLAIN), the answers stay those of the exact test, and a second refresh changes nothing."""

from __future__ import annotations

import random

import pytest
from psycopg import sql

from retrievers import annotation_indexes
from retrievers.annotation_filters import Predicate
from retrievers.annotation_indexes import bucket_prefix, existing_indexes
from retrievers.models import AnnotationRow, Chunk, Document, IndexedChunk, SourceDocument

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


@pytest.fixture
def large_bucket(store, monkeypatch):
    """A contracts bucket past the (lowered) size at which the store indexes fields."""
    monkeypatch.setattr(annotation_indexes, "MIN_DOCUMENTS", DOCUMENTS // 2)
    rng = random.Random(3)
    rows = {}
    for i in range(DOCUMENTS):
        rows[f"c{i}"] = _row(i, rng)
        doc = Document(doc_id=f"c{i}", bucket="contracts", title=f"C{i}", body="Body.")
        source = SourceDocument(document=doc, annotations=[AnnotationRow(row=rows[f"c{i}"])])
        h = source.content_hash()
        chunk_ids = [IndexedChunk.make_id("default", doc.doc_id, h, 0)]
        store.commit_document(source, h, [Chunk(ordinal=0, start=0, end=5, text="Body.")], chunk_ids)
    store.refresh_catalog("default", "contracts")
    return rows


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
