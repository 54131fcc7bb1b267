"""The small protocols every engine adapter implements; one conformance suite per protocol tests them all.

Adapters live one per file in `retrievers.engines` and `retrievers.postgres`. The ingestion pipeline and the search
service depend on these protocols only, so a new engine is one new file plus one line in the conformance
parametrisation.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from core.models import (
    AnnotationRow,
    Chunk,
    Document,
    EngineHit,
    FieldSpec,
    IndexedChunk,
    SearchFilter,
    SourceDocument,
)
from retrievers.postgres.annotation_filters import Predicate
from retrievers.postgres.field_catalog import CatalogField, Vocabulary


@runtime_checkable
class Embedder(Protocol):
    """Turns text into vectors and says how it splits text into the tokens its window counts."""

    model_name: str
    dimension: int
    window_tokens: int

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        """Character (start, end) of each token of `text`, as the model's tokenizer sees it."""

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


class ForwardingEmbedder:
    """An embedder in front of another (`inner`): its name, dimension, window, tokens and vectors are the inner
    one's, each asked when needed (so a deferred embedder is made only then); a wrapper overrides what it changes
    (`retrievers.engines.embedders.cache`, `retrievers.engines.deferred`)."""

    inner: Embedder

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    @property
    def window_tokens(self) -> int:
        return self.inner.window_tokens

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return self.inner.token_spans(text)

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


@runtime_checkable
class KeywordIndex(Protocol):
    """A BM25 index over chunk text, with every `SearchFilter` field as an indexed filter."""

    def upsert(self, chunks: Sequence[IndexedChunk]) -> None:
        """Add or replace chunks (by chunk_id) and make them searchable."""

    def delete_document(self, scope: str, doc_id: str, keep_hash: str | None = None) -> None:
        """Remove a document's chunks, except those of version `keep_hash` when it is given."""

    def chunk_ids(self, scope: str | None = None) -> set[str]:
        """Every chunk id the index holds (in `scope`, or in every scope): what a consistency check compares."""

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        """Remove these chunks; ids the index does not hold are ignored."""

    def search(self, query: str, filters: SearchFilter, limit: int) -> list[EngineHit]: ...

    def count(self, filters: SearchFilter, query: str | None = None) -> int:
        """How many chunks match the filters (and the query's words, when a query is given)."""

    def stats(self) -> dict[str, Any]:
        """Name, chunk count and size on disk where the engine has one."""

    def close(self) -> None: ...


@runtime_checkable
class VectorIndex(Protocol):
    """A vector index over chunk embeddings, with the same filters as the keyword index."""

    def ensure_model(self, model_name: str, dimension: int) -> None:
        """Create the index for this model, or check that it was built with this model.

        Raises `EmbeddingModelMismatch` when the index holds vectors of another model.
        """

    def upsert(self, chunks: Sequence[IndexedChunk], vectors: Sequence[Sequence[float]]) -> None: ...

    def delete_document(self, scope: str, doc_id: str, keep_hash: str | None = None) -> None: ...

    def chunk_ids(self, scope: str | None = None) -> set[str]:
        """Every chunk id the index holds (in `scope`, or in every scope)."""

    def delete_chunks(self, chunk_ids: Sequence[str]) -> None:
        """Remove these chunks; ids the index does not hold are ignored."""

    def stored_points(self) -> Iterator[list[tuple[str, str, list[float]]]]:
        """Pages of (chunk id, document id, stored vector) for every point: `ragent check` reads them all, since a
        damaged storage file may still answer searches, with meaningless scores."""

    def optimize(self) -> None:
        """Bring the index's search structures up to date after writes (called when an ingest ends)."""

    def search(self, vector: Sequence[float], filters: SearchFilter, limit: int) -> list[EngineHit]: ...

    def count(self, filters: SearchFilter) -> int: ...

    def stats(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


@runtime_checkable
class DocumentRecords(Protocol):
    """Documents with their chunks and annotation rows, written and read document by document: the commit point of
    ingestion, and what the engines are checked against."""

    def bucket_document_counts(self, scope: str) -> dict[str, int]: ...

    def content_hashes(self, scope: str, doc_ids: Sequence[str]) -> dict[str, str]: ...

    def document_buckets(self, scope: str, doc_ids: Sequence[str]) -> dict[str, str]:
        """The bucket of each of `doc_ids` that is a document of `scope`."""

    def commit_document(
        self,
        source: SourceDocument,
        content_hash: str,
        chunks: Sequence[Chunk],
        chunk_ids: Sequence[str],
        extraction_stamps: Mapping[str, str] | None = None,
    ) -> None:
        """Replace the document, its chunks and its annotation rows atomically, with what each field its text was
        read for at ingest was read with (`extraction_stamps`, by field; none when nothing was read)."""

    def documents_titled(
        self, scope: str, words: Sequence[str], limit: int = 2
    ) -> dict[str, list[tuple[str, str, str]]]:
        """Up to `limit` documents (id, bucket, title) whose title or id holds each word, spaces and punctuation
        aside."""

    def replace_annotations(
        self, document: Document, rows: Sequence[AnnotationRow], stamps: dict[str, str], *, was: str
    ) -> bool:
        """Replace a document's annotation rows after extraction, while its content hash is still `was`, and record
        what each field in `stamps` was extracted with."""

    def count_to_extract(self, scope: str, bucket: str, stamps: dict[str, str]) -> int: ...

    def documents_to_extract(
        self, scope: str, bucket: str, stamps: dict[str, str], after: str = "", limit: int = 100
    ) -> list[tuple[SourceDocument, str, dict[str, str]]]:
        """The next documents of a bucket not labelled completely with a field not extracted with its stamp in
        `stamps`: each with its content hash and its fields' stamps."""

    def get_document(self, scope: str, doc_id: str) -> dict[str, Any] | None: ...

    def annotation_ids(self, scope: str, doc_id: str) -> list[str]: ...

    def list_documents(
        self,
        scope: str,
        bucket: str | None = None,
        *,
        doc_id: str | None = None,
        matching: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> tuple[list[dict[str, Any]], int]:
        """A page of the documents of `scope` (of one bucket, or one document; of those whose title or id holds the
        words of `matching`) with their counts, and the number in all."""

    def stored_origins(self, scope: str, doc_ids: Sequence[str]) -> dict[str, tuple[str, str, list[dict[str, Any]]]]:
        """Each stored document's source, bucket and annotation rows (kind, row, raw), for a folder ingest."""

    def documents_under(self, scope: str, folder: str) -> dict[str, str]:
        """The scope's documents ingested from files under `folder`, as {doc_id: source}."""

    def document_annotations(self, scope: str, doc_id: str) -> list[dict[str, Any]]:
        """Every annotation row of one document, whole."""

    def delete_documents(
        self, scope: str, doc_ids: Sequence[str] = (), *, bucket: str | None = None
    ) -> list[dict[str, Any]]:
        """Delete documents (or a bucket's) with their rows atomically, recording their chunk ids as pending for the
        engines."""

    def pending_deletions(self, scope: str | None = None) -> list[dict[str, Any]]:
        """Deleted documents whose chunks the engines may still hold."""

    def clear_pending_deletions(self, ids: Sequence[int]) -> None: ...

    def chunks_by_id(self, scope: str, chunk_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Committed chunks of `scope` with their document's fields."""

    def chunk_ids(self, scope: str | None = None) -> set[str]:
        """Ids of the committed chunks (in `scope`, or in every scope): what the engines must hold, no more."""

    def indexed_chunks(self, chunk_ids: Sequence[str]) -> list[IndexedChunk]:
        """The committed chunks among `chunk_ids`, rebuilt as ingestion gave them to the engines (to re-index them)."""

    def bucket_samples(self) -> list[str]:
        """One committed chunk id per scope and bucket, the bucket's longest chunk (`ragent check` searches for each
        in the engines, by its own words and by its own vector)."""

    def rows_without_document(self, scope: str | None = None) -> dict[str, int]:
        """Chunk and annotation rows whose document row is missing, by table (zero while the foreign keys hold)."""

    def delete_rows_without_document(self, scope: str | None = None) -> dict[str, int]:
        """Delete the rows `rows_without_document` counts; returns how many went, by table."""

    def counts(self, scope: str | None = None) -> dict[str, int]: ...

    def bytes_on_disk(self) -> int: ...


@runtime_checkable
class Catalog(Protocol):
    """Buckets, the users' vocabulary and the field catalogs: what a planner reads of a scope."""

    def buckets(self) -> dict[str, str]: ...

    def bucket_aliases(self) -> dict[str, list[str]]:
        """Each bucket's aliases: the shipped ones with the user's words laid over them."""

    def add_bucket(self, name: str, description: str) -> None: ...

    def vocabulary(self, bucket: str, field: str = "") -> Vocabulary:
        """What users said about a bucket (field '') or one of its fields."""

    def describe(
        self,
        bucket: str,
        field: str = "",
        *,
        aliases: Sequence[str] = (),
        remove_aliases: Sequence[str] = (),
        description: str | None = None,
        role: str | None = None,
        unit: str | None = None,
        unit_field: str | None = None,
    ) -> Vocabulary:
        """Record a user's words for a bucket or field; kept over re-ingests, read over the catalog at once."""

    def require_bucket(self, name: str) -> None:
        """Raise `InvalidInput` naming the known buckets when `name` is not one of them."""

    def catalog_version(self, scope: str) -> tuple:
        """Changes whenever the documents, field catalogs, vocabulary or buckets of `scope` may have."""

    def record_field_specs(self, bucket: str, specs: Sequence[FieldSpec], *, only_new: bool = False) -> None: ...

    def field_specs(self, bucket: str) -> list[FieldSpec]: ...

    def described_specs(self, bucket: str) -> list[FieldSpec]: ...

    def refresh_catalog(self, scope: str, bucket: str) -> list[CatalogField]: ...

    def refresh_stale_catalogs(self, scope: str) -> list[str]:
        """Refresh every catalog of `scope` marked stale; returns their buckets."""

    def refresh_bucket_catalogs(self, bucket: str) -> None:
        """Refresh the catalogs of `bucket` marked stale in every scope."""

    def field_catalog(self, scope: str, bucket: str) -> list[CatalogField]: ...

    def stale_catalogs(self, scope: str) -> list[str]:
        """Buckets of `scope` whose rows changed since their catalog was last refreshed."""

    def catalogs_out_of_date(self, scope: str | None = None) -> list[tuple[str, str]]:
        """(scope, bucket) pairs whose stored catalog is not what their rows give now."""


@runtime_checkable
class AnnotationQueries(Catalog, Protocol):
    """Queries over annotation rows, typed by the bucket's field catalog (so a part of the store that has one)."""

    def field_values(self, scope: str, bucket: str, field: str, limit: int = 5000) -> list[tuple[str, int]]: ...

    def find_annotations(
        self,
        scope: str,
        bucket: str,
        predicates: list[Predicate],
        *,
        kind: str | None = None,
        limit: int = 50,
        order_by: str | None = None,
        descending: bool = True,
        doc_ids: Sequence[str] | None = None,
    ) -> list[dict[str, Any]]: ...

    def matching_doc_ids(
        self, scope: str, bucket: str, predicates: list[Predicate], *, kind: str | None = None
    ) -> list[str]: ...

    def aggregate(
        self,
        scope: str,
        bucket: str,
        predicates: list[Predicate],
        aggregate: str,
        group_by: list[str],
        *,
        kind: str | None = None,
        doc_ids: Sequence[str] | None = None,
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]: ...

    def coverage(
        self,
        scope: str,
        bucket: str,
        fields: Sequence[str],
        *,
        kind: str | None = None,
        doc_ids: Sequence[str] | None = None,
    ) -> dict[str, Any]: ...


@runtime_checkable
class DocumentStore(DocumentRecords, AnnotationQueries, Protocol):
    """Documents, chunks, annotation rows, buckets and field catalogs: the commit point of ingestion.

    One adapter today (Postgres, embedded or by `DATABASE_URL`); the ingestion pipeline and the search
    service use only these methods.
    """

    def close(self) -> None: ...
