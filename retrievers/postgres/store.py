"""Documents, chunks, annotation rows, buckets and field catalogs in Postgres (psycopg 3 with a pool).

Postgres is the commit point of ingestion: a document becomes visible when its row, chunks and annotations
are committed in one transaction. The search engines may briefly hold chunks of a version that is not yet
(or no longer) committed; hits are hydrated from the `chunks` table, so such chunks are never returned.

The field catalog of a (scope, bucket) is computed from all its annotation rows, too costly to redo in every
commit. So the same transaction that changes a bucket's rows (or the field specs its catalog uses) counts a change in
`stale_catalogs`, and `refresh_catalog` removes that mark only if no change was counted while it computed: a
catalog is either up to date or marked, whatever is killed when.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from typing import Any, NamedTuple

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolTimeout

from core.errors import BackendUnavailable, InvalidInput
from core.models import BUCKET_NAME_RE, FIELD_ROLES, Chunk, FieldSpec, IndexedChunk, SourceDocument, timestamp
from retrievers.postgres.annotation_aggregates import compile_aggregate, parse_aggregate, parse_group, planner_settings
from retrievers.postgres.annotation_filters import Predicate, compile_order, compile_predicates
from retrievers.postgres.annotation_indexes import ensure_field_indexes, ensure_functions
from retrievers.postgres.field_catalog import CatalogField, Vocabulary, build_field


class BucketDefault(NamedTuple):
    """A bucket every database has: what it holds, and the words users say for it."""

    description: str
    aliases: tuple[str, ...]


DEFAULT_BUCKETS = {
    "contracts": BucketDefault(
        "Legal agreements: commercial contracts, NDAs, licences, with parties, dates, governing law and clause flags.",
        (
            "contract",
            "agreement",
            "nda",
            "non-disclosure",
            "confidentiality agreement",
            "licence",
            "license",
            "lease",
        ),
    ),
    "invoices": BucketDefault(
        "Invoices from suppliers: issuer, invoice number, dates, amounts, currency, VAT and line items.",
        ("invoice", "bill", "billed"),
    ),
    "receipts": BucketDefault(
        "Shop and restaurant receipts: company, address, date and total paid.",
        ("receipt", "purchase", "shop", "store", "restaurant", "till slip", "spend", "spent", "bought"),
    ),
    "datasheets": BucketDefault(
        "Component datasheets: manufacturer, part number and electrical or mechanical parameters.",
        ("datasheet", "component", "part", "resistor", "capacitor", "regulator", "transistor", "LED", "MOSFET"),
    ),
    "certificates": BucketDefault(
        "Certificates of conformity and quality: issuer, standard, holder and validity dates.",
        ("certificate", "cert", "certified", "certification", "accreditation"),
    ),
    "generic": BucketDefault(
        "Everything else: articles, scientific abstracts, encyclopedia paragraphs, memos and notes.",
        ("study", "studies", "abstract", "paper", "article", "research", "memo", "policy", "postmortem", "note"),
    ),
}
MAX_DESCRIPTION_CHARS = 500
"""The longest description a user may give a bucket or field: the shipped ones take at most 120 characters, and every
description is read into the planner's prompts."""
MATCHES_COUNTED_UP_TO = 1_000
"""How many matching rows an annotation search counts before it stops (as a search engine tracks total hits up to
a bound): past it the total is a lower bound. Counting every one of a common value's 35,000 rows at 1M documents
read each of them (60-200 ms), for a figure no caller needs beyond "more than can be listed"; an exact count is
`aggregate`'s. A search ordered by a field reads every match anyway (its page is the top of all of them), so its
count stays exact; a search with a larger limit (an export) counts up to its limit."""
MAX_UNIT_CHARS = 20


def _matches_counted_up_to(order_by: str | None, limit: int) -> int | None:
    """Where a search stops counting its matches (`MATCHES_COUNTED_UP_TO`, or its limit if larger); None for a
    search ordered by a field, which reads and counts every match."""
    return None if order_by else max(MATCHES_COUNTED_UP_TO, limit)


SCHEMA = """
CREATE TABLE IF NOT EXISTS buckets (
    name text PRIMARY KEY,
    description text NOT NULL DEFAULT '',
    aliases jsonb NOT NULL DEFAULT '[]'
);
CREATE TABLE IF NOT EXISTS documents (
    scope text NOT NULL,
    doc_id text NOT NULL,
    bucket text NOT NULL REFERENCES buckets (name),
    title text NOT NULL,
    author text,
    tags text[] NOT NULL DEFAULT '{}',
    created_at timestamptz,
    source text NOT NULL,
    summary text,
    body text NOT NULL,
    content_hash text NOT NULL,
    version integer NOT NULL DEFAULT 1,
    ingested_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, doc_id)
);
CREATE INDEX IF NOT EXISTS documents_bucket ON documents (scope, bucket);
CREATE INDEX IF NOT EXISTS documents_ingested ON documents (scope, ingested_at);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id uuid PRIMARY KEY,
    scope text NOT NULL,
    doc_id text NOT NULL,
    ordinal integer NOT NULL,
    start_char integer NOT NULL,
    end_char integer NOT NULL,
    text text NOT NULL,
    FOREIGN KEY (scope, doc_id) REFERENCES documents ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS chunks_document ON chunks (scope, doc_id, ordinal);
CREATE TABLE IF NOT EXISTS annotations (
    scope text NOT NULL,
    annotation_id text NOT NULL,
    doc_id text NOT NULL,
    bucket text NOT NULL,
    kind text NOT NULL,
    row jsonb NOT NULL,
    raw jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (scope, annotation_id),
    FOREIGN KEY (scope, doc_id) REFERENCES documents ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS annotations_bucket ON annotations (scope, bucket, kind);
CREATE INDEX IF NOT EXISTS annotations_document ON annotations (scope, doc_id);
CREATE INDEX IF NOT EXISTS annotations_row ON annotations USING gin (row jsonb_path_ops);
CREATE TABLE IF NOT EXISTS field_specs (
    bucket text NOT NULL,
    field text NOT NULL,
    type text NOT NULL,
    multi boolean NOT NULL,
    description text NOT NULL,
    aliases jsonb NOT NULL DEFAULT '[]',
    role text NOT NULL DEFAULT '',
    unit text NOT NULL DEFAULT '',
    unit_field text NOT NULL DEFAULT '',
    PRIMARY KEY (bucket, field)
);
CREATE TABLE IF NOT EXISTS vocabulary (
    bucket text NOT NULL REFERENCES buckets (name),
    field text NOT NULL,
    aliases jsonb NOT NULL DEFAULT '[]',
    removed_aliases jsonb NOT NULL DEFAULT '[]',
    description text NOT NULL DEFAULT '',
    role text NOT NULL DEFAULT '',
    unit text NOT NULL DEFAULT '',
    unit_field text NOT NULL DEFAULT '',
    PRIMARY KEY (bucket, field)
);
CREATE TABLE IF NOT EXISTS field_catalog (
    scope text NOT NULL,
    bucket text NOT NULL,
    kind text NOT NULL,
    field text NOT NULL,
    entry jsonb NOT NULL,
    PRIMARY KEY (scope, bucket, kind, field)
);
-- Documents deleted from Postgres whose chunks the engines may still hold: written in the transaction that deletes
-- them, removed once every engine has dropped those chunks (retrievers.ingestion.documents).
CREATE TABLE IF NOT EXISTS pending_deletions (
    id bigserial PRIMARY KEY,
    scope text NOT NULL,
    doc_id text NOT NULL,
    bucket text NOT NULL,
    chunk_ids uuid[] NOT NULL,
    deleted_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS stale_catalogs (
    scope text NOT NULL,
    bucket text NOT NULL,
    changes bigint NOT NULL DEFAULT 1,
    PRIMARY KEY (scope, bucket)
);
-- Columns added since the tables were first made: a database from before gets them here, with their defaults.
ALTER TABLE buckets ADD COLUMN IF NOT EXISTS aliases jsonb NOT NULL DEFAULT '[]';
ALTER TABLE field_specs ADD COLUMN IF NOT EXISTS aliases jsonb NOT NULL DEFAULT '[]';
ALTER TABLE field_specs ADD COLUMN IF NOT EXISTS role text NOT NULL DEFAULT '';
ALTER TABLE field_specs ADD COLUMN IF NOT EXISTS unit text NOT NULL DEFAULT '';
ALTER TABLE field_specs ADD COLUMN IF NOT EXISTS unit_field text NOT NULL DEFAULT '';
"""

# Counts a change to the rows of (scope, bucket). The update (not DO NOTHING) locks the mark until the writer
# commits, so a refresh that read the rows before that commit sees the count move and keeps the mark.
_MARK_STALE = (
    "INSERT INTO stale_catalogs AS s (scope, bucket) {} "
    "ON CONFLICT (scope, bucket) DO UPDATE SET changes = s.changes + 1"
)
# The key of the advisory locks that make refreshes of one catalog take turns (with hashtext(scope, bucket)).
_CATALOG_LOCK = 727275


# The tables whose rows belong to a document (by a foreign key on (scope, doc_id)).
_DOCUMENT_ROWS = ("chunks", "annotations")


def _plain(value: Any) -> Any:
    """Postgres numerics arrive as Decimal, which JSON (and so every tool result) cannot carry."""
    return float(value) if isinstance(value, Decimal) else value


def _without_document(verb: str, table: str, scope: str | None) -> tuple[sql.Composable, tuple[str, ...]]:
    """`verb` (a count or a delete) over the rows of `table` whose document row is missing."""
    where, params = (" AND t.scope = %s", (scope,)) if scope else ("", ())
    query = sql.SQL(
        verb
        + " FROM {} t WHERE NOT EXISTS (SELECT 1 FROM documents d WHERE d.scope = t.scope AND d.doc_id = t.doc_id)"
        + where
    )
    return query.format(sql.Identifier(table)), params


def _by_field(catalog: list[CatalogField]) -> dict[tuple[str, str], dict[str, Any]]:
    """A catalog as its JSON entries by (kind, field): how two catalogs are compared, whatever order they come in."""
    return {(f.kind, f.name): f.model_dump(mode="json") for f in catalog}


def _indexed_chunk(row: dict[str, Any]) -> IndexedChunk:
    created_at = row.pop("created_at")
    return IndexedChunk(**row, created_ts=timestamp(created_at))


def redact(url: str) -> str:
    """The URL without its password, for messages."""
    try:
        params = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "<unparseable DATABASE_URL>"
    params.pop("password", None)
    return make_conninfo(**params)


MIN_SERVER_VERSION = 140000
"""Postgres 14: the first with statistics on expressions (`CREATE STATISTICS ... ON (expression)`), which the
annotation field indexes make (`retrievers.postgres.annotation_indexes`)."""


class PostgresStore:
    """The document store and annotation store of the design, over one connection pool."""

    def __init__(self, url: str, *, max_connections: int = 8, connect_timeout_s: float = 5.0):
        self.url = url
        self.pool = ConnectionPool(
            url,
            min_size=1,
            max_size=max_connections,
            open=False,
            timeout=connect_timeout_s,
            # prepare_threshold None: every statement is planned with its parameter values, which the annotation field
            # indexes need (they are partial on a bucket or kind, over expressions naming a field: see
            # annotation_indexes); a prepared statement may be planned once for any values and miss them.
            kwargs={"autocommit": True, "connect_timeout": int(max(1, connect_timeout_s)), "prepare_threshold": None},
            # a connection broken by a Postgres restart is replaced, not handed out
            check=ConnectionPool.check_connection,
        )
        try:
            self.pool.open(wait=True, timeout=connect_timeout_s)
        except PoolTimeout:
            self.pool.close()
            raise BackendUnavailable(
                f"Postgres at {redact(url)} is unreachable; "
                "start it, fix DATABASE_URL, or unset it to use the embedded Postgres"
            ) from None
        try:
            self.ensure_schema()
        except BaseException:
            self.pool.close()
            raise

    def ensure_schema(self) -> None:
        """Idempotent: safe to run on every start, and by several processes at once. A server older than
        `MIN_SERVER_VERSION` is refused in one line before anything is written."""
        with self.pool.connection() as conn, conn.transaction():
            if conn.info.server_version < MIN_SERVER_VERSION:
                version = conn.execute("SHOW server_version").fetchone()[0]
                raise BackendUnavailable(
                    f"Postgres at {redact(self.url)} is version {version}; ragent needs Postgres "
                    f"{MIN_SERVER_VERSION // 10000} or later "
                    "(statistics on the annotation field indexes' expressions); upgrade it, or unset DATABASE_URL to "
                    "use the embedded Postgres"
                )
            conn.execute("SELECT pg_advisory_xact_lock(727274)")
            untracked = conn.execute("SELECT to_regclass('stale_catalogs') IS NULL").fetchone()[0]
            conn.execute(SCHEMA)
            ensure_functions(conn)
            if untracked:
                # A database from before catalogs were tracked may hold catalogs a killed ingest left behind.
                conn.execute(_MARK_STALE.format("SELECT DISTINCT scope, bucket FROM documents"))
            # The shipped aliases follow the code; a description the user changed (`ragent buckets add`) stays.
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO buckets (name, description, aliases) VALUES (%s, %s, %s) ON CONFLICT (name)"
                    " DO UPDATE SET aliases = EXCLUDED.aliases WHERE buckets.aliases <> EXCLUDED.aliases",
                    [(name, d.description, Jsonb(list(d.aliases))) for name, d in DEFAULT_BUCKETS.items()],
                )

    def close(self) -> None:
        self.pool.close()

    # -- buckets --------------------------------------------------------------------------------------

    def buckets(self) -> dict[str, str]:
        """Each bucket's description, in name order: the user's (`ragent catalog describe`) over the stored one."""
        with self.pool.connection() as conn:
            said = self._vocabulary(conn)
            rows = conn.execute("SELECT name, description FROM buckets ORDER BY name").fetchall()
        return {name: (said[name, ""].description if (name, "") in said else "") or about for name, about in rows}

    def bucket_aliases(self) -> dict[str, list[str]]:
        """Each bucket's aliases, in name order: the shipped ones (DEFAULT_BUCKETS) with the user's laid over them."""
        with self.pool.connection() as conn:
            said = self._vocabulary(conn)
            rows = conn.execute("SELECT name, aliases FROM buckets ORDER BY name").fetchall()
        return {name: said.get((name, ""), Vocabulary(bucket=name)).aliases_over(aliases) for name, aliases in rows}

    def add_bucket(self, name: str, description: str) -> None:
        if not BUCKET_NAME_RE.match(name):
            raise InvalidInput(
                f"bucket name {name!r} is malformed: use 2-40 lowercase letters, digits or '_', starting with a letter"
            )
        with self.pool.connection() as conn:
            conn.execute(
                "INSERT INTO buckets (name, description) VALUES (%s, %s)"
                " ON CONFLICT (name) DO UPDATE SET description = EXCLUDED.description",
                (name, description),
            )

    def bucket_document_counts(self, scope: str) -> dict[str, int]:
        with self.pool.connection() as conn:
            return dict(
                conn.execute(
                    "SELECT bucket, count(*) FROM documents WHERE scope = %s GROUP BY bucket", (scope,)
                ).fetchall()
            )

    def require_bucket(self, name: str) -> None:
        known = self.buckets()
        if name not in known:
            hint = "malformed" if not BUCKET_NAME_RE.match(name) else "unknown"
            raise InvalidInput(
                f"bucket {name!r} is {hint}; use one of {', '.join(known)} "
                f"or add it with `ragent buckets add {name if hint == 'unknown' else 'NAME'} --description ...`"
            )

    # -- documents ------------------------------------------------------------------------------------

    def catalog_version(self, scope: str) -> tuple:
        """A value that changes whenever what a planner reads of `scope` may have: the documents (how many, the
        latest written), the stored field catalogs, the users' vocabulary and the buckets. One cheap statement, so
        a planner built from the catalog can be kept until the index changes."""
        with self.pool.connection() as conn:
            return tuple(
                conn.execute(
                    "SELECT (SELECT count(*) FROM documents WHERE scope = %s),"
                    " (SELECT max(ingested_at) FROM documents WHERE scope = %s),"
                    # a write to these small tables gives their rows a newer transaction id
                    " (SELECT count(*) || ':' || coalesce(max(xmin::text::bigint), 0) FROM field_catalog"
                    "  WHERE scope = %s),"
                    " (SELECT count(*) || ':' || coalesce(max(xmin::text::bigint), 0) FROM vocabulary),"
                    " (SELECT count(*) || ':' || coalesce(max(xmin::text::bigint), 0) FROM buckets)",
                    (scope, scope, scope),
                ).fetchone()
            )

    def document_buckets(self, scope: str, doc_ids: Sequence[str]) -> dict[str, str]:
        """The bucket of each of `doc_ids` that is a document of `scope` (the others are left out)."""
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT doc_id, bucket FROM documents WHERE scope = %s AND doc_id = ANY(%s)", (scope, list(doc_ids))
            ).fetchall()
        return dict(rows)

    def content_hashes(self, scope: str, doc_ids: Sequence[str]) -> dict[str, str]:
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT doc_id, content_hash FROM documents WHERE scope = %s AND doc_id = ANY(%s)",
                (scope, list(doc_ids)),
            ).fetchall()
        return dict(rows)

    def stored_origins(self, scope: str, doc_ids: Sequence[str]) -> dict[str, tuple[str, list[dict[str, Any]]]]:
        """For each of `doc_ids` the scope holds: the source it was ingested from and its annotation rows (kind, row,
        raw, in id order); one statement, for a folder ingest's batch."""
        with self.pool.connection() as conn:
            rows = conn.execute(
                "SELECT d.doc_id, d.source, coalesce(jsonb_agg(jsonb_build_object('kind', a.kind, 'row', a.row,"
                " 'raw', a.raw) ORDER BY a.annotation_id) FILTER (WHERE a.annotation_id IS NOT NULL), '[]')"
                " FROM documents d LEFT JOIN annotations a ON a.scope = d.scope AND a.doc_id = d.doc_id"
                " WHERE d.scope = %s AND d.doc_id = ANY(%s) GROUP BY d.doc_id, d.source",
                (scope, list(doc_ids)),
            ).fetchall()
        return {doc_id: (source, annotations) for doc_id, source, annotations in rows}

    def commit_document(
        self, source: SourceDocument, content_hash: str, chunks: Sequence[Chunk], chunk_ids: Sequence[str]
    ) -> None:
        """Replace the document, its chunks and its annotation rows in one transaction, which also marks the catalog
        of its bucket (and of the bucket it leaves, if it moves) stale."""
        doc = source.document
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(
                _MARK_STALE.format(
                    "SELECT %s, %s UNION SELECT scope, bucket FROM documents WHERE scope = %s AND doc_id = %s"
                    " ORDER BY 2"  # one order of locks, should two documents move between the same buckets at once
                ),
                (doc.scope, doc.bucket, doc.scope, doc.doc_id),
            )
            conn.execute(
                """
                INSERT INTO documents
                    (scope, doc_id, bucket, title, author, tags, created_at, source, summary, body, content_hash)
                VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
                ON CONFLICT (scope, doc_id) DO UPDATE SET
                    bucket = EXCLUDED.bucket, title = EXCLUDED.title, author = EXCLUDED.author, tags = EXCLUDED.tags,
                    created_at = EXCLUDED.created_at, source = EXCLUDED.source, summary = EXCLUDED.summary,
                    body = EXCLUDED.body, content_hash = EXCLUDED.content_hash,
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
                per_kind: Counter = Counter()
                rows = []
                for ann in source.annotations:
                    rows.append(
                        (
                            doc.scope,
                            f"{doc.doc_id}#{ann.kind}-{per_kind[ann.kind]}",
                            doc.doc_id,
                            doc.bucket,
                            ann.kind,
                            Jsonb(ann.row),
                            Jsonb(ann.raw),
                        )
                    )
                    per_kind[ann.kind] += 1
                cur.executemany(
                    "INSERT INTO annotations (scope, annotation_id, doc_id, bucket, kind, row, raw)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    rows,
                )

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
        limit: int | None = None,
        offset: int = 0,
    ) -> tuple[list[dict[str, Any]], int]:
        """A page of the documents of `scope` (of one bucket, or the one `doc_id`, when given) in bucket and id
        order, each with its chunk and annotation row counts and its body's length, and how many there are in all."""
        where, params = "d.scope = %s", [scope]
        for column, value in (("bucket", bucket), ("doc_id", doc_id)):
            if value is not None:
                where, params = f"{where} AND d.{column} = %s", [*params, value]
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
                "SELECT annotation_id, kind, row, raw FROM annotations WHERE scope = %s AND doc_id = %s"
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
                _MARK_STALE.format(
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

    # -- annotations and the field catalog ------------------------------------------------------------

    def record_field_specs(self, bucket: str, specs: Sequence[FieldSpec]) -> None:
        """Declare field types, descriptions and vocabulary; a change marks the bucket's catalogs stale in every
        scope (the catalog entries carry them)."""
        with self.pool.connection() as conn, conn.transaction():
            declared = {spec.name: spec for spec in self._field_specs(conn, bucket, " FOR UPDATE")}
            changed = [s for s in specs if declared.get(s.name) != s]
            if not changed:
                return
            with conn.cursor() as cur:
                cur.executemany(
                    """INSERT INTO field_specs
                           (bucket, field, type, multi, description, aliases, role, unit, unit_field)
                       VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)
                       ON CONFLICT (bucket, field) DO UPDATE SET type = EXCLUDED.type, multi = EXCLUDED.multi,
                           description = EXCLUDED.description, aliases = EXCLUDED.aliases, role = EXCLUDED.role,
                           unit = EXCLUDED.unit, unit_field = EXCLUDED.unit_field""",
                    [
                        (bucket, s.name, s.type, s.multi, s.description, Jsonb(s.aliases), s.role, s.unit, s.unit_field)
                        for s in changed
                    ],
                )
            conn.execute(
                _MARK_STALE.format("SELECT DISTINCT scope, bucket FROM documents WHERE bucket = %s ORDER BY 1"),
                (bucket,),
            )

    def stale_catalogs(self, scope: str) -> list[str]:
        """Buckets of `scope` whose rows changed since their catalog was last refreshed."""
        with self.pool.connection() as conn:
            rows = conn.execute("SELECT bucket FROM stale_catalogs WHERE scope = %s ORDER BY bucket", (scope,))
            return [bucket for (bucket,) in rows]

    def catalogs_out_of_date(self, scope: str | None = None) -> list[tuple[str, str]]:
        """The (scope, bucket) pairs whose stored catalog is not what their rows give now, marked stale or not
        (a database may predate the marks, or have been restored without its catalog); one pass over the rows."""
        where, params = ("WHERE scope = %s", (scope,)) if scope else ("", ())
        with self.pool.connection() as conn:
            pairs = conn.execute(
                "SELECT scope, bucket FROM documents "
                + where
                + " UNION SELECT scope, bucket FROM field_catalog "
                + where
                + " UNION SELECT scope, bucket FROM stale_catalogs "
                + where
                + " ORDER BY 1, 2",
                params * 3,
            ).fetchall()
            return [
                (s, b)
                for s, b in pairs
                if _by_field(self._computed_catalog(conn, s, b)) != _by_field(self._stored_catalog(conn, s, b))
            ]

    def refresh_stale_catalogs(self, scope: str) -> list[str]:
        """Refresh every catalog of `scope` marked stale; returns their buckets."""
        stale = self.stale_catalogs(scope)
        for bucket in stale:
            self.refresh_catalog(scope, bucket)
        return stale

    def refresh_catalog(self, scope: str, bucket: str) -> list[CatalogField]:
        """Recompute the bucket's catalog from its stored rows, and clear its stale mark unless rows changed
        meanwhile (then the mark stays for the next refresh); then bring the bucket's field indexes in line with its
        catalogs (`annotation_indexes`)."""
        with self.pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_CATALOG_LOCK, f"{scope}\x1f{bucket}"))
            marked = conn.execute(
                "SELECT changes FROM stale_catalogs WHERE scope = %s AND bucket = %s", (scope, bucket)
            ).fetchone()
            catalog = self._computed_catalog(conn, scope, bucket)
            conn.execute("DELETE FROM field_catalog WHERE scope = %s AND bucket = %s", (scope, bucket))
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO field_catalog (scope, bucket, kind, field, entry) VALUES (%s, %s, %s, %s, %s)",
                    [(scope, bucket, f.kind, f.name, Jsonb(f.model_dump(mode="json"))) for f in catalog],
                )
            if marked:
                conn.execute(
                    "DELETE FROM stale_catalogs WHERE scope = %s AND bucket = %s AND changes = %s",
                    (scope, bucket, marked[0]),
                )
        # After the commit: the indexes follow the stored catalogs, and are built concurrently (outside a transaction).
        ensure_field_indexes(self.pool, bucket)
        return catalog

    def _computed_catalog(self, conn: psycopg.Connection, scope: str, bucket: str) -> list[CatalogField]:
        """The catalog the stored rows give (values of list fields counted one by one), in a deterministic order
        so that two computations over the same rows are equal."""
        specs = {spec.name: spec for spec in self._field_specs(conn, bucket)}
        # One statement, so that the value counts and the document counts come from one snapshot of the rows.
        rows = conn.execute(
            """
            WITH fields AS (
                SELECT a.kind, a.doc_id, e.key, e.value FROM annotations a CROSS JOIN LATERAL jsonb_each(a.row) e
                WHERE a.scope = %s AND a.bucket = %s AND jsonb_typeof(e.value) <> 'null'
            ),
            docs AS (SELECT kind, key, count(DISTINCT doc_id) AS docs FROM fields GROUP BY 1, 2),
            vals AS (
                SELECT f.kind, f.key, v.value, count(*) AS n, bool_or(jsonb_typeof(f.value) = 'array') AS is_list
                FROM fields f CROSS JOIN LATERAL jsonb_path_query(f.value, 'lax $[*]') v(value)
                WHERE jsonb_typeof(v.value) <> 'null'
                GROUP BY 1, 2, 3
            )
            SELECT kind, key, value, n, is_list, docs FROM vals JOIN docs USING (kind, key) ORDER BY 1, 2, 3
            """,
            (scope, bucket),
        ).fetchall()
        counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
        multi: dict[tuple[str, str], bool] = defaultdict(bool)
        docs: dict[tuple[str, str], int] = {}
        for kind, field, value, n, is_list, doc_count in rows:
            counts[(kind, field)][value] += n
            multi[(kind, field)] |= is_list
            docs[(kind, field)] = doc_count
        return [
            build_field(kind, field, counts[(kind, field)], docs[(kind, field)], multi[(kind, field)], specs.get(field))
            for kind, field in sorted(counts)
        ]

    def _stored_catalog(self, conn: psycopg.Connection, scope: str, bucket: str) -> list[CatalogField]:
        rows = conn.execute(
            "SELECT entry FROM field_catalog WHERE scope = %s AND bucket = %s ORDER BY kind, field", (scope, bucket)
        ).fetchall()
        return [CatalogField.model_validate(entry) for (entry,) in rows]

    def _field_specs(self, conn: psycopg.Connection, bucket: str, lock: str = "") -> list[FieldSpec]:
        with conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                "SELECT field AS name, type, multi, description, aliases, role, unit, unit_field FROM field_specs"
                " WHERE bucket = %s ORDER BY field" + lock,
                (bucket,),
            ).fetchall()
        return [FieldSpec.model_validate(row) for row in rows]

    def field_catalog(self, scope: str, bucket: str) -> list[CatalogField]:
        """The bucket's stored catalog, with the user's words for its fields laid over it."""
        with self.pool.connection() as conn:
            catalog = self._stored_catalog(conn, scope, bucket)
            said = self._vocabulary(conn, bucket)
        return [said[bucket, f.name].over(f) if (bucket, f.name) in said else f for f in catalog]

    # -- the user's vocabulary ------------------------------------------------------------------------

    def _vocabulary(self, conn: psycopg.Connection, bucket: str | None = None) -> dict[tuple[str, str], Vocabulary]:
        """What users said, by (bucket, field), for one bucket or all; field '' is the bucket itself."""
        where, params = (" WHERE bucket = %s", (bucket,)) if bucket else ("", ())
        with conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute("SELECT * FROM vocabulary" + where, params).fetchall()
        return {(row["bucket"], row["field"]): Vocabulary.model_validate(row) for row in rows}

    def vocabulary(self, bucket: str, field: str = "") -> Vocabulary:
        """What users said about a bucket (field '') or one of its fields; empty when they said nothing."""
        with self.pool.connection() as conn:
            return self._vocabulary(conn, bucket).get((bucket, field), Vocabulary(bucket=bucket, field=field))

    def _known_fields(self, conn: psycopg.Connection, bucket: str) -> list[str]:
        """The fields a loader declared for the bucket or its rows hold in some scope, in name order."""
        rows = conn.execute(
            "SELECT field FROM field_specs WHERE bucket = %s UNION SELECT field FROM field_catalog WHERE bucket = %s"
            " ORDER BY 1",
            (bucket, bucket),
        )
        return [field for (field,) in rows]

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
        """Record a user's words for a bucket (field '') or one of its fields, beside the loader's; returns all the
        user has said about it. None leaves a text as it was, '' gives the loader's back; with no edit at all, this
        only checks the names and reads.

        Kept in its own table, so that the next ingest (which records the loader's specs) keeps it; read over the
        catalog by `field_catalog`, `buckets` and `bucket_aliases`, so it counts at once, in every scope.
        """
        self.require_bucket(bucket)
        if role is not None and role not in FIELD_ROLES:
            raise InvalidInput(
                f"role {role!r} is unknown; use one of {', '.join(r for r in FIELD_ROLES if r)} ('' for the loader's)"
            )
        with self.pool.connection() as conn, conn.transaction():
            known = self._known_fields(conn, bucket)
            if field and field not in known:
                raise InvalidInput(
                    f"field {field!r} is unknown in bucket {bucket!r}; "
                    + (f"its fields: {', '.join(known)}" if known else "it has no annotation fields yet")
                )
            if not field and (role, unit, unit_field) != (None, None, None):
                raise InvalidInput("a role, unit or unit field describes a field; name one after the bucket")
            if unit_field and unit_field not in known:
                raise InvalidInput(
                    f"unit field {unit_field!r} is unknown in bucket {bucket!r}; its fields: {', '.join(known)}"
                )
            if description is not None and len(description) > MAX_DESCRIPTION_CHARS:
                raise InvalidInput(
                    f"the description has {len(description)} characters; keep it to {MAX_DESCRIPTION_CHARS}"
                )
            if unit is not None and len(unit) > MAX_UNIT_CHARS:
                raise InvalidInput(f"unit {unit[:30]!r} is longer than {MAX_UNIT_CHARS} characters")
            if not aliases and not remove_aliases and (description, role, unit, unit_field) == (None,) * 4:
                return self._vocabulary(conn, bucket).get((bucket, field), Vocabulary(bucket=bucket, field=field))
            conn.execute(
                "INSERT INTO vocabulary (bucket, field) VALUES (%s, %s) ON CONFLICT DO NOTHING", (bucket, field)
            )
            with conn.cursor(row_factory=dict_row) as cur:
                row = cur.execute(
                    "SELECT * FROM vocabulary WHERE bucket = %s AND field = %s FOR UPDATE", (bucket, field)
                ).fetchone()
            try:
                said = Vocabulary.model_validate(row).edited(
                    aliases=list(aliases),
                    remove_aliases=list(remove_aliases),
                    description=description,
                    role=role,
                    unit=unit,
                    unit_field=unit_field,
                )
            except ValueError as error:  # an alias too long or both added and removed
                raise InvalidInput(str(error)) from None
            conn.execute(
                """UPDATE vocabulary SET aliases = %s, removed_aliases = %s, description = %s, role = %s, unit = %s,
                       unit_field = %s WHERE bucket = %s AND field = %s""",
                (
                    Jsonb(said.aliases),
                    Jsonb(said.removed_aliases),
                    said.description,
                    said.role,
                    said.unit,
                    said.unit_field,
                    bucket,
                    field,
                ),
            )
        return said

    def field_values(self, scope: str, bucket: str, field: str, limit: int = 5000) -> list[tuple[str, int]]:
        """Distinct text values of a field with the number of documents having each, most common first.

        The catalog keeps full value lists only for low-cardinality fields; a planner that maps the words of a
        question to values (a party name, a governing law) reads the long lists from here.
        """
        with self.pool.connection() as conn:
            return conn.execute(
                """SELECT v.value #>> '{}', count(DISTINCT a.doc_id) FROM annotations a
                   CROSS JOIN LATERAL jsonb_path_query(a.row -> %s, 'lax $[*]') v(value)
                   WHERE a.scope = %s AND a.bucket = %s AND jsonb_typeof(v.value) = 'string'
                   GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT %s""",
                (field, scope, bucket, limit),
            ).fetchall()

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
    ) -> list[dict[str, Any]]:
        """Annotation rows of `bucket` in `scope` on which every predicate holds (of the `doc_ids` documents only,
        when given), each with its document's title, `total_rows`, the number of matching rows before the limit,
        and `more_rows`, true when the count stopped at `total_rows` (`MATCHES_COUNTED_UP_TO`) and more match.

        Rows come by document id, or, with `order_by` (a number or date field), by that field's value (see
        `compile_order`), rows without it last, so that a limit of 1 answers "the biggest" or "the oldest"."""
        query, params = self.search_statement(
            scope, bucket, predicates, kind=kind, limit=limit, order_by=order_by, descending=descending, doc_ids=doc_ids
        )
        with self.pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(query, params).fetchall()
        counted = _matches_counted_up_to(order_by, limit)
        for row in rows:
            row["more_rows"] = counted is not None and row["total_rows"] > counted
            if row["more_rows"]:
                row["total_rows"] = counted
        return rows

    def search_statement(
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
    ) -> tuple[sql.Composable, list[Any]]:
        """The statement `find_annotations` runs, with its parameters (which a benchmark EXPLAINs)."""
        where, params = self._annotation_where(
            scope, bucket, predicates, kind, also_fields=[order_by] if order_by else (), doc_ids=doc_ids
        )
        sort_key, sort_params = sql.SQL("NULL"), []
        if order_by:
            field_types = {f.name: f.type for f in self.field_catalog(scope, bucket) if kind is None or f.kind == kind}
            sort_key, sort_params = compile_order(order_by, descending, field_types)
        direction = sql.SQL("DESC" if descending else "ASC")
        order = sql.SQL("sort_key {} NULLS LAST, doc_id, annotation_id").format(direction)
        # Without an order, the matching rows are read up to one past MATCHES_COUNTED_UP_TO (or the limit): a
        # LIMIT in the set of matches stops the heap scan there; the page is then that set's first by document id.
        counted, count_params = sql.SQL(""), []
        if (up_to := _matches_counted_up_to(order_by, limit)) is not None:
            counted, count_params = sql.SQL(" LIMIT %s"), [up_to + 1]
        # The matching rows are counted and limited before the titles are joined, so that only the rows returned
        # touch the documents table (joining first made the cost follow the corpus, not the matches). The count and
        # the page read one materialized set of the matching rows' keys; the rows themselves (their JSON) are read
        # again for the page only, by primary key, instead of copying every matching row into the set (35 MB for
        # the 75,000 rows of a common law at 1M documents).
        query = sql.SQL(
            "WITH matching AS (SELECT a.scope, a.annotation_id, a.doc_id, {sort_key} AS sort_key"
            " FROM annotations a WHERE {where}{counted}),"
            " page AS (SELECT * FROM matching ORDER BY {order} LIMIT %s)"
            " SELECT p.annotation_id, p.doc_id, a.kind, a.row, a.raw, d.title,"
            " (SELECT count(*) FROM matching) AS total_rows"
            " FROM page p JOIN annotations a USING (scope, annotation_id)"
            " JOIN documents d ON d.scope = p.scope AND d.doc_id = p.doc_id"
            " ORDER BY p.sort_key {direction} NULLS LAST, p.doc_id, p.annotation_id"
        ).format(sort_key=sort_key, where=where, counted=counted, order=order, direction=direction)
        return query, [*sort_params, *params, *count_params, limit]

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
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Groups (values of the `group_by` entries, documents, value) and the total over all matching rows, of the
        `doc_ids` documents only when given. An entry is a field, or `year(field)` / `month(field)` of a date field."""
        query, params, planner = self.aggregate_statement(
            scope, bucket, predicates, aggregate, group_by, kind=kind, doc_ids=doc_ids
        )
        with self.planned_connection(planner) as conn, conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(query, params).fetchall()
        (total,) = [r for r in rows if r["total"]]
        groups_out = [
            {
                "group": {name: r[f"group_{i}"] for i, name in enumerate(group_by)},
                "documents": r["documents"],
                "value": _plain(r["value"]),
            }
            for r in rows
            if not r["total"]
        ]
        return groups_out, {"documents": total["documents"], "value": _plain(total["value"])}

    def aggregate_statement(
        self,
        scope: str,
        bucket: str,
        predicates: list[Predicate],
        aggregate: str,
        group_by: list[str],
        *,
        kind: str | None = None,
        doc_ids: Sequence[str] | None = None,
    ) -> tuple[sql.Composable, list[Any], dict[str, str]]:
        """The statement `aggregate` runs (see `compile_aggregate`), with its parameters and the planner settings
        it runs with (`planned_connection`)."""
        function, field = parse_aggregate(aggregate)
        named = [*predicates, *([Predicate(field=field, op="exists")] if field else [])]
        grouped_fields = [parse_group(entry)[0] for entry in group_by]
        where, where_params = self._annotation_where(
            scope, bucket, named, kind, also_fields=grouped_fields, doc_ids=doc_ids
        )
        fields = {f.name: f for f in self.field_catalog(scope, bucket)}
        field_types = {name: f.type for name, f in fields.items()}
        query, select_params = compile_aggregate(function, field, group_by, field_types, where)
        return query, [*select_params, *where_params], planner_settings(group_by, fields)

    @contextmanager
    def planned_connection(self, planner: dict[str, str]) -> Iterator[psycopg.Connection]:
        """A pooled connection in a transaction that runs with the planner settings `planner` (SET LOCAL: they end
        with it). A setting the server does not have (older than the version that brought it) is left out."""
        with self.pool.connection() as conn, conn.transaction():
            if planner:
                conn.execute(
                    "SELECT set_config(name, %s::jsonb ->> name, true) FROM pg_settings WHERE name = ANY(%s)",
                    (Jsonb(planner), list(planner)),
                )
            yield conn

    def matching_doc_ids(
        self, scope: str, bucket: str, predicates: list[Predicate], *, kind: str | None = None
    ) -> list[str]:
        """Documents with at least one annotation row on which every predicate holds (an engine pre-filter)."""
        where, params = self._annotation_where(scope, bucket, predicates, kind)
        query = sql.SQL("SELECT DISTINCT a.doc_id FROM annotations a WHERE {} ORDER BY 1").format(where)
        with self.pool.connection() as conn:
            return [doc_id for (doc_id,) in conn.execute(query, params)]

    def _annotation_where(
        self,
        scope: str,
        bucket: str,
        predicates: list[Predicate],
        kind: str | None,
        also_fields: Sequence[str] = (),
        doc_ids: Sequence[str] | None = None,
    ) -> tuple[sql.Composable, list[Any]]:
        """The WHERE clause over `annotations a`; the row kind is the one the named fields (predicates and
        `also_fields`) lie on, since a predicate is tested against one row at a time. `doc_ids` (any of them)
        is a condition on the indexed (scope, doc_id), so a question naming documents reads only their rows."""
        catalog = [f for f in self.field_catalog(scope, bucket) if kind is None or f.kind == kind]
        field_types = {f.name: f.type for f in catalog}
        named = {p.field for p in predicates} | set(also_fields)
        kinds = {kind} if kind else {f.kind for f in catalog if f.name in named}
        if len(kinds) > 1 and kind is None:
            raise InvalidInput(
                f"fields {sorted(named)} lie on different row kinds {sorted(kinds)}; query one kind at a time"
            )
        condition, params = compile_predicates(predicates, field_types)
        where = sql.SQL("a.scope = %s AND a.bucket = %s AND {} AND {} AND {}").format(
            sql.SQL("a.kind = %s") if kinds else sql.SQL("TRUE"),
            sql.SQL("a.doc_id = ANY(%s)") if doc_ids is not None else sql.SQL("TRUE"),
            condition,
        )
        return where, [
            scope,
            bucket,
            *([next(iter(kinds))] if kinds else []),
            *([list(doc_ids)] if doc_ids is not None else []),
            *params,
        ]
