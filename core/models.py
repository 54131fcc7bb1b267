"""The data model shared by every engine: documents, chunks, annotation rows, filters and hits.

Boundary types (what loaders produce and callers pass in) are Pydantic models so that bad input fails
with a readable message. The types that move in bulk between the ingestion pipeline and the engines
(`IndexedChunk`, `EngineHit`) are plain dataclasses: they are built by the hundred thousand and are
already valid by construction.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from core.scope import DEFAULT_SCOPE, SCOPE_RE

BUCKET_NAME_PATTERN = r"^[a-z][a-z0-9_]{1,39}$"
BUCKET_NAME_RE = re.compile(BUCKET_NAME_PATTERN)
MAX_DOC_ID_CHARS = 200
MAX_FIELD_NAME_CHARS = 63
"""The longest annotation field name: Postgres's identifier length, so that a field can be named as a column or an
index as it is. The longest real name (CUAD's labels) has 33 characters."""
MAX_ROW_FIELDS = 500
"""The most fields one annotation row (or its `raw`) may hold. Every question about a bucket reads its rows field by
field (predicates, the catalog, value lists), so one row of 100,000 fields made every question in its scope some
50 times slower. The widest real row (CUAD, 42 labels) is a twelfth of this; more belongs in rows of several kinds."""
MAX_ROW_BYTES = 64 * 1024
"""The most bytes of JSON one annotation row (or its `raw`) may take, for the same reason. The largest real one (a
CUAD row, clause excerpts as values) takes 2.7 KB; whole passages belong in the document's text, which is chunked."""
FIELD_NAME_RE = re.compile(rf"^[A-Za-z][A-Za-z0-9_]{{0,{MAX_FIELD_NAME_CHARS - 1}}}$")


FieldType = Literal["string", "number", "integer", "boolean", "date"]
FieldRole = Literal["", "name", "identifier", "money", "currency", "text"]
"""What a field's values are, for a planner matching a question's words to them: `name` (companies or people, matched
fuzzily), `identifier` (printed numbers and codes, matched exactly), `money` (an amount), `currency` (ISO 4217 codes),
`text` (free text such as an address); '' when none of these."""
FIELD_ROLES: tuple[str, ...] = get_args(FieldRole)
FoundBy = Literal["labels", "rule", "text", "pattern", "model"]
"""How a field's values are found in documents that carry no label for it (`retrievers.extraction`): `labels` only
from an annotations file or a dataset's labels; `rule` by the shipped rule for the field (contracts, receipts,
invoices); `text` where the document writes the field's name or an alias followed by a value of its type ("Governing
law: Delaware", "Prep time: 45 minutes"); `pattern` by the field's regular expression; `model` by the chat model,
each value checked against the text."""
FOUND_BY: tuple[str, ...] = get_args(FoundBy)
MAX_PATTERN_CHARS = 500
MAX_ALIAS_CHARS = 80
"""The longest word or phrase a field or bucket may be called by: the longest shipped one has 25 characters; a
longer one is a sentence, which belongs in the description."""
MAX_ALIASES = 200
"""The most aliases one field or bucket may have; the shipped vocabulary uses at most a dozen. Every alias is read
by the planner on every question, so the list is kept short."""

# A fixed namespace so that chunk ids are the same on every machine for the same content.
_CHUNK_NAMESPACE = uuid.UUID("6f1c2f0e-8a4b-4f53-9a43-1b7a3f1de2a1")


def _utc(value: datetime | date | str | None) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return datetime(value.year, value.month, value.day, tzinfo=UTC)


def holds_nul(value: Any) -> bool:
    """Whether a text, or any text in a list or mapping (names too), holds a NUL character: Postgres's text and
    JSON refuse it, so a document holding one is refused whole, before anything of it is written."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(holds_nul(k) or holds_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(holds_nul(v) for v in value)
    return False


class Document(BaseModel):
    """A source document: its text and the filterable fields that every index carries."""

    model_config = ConfigDict(extra="forbid")

    doc_id: str = Field(min_length=1, max_length=MAX_DOC_ID_CHARS)
    bucket: str
    scope: str = DEFAULT_SCOPE
    title: str = ""
    author: str | None = None
    tags: list[str] = Field(default_factory=list)
    created_at: datetime | None = None
    source: str = ""
    summary: str | None = None
    body: str

    @field_validator("doc_id")
    @classmethod
    def _doc_id_printable(cls, value: str) -> str:
        if not value.isprintable() or value != value.strip():
            raise ValueError("doc_id must be printable text without leading or trailing spaces")
        return value

    @field_validator("bucket")
    @classmethod
    def _bucket_name(cls, value: str) -> str:
        if not BUCKET_NAME_RE.match(value):
            raise ValueError(f"bucket {value!r} is not a valid name (lowercase letters, digits, '_', 2-40 chars)")
        return value

    @field_validator("scope")
    @classmethod
    def _scope_name(cls, value: str) -> str:
        if not SCOPE_RE.match(value):
            raise ValueError(f"scope {value!r} is not a valid name (letters, digits, '_.:-', up to 64 chars)")
        return value

    @field_validator("created_at", mode="before")
    @classmethod
    def _created_utc(cls, value: Any) -> datetime | None:
        return _utc(value)

    @field_validator("title", "author", "tags", "source", "summary", "body")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        if holds_nul(value):
            raise ValueError("holds a NUL character (\\u0000), which no text field can store; remove it")
        return value

    @field_validator("body")
    @classmethod
    def _body_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("document body is empty")
        return value


class ValueSource(BaseModel):
    """Where an extracted value of an annotation row was read: `body[start:end]` of its document, and by what.

    `start == end` when the value was read from an absence (a yes/no clause not found): there is nothing to quote.
    """

    model_config = ConfigDict(extra="forbid")

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    found_by: str = Field(min_length=1, max_length=80)
    confidence: float | None = Field(default=None, ge=0, le=1)
    """How often the extractor's values of this field are right where labels can tell (a shipped rule's precision on
    labelled documents it was not tuned on); None where nothing measured it."""


class AnnotationRow(BaseModel):
    """One structured row about a document: typed values in `row`, the source strings in `raw`, and for each value
    found in the document's own text (not labelled) where it was read (`sources`).

    `row` values are JSON scalars (str, int, float, bool, ISO date strings) or lists of them where a
    label holds several values. `raw` keeps each original string beside its normalised value. Both are bounded
    (`MAX_ROW_FIELDS`, `MAX_FIELD_NAME_CHARS`, `MAX_ROW_BYTES`) here, where every row enters, so that no query
    ever meets a wider one.
    """

    model_config = ConfigDict(extra="forbid")

    kind: str = Field(default="properties", pattern=r"^[a-z][a-z0-9_]{0,39}$")
    row: dict[str, Any]
    raw: dict[str, Any] = Field(default_factory=dict)
    sources: dict[str, ValueSource] = Field(default_factory=dict)

    @field_validator("row", "raw")
    @classmethod
    def _bounded(cls, fields: dict[str, Any]) -> dict[str, Any]:
        if len(fields) > MAX_ROW_FIELDS:
            raise ValueError(f"{len(fields)} fields, more than the {MAX_ROW_FIELDS} a row may hold")
        for name in fields:
            if len(name) > MAX_FIELD_NAME_CHARS:
                raise ValueError(
                    f"field name {name[:20]!r}... has {len(name)} characters, more than {MAX_FIELD_NAME_CHARS}"
                )
            if not FIELD_NAME_RE.match(name):
                raise ValueError(
                    f"annotation field name {name!r} is not valid (letters, digits, '_', starting with a letter)"
                )
        if holds_nul(fields):
            raise ValueError("a name or value holds a NUL character (\\u0000), which no text field can store")
        size = len(json.dumps(fields, ensure_ascii=False, default=str).encode())
        if size > MAX_ROW_BYTES:
            raise ValueError(f"{size} bytes of JSON, more than the {MAX_ROW_BYTES} a row may take")
        return fields

    @model_validator(mode="after")
    def _scalar_values(self) -> AnnotationRow:
        for name, value in self.row.items():
            values = value if isinstance(value, list) else [value]
            for item in values:
                if item is not None and not isinstance(item, (str, int, float, bool)):
                    raise ValueError(
                        f"annotation field {name!r} holds a {type(item).__name__}; "
                        "only scalars or lists of scalars are allowed"
                    )
        return self


def clean_aliases(aliases: list[str]) -> list[str]:
    """The aliases as a planner compares them: spaces trimmed and collapsed, empty ones dropped, and each said once
    (the first spelling kept when two differ only in case). Raises ValueError for one too long or not printable."""
    cleaned: dict[str, str] = {}
    for alias in aliases:
        words = " ".join(alias.split())
        if not words:
            continue
        if len(words) > MAX_ALIAS_CHARS or not words.isprintable():
            raise ValueError(f"alias {words[:20]!r} is not printable text of at most {MAX_ALIAS_CHARS} characters")
        cleaned.setdefault(words.casefold(), words)
    if len(cleaned) > MAX_ALIASES:
        raise ValueError(f"{len(cleaned)} aliases, more than the {MAX_ALIASES} a field or bucket may have")
    return list(cleaned.values())


class FieldSpec(BaseModel):
    """What a loader knows about one annotation field of its bucket; the catalog adds statistics.

    `aliases`, `role`, `unit` and `unit_field` are the field's vocabulary: the words users say for it and what its
    values are, so that a planner maps a question onto the field from the catalog instead of from lists of words
    written for one corpus. `unit` is fixed ("days", "percent", a currency code); `unit_field` names the field holding
    the unit when it varies by document: on the same row, or else on the document's `properties` row (an invoice's
    `amount`, and the `unit_price` of its line items, are in the invoice's `currency`).

    `found_by` (and `pattern`, for `found_by="pattern"`: a regular expression whose group `value`, or else whole
    match, is the value) says how the field is found in a document's own text when no label gives it (`FoundBy`).
    """

    name: str
    type: FieldType
    multi: bool = False
    description: str = ""
    aliases: list[str] = Field(default_factory=list)
    role: FieldRole = ""
    unit: str = ""
    unit_field: str = ""
    found_by: FoundBy = "labels"
    pattern: str = Field(default="", max_length=MAX_PATTERN_CHARS)

    model_config = ConfigDict(extra="forbid")

    @field_validator("name")
    @classmethod
    def _field_name(cls, value: str) -> str:
        if not FIELD_NAME_RE.match(value):
            raise ValueError(f"field name {value!r} is not valid (letters, digits, '_', starting with a letter)")
        return value

    @field_validator("aliases")
    @classmethod
    def _aliases(cls, value: list[str]) -> list[str]:
        return clean_aliases(value)

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str) -> str:
        if value:
            try:
                re.compile(value)
            except re.error as error:
                raise ValueError(f"pattern {value!r} is not a regular expression: {error}") from None
        return value

    @model_validator(mode="after")
    def _pattern_when_found_by_pattern(self) -> FieldSpec:
        if (self.found_by == "pattern") != bool(self.pattern):
            raise ValueError("a pattern is given with found_by 'pattern', and only then")
        return self


class SourceDocument(BaseModel):
    """What a loader yields: one document and its annotation rows.

    `labels_complete` says the rows hold everything the document's labels know, so that a field they leave out is
    known to have no value (a labelled CUAD contract with no governing-law clause): extraction then adds nothing to
    the document. A user's file is not labelled so, and its text fills the fields its rows leave out.
    """

    document: Document
    annotations: list[AnnotationRow] = Field(default_factory=list)
    labels_complete: bool = False

    def content_hash(self) -> str:
        """A hash over everything ingestion stores, so that any change re-indexes the document."""
        payload = {
            "document": self.document.model_dump(mode="json"),
            # `sources` only where set, so that the hashes of rows from before it existed stay the same
            "annotations": [
                row.model_dump(mode="json", exclude=None if row.sources else {"sources"}) for row in self.annotations
            ],
        }
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def scoped_doc_key(scope: str, doc_id: str) -> str:
    """One string naming a document within its scope, which every index stores so that a delete is one exact term.

    The two parts are joined by U+001F (the unit separator), which neither can contain: `Document` accepts only
    printable doc ids and scope names of letters, digits and '_.:-'. So no two (scope, doc_id) pairs give the same key.
    """
    return f"{scope}\x1f{doc_id}"


@dataclass(frozen=True, slots=True)
class Chunk:
    """A window of a document body, with character offsets into that body."""

    ordinal: int
    start: int
    end: int
    text: str


@dataclass(slots=True)
class IndexedChunk:
    """A chunk as the engines see it: its text plus the document fields that filters push down."""

    chunk_id: str
    doc_id: str
    scope: str
    bucket: str
    content_hash: str
    ordinal: int
    title: str
    text: str
    author: str | None = None
    tags: list[str] = field(default_factory=list)
    created_ts: int | None = None

    @staticmethod
    def make_id(scope: str, doc_id: str, content_hash: str, ordinal: int) -> str:
        """A UUID (the form Qdrant requires) derived from the chunk's identity and version."""
        return str(uuid.uuid5(_CHUNK_NAMESPACE, f"{scoped_doc_key(scope, doc_id)}\x1f{content_hash}\x1f{ordinal}"))


@dataclass(frozen=True, slots=True)
class EngineHit:
    """What an engine returns before the document store hydrates it."""

    chunk_id: str
    doc_id: str
    score: float


class SearchFilter(BaseModel):
    """The filters of the design, all pushed down into every engine.

    `scope` is mandatory: it comes from the caller's runtime context and is ANDed into every query.
    `doc_ids` is an any-of list (it is also how annotation predicates pre-filter a text search).
    `authors` is any-of, `tags` is all-of, the created range is inclusive on both ends.
    """

    model_config = ConfigDict(extra="forbid")

    scope: str = DEFAULT_SCOPE
    bucket: str | None = None
    doc_ids: list[str] | None = None
    authors: list[str] | None = None
    tags: list[str] | None = None
    created_after: datetime | None = None
    created_before: datetime | None = None

    @field_validator("created_after", "created_before", mode="before")
    @classmethod
    def _dates_utc(cls, value: Any) -> datetime | None:
        return _utc(value)

    @field_validator("bucket")
    @classmethod
    def _bucket_name(cls, value: str | None) -> str | None:
        if value is not None and not BUCKET_NAME_RE.match(value):
            raise ValueError(f"bucket {value!r} is not a valid name")
        return value

    @property
    def created_after_ts(self) -> int | None:
        return int(self.created_after.timestamp()) if self.created_after else None

    @property
    def created_before_ts(self) -> int | None:
        return int(self.created_before.timestamp()) if self.created_before else None


def timestamp(value: datetime | None) -> int | None:
    """Epoch seconds, the one form every engine range-filters on."""
    return int(value.timestamp()) if value else None
