"""Annotation queries in Postgres: rows matching predicates, aggregates over them, the values of a field.

Predicates and aggregates are checked against the bucket's field catalog and compiled to SQL
(`annotation_filters`, `annotation_aggregates`); the catalog also says which row kind the named fields lie on. So
the queries are a part of the store that reads the catalog (`PostgresCatalog`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from typing import Any

import psycopg
from psycopg import sql
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from core.errors import InvalidInput
from retrievers.postgres.annotation_aggregates import compile_aggregate, parse_aggregate, parse_group, planner_settings
from retrievers.postgres.annotation_filters import Predicate, compile_order, compile_predicates
from retrievers.postgres.catalog import PostgresCatalog

MATCHES_COUNTED_UP_TO = 1_000
"""How many matching rows an annotation search counts before it stops (as a search engine tracks total hits up to
a bound): past it the total is a lower bound. Counting every one of a common value's 35,000 rows at 1M documents
read each of them (60-200 ms), for a figure no caller needs beyond "more than can be listed"; an exact count is
`aggregate`'s. A search ordered by a field reads every match anyway (its page is the top of all of them), so its
count stays exact; a search with a larger limit (an export) counts up to its limit."""


def _matches_counted_up_to(order_by: str | None, limit: int) -> int | None:
    """Where a search stops counting its matches (`MATCHES_COUNTED_UP_TO`, or its limit if larger); None for a
    search ordered by a field, which reads and counts every match."""
    return None if order_by else max(MATCHES_COUNTED_UP_TO, limit)


def _plain(value: Any) -> Any:
    """Postgres numerics arrive as Decimal, which JSON (and so every tool result) cannot carry."""
    return float(value) if isinstance(value, Decimal) else value


class PostgresAnnotations(PostgresCatalog):
    """Queries over annotation rows, typed by the bucket's field catalog."""

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

    def coverage(
        self,
        scope: str,
        bucket: str,
        fields: Sequence[str],
        *,
        kind: str | None = None,
        doc_ids: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """How many documents of `bucket` in `scope` (of the `doc_ids` only, when given) there are (`documents`), and
        per field of `fields` how many of them have no value for it (`missing`: no row of the fields' kind holds a
        value other than null or []), so that an answer can say whom it leaves out.

        Over the whole bucket both come from the stored catalog (the bucket's documents and each field's, counted
        when the catalog was refreshed by the last ingest, extraction or delete): one read of a few catalog rows,
        whatever the bucket's size. Over a doc_id list their rows are read by the (scope, doc_id) index and counted
        exactly, with the documents that have no annotation row at all (`unannotated`, else None), in one statement.
        Over the whole bucket, also per field how many documents' values were found in their text (`extracted`).
        """
        with self.pool.connection() as conn:
            catalog = [f for f in self._stored_catalog(conn, scope, bucket) if kind is None or f.kind == kind]
        kinds = {kind} if kind else {f.kind for f in catalog if f.name in fields}
        on_kind = next(iter(kinds)) if len(kinds) == 1 else None
        if doc_ids is None:
            recorded = {f.name: f.doc_count for f in catalog if on_kind is None or f.kind == on_kind}
            having, unannotated = [recorded.get(name, 0) for name in fields], None
            documents = next((f.bucket_documents for f in catalog if f.bucket_documents is not None), None)
            if documents is None:  # no row at all yet, or a catalog from before it counted the bucket's documents
                documents = self.bucket_document_counts(scope).get(bucket, 0)
        else:
            has_value = sql.SQL(
                "count(DISTINCT doc_id) FILTER (WHERE {} AND jsonb_typeof(row -> %s) <> 'null' AND row -> %s <> '[]')"
            ).format(sql.SQL("kind = %s") if on_kind else sql.SQL("TRUE"))
            count = sql.SQL(
                "SELECT (SELECT count(*) FROM documents WHERE scope = %s AND bucket = %s AND doc_id = ANY(%s)),"
                " (SELECT ARRAY[count(DISTINCT doc_id){}] FROM annotations"
                " WHERE scope = %s AND bucket = %s AND doc_id = ANY(%s))"
            ).format(sql.SQL("").join(sql.SQL(", {}").format(has_value) for _ in fields))
            params: list[Any] = [scope, bucket, list(doc_ids)]
            for name in fields:
                params += [*([on_kind] if on_kind else []), name, name]
            params += [scope, bucket, list(doc_ids)]
            with self.pool.connection() as conn:
                documents, (annotated, *having) = conn.execute(count, params).fetchone()
            unannotated = documents - annotated
        of_kind = [f for f in catalog if on_kind is None or f.kind == on_kind]
        found_in_text = {f.name: f.extracted_count for f in of_kind}
        by_model = {f.name: f.model_count for f in of_kind}
        return {
            "documents": documents,
            "missing": {name: max(0, documents - n) for name, n in zip(fields, having, strict=True)},
            "unannotated": unannotated,
            # bucket-wide counts from the catalog: said only of an answer over the whole bucket
            "extracted": {name: found_in_text.get(name, 0) for name in fields} if doc_ids is None else {},
            "by_model": {name: by_model.get(name, 0) for name in fields} if doc_ids is None else {},
        }

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
