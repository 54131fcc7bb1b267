"""Documents, their chunks and their annotation rows as whole documents in Postgres: the commit point of ingestion.

A document becomes visible when its row, chunks and annotations are committed in one transaction. The search engines
may briefly hold chunks of a version that is not yet (or no longer) committed; hits are hydrated from the `chunks`
table, so such chunks are never returned. A delete records the chunk ids the engines must still drop
(`pending_deletions`), and the counts here are what the consistency check compares the engines with.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from core.models import AnnotationRow, Chunk, Document, IndexedChunk, SourceDocument, timestamp
from retrievers.postgres.schema import COMPACT_TITLE, MARK_STALE

_TO_EXTRACT = "scope = %s AND bucket = %s AND doc_id > %s AND NOT labels_complete AND NOT extraction_stamps @> %s"
"""The documents an extraction with some stamps has to read: those with a field extracted with another stamp."""

# The tables whose rows belong to a document (by a foreign key on (scope, doc_id)).
_DOCUMENT_ROWS = ("chunks", "annotations")


def _without_document(verb: str, table: str, scope: str | None) -> tuple[sql.Composable, tuple[str, ...]]:
    """`verb` (a count or a delete) over the rows of `table` whose document row is missing."""
    where, params = (" AND t.scope = %s", (scope,)) if scope else ("", ())
    query = sql.SQL(
        verb
        + " FROM {} t WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.scope = t.scope AND d.doc_id = t.doc_id)"
        + where
    )
    return query.format(sql.Identifier(table)), params


def _insert_annotations(cur: psycopg.Cursor, doc: Document, rows: Sequence[AnnotationRow]) -> None:
    """Insert a document's annotation rows, numbered by kind in their order (`doc_id#kind-n`)."""
    per_kind: Counter = Counter()
    values = []
    for ann in rows:
        values.append(
            (
                doc.scope,
                f"{doc.doc_id}#{ann.kind}-{per_kind[ann.kind]}",
                doc.doc_id,
                doc.bucket,
                ann.kind,
                Jsonb(ann.row),
                Jsonb(ann.raw),
                Jsonb(ann.model_dump(mode="json")["sources"]),
            )
        )
        per_kind[ann.kind] += 1
    cur.executemany(
        "INSERT INTO annotations (scope, annotation_id, doc_id, bucket, kind, row, raw, sources)"
        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
        values,
    )


def _indexed_chunk(row: dict[str, Any]) -> IndexedChunk:
    created_at = row.pop("created_at")
    return IndexedChunk(**row, created_ts=timestamp(created_at))


class PostgresDocuments:
    """Documents, chunks and annotation rows, document by document, over the store's connection pool."""

    pool: ConnectionPool

    def bucket_document_counts(self, scope: str) -> dict[str, int]:
        with self.pool.connection() as conn:
            return dict(
                conn.execute(
                    "SELECT bucket, count(*) FROM documents WHERE scope = %s GROUP BY bucket", (scope,)
                ).fetchall()
            )

    def document_buckets(self, scope: str, doc_ids: Sequence[str]) -> dict[str, str]:
        """The bucket of each of `doc_ids` that is a document of `scope` (the others are left out)."""
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT doc_id, bucket FROM documents WHERE scope = %s AND doc_id = ANY(%s)", (scope, list(doc_ids))
            ).fetchall()
        return dict(rows)

    def documents_titled(
        self, scope: str, words: Sequence[str], limit: int = 2
    ) -> dict[str, list[tuple[str, str, str]]]:
        """For each of `words` (lower-case letters and digits, at least three), up to `limit` documents of `scope`
        whose title or id holds it with spaces and punctuation taken out (`COMPACT_TITLE`), as (id, bucket, title):
        how a question that names a document by its company or title finds it (a trigram index makes it one
        lookup)."""
        usable = [w for w in dict.fromkeys(words) if len(w) >= 3 and w.isalnum() and w == w.lower()]
        if not usable:
            return {}
        with self.pool.connection() as conn:
            rows = conn.execute(
                f"SELECT w, ARRAY(SELECT ARRAY[doc_id, bucket, title] FROM documents WHERE scope = %s"
                f" AND {COMPACT_TITLE} LIKE '%%' || w || '%%' ORDER BY doc_id LIMIT %s) FROM unnest(%s::text[]) w",
                (scope, limit, usable),
            ).fetchall()
        return {word: [tuple(found) for found in documents] for word, documents in rows}

    def content_hashes(self, scope: str, doc_ids: Sequence[str]) -> dict[str, str]:
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT doc_id, content_hash FROM documents WHERE scope = %s AND doc_id = ANY(%s)",
                (scope, list(doc_ids)),
            ).fetchall()
        return dict(rows)

    def stored_origins(self, scope: str, doc_ids: Sequence[str]) -> dict[str, tuple[str, str, list[dict[str, Any]]]]:
        """For each of `doc_ids` the scope holds: the source it was ingested from, its bucket and its annotation rows
        (kind, row, raw, sources, in id order); one statement, for a folder ingest's batch."""
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT d.doc_id, d.source, d.bucket, coalesce(jsonb_agg(jsonb_build_object('kind', a.kind, 'row',"
                " a.row, 'raw', a.raw, 'sources', a.sources) ORDER BY a.annotation_id)"
                " FILTER (WHERE a.annotation_id IS NOT NULL), '[]')"
                " FROM documents d LEFT JOIN annotations a ON a.scope = d.scope AND a.doc_id = d.doc_id"
                " WHERE d.scope = %s AND d.doc_id = ANY(%s) GROUP BY d.doc_id, d.source, d.bucket",
                (scope, list(doc_ids)),
            ).fetchall()
        return {doc_id: (source, bucket, annotations) for doc_id, source, bucket, annotations in rows}

    def documents_under(self, scope: str, folder: str) -> dict[str, str]:
        """The scope's documents ingested from files under `folder`, as {doc_id: source}."""
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT doc_id, source FROM documents WHERE scope = %s AND starts_with(source, %s)",
                (scope, folder.rstrip("/") + "/"),
            ).fetchall()
        return dict(rows)

    def commit_document(
        self,
        source: SourceDocument,
        content_hash: str,
        chunks: Sequence[Chunk],
        chunk_ids: Sequence[str],
        extraction_stamps: Mapping[str, str] | None = None,
    ) -> None:
        """Replace the document, its chunks and its annotation rows in one transaction, which also marks the catalog
        of its bucket (and of the bucket it leaves, if it moves) stale; with the stamps of the fields its text was
        read for at ingest (`ragent extract` reads it again only for fields whose declaration or rules changed)."""
        doc = source.document
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(
                MARK_STALE.format(
                    "SELECT %s, %s UNION SELECT scope, bucket FROM documents WHERE scope = %s AND doc_id = %s"
                    " ORDER BY 2"  # one order of locks, should two documents move between the same buckets at once
                ),
                (doc.scope, doc.bucket, doc.scope, doc.doc_id),
            )
            conn.execute(
                """
                INSERT INTO documents (scope, doc_id, bucket, title, author, tags, created_at, source, summary, body,
                    content_hash, labels_complete, extraction_stamps)
                VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
                ON CONFLICT (scope, doc_id) DO UPDATE SET
                    bucket = EXCLUDED.bucket, title = EXCLUDED.title, author = EXCLUDED.author, tags = EXCLUDED.tags,
                    created_at = EXCLUDED.created_at, source = EXCLUDED.source, summary = EXCLUDED.summary,
                    body = EXCLUDED.body, content_hash = EXCLUDED.content_hash,
                    labels_complete = EXCLUDED.labels_complete, extraction_stamps = EXCLUDED.extraction_stamps,
                    version = documents.version + 1, ingested_at = now()
                """,
                (
                    doc.scope,
                    doc.doc_id,
                    doc.bucket,
                    doc.title,
                    doc.author,
                    doc.tags,
                    doc.created_at,
                    doc.source,
                    doc.summary,
                    doc.body,
                    content_hash,
                    source.labels_complete,
                    Jsonb(dict(extraction_stamps or {})),
                ),
            )
            conn.execute("DELETE FROM chunks WHERE scope = %s AND doc_id = %s", (doc.scope, doc.doc_id))
            conn.execute("DELETE FROM annotations WHERE scope = %s AND doc_id = %s", (doc.scope, doc.doc_id))
            with conn.cursor() as cur:
                with cur.copy(
                    "COPY chunks (chunk_id, scope, doc_id, ordinal, start_char, end_char, text) FROM STDIN"
                ) as copy:
                    for chunk, chunk_id in zip(chunks, chunk_ids, strict=True):
                        copy.write_row(
                            (chunk_id, doc.scope, doc.doc_id, chunk.ordinal, chunk.start, chunk.end, chunk.text)
                        )
                _insert_annotations(cur, doc, source.annotations)

    def replace_annotations(
        self, document: Document, rows: Sequence[AnnotationRow], stamps: dict[str, str], *, was: str
    ) -> bool:
        """Replace the document's annotation rows (after extracting fields again) and record what each of those
        fields was extracted with (`stamps`, by field; the other fields keep theirs), in one transaction that marks
        its bucket's catalog stale; only while its content hash is still `was`, so that a document re-ingested
        meanwhile keeps the new version's rows. False when it was."""
        with self.pool.connection() as conn, conn.transaction():
            updated = conn.execute(
                "UPDATE documents SET extraction_stamps = extraction_stamps || %s"
                " WHERE scope = %s AND doc_id = %s AND content_hash = %s",
                (Jsonb(stamps), document.scope, document.doc_id, was),
            ).rowcount
            if not updated:
                return False
            conn.execute(MARK_STALE.format("SELECT %s, %s"), (document.scope, document.bucket))
            conn.execute("DELETE FROM annotations WHERE scope = %s AND doc_id = %s", (document.scope, document.doc_id))
            with conn.cursor() as cur:
                _insert_annotations(cur, document, rows)
        return True

    def count_to_extract(self, scope: str, bucket: str, stamps: dict[str, str]) -> int:
        """How many documents of (scope, bucket) `documents_to_extract` has to give for `stamps`."""
        with self.pool.connection() as conn:
            return conn.execute(
                f"SELECT count(*) FROM documents WHERE {_TO_EXTRACT}", (scope, bucket, "", Jsonb(stamps))
            ).fetchone()[0]

    def documents_to_extract(
        self, scope: str, bucket: str, stamps: dict[str, str], after: str = "", limit: int = 100
    ) -> list[tuple[SourceDocument, str, dict[str, str]]]:
        """The next `limit` documents of (scope, bucket) after doc id `after` that are not labelled completely and
        have a field not extracted with its stamp in `stamps` yet, in doc id order, each with its rows, its content
        hash and the stamps its fields were extracted with."""
        with self.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            documents = cur.execute(
                "SELECT doc_id, bucket, scope, title, author, tags, created_at, source, summary, body, content_hash,"
                f" extraction_stamps FROM documents WHERE {_TO_EXTRACT} ORDER BY doc_id LIMIT %s",
                (scope, bucket, after, Jsonb(stamps), limit),
            ).fetchall()
            rows = cur.execute(
                "SELECT doc_id, kind, row, raw, sources FROM annotations WHERE scope = %s AND doc_id = ANY(%s)"
                " ORDER BY annotation_id",
                (scope, [d["doc_id"] for d in documents]),
            ).fetchall()
        by_document: dict[str, list[AnnotationRow]] = defaultdict(list)
        for row in rows:
            by_document[row.pop("doc_id")].append(AnnotationRow.model_validate(row))
        found = []
        for record in documents:
            content_hash, extracted_with = record.pop("content_hash"), record.pop("extraction_stamps")
            document = Document.model_validate(record)
            source = SourceDocument(document=document, annotations=by_document[document.doc_id])
            found.append((source, content_hash, extracted_with))
        return found

    def get_document(self, scope: str, doc_id: str) -> dict[str, Any] | None:
        with self.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            return cur.execute("SELECT * FROM documents WHERE scope = %s AND doc_id = %s", (scope, doc_id)).fetchone()

    def annotation_ids(self, scope: str, doc_id: str) -> list[str]:
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT annotation_id FROM annotations WHERE scope = %s AND doc_id = %s ORDER BY annotation_id",
                (scope, doc_id),
            ).fetchall()
        return [annotation_id for (annotation_id,) in rows]

    def chunks_by_id(self, scope: str, chunk_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Committed chunks of `scope` with their document's fields; ids of other scopes or versions are absent."""
        if not chunk_ids:
            return {}
        with self.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                """
                SELECT c.chunk_id::text AS chunk_id, c.doc_id, c.ordinal, c.start_char, c.end_char, c.text,
                       d.bucket, d.title, d.author, d.tags, d.created_at, d.source
                FROM chunks c JOIN documents d USING (scope, doc_id)
                WHERE c.scope = %s AND c.chunk_id = ANY(%s::uuid[])
                """,
                (scope, list(chunk_ids)),
            ).fetchall()
        return {row["chunk_id"]: row for row in rows}

    # -- document management ----------------------------------------------------------------------------

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
        """A page of the documents of `scope` (of one bucket, or the one `doc_id`, when given; of those whose title or
        id holds every word of `matching`, in any case) in bucket and id order, each with its chunk and annotation
        row counts and its body's length, and how many there are in all."""
        where, params = "d.scope = %s", [scope]
        for column, value in (("bucket", bucket), ("doc_id", doc_id)):
            if value is not None:
                where, params = f"{where} AND d.{column} = %s", [*params, value]
        for word in (matching or "").split():  # a substring test, as annotation_filters' "~": % and _ are letters
            where = f"{where} AND strpos(lower(coalesce(d.title, '') || ' ' || d.doc_id), lower(%s)) > 0"
            params = [*params, word]
        with self.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            total = cur.execute("SELECT count(*) AS n FROM documents d WHERE " + where, params).fetchone()["n"]
            rows = cur.execute(
                "SELECT d.doc_id, d.bucket, d.title, d.author, d.tags, d.created_at, d.source, d.summary,"
                " d.content_hash, d.version, d.ingested_at, length(d.body) AS chars,"
                " (SELECT count(*) FROM chunks c WHERE c.scope = d.scope AND c.doc_id = d.doc_id) AS chunks,"
                " (SELECT count(*) FROM annotations a WHERE a.scope = d.scope AND a.doc_id = d.doc_id)"
                " AS annotation_rows"
                " FROM documents d WHERE " + where + " ORDER BY d.bucket, d.doc_id LIMIT %s OFFSET %s",
                [*params, limit, offset],
            ).fetchall()
        return rows, total

    def document_annotations(self, scope: str, doc_id: str) -> list[dict[str, Any]]:
        """Every annotation row of one document, in id order, whole."""
        with self.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            return cur.execute(
                "SELECT annotation_id, kind, row, raw, sources FROM annotations WHERE scope = %s AND doc_id = %s"
                " ORDER BY annotation_id",
                (scope, doc_id),
            ).fetchall()

    def delete_documents(
        self, scope: str, doc_ids: Sequence[str] = (), *, bucket: str | None = None
    ) -> list[dict[str, Any]]:
        """Delete the documents of `scope` among `doc_ids` (or all of `bucket`) with their chunks and annotation rows,
        in one transaction that also marks their buckets' catalogs stale and records each deleted document's chunk
        ids in `pending_deletions` for the engines. Returns the deleted documents (doc_id, bucket, chunk and row
        counts)."""
        which, value = ("bucket = %s", bucket) if bucket is not None else ("doc_id = ANY(%s)", list(doc_ids))
        with self.pool.connection() as conn, conn.transaction(), conn.cursor(row_factory=dict_row) as cur:
            cur.execute(
                MARK_STALE.format(
                    f"SELECT DISTINCT scope, bucket FROM documents WHERE scope = %s AND {which} ORDER BY 2"
                ),
                (scope, value),
            )
            # Every sub-statement reads the snapshot from before the delete, so the chunks and rows are still seen.
            return cur.execute(
                f"""
                WITH gone AS (
                    DELETE FROM documents WHERE scope = %s AND {which} RETURNING scope, doc_id, bucket
                ),
                recorded AS (
                    INSERT INTO pending_deletions (scope, doc_id, bucket, chunk_ids)
                    SELECT g.scope, g.doc_id, g.bucket, ARRAY(
                        SELECT c.chunk_id FROM chunks c WHERE c.scope = g.scope AND c.doc_id = g.doc_id
                    ) FROM gone g
                    RETURNING doc_id, bucket, cardinality(chunk_ids) AS chunks
                )
                SELECT r.doc_id, r.bucket, r.chunks, (
                    SELECT count(*) FROM annotations a WHERE a.scope = %s AND a.doc_id = r.doc_id
                ) AS annotation_rows
                FROM recorded r ORDER BY r.bucket, r.doc_id
                """,
                (scope, value, scope),
            ).fetchall()

    def pending_deletions(self, scope: str | None = None) -> list[dict[str, Any]]:
        """Deleted documents whose chunks the engines may still hold (see `delete_documents`)."""
        where, params = ("WHERE scope = %s", (scope,)) if scope else ("", ())
        with self.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            return cur.execute(
                "SELECT id, scope, doc_id, bucket, chunk_ids::text[] AS chunk_ids FROM pending_deletions "
                + where
                + " ORDER BY id",
                params,
            ).fetchall()

    def clear_pending_deletions(self, ids: Sequence[int]) -> None:
        with self.pool.connection() as conn:
            conn.execute("DELETE FROM pending_deletions WHERE id = ANY(%s)", (list(ids),))

    # -- consistency with the engines ------------------------------------------------------------------

    def chunk_ids(self, scope: str | None = None) -> set[str]:
        """Ids of committed chunks; joined to their documents so that a chunk row without one is not counted as
        known."""
        where, params = ("WHERE c.scope = %s", (scope,)) if scope else ("", ())
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT c.chunk_id::text FROM chunks c JOIN documents d USING (scope, doc_id) " + where, params
            )
            return {chunk_id for (chunk_id,) in rows}

    def indexed_chunks(self, chunk_ids: Sequence[str]) -> list[IndexedChunk]:
        """The committed chunks among `chunk_ids` with the document fields `Ingestor._chunk` gives the engines."""
        if not chunk_ids:
            return []
        with self.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                """
                SELECT c.chunk_id::text AS chunk_id, c.doc_id, c.scope, d.bucket, d.content_hash, c.ordinal, d.title,
                       c.text, d.author, d.tags, d.created_at
                FROM chunks c JOIN documents d USING (scope, doc_id)
                WHERE c.chunk_id = ANY(%s::uuid[])
                ORDER BY c.scope, c.doc_id, c.ordinal
                """,
                (list(chunk_ids),),
            ).fetchall()
        return [_indexed_chunk(row) for row in rows]

    def bucket_samples(self) -> list[str]:
        """One committed chunk id per scope and bucket: its longest, which is sure to hold words a search can find
        (one pass over the chunks, sorted by bucket)."""
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT DISTINCT ON (d.scope, d.bucket) c.chunk_id::text FROM chunks c JOIN documents d "
                "USING (scope, doc_id) ORDER BY d.scope, d.bucket, length(c.text) DESC, c.chunk_id"
            )
            return [chunk_id for (chunk_id,) in rows]

    def rows_without_document(self, scope: str | None = None) -> dict[str, int]:
        """Zero while the schema's foreign keys (ON DELETE CASCADE) hold; counted in case they were bypassed
        (`session_replication_role = replica` during a restore, or a hand-made schema without them)."""
        with self.pool.connection() as conn:
            return {
                table: conn.execute(*_without_document("SELECT count(*)", table, scope)).fetchone()[0]
                for table in _DOCUMENT_ROWS
            }

    def delete_rows_without_document(self, scope: str | None = None) -> dict[str, int]:
        with self.pool.connection() as conn:
            return {
                table: conn.execute(*_without_document("DELETE", table, scope)).rowcount for table in _DOCUMENT_ROWS
            }

    def counts(self, scope: str | None = None) -> dict[str, int]:
        where, params = ("WHERE scope = %s", (scope,)) if scope else ("", ())
        with self.pool.connection() as conn:
            return {
                table: conn.execute(
                    sql.SQL("SELECT count(*) FROM {} " + where).format(sql.Identifier(table)), params
                ).fetchone()[0]
                for table in ("documents", "chunks", "annotations")
            }

    def bytes_on_disk(self) -> int:
        with self.pool.connection() as conn:
            return conn.execute(
                "SELECT sum(pg_total_relation_size(t))::bigint"
                " FROM unnest(ARRAY['documents','chunks','annotations','field_catalog']::regclass[]) t"
            ).fetchone()[0]
