"""Indexes on annotation fields, made from the field catalog, so that predicates on a large bucket read an index
instead of every JSON row.

Why expression indexes on `annotations.row`, and these ones:

- A field may hold one value or a list (CUAD's `governing_law` is always a list, a receipt's `total` never is), and a
  predicate holds when any element satisfies it (`annotation_filters`). So every index is over a function of the
  whole value that is right for both shapes: for text, the array of its lowercased elements (`ragent_texts`, a GIN
  index: `=` is containment, `in` is overlap); for numbers and dates, the largest and the smallest element
  (`ragent_max_*` / `ragent_min_*`, B-trees: some element is > v exactly when the largest is, some element is < v
  exactly when the smallest is). A range (`between`, and `=`) holds for some element only if the largest or the
  smallest lies in it, or the two lie on either side of it; that last case needs a list of spread values, whose
  smallest element a third, small B-tree holds alone (`ragent_spread_min_*`, NULL for a single value or a list of
  equal ones), so that a narrow range on a field of single values reads only the rows in it. The predicate
  compiler writes these conditions (`annotation_filters.index_condition`), alone where they are exact (text `=` and
  `in`, date and whole-number bounds and ranges: `annotation_filters.is_exact`), so that a row the indexes found is
  not parsed again by a JSON path query, else beside the predicate's exact test; the store plans every
  statement with its parameter values (no prepared generic plans), so that `fn(row -> $1)` is the index's `fn(row ->
  'field')` and `bucket = $2` proves a partial index's predicate.
- Every index is partial, so its size follows one bucket's rows: a GIN on the row kind, a B-tree on the bucket
  (leading with the scope, which every query names). Not both on the same clause, because Postgres combines two
  indexes (a BitmapAnd, so that `governing_law = X AND effective_date in 2014` reads only the rows matching both)
  only when neither's predicate is implied by the other's; so a text index and a range index combine. Booleans
  are not indexed (half the rows match either value), nor fields past MAX_FIELDS per kind (the most documented
  first): the count of indexes follows the catalog, never the values.
- Each is also partial on its own expression being non-NULL, which only a condition on that expression implies
  (its operators are strict). Else a query naming the bucket or kind alone satisfies the predicate, and the planner
  may add a whole index to a BitmapAnd as a cheap way to apply that clause: reading a million entries to keep the
  rows the bucket condition already keeps (100-200 ms of each aggregate at 1M rows). Rows without the field are
  left out of the B-trees too.
- Each index's expression has statistics of its own (CREATE STATISTICS on the expression, made and dropped with the
  index), because the planner ignores a partial index's: without them it guesses a range keeps 0.5% of the rows
  and a one-sided bound (the spread list's smallest below a date) a third, and so it chose to scan the whole
  bucket rather than the date indexes. ANALYZE fills them.
- A bucket whose fields all have fewer than MIN_DOCUMENTS documents gets none: scanning it takes a few
  milliseconds, and every index costs every write.
- They are built with CREATE INDEX CONCURRENTLY, which lets other processes read and write meanwhile, by one
  process at a time (a try-lock: a process that finds another building them leaves the work to it), and rebuilt
  when a build was interrupted (CONCURRENTLY leaves an invalid index behind). Indexes of fields no catalog of the
  bucket names any more are dropped. So `ensure_field_indexes` is idempotent and cheap when nothing changed.

The functions are IMMUTABLE (a function of the value alone), which index expressions require. Each is a CASE that
Postgres inlines (so a single value costs an expression, not a function call, wherever a query re-checks the
condition), calling a `ragent_list_*` function only for a list. They mirror the exact tests: `lax $[*]` visits a
list's elements, or the value itself.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import psycopg
from psycopg import sql
from psycopg_pool import ConnectionPool

MIN_DOCUMENTS = 20_000
MAX_FIELDS = 24
_INDEX_LOCK = 727276
_PREFIX = "annf_"

FUNCTIONS = """
CREATE OR REPLACE FUNCTION ragent_list_texts(v jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT array_agg(lower(x #>> '{{}}')) FROM jsonb_array_elements(v) AS e(x) $$;
CREATE OR REPLACE FUNCTION ragent_list_max_number(v jsonb) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT max(x::numeric) FROM jsonb_array_elements(v) AS e(x) WHERE jsonb_typeof(x) = 'number' $$;
CREATE OR REPLACE FUNCTION ragent_list_min_number(v jsonb) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT min(x::numeric) FROM jsonb_array_elements(v) AS e(x) WHERE jsonb_typeof(x) = 'number' $$;
CREATE OR REPLACE FUNCTION ragent_list_max_text(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT max(x #>> '{{}}') FROM jsonb_array_elements(v) AS e(x) $$;
CREATE OR REPLACE FUNCTION ragent_list_min_text(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT min(x #>> '{{}}') FROM jsonb_array_elements(v) AS e(x) $$;
CREATE OR REPLACE FUNCTION ragent_list_spread_min_number(v jsonb) RETURNS numeric
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT min(x::numeric) FROM jsonb_array_elements(v) AS e(x) WHERE jsonb_typeof(x) = 'number'
   HAVING min(x::numeric) < max(x::numeric) $$;
CREATE OR REPLACE FUNCTION ragent_list_spread_min_text(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT min(x #>> '{{}}') FROM jsonb_array_elements(v) AS e(x) HAVING min(x #>> '{{}}') < max(x #>> '{{}}') $$;
CREATE OR REPLACE FUNCTION ragent_texts(v jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(v) = 'array' THEN {schema}.ragent_list_texts(v) ELSE ARRAY[lower(v #>> '{{}}')] END $$;
CREATE OR REPLACE FUNCTION ragent_max_number(v jsonb) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE jsonb_typeof(v) WHEN 'number' THEN v::numeric
   WHEN 'array' THEN {schema}.ragent_list_max_number(v) END $$;
CREATE OR REPLACE FUNCTION ragent_min_number(v jsonb) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE jsonb_typeof(v) WHEN 'number' THEN v::numeric
   WHEN 'array' THEN {schema}.ragent_list_min_number(v) END $$;
CREATE OR REPLACE FUNCTION ragent_max_text(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(v) = 'array' THEN {schema}.ragent_list_max_text(v) ELSE v #>> '{{}}' END $$;
CREATE OR REPLACE FUNCTION ragent_min_text(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(v) = 'array' THEN {schema}.ragent_list_min_text(v) ELSE v #>> '{{}}' END $$;
CREATE OR REPLACE FUNCTION ragent_spread_min_number(v jsonb) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(v) = 'array' THEN {schema}.ragent_list_spread_min_number(v) END $$;
CREATE OR REPLACE FUNCTION ragent_spread_min_text(v jsonb) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
$$ SELECT CASE WHEN jsonb_typeof(v) = 'array' THEN {schema}.ragent_list_spread_min_text(v) END $$;
"""
"""Run by `PostgresStore.ensure_schema` (under its lock) when they are missing (the last one added is looked for,
so that a database from before gets the new ones), as an SQL template (`{schema}`, and braces doubled). The calls
between them name their schema: Postgres builds indexes with a search_path of pg_catalog alone."""

# The functions an index of each field type is over; "texts" is a GIN index, the others B-trees on (scope, value).
FUNCTIONS_BY_TYPE = {
    "string": ("ragent_texts",),
    "number": ("ragent_max_number", "ragent_min_number", "ragent_spread_min_number"),
    "integer": ("ragent_max_number", "ragent_min_number", "ragent_spread_min_number"),
    "date": ("ragent_max_text", "ragent_min_text", "ragent_spread_min_text"),
}


def ensure_functions(conn: psycopg.Connection) -> None:
    if conn.execute("SELECT to_regprocedure('ragent_spread_min_text(jsonb)') IS NULL").fetchone()[0]:
        schema = conn.execute("SELECT current_schema()").fetchone()[0]
        conn.execute(sql.SQL(FUNCTIONS).format(schema=sql.Identifier(schema)))


def field_expression(function: str, field: str) -> sql.Composable:
    """`function(row -> 'field')`, the expression an index is over (a predicate repeats it with the field as a
    parameter, which Postgres replaces by its value when it plans the statement)."""
    return sql.SQL("{}(row -> {})").format(sql.Identifier(function), sql.Literal(field))


@dataclass(frozen=True)
class FieldIndex:
    bucket: str
    kind: str
    field: str
    function: str

    @property
    def is_gin(self) -> bool:
        return self.function == "ragent_texts"

    @property
    def name(self) -> str:
        """Bounded (Postgres cuts names at 63 bytes) and stable; the prefix names the bucket, so that the indexes of
        one bucket can be listed."""
        # a B-tree covers the bucket's rows of every kind, so its kind is not part of what it is
        kind = self.kind if self.is_gin else ""
        # "present": partial on the expression being non-NULL; an index of an earlier definition has another name,
        # so a database from before rebuilds it
        key = f"{kind}\x1f{self.field}\x1f{self.function}\x1fpresent"
        return bucket_prefix(self.bucket) + _digest(key, 16)

    def create(self) -> sql.Composable:
        expression = field_expression(self.function, self.field)
        if self.is_gin:
            method, columns = sql.SQL("gin"), expression
            where = sql.SQL("kind = {}").format(sql.Literal(self.kind))
        else:
            method, columns = sql.SQL("btree"), sql.SQL("scope, {}").format(expression)
            where = sql.SQL("bucket = {}").format(sql.Literal(self.bucket))
        return sql.SQL(
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS {} ON annotations USING {} ({}) WHERE {} AND {} IS NOT NULL"
        ).format(sql.Identifier(self.name), method, columns, where, expression)

    def create_statistics(self) -> sql.Composable:
        """Statistics on the index's expression, under the index's name (statistics have names of their own)."""
        return sql.SQL("CREATE STATISTICS IF NOT EXISTS {} ON ({}) FROM annotations").format(
            sql.Identifier(self.name), field_expression(self.function, self.field)
        )


def _digest(text: str, chars: int) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:chars]


def bucket_prefix(bucket: str) -> str:
    return f"{_PREFIX}{_digest(bucket, 8)}_"


def wanted_indexes(bucket: str, fields: list[tuple[str, str, str, int]]) -> list[FieldIndex]:
    """The indexes for (kind, field, type, documents) entries of the bucket's catalogs (every scope's): up to
    MAX_FIELDS indexable fields per kind, the most documented first; none when no field reaches MIN_DOCUMENTS
    documents."""
    if not fields or max(docs for *_, docs in fields) < MIN_DOCUMENTS:
        return []
    chosen: dict[str, list[str]] = {}
    for kind, field, ftype, _ in sorted(fields, key=lambda f: (-f[3], f[0], f[1])):
        names = chosen.setdefault(kind, [])
        if ftype in FUNCTIONS_BY_TYPE and field not in names and len(names) < MAX_FIELDS:
            names.append(field)
    types = {(kind, field): ftype for kind, field, ftype, _ in fields}
    wanted: list[FieldIndex] = []
    for kind, names in sorted(chosen.items()):
        for field in names:
            wanted += [FieldIndex(bucket, kind, field, function) for function in FUNCTIONS_BY_TYPE[types[kind, field]]]
    return wanted


def ensure_field_indexes(pool: ConnectionPool, bucket: str) -> list[str]:
    """Create the bucket's missing field indexes and drop those no catalog needs; returns the names created or
    dropped ([] when another process holds the bucket's index lock, or nothing changed)."""
    with pool.connection() as conn:
        if not conn.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s))", (_INDEX_LOCK, bucket)).fetchone()[0]:
            return []
        try:
            return _reconcile(conn, bucket)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s, hashtext(%s))", (_INDEX_LOCK, bucket))


def existing_indexes(conn: psycopg.Connection, bucket: str) -> dict[str, bool]:
    """The bucket's field indexes by name, each with whether it is valid (usable by queries)."""
    rows = conn.execute(
        "SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
        " WHERE i.indrelid = 'annotations'::regclass AND starts_with(c.relname, %s)",
        (bucket_prefix(bucket),),
    ).fetchall()
    return dict(rows)


def _existing_statistics(conn: psycopg.Connection, bucket: str) -> set[str]:
    rows = conn.execute(
        "SELECT stxname FROM pg_statistic_ext WHERE stxrelid = 'annotations'::regclass AND starts_with(stxname, %s)",
        (bucket_prefix(bucket),),
    ).fetchall()
    return {name for (name,) in rows}


def _reconcile(conn: psycopg.Connection, bucket: str) -> list[str]:
    fields = conn.execute(
        "SELECT kind, field, entry ->> 'type', max((entry ->> 'doc_count')::bigint) FROM field_catalog"
        " WHERE bucket = %s GROUP BY 1, 2, 3",
        (bucket,),
    ).fetchall()
    wanted = {index.name: index for index in wanted_indexes(bucket, fields)}
    existing = existing_indexes(conn, bucket)
    changed = {}  # names in the order they changed (an index and its statistics share one)
    for name, valid in existing.items():
        if name not in wanted or not valid:
            conn.execute(sql.SQL("DROP INDEX CONCURRENTLY IF EXISTS {}").format(sql.Identifier(name)))
            changed[name] = True
    for name, index in wanted.items():
        if not existing.get(name):
            conn.execute(index.create())
            changed[name] = True
    statistics = _existing_statistics(conn, bucket)
    for name in statistics - wanted.keys():
        conn.execute(sql.SQL("DROP STATISTICS IF EXISTS {}").format(sql.Identifier(name)))
        changed[name] = True
    for name in wanted.keys() - statistics:
        conn.execute(wanted[name].create_statistics())
        changed[name] = True
    if changed:
        conn.execute("ANALYZE annotations")
    return list(changed)
