"""The index as the vocabulary: the loaders' aliases, roles and units in the catalog, the user's words laid over them
(`PostgresStore.describe`), and both read by planners through `tools.catalog.Catalog`, on a real embedded Postgres."""

from __future__ import annotations

from contextlib import closing

import pytest

from core.errors import InvalidInput
from core.models import AnnotationRow, Chunk, Document, FieldSpec, IndexedChunk, SourceDocument
from graph.planners.vocabulary import Vocabulary
from retrievers.ingestion.consistency import check as check_stores
from retrievers.ingestion.pipeline import Ingestor
from retrievers.loaders import field_specs, sample
from retrievers.loaders.sample import contracts as sample_contracts
from retrievers.postgres.field_catalog import CatalogField
from retrievers.postgres.schema import DEFAULT_BUCKETS
from retrievers.postgres.store import PostgresStore
from tests.fake_catalog import FakeCatalog
from tools.catalog import Catalog
from tools.context import ToolContext

SAMPLE_SPECS = field_specs("sample")
LAW_ALIASES = ["law", "governed", "governing law", "jurisdiction", "state law"]


def _catalog_fields(stack, bucket: str) -> dict[str, CatalogField]:
    with closing(ToolContext(stack)) as context:
        return {f.name: f for f in Catalog(context).fields(bucket)}


def _commit(store: PostgresStore, doc_id: str, row: dict) -> None:
    source = SourceDocument(
        document=Document(doc_id=doc_id, bucket="contracts", title=doc_id, body="Some body text."),
        annotations=[AnnotationRow(row=row)],
    )
    content_hash = source.content_hash()
    chunk = Chunk(ordinal=0, start=0, end=15, text="Some body text.")
    store.commit_document(source, content_hash, [chunk], [IndexedChunk.make_id("default", doc_id, content_hash, 0)])


@pytest.fixture
def sample_twelve(stack):
    """Two documents of each of the six buckets, ingested with the sample's field specs."""
    Ingestor(stack).ingest(sample.load(limit=12), field_specs=SAMPLE_SPECS, progress=False)
    return stack


def test_the_loaders_vocabulary_reaches_the_planners_catalog(sample_twelve):
    invoices = _catalog_fields(sample_twelve, "invoices")
    amount = invoices["amount"]
    assert (amount.role, amount.unit_field, amount.unit) == ("money", "currency", "")
    assert {"amount", "total", "billed"} <= set(amount.aliases)
    assert (invoices["unit_price"].kind, invoices["unit_price"].role) == ("line_item", "money")
    assert (invoices["invoice_number"].role, invoices["currency"].role) == ("identifier", "currency")
    contracts = _catalog_fields(sample_twelve, "contracts")
    assert contracts["notice_period_days"].unit == "days" and "notice period" in contracts["notice_period_days"].aliases
    assert contracts["parties"].role == "name" and contracts["governing_law"].aliases == LAW_ALIASES
    assert contracts["exclusivity"].aliases == ["exclusivity", "exclusive"]
    with closing(ToolContext(sample_twelve)) as context:
        buckets = Catalog(context).buckets
    assert buckets["receipts"].aliases == DEFAULT_BUCKETS["receipts"].aliases
    assert "till slip" in buckets["receipts"].aliases and buckets["receipts"].documents == 2


def test_the_users_words_are_laid_over_the_loaders_and_survive_a_reingest(sample_twelve):
    store = sample_twelve.store
    said = store.describe(
        "contracts",
        "governing_law",
        aliases=["choice of law", "Law"],
        remove_aliases=["state law"],
        role="text",
        description="Whose law applies",
    )
    assert said.aliases == ["choice of law", "Law"] and said.removed_aliases == ["state law"]
    store.describe("contracts", aliases=["pact"], description="Our agreements")
    merged_aliases = ["law", "governed", "governing law", "jurisdiction", "choice of law"]

    def as_described() -> None:
        law = _catalog_fields(sample_twelve, "contracts")["governing_law"]
        assert (law.aliases, law.role, law.description) == (merged_aliases, "text", "Whose law applies")
        assert store.bucket_aliases()["contracts"] == [*DEFAULT_BUCKETS["contracts"].aliases, "pact"]
        assert store.buckets()["contracts"] == "Our agreements"

    as_described()  # at once: no catalog refresh
    report = Ingestor(sample_twelve).ingest(sample.load(limit=12), field_specs=SAMPLE_SPECS, force=True, progress=False)
    assert report.updated == 12
    as_described()
    # The loader's words change (a new release): its new alias joins, the user's removal and additions stay.
    newer = [
        spec.model_copy(update={"aliases": [*spec.aliases, "lex"]}) if spec.name == "governing_law" else spec
        for spec in SAMPLE_SPECS["contracts"]
    ]
    Ingestor(sample_twelve).ingest(sample.load(limit=12), field_specs={"contracts": newer}, progress=False)
    merged_aliases.insert(4, "lex")
    as_described()
    # '' gives the loader's text back; an alias added again is no longer removed.
    store.describe("contracts", "governing_law", aliases=["state law"], role="", description="")
    law = _catalog_fields(sample_twelve, "contracts")["governing_law"]
    assert law.role == "" and law.description.startswith("State or country whose law governs")
    assert law.aliases == [*LAW_ALIASES, "lex", "choice of law"]
    # Another scope sees the same words: they describe the bucket, not one tenant's documents.
    assert store.field_catalog("nobody", "contracts") == []
    assert store.vocabulary("contracts", "governing_law").aliases == ["choice of law", "Law", "state law"]


@pytest.mark.parametrize(
    "bucket, field, edits, message",
    [
        ("recipes", "", {}, "bucket 'recipes' is unknown; use one of certificates, contracts"),
        (
            "contracts",
            "colour",
            {},
            "field 'colour' is unknown in bucket 'contracts'; its fields: governing_law, parties",
        ),
        ("invoices", "amount", {}, "field 'amount' is unknown in bucket 'invoices'; it has no annotation fields yet"),
        ("contracts", "parties", {"role": "boss"}, "role 'boss' is unknown; use one of name, identifier, money"),
        ("contracts", "", {"role": "name"}, "a role, unit or unit field describes a field"),
        ("contracts", "parties", {"unit_field": "currency"}, "unit field 'currency' is unknown in bucket 'contracts'"),
        ("contracts", "parties", {"aliases": ["firm"], "remove_aliases": ["FIRM"]}, "both added and removed"),
        ("contracts", "parties", {"aliases": ["x" * 81]}, "at most 80 characters"),
        ("contracts", "parties", {"description": "x" * 501}, "keep it to 500"),
        ("contracts", "parties", {"unit": "x" * 21}, "longer than 20 characters"),
    ],
)
def test_describing_refuses_unknown_names_and_bad_words_with_what_is_known(store, bucket, field, edits, message):
    _commit(store, "c1", {"governing_law": ["Delaware"]})
    store.refresh_catalog("default", "contracts")
    store.record_field_specs("contracts", [FieldSpec(name="parties", type="string", multi=True)])
    with pytest.raises(InvalidInput, match=message.replace("(", r"\(")):
        store.describe(bucket, field, **edits)
    assert store.vocabulary("contracts", "parties").model_dump(exclude={"bucket", "field"}) == {
        "aliases": [],
        "removed_aliases": [],
        "description": "",
        "role": "",
        "unit": "",
        "unit_field": "",
    }


def test_a_database_from_before_the_vocabulary_is_migrated_and_its_catalog_still_reads(store, database_url):
    _commit(store, "c1", {"governing_law": ["Delaware"], "notice_period_days": 30})
    store.record_field_specs("contracts", [FieldSpec(name="notice_period_days", type="integer", description="days")])
    store.refresh_catalog("default", "contracts")
    with store.pool.connection() as conn:  # the tables and entries as they were before this change
        conn.execute("UPDATE field_catalog SET entry = entry - 'aliases' - 'role' - 'unit' - 'unit_field'")
        conn.execute("DROP TABLE vocabulary")
        conn.execute("ALTER TABLE buckets DROP COLUMN aliases")
        conn.execute("ALTER TABLE field_specs DROP COLUMN aliases, DROP COLUMN role, DROP COLUMN unit")
        conn.execute("ALTER TABLE field_specs DROP COLUMN unit_field")
        old_entry = conn.execute("SELECT entry FROM field_catalog WHERE field = 'notice_period_days'").fetchone()[0]
    assert "aliases" not in old_entry and CatalogField.model_validate(old_entry).role == ""

    migrated = PostgresStore(database_url)
    try:
        notice = {f.name: f for f in migrated.field_catalog("default", "contracts")}["notice_period_days"]
        assert (notice.description, notice.aliases, notice.role, notice.unit) == ("days", [], "", "")
        assert migrated.catalogs_out_of_date() == []
        assert migrated.bucket_aliases()["invoices"] == list(DEFAULT_BUCKETS["invoices"].aliases)
        # The loader's vocabulary comes with its next ingest (its specs changed: the catalog is refreshed).
        migrated.record_field_specs(
            "contracts", [FieldSpec(name="notice_period_days", type="integer", description="days", unit="days")]
        )
        assert migrated.stale_catalogs("default") == ["contracts"]
        migrated.refresh_catalog("default", "contracts")
        notice = {f.name: f for f in migrated.field_catalog("default", "contracts")}["notice_period_days"]
        assert notice.unit == "days"
        migrated.describe("contracts", "governing_law", aliases=["law"])
        assert {f.name: f for f in migrated.field_catalog("default", "contracts")}["governing_law"].aliases == ["law"]
    finally:
        migrated.close()


def _before_the_rename(source: SourceDocument) -> SourceDocument:
    """The document with its governing law under another name, as a loader of an earlier release gave it."""
    (row,) = source.annotations
    renamed = {("jurisdiction" if name == "governing_law" else name): value for name, value in row.row.items()}
    return source.model_copy(update={"annotations": [row.model_copy(update={"row": renamed})]})


def test_changed_annotation_rows_of_unchanged_documents_are_rewritten_without_embedding_again(stack):
    documents = list(sample_contracts.documents())[:4]
    old_specs = [*SAMPLE_SPECS["contracts"], FieldSpec(name="jurisdiction", type="string", multi=True)]
    first = Ingestor(stack).ingest(
        [_before_the_rename(s) for s in documents], field_specs={"contracts": old_specs}, progress=False
    )
    assert first.embeddings_computed > 0 and "jurisdiction" in _catalog_fields(stack, "contracts")

    again = Ingestor(stack).ingest(documents, field_specs=SAMPLE_SPECS, progress=False)
    assert (again.updated, again.unchanged, again.annotation_rows) == (4, 0, 4)
    assert (again.embeddings_computed, again.embeddings_cached) == (0, first.chunks)
    fields = _catalog_fields(stack, "contracts")
    assert "jurisdiction" not in fields and fields["governing_law"].doc_count == 4
    assert stack.store.stale_catalogs("default") == []
    assert dict(stack.store.field_values("default", "contracts", "governing_law")) == {
        s.annotations[0].row["governing_law"][0]: 1 for s in documents
    }
    assert check_stores(stack, repair=False).consistent


def test_the_loaders_vocabulary_as_the_planners_read_it_without_an_engine():
    """The fields `build_field` makes of the loaders' specs, as a catalog of plain data gives them to the planners
    (`tests/fake_catalog.py`); the test above checks that the store's catalog gives the same."""
    catalog = FakeCatalog.sample()
    invoices = {f.name: f for f in catalog.fields("invoices")}
    amount = invoices["amount"]
    assert (amount.role, amount.unit_field, amount.unit) == ("money", "currency", "")
    assert {"amount", "total", "billed"} <= set(amount.aliases)
    assert (invoices["unit_price"].kind, invoices["unit_price"].role) == ("line_item", "money")
    assert (invoices["invoice_number"].role, invoices["currency"].role) == ("identifier", "currency")
    contracts = {f.name: f for f in catalog.fields("contracts")}
    assert contracts["notice_period_days"].unit == "days" and "notice period" in contracts["notice_period_days"].aliases
    assert contracts["parties"].role == "name" and contracts["governing_law"].aliases == LAW_ALIASES
    assert contracts["exclusivity"].aliases == ["exclusivity", "exclusive"]
    assert catalog.buckets["receipts"].aliases == DEFAULT_BUCKETS["receipts"].aliases
    words = Vocabulary(catalog)
    assert words.named_buckets("any till slips from march?")[0][0] == "receipts"
    assert words.buckets["contracts"].field_mentions(
        "which contracts are governed by delaware", contracts["governing_law"]
    )
