"""The tables of the Postgres store, the buckets every database has, and the statement that marks a catalog stale:
what the store's parts (`documents`, `catalog`, `annotations`) and its start (`store.ensure_schema`) share.

The field catalog of a (scope, bucket) is computed from all its annotation rows, too costly to redo in every
commit. So the same transaction that changes a bucket's rows (or the field specs its catalog uses) counts a change in
`stale_catalogs` (MARK_STALE), and `refresh_catalog` removes that mark only if no change was counted while it
computed: a catalog is either up to date or marked, whatever is killed when.
"""

from __future__ import annotations

from typing import NamedTuple


class BucketDefault(NamedTuple):
    """A bucket every database has: what it holds, and the words users say for it."""

    description: str
    aliases: tuple[str, ...]


DEFAULT_BUCKETS = {
    "contracts": BucketDefault(
        "Legal agreements and deals: commercial contracts, NDAs, licences, with parties, dates, governing law and "
        "clause flags.",
        (
            "contract",
            "agreement",
            "nda",
            "non-disclosure",
            "confidentiality agreement",
            "licence",
            "license",
            "lease",
            "deal",
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
ALTER TABLE field_specs ADD COLUMN IF NOT EXISTS found_by text NOT NULL DEFAULT 'labels';
ALTER TABLE field_specs ADD COLUMN IF NOT EXISTS pattern text NOT NULL DEFAULT '';
ALTER TABLE annotations ADD COLUMN IF NOT EXISTS sources jsonb NOT NULL DEFAULT '{}';
ALTER TABLE documents ADD COLUMN IF NOT EXISTS labels_complete boolean NOT NULL DEFAULT false;
ALTER TABLE documents ADD COLUMN IF NOT EXISTS extraction_stamps jsonb NOT NULL DEFAULT '{}';
-- One stamp a document, replaced by a stamp a field (`extraction_stamps`): such documents are read once again.
ALTER TABLE documents DROP COLUMN IF EXISTS extracted_with;
"""

# Counts a change to the rows of (scope, bucket). The update (not DO NOTHING) locks the mark until the writer
# commits, so a refresh that read the rows before that commit sees the count move and keeps the mark.
MARK_STALE = (
    "INSERT INTO stale_catalogs AS s (scope, bucket) {} "
    "ON CONFLICT (scope, bucket) DO UPDATE SET changes = s.changes + 1"
)

COMPACT_TITLE = "lower(regexp_replace(title || ' ' || doc_id, '[^[:alnum:]]+', '', 'g'))"
"""A document's title and id in lower-case letters and digits only, as a question's name for it is compared with them
("Joint Corp" and "JOINTCORP_09_19_2014-EX-10.15-FRANCHISE AGREEMENT" both hold "jointcorp")."""
TITLE_INDEX = (
    f"CREATE INDEX IF NOT EXISTS documents_compact_title ON documents USING gin (({COMPACT_TITLE}) gin_trgm_ops)"
)
