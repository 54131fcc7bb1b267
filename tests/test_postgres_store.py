"""The Postgres document and annotation store against a real (embedded) Postgres."""

from __future__ import annotations

import time

import pytest

from retrievers.annotation_filters import Predicate
from retrievers.errors import BackendUnavailable, InvalidInput
from retrievers.models import AnnotationRow, Chunk, Document, FieldSpec, IndexedChunk, SourceDocument
from retrievers.postgres_store import PostgresStore


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


def test_field_values_lists_every_text_value_with_document_counts(store, contracts):
    assert store.field_values("default", "contracts", "governing_law") == [
        ("California", 1),
        ("Delaware", 1),
        ("New York", 1),
        ("new york", 1),
    ]
    assert store.field_values("default", "contracts", "notice_period_days") == []
    assert store.field_values("tenant_b", "contracts", "governing_law") == [("Delaware", 1)]
