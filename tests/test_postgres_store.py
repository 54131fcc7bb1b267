"""The Postgres document and annotation store against a real (embedded) Postgres."""

from __future__ import annotations

import re
import time

import psycopg
import pytest

from core.errors import BackendUnavailable, InvalidInput
from core.models import AnnotationRow, Chunk, Document, FieldSpec, IndexedChunk, SourceDocument
from retrievers.postgres import annotations as postgres_annotations
from retrievers.postgres import store as postgres_store
from retrievers.postgres.annotation_filters import Predicate
from retrievers.postgres.store import PostgresStore
from tests.conftest import fresh_database


def _source(
    doc_id: str, rows: list[dict], *, scope: str = "default", bucket: str = "contracts", body: str = "Some body text."
) -> SourceDocument:
    return SourceDocument(
        document=Document(doc_id=doc_id, bucket=bucket, scope=scope, title=doc_id.upper(), body=body),
        annotations=[AnnotationRow(row=r) for r in rows],
    )


def _commit(store: PostgresStore, source: SourceDocument) -> list[str]:
    chunks = [Chunk(ordinal=0, start=0, end=len(source.document.body), text=source.document.body)]
    h = source.content_hash()
    ids = [IndexedChunk.make_id(source.document.scope, source.document.doc_id, h, 0)]
    store.commit_document(source, h, chunks, ids)
    return ids


@pytest.fixture
def contracts(store):
    rows = {
        "c1": {
            "governing_law": "Delaware",
            "notice_period_days": [60, 180],
            "agreement_date": "2019-10-31",
            "exclusivity": True,
        },
        "c2": {
            "governing_law": "New York",
            "notice_period_days": 30,
            "agreement_date": "2012-01-15",
            "exclusivity": False,
        },
        "c3": {"governing_law": "new york", "agreement_date": "2020-06-01", "exclusivity": False},
        "c4": {"governing_law": "California", "notice_period_days": 90},
    }
    for doc_id, row in rows.items():
        _commit(store, _source(doc_id, [row]))
    _commit(store, _source("other-tenant", [rows["c1"]], scope="tenant_b"))
    store.record_field_specs(
        "contracts", [FieldSpec(name="notice_period_days", type="integer", multi=True, description="days of notice")]
    )
    store.refresh_catalog("default", "contracts")
    store.refresh_catalog("tenant_b", "contracts")
    return rows


def _docs(store, *predicates: Predicate, scope: str = "default") -> list[str]:
    return store.matching_doc_ids(scope, "contracts", list(predicates))


@pytest.mark.parametrize(
    "predicate, expected",
    [
        (Predicate(field="governing_law", op="=", value="New York"), ["c2", "c3"]),
        (Predicate(field="governing_law", op="!=", value="New York"), ["c1", "c4"]),
        (Predicate(field="governing_law", op="~", value="york"), ["c2", "c3"]),
        (Predicate(field="governing_law", op="in", value=["Delaware", "CALIFORNIA"]), ["c1", "c4"]),
        (Predicate(field="notice_period_days", op="<", value=60), ["c2"]),
        (Predicate(field="notice_period_days", op=">=", value=90), ["c1", "c4"]),
        (Predicate(field="notice_period_days", op="between", value=[50, 70]), ["c1"]),
        (Predicate(field="notice_period_days", op="exists"), ["c1", "c2", "c4"]),
        (Predicate(field="agreement_date", op=">", value="2015-01-01"), ["c1", "c3"]),
        (Predicate(field="agreement_date", op="between", value=["2010-01-01", "2019-12-31"]), ["c1", "c2"]),
        # outside a range: documents with a date, none of it inside (c4 has no date and is not one)
        (Predicate(field="agreement_date", op="not between", value=["2012-01-01", "2012-12-31"]), ["c1", "c3"]),
        (Predicate(field="notice_period_days", op="not between", value=[50, 70]), ["c2", "c4"]),
        # no value: absent, null or an empty list
        (Predicate(field="notice_period_days", op="missing"), ["c3"]),
        (Predicate(field="agreement_date", op="missing"), ["c4"]),
        (Predicate(field="exclusivity", op="=", value=True), ["c1"]),
        (Predicate(field="exclusivity", op="=", value="no"), ["c2", "c3"]),
    ],
    ids=lambda v: getattr(v, "op", None) and f"{v.field} {v.op} {v.value}",
)
def test_each_operator_selects_the_right_documents(store, contracts, predicate, expected):
    assert _docs(store, predicate) == expected


def test_predicates_are_anded_and_scoped(store, contracts):
    both = [
        Predicate(field="governing_law", op="=", value="Delaware"),
        Predicate(field="notice_period_days", op=">", value=100),
    ]
    assert _docs(store, *both) == ["c1"]
    assert _docs(store, *both, scope="tenant_b") == ["other-tenant"]
    with pytest.raises(InvalidInput, match="fields of this bucket: none"):
        _docs(store, *both, scope="nobody")


def test_catalog_describes_types_values_and_multi_valued_fields(store, contracts):
    catalog = {f.name: f for f in store.field_catalog("default", "contracts")}
    assert catalog["notice_period_days"].type == "integer" and catalog["notice_period_days"].multi
    assert catalog["notice_period_days"].description == "days of notice"
    assert (catalog["notice_period_days"].min, catalog["notice_period_days"].max) == (30, 180)
    assert catalog["agreement_date"].type == "date"
    assert catalog["exclusivity"].type == "boolean" and sorted(catalog["exclusivity"].values) == [False, True]
    assert set(catalog["governing_law"].values) == {"Delaware", "New York", "new york", "California"}
    assert catalog["governing_law"].doc_count == 4


@pytest.mark.parametrize(
    "predicate, message",
    [
        (
            Predicate(field="no_such_field", op="=", value=1),
            "unknown field 'no_such_field'; fields of this bucket: agreement_date",
        ),
        (Predicate(field="notice_period_days", op="<", value="soon"), "is a number"),
        (Predicate(field="agreement_date", op=">", value="31/12/2019"), "YYYY-MM-DD"),
        (Predicate(field="governing_law", op=">", value="A"), "does not apply to string field"),
        (Predicate(field="exclusivity", op="=", value="maybe"), "true/false"),
        (Predicate(field="governing_law", op="in", value="Delaware"), "non-empty list"),
        (Predicate(field="notice_period_days", op="between", value=[1]), "[low, high]"),
    ],
)
def test_bad_predicates_are_refused_with_a_reason(store, contracts, predicate, message):
    with pytest.raises(InvalidInput, match=message.replace("[", r"\[").replace("]", r"\]")):
        _docs(store, predicate)


def test_sql_metacharacters_are_data_not_sql(store, contracts):
    hostile = "x'); DROP TABLE documents; --"
    assert _docs(store, Predicate(field="governing_law", op="=", value=hostile)) == []
    assert _docs(store, Predicate(field="governing_law", op="~", value="%")) == []
    with pytest.raises(InvalidInput):
        _docs(store, Predicate(field="governing_law' OR 1=1 --", op="=", value="x"))
    assert store.counts("default")["documents"] == 4


def test_documents_are_listed_by_the_words_their_title_or_id_holds_in_the_whole_scope(store):
    """The page's and `ragent documents list --matching`'s search: every word in any case, in the title or the id,
    over the whole scope (before, the page filtered the first 1,000 it had listed); % and _ are letters."""
    for doc_id in ("acme-lease.txt", "ACME_2020-supply.txt", "beta-lease.txt", "100%_off.txt"):
        _commit(store, _source(doc_id, []))
    _commit(store, _source("acme-lease-b.txt", [], scope="tenant_b"))

    def listed(matching: str, **page) -> tuple[set[str], int]:
        rows, total = store.list_documents("default", matching=matching, **page)
        return {row["doc_id"] for row in rows}, total

    assert listed("acme") == ({"ACME_2020-supply.txt", "acme-lease.txt"}, 2)
    assert listed("LEASE acme") == ({"acme-lease.txt"}, 1)
    assert listed("acme", limit=1)[1] == 2 and len(listed("acme", limit=1)[0]) == 1
    assert listed("100%") == ({"100%_off.txt"}, 1) and listed("0_o") == (set(), 0) and listed("%")[1] == 1
    assert listed("  ")[1] == 4


def test_recommit_replaces_chunks_and_annotations_and_bumps_version(store):
    _commit(store, _source("d1", [{"a": 1}, {"a": 2}], body="first version"))
    new_ids = _commit(store, _source("d1", [{"a": 3}], body="second version"))
    assert store.counts() == {"documents": 1, "chunks": 1, "annotations": 1}
    assert store.get_document("default", "d1")["version"] == 2
    assert list(store.chunks_by_id("default", new_ids).values())[0]["text"] == "second version"


def test_chunks_of_another_scope_are_not_hydrated(store):
    ids = _commit(store, _source("d1", [], scope="tenant_b"))
    assert store.chunks_by_id("default", ids) == {}
    assert set(store.chunks_by_id("tenant_b", ids)) == set(ids)


def test_unknown_and_malformed_buckets_get_actionable_errors(store):
    with pytest.raises(InvalidInput, match="unknown; use one of certificates, contracts"):
        store.require_bucket("recipes")
    with pytest.raises(InvalidInput, match="malformed"):
        store.require_bucket("Bad Name!")
    store.add_bucket("recipes", "Cooking recipes")
    store.require_bucket("recipes")
    with pytest.raises(InvalidInput, match="malformed"):
        store.add_bucket("Bad Name!", "x")


def test_schema_creation_is_idempotent(store, database_url):
    _commit(store, _source("d1", []))
    again = PostgresStore(database_url)
    assert again.counts()["documents"] == 1
    again.close()


def test_unreachable_database_fails_fast_with_what_to_do():
    started = time.monotonic()
    with pytest.raises(
        BackendUnavailable, match=r"Postgres at .*127\.0\.0\.1.* is unreachable; start it, fix DATABASE_URL"
    ) as info:
        PostgresStore("postgresql://user:secret@127.0.0.1:9/db", connect_timeout_s=2)
    assert "secret" not in str(info.value)
    assert time.monotonic() - started < 10


def test_a_server_older_than_the_minimum_is_refused_before_anything_is_written(postgres_url, monkeypatch):
    monkeypatch.setattr(postgres_store, "MIN_SERVER_VERSION", 990000)  # this server stands for an old one
    with fresh_database(postgres_url) as url:
        with pytest.raises(BackendUnavailable, match=r"is version \d+[.\d]*.*; ragent needs Postgres 99 or later"):
            PostgresStore(url)
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT to_regclass('documents')").fetchone()[0] is None, "no table was made"


def test_field_values_lists_every_text_value_with_document_counts(store, contracts):
    assert store.field_values("default", "contracts", "governing_law") == [
        ("California", 1),
        ("Delaware", 1),
        ("New York", 1),
        ("new york", 1),
    ]
    assert store.field_values("default", "contracts", "notice_period_days") == []
    assert store.field_values("tenant_b", "contracts", "governing_law") == [("Delaware", 1)]


# -- ordering, date-part groups and document restrictions -----------------------------------------------------


def _values(row: dict, field: str) -> list:
    value = row.get(field)
    return [] if value is None else value if isinstance(value, list) else [value]


def _expected_order(rows: dict[str, dict], field: str, descending: bool) -> list[str]:
    """The order `order_by` promises: by the largest (desc) or smallest (asc) value, ties by doc_id, rows without
    the field last."""
    having = sorted(d for d in rows if _values(rows[d], field))
    pick = max if descending else min
    ordered = sorted(having, key=lambda d: pick(_values(rows[d], field)), reverse=descending)  # stable: ties by id
    return ordered + sorted(d for d in rows if not _values(rows[d], field))


@pytest.mark.parametrize("field", ["notice_period_days", "agreement_date"])
@pytest.mark.parametrize("descending", [True, False], ids=["desc", "asc"])
def test_order_by_sorts_by_a_rows_largest_or_smallest_value_with_missing_last(store, contracts, field, descending):
    found = store.find_annotations("default", "contracts", [], order_by=field, descending=descending)
    assert [r["doc_id"] for r in found] == _expected_order(contracts, field, descending)
    first = store.find_annotations("default", "contracts", [], order_by=field, descending=descending, limit=1)
    assert [r["doc_id"] for r in first] == _expected_order(contracts, field, descending)[:1]
    assert first[0]["total_rows"] == len(contracts)


@pytest.fixture
def receipts(store):
    rows = {
        "r1": {"company": "Acme", "date": "2018-03-02", "total": 12.5},
        "r2": {"company": "acme", "date": "2018-03-28", "total": 40.0},
        "r3": {"company": "Bolt", "date": "2018-07-14", "total": 99.9},
        "r4": {"company": "Bolt", "date": "2017-12-31", "total": 5.0},
        "r5": {"company": "Acme", "total": 7.25},
        "r6": {"company": "Cord", "date": "2018-07-01", "total": 99.9},
    }
    for doc_id, row in rows.items():
        _commit(store, _source(doc_id, [row], bucket="receipts"))
    store.refresh_catalog("default", "receipts")
    return rows


def test_order_by_breaks_ties_by_doc_id_and_counts_every_match(store, receipts):
    over_10 = [Predicate(field="total", op=">", value=10)]
    found = store.find_annotations("default", "receipts", over_10, order_by="total", limit=2)
    matching = {d: r for d, r in receipts.items() if r["total"] > 10}
    assert [r["doc_id"] for r in found] == _expected_order(matching, "total", True)[:2]
    assert found[0]["row"]["total"] == max(r["total"] for r in matching.values())
    assert found[0]["total_rows"] == len(matching)


def test_a_search_stops_counting_past_the_bound_unless_ordered_or_its_limit_is_larger(store, receipts, monkeypatch):
    """Past MATCHES_COUNTED_UP_TO matching rows (3 here, of 6 receipts) the total is a lower bound; the page is still
    the first rows by document id of those read; an ordered search, or one whose limit is larger, counts every
    match."""
    monkeypatch.setattr(postgres_annotations, "MATCHES_COUNTED_UP_TO", 3)
    over_5 = [Predicate(field="total", op=">", value=5)]  # 5 of the 6
    found = store.find_annotations("default", "receipts", over_5, limit=2)
    assert [(r["total_rows"], r["more_rows"]) for r in found] == [(3, True), (3, True)]
    assert [r["doc_id"] for r in found] == sorted(r["doc_id"] for r in found)
    ordered = store.find_annotations("default", "receipts", over_5, order_by="total", limit=2)
    assert (ordered[0]["total_rows"], ordered[0]["more_rows"]) == (5, False)
    export = store.find_annotations("default", "receipts", over_5, limit=10)
    assert len(export) == 5 and (export[0]["total_rows"], export[0]["more_rows"]) == (5, False)
    few = store.find_annotations("default", "receipts", [Predicate(field="total", op=">", value=50)], limit=1)
    assert (few[0]["total_rows"], few[0]["more_rows"]) == (2, False), "at or under the bound, the count is exact"


@pytest.mark.parametrize(
    "field, message",
    [
        ("company", "cannot order by string field 'company'; number and date fields of this bucket: date, total"),
        ("colour", "cannot order by unknown field 'colour'; number and date fields of this bucket: date, total"),
    ],
)
def test_order_by_refuses_a_field_without_an_order(store, receipts, field, message):
    with pytest.raises(InvalidInput, match=message):
        store.find_annotations("default", "receipts", [], order_by=field)


def _grouped(groups: list[dict], entries: list[str]) -> dict[tuple, tuple[int, float]]:
    return {
        tuple(g["group"][e].lower() if g["group"][e] else None for e in entries): (g["documents"], g["value"])
        for g in groups
    }


@pytest.mark.parametrize("part, chars", [("year", 4), ("month", 7)])
def test_group_by_a_dates_year_or_month(store, receipts, part, chars):
    entry = f"{part}(date)"
    groups, total = store.aggregate("default", "receipts", [], "sum(total)", [entry])
    expected: dict[str | None, list[float]] = {}
    for row in receipts.values():
        expected.setdefault(row["date"][:chars] if "date" in row else None, []).append(row["total"])
    assert {g["group"][entry]: (g["documents"], g["value"]) for g in groups} == {
        key: (len(totals), pytest.approx(sum(totals))) for key, totals in expected.items()
    }
    assert [g["value"] for g in groups] == sorted((g["value"] for g in groups), reverse=True)
    assert total == {"documents": len(receipts), "value": pytest.approx(sum(r["total"] for r in receipts.values()))}


def test_a_date_part_groups_with_a_case_insensitive_text_field(store, receipts):
    entries = ["year(date)", "company"]
    groups, _ = store.aggregate("default", "receipts", [Predicate(field="date", op="exists")], "count", entries)
    expected: dict[tuple, int] = {}
    for row in receipts.values():
        if "date" in row:
            key = (row["date"][:4], row["company"].lower())
            expected[key] = expected.get(key, 0) + 1
    assert _grouped(groups, entries) == {key: (n, n) for key, n in expected.items()}


@pytest.mark.parametrize(
    "entry, message",
    [
        ("year(total)", "year() needs a date field; 'total' is number (date fields: date)"),
        ("month(company)", "month() needs a date field; 'company' is string (date fields: date)"),
        ("year(colour)", "unknown field 'colour'; fields of this bucket: {fields}"),
        ("week(date)", "group_by entry 'week(date)' is not understood; give a field name, year(field) or month(field)"),
        ("year(date", "group_by entry 'year(date' is not understood"),
    ],
)
def test_group_by_refuses_a_bad_date_part(store, receipts, entry, message):
    fields = ", ".join(sorted({name for row in receipts.values() for name in row}))
    with pytest.raises(InvalidInput, match=re.escape(message.format(fields=fields))):
        store.aggregate("default", "receipts", [], "count", [entry])


def test_doc_ids_restrict_rows_and_aggregates_to_those_documents_in_scope(store, contracts):
    named = ["c2", "c4", "other-tenant"]
    found = store.find_annotations("default", "contracts", [], doc_ids=named)
    in_scope = sorted(d for d in named if d in contracts)
    assert [r["doc_id"] for r in found] == in_scope and found[0]["total_rows"] == len(in_scope)
    law = [Predicate(field="governing_law", op="=", value="New York")]
    assert [r["doc_id"] for r in store.find_annotations("default", "contracts", law, doc_ids=named)] == ["c2"]
    _, total = store.aggregate("default", "contracts", [], "sum(notice_period_days)", [], doc_ids=named)
    expected = [v for d in in_scope for v in _values(contracts[d], "notice_period_days")]
    assert total == {"documents": len(in_scope), "value": sum(expected)}
    assert store.find_annotations("default", "contracts", [], doc_ids=[]) == []
