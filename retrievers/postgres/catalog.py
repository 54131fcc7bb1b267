"""Buckets, the users' vocabulary, the loaders' field specs and the field catalogs of each (scope, bucket) in Postgres:
what a planner reads to map a question's words to buckets, fields and values.

A bucket's catalog is computed from its annotation rows and stored (`refresh_catalog`), marked stale by every change
to those rows (`schema.MARK_STALE`); what users say about a bucket or field is kept in its own table and laid over
the catalog when it is read, so that it counts at once and survives re-ingests.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from core.errors import InvalidInput
from core.models import BUCKET_NAME_RE, FIELD_ROLES, FieldSpec
from retrievers.extraction.extractor import PROPERTIES
from retrievers.postgres.annotation_indexes import ensure_field_indexes
from retrievers.postgres.field_catalog import CatalogField, Described, Vocabulary, build_field
from retrievers.postgres.schema import MARK_STALE

MAX_DESCRIPTION_CHARS = 500
"""The longest description a user may give a bucket or field: the shipped ones take at most 120 characters, and every
description is read into the planner's prompts."""
MAX_UNIT_CHARS = 20
# The key of the advisory locks that make refreshes of one catalog take turns (with hashtext(scope, bucket)).
_CATALOG_LOCK = 727275


def _by_field(catalog: list[CatalogField]) -> dict[tuple[str, str], dict[str, Any]]:
    """A catalog as its JSON entries by (kind, field): how two catalogs are compared, whatever order they come in."""
    return {(f.kind, f.name): f.model_dump(mode="json") for f in catalog}


def _widens(declared: dict[str, FieldSpec], spec: FieldSpec) -> bool:
    """Whether `spec` says a declared field of one value holds several (the shipped `contract_type` since titles
    naming two kinds give both)."""
    return spec.multi and spec.name in declared and not declared[spec.name].multi


def _now_read(declared: dict[str, FieldSpec], spec: FieldSpec) -> bool:
    """Whether `spec` says a rule now reads a declared field that only labels gave (a clause this release learned to
    read): a user's own way of finding it (`model`, a pattern) is kept."""
    return spec.found_by == "rule" and spec.name in declared and declared[spec.name].found_by == "labels"


class PostgresCatalog:
    """Buckets, vocabulary, field specs and field catalogs, over the store's connection pool."""

    pool: ConnectionPool

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

    def require_bucket(self, name: str) -> None:
        known = self.buckets()
        if name not in known:
            hint = "malformed" if not BUCKET_NAME_RE.match(name) else "unknown"
            raise InvalidInput(
                f"bucket {name!r} is {hint}; use one of {', '.join(known)} "
                f"or add it with `ragent buckets add {name if hint == 'unknown' else 'NAME'} --description ...`"
            )

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

    # -- the field catalog ----------------------------------------------------------------------------

    def record_field_specs(self, bucket: str, specs: Sequence[FieldSpec], *, only_new: bool = False) -> None:
        """Declare field types, descriptions, vocabulary and how each is found (`only_new`: only the fields not
        declared yet, as a bucket's shipped schema is declared under whatever a loader or user said; a declared
        field the schema now says holds several values widened to them: every value stored still fits, and its rule
        gives several, which a single field would refuse as ambiguous; and one only labels gave, which a shipped
        rule now reads, found by the rule); a change marks the bucket's catalogs stale in
        every scope (the catalog entries carry them)."""
        with self.pool.connection() as conn, conn.transaction():
            declared = {spec.name: spec for spec in self._field_specs(conn, bucket, " FOR UPDATE")}
            if only_new:
                changed = [s for s in specs if s.name not in declared]
                for s in specs:
                    update = {"multi": True} if _widens(declared, s) else {}
                    update |= {"found_by": "rule"} if _now_read(declared, s) else {}
                    if update:
                        changed.append(declared[s.name].model_copy(update=update))
            else:
                changed = [s for s in specs if declared.get(s.name) != s]
            if not changed:
                return
            with conn.cursor() as cur:
                cur.executemany(
                    """INSERT INTO field_specs (bucket, field, type, multi, description, aliases, role, unit,
                           unit_field, found_by, pattern)
                       VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
                       ON CONFLICT (bucket, field) DO UPDATE SET type = EXCLUDED.type, multi = EXCLUDED.multi,
                           description = EXCLUDED.description, aliases = EXCLUDED.aliases, role = EXCLUDED.role,
                           unit = EXCLUDED.unit, unit_field = EXCLUDED.unit_field, found_by = EXCLUDED.found_by,
                           pattern = EXCLUDED.pattern""",
                    [
                        (
                            bucket,
                            s.name,
                            s.type,
                            s.multi,
                            s.description,
                            Jsonb(s.aliases),
                            s.role,
                            s.unit,
                            s.unit_field,
                            s.found_by,
                            s.pattern,
                        )
                        for s in changed
                    ],
                )
            conn.execute(
                MARK_STALE.format("SELECT DISTINCT scope, bucket FROM documents WHERE bucket = %s ORDER BY 1"),
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

    def refresh_bucket_catalogs(self, bucket: str) -> None:
        """Refresh the catalogs of `bucket` marked stale in every scope (after its fields were declared or changed,
        so that questions can name a field no document holds yet)."""
        with self.pool.connection() as conn:
            scopes = [s for (s,) in conn.execute("SELECT scope FROM stale_catalogs WHERE bucket = %s", (bucket,))]
        for scope in scopes:
            self.refresh_catalog(scope, bucket)

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
                SELECT a.kind, a.doc_id, e.key, e.value, a.sources ? e.key AS extracted,
                    a.sources -> e.key ->> 'found_by' = 'model' AS by_model
                FROM annotations a CROSS JOIN LATERAL jsonb_each(a.row) e
                WHERE a.scope = %s AND a.bucket = %s AND jsonb_typeof(e.value) <> 'null'
            ),
            docs AS (
                SELECT kind, key, count(DISTINCT doc_id) AS docs,
                    count(DISTINCT doc_id) FILTER (WHERE extracted) AS extracted_docs,
                    count(DISTINCT doc_id) FILTER (WHERE by_model) AS model_docs
                FROM fields GROUP BY 1, 2
            ),
            vals AS (
                SELECT f.kind, f.key, v.value, count(*) AS n, bool_or(jsonb_typeof(f.value) = 'array') AS is_list
                FROM fields f CROSS JOIN LATERAL jsonb_path_query(f.value, 'lax $[*]') v(value)
                WHERE jsonb_typeof(v.value) <> 'null'
                GROUP BY 1, 2, 3
            )
            SELECT kind, key, value, n, is_list, docs, extracted_docs, model_docs FROM vals JOIN docs USING (kind, key)
            ORDER BY 1, 2, 3
            """,
            (scope, bucket),
        ).fetchall()
        (documents,) = conn.execute(
            "SELECT count(*) FROM documents WHERE scope = %s AND bucket = %s", (scope, bucket)
        ).fetchone()
        counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
        multi: dict[tuple[str, str], bool] = defaultdict(bool)
        docs: dict[tuple[str, str], tuple[int, int, int]] = {}
        for kind, field, value, n, is_list, doc_count, extracted_count, model_count in rows:
            counts[(kind, field)][value] += n
            multi[(kind, field)] |= is_list
            docs[(kind, field)] = doc_count, extracted_count, model_count
        # A user's field found in the text (a labelled line, a pattern, the model) that no document holds yet,
        # declared after they were ingested, is in the catalog all the same: a question can name it, and the run can
        # offer to read them for it. Not the shipped rules' fields, which most folders never hold some of.
        held = {name for _, name in counts}
        declared = [spec for spec in specs.values() if spec.found_by in ("text", "pattern", "model")]
        unheld = [(PROPERTIES, spec.name) for spec in declared if spec.name not in held]
        return [
            build_field(
                kind,
                name,
                counts[kind, name],
                docs.get((kind, name), (0, 0, 0))[0],
                multi[kind, name],
                specs.get(name),
                bucket_documents=documents,
                extracted_count=docs.get((kind, name), (0, 0, 0))[1],
                model_count=docs.get((kind, name), (0, 0, 0))[2],
            )
            for kind, name in sorted([*counts, *unheld])
        ]

    def _stored_catalog(self, conn: psycopg.Connection, scope: str, bucket: str) -> list[CatalogField]:
        rows = conn.execute(
            "SELECT entry FROM field_catalog WHERE scope = %s AND bucket = %s ORDER BY kind, field", (scope, bucket)
        ).fetchall()
        return [CatalogField.model_validate(entry) for (entry,) in rows]

    def _field_specs(self, conn: psycopg.Connection, bucket: str, lock: str = "") -> list[FieldSpec]:
        with conn.cursor(row_factory=dict_row) as cur:
            rows = cur.execute(
                "SELECT field AS name, type, multi, description, aliases, role, unit, unit_field, found_by, pattern"
                " FROM field_specs WHERE bucket = %s ORDER BY field" + lock,
                (bucket,),
            ).fetchall()
        return [FieldSpec.model_validate(row) for row in rows]

    def field_specs(self, bucket: str) -> list[FieldSpec]:
        """The fields declared for `bucket` (by loaders, shipped schemas and users), by name."""
        with self.pool.connection() as conn:
            return self._field_specs(conn, bucket)

    def described_specs(self, bucket: str) -> list[FieldSpec]:
        """The declared fields with the user's words for them laid over (`ragent catalog describe --aliases`), as
        extraction reads them: a labelled line written with the user's word is read, and since a field's stamp
        holds its declaration, new words make `ragent extract` read the text for it again."""
        with self.pool.connection() as conn:
            return _as_described(self._field_specs(conn, bucket), self._vocabulary(conn, bucket), bucket)

    def field_catalog(self, scope: str, bucket: str) -> list[CatalogField]:
        """The bucket's stored catalog, with the user's words for its fields laid over it."""
        with self.pool.connection() as conn:
            catalog = self._stored_catalog(conn, scope, bucket)
            said = self._vocabulary(conn, bucket)
        return _as_described(catalog, said, bucket)

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


def _as_described(entries: list[Described], said: dict[tuple[str, str], Vocabulary], bucket: str) -> list[Described]:
    """Each field's entry (a catalog entry or a declaration) with what the user said of it laid over."""
    return [said[bucket, e.name].over(e) if (bucket, e.name) in said else e for e in entries]
