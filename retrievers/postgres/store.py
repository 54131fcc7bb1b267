"""The Postgres store: documents, chunks, annotation rows, buckets and field catalogs (psycopg 3 with a pool).

One connection pool serves the store's parts, each a class of its own job: `PostgresDocuments` (the commit point of
ingestion), `PostgresCatalog` (buckets, vocabulary, field catalogs) and `PostgresAnnotations` (queries over the
rows, which read the catalog). `PostgresStore` is them together, opened on one pool with the schema in place.
"""

from __future__ import annotations

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolTimeout

from core.errors import BackendUnavailable
from retrievers.postgres.annotation_indexes import ensure_functions
from retrievers.postgres.annotations import PostgresAnnotations
from retrievers.postgres.documents import PostgresDocuments
from retrievers.postgres.schema import DEFAULT_BUCKETS, MARK_STALE, SCHEMA, TITLE_INDEX


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


def _ensure_title_index(conn: psycopg.Connection) -> None:
    """The trigram index that finds documents by a name in their title in one lookup (`documents_titled`), where
    the server has pg_trgm (every Postgres ships it; a managed one may not let this user create it): without it the
    same lookup reads every title of the scope."""
    try:
        with conn.transaction():
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    except psycopg.Error:
        return
    conn.execute(TITLE_INDEX)


class PostgresStore(PostgresDocuments, PostgresAnnotations):
    """The document store and annotation store of the design (`retrievers.protocols.DocumentStore`), over one
    connection pool: documents and their rows, the catalog and the annotation queries that read it."""

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
            _ensure_title_index(conn)
            if untracked:
                # A database from before catalogs were tracked may hold catalogs a killed ingest left behind.
                conn.execute(MARK_STALE.format("SELECT DISTINCT scope, bucket FROM documents"))
            # The shipped aliases follow the code; a description the user changed (`ragent buckets add`) stays.
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO buckets (name, description, aliases) VALUES (%s, %s, %s) ON CONFLICT (name)"
                    " DO UPDATE SET aliases = EXCLUDED.aliases WHERE buckets.aliases <> EXCLUDED.aliases",
                    [(name, d.description, Jsonb(list(d.aliases))) for name, d in DEFAULT_BUCKETS.items()],
                )

    def close(self) -> None:
        self.pool.close()
