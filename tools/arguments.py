"""Argument models of every tool: what a model may set, with bounds, and nothing that could widen the scope.

Every model forbids unknown keys, so an argument such as `scope` is refused rather than silently ignored.
The bucket is a short string here and is checked against the buckets that exist at call time; the LangChain
schemas (tools.langchain_tools) narrow it to an enum of those buckets for the model to see.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, field_validator

from retrievers.postgres.annotation_filters import Bounds, Op, Predicate, unstorable

TOP_K_DEFAULT = 20
TOP_K_MAX = 50
CONTEXT_CHARS_DEFAULT = 400
CONTEXT_CHARS_MAX = 2000
QUERY_CHARS_MAX = 1000
DOCUMENT_CHARS_DEFAULT = 4000
DOCUMENT_CHARS_MAX = 20000
LIST_ITEMS_MAX = 100
NAME_CHARS_MAX = 64
DOC_ID_CHARS_MAX = 200
DOC_IDS_MAX = 1000


def _storable(value: str) -> str:
    """Names and ids are stored text: one that Postgres (or an engine) cannot take is refused here, not by the
    engine."""
    if problem := unstorable(value):
        raise ValueError(problem)
    return value


Text = Annotated[str, AfterValidator(_storable)]
Name = Annotated[str, StringConstraints(min_length=1, max_length=NAME_CHARS_MAX), AfterValidator(_storable)]
"""A bucket or field name: bucket names have at most 40 characters and field names 63 (core.models)."""
DocId = Annotated[str, StringConstraints(min_length=1, max_length=DOC_ID_CHARS_MAX), AfterValidator(_storable)]
GroupKey = Annotated[
    str, StringConstraints(min_length=1, max_length=NAME_CHARS_MAX + len("month()")), AfterValidator(_storable)
]
"""A group_by entry: a field name, or `year(field)` / `month(field)` of a date field."""


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Filter(Strict):
    """Filters every search shares, all pushed down into the engines: authors any-of, tags all-of, a created
    range (inclusive), and document ids any-of."""

    bucket: Name | None = Field(default=None, description="Same as the tool's bucket; give one or the other")
    author: list[Text] | None = Field(default=None, max_length=LIST_ITEMS_MAX, description="Any of these authors")
    tags: list[Text] | None = Field(default=None, max_length=LIST_ITEMS_MAX, description="All of these tags")
    created_after: date | None = Field(default=None, description="Created on or after, YYYY-MM-DD")
    created_before: date | None = Field(default=None, description="Created on or before, YYYY-MM-DD")
    doc_id: list[DocId] | None = Field(default=None, max_length=DOC_IDS_MAX, description="Any of these document ids")


class Condition(Strict):
    """One condition on an annotation field: {"op": "<", "value": 60}; `between` takes [low, high] (both ends
    included, or as `bounds` says: {"op": "between", "value": [10, 20], "bounds": "()"} is more than 10 and less
    than 20), `in` a list; `exists` (the field has a value) and `missing` (it has none) take no value."""

    op: Op
    value: Any = None
    bounds: Bounds = Field(default="[]", description="Ends a between includes: [] both, () neither, [) or (]")


def _shorthand(condition: Any) -> Any:
    """A bare value is an equality and a bare list a membership: `{"cuisine": "Thai"}` as `{"op": "=", ...}`, the
    shorthand query APIs accept and small models write."""
    if isinstance(condition, dict):
        return condition
    return {"op": "in", "value": condition} if isinstance(condition, list) else {"op": "=", "value": condition}


Predicates = dict[Name, Annotated[Condition, BeforeValidator(_shorthand)]]


def to_predicates(predicates: Predicates | None) -> list[Predicate]:
    return [Predicate(field=name, op=c.op, value=c.value, bounds=c.bounds) for name, c in (predicates or {}).items()]


class SearchArgs(Strict):
    bucket: Name = Field(description="Bucket to search")
    query: str = Field(min_length=1, max_length=QUERY_CHARS_MAX, description="What to look for")
    top_k: int = Field(default=TOP_K_DEFAULT, ge=1, le=TOP_K_MAX, description=f"Chunks to return (1-{TOP_K_MAX})")
    context_chars: int = Field(
        default=CONTEXT_CHARS_DEFAULT, ge=50, le=CONTEXT_CHARS_MAX, description="Length of each snippet"
    )
    doc_id: DocId | None = Field(default=None, description="Search inside this document only")
    filter: Filter | None = None
    filters: Predicates | None = Field(
        default=None,
        max_length=20,
        description="Annotation predicates {field: {op, value}}; only documents whose annotations match are searched",
    )

    @field_validator("query")
    @classmethod
    def _query_has_text(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("query is blank")
        return value


class SearchTextArgs(SearchArgs):
    pass


class SearchSemanticArgs(SearchArgs):
    min_score: float | None = Field(
        default=None, ge=-1.0, le=1.0, description="Drop chunks below this cosine similarity"
    )


class FusedSearchArgs(SearchArgs):
    pass


class OrderBy(Strict):
    """Sort annotation rows by a number or date field, so that top_k 1 is "the biggest" or "the oldest"."""

    field: Name = Field(description="A number, integer or date field of the bucket")
    direction: Literal["desc", "asc"] = Field(
        default="desc", description="desc: largest or latest first; asc: smallest or earliest first"
    )


DocIds = Annotated[list[DocId], Field(min_length=1, max_length=DOC_IDS_MAX)]
ONLY_DOCUMENTS = "Only the annotation rows of any of these documents (ids), for a question that names documents"


class AnnotationsSearchArgs(Strict):
    bucket: Name
    predicates: Predicates = Field(
        default_factory=dict, max_length=20, description="{field: {op, value}}; all must hold on one row"
    )
    top_k: int = Field(default=TOP_K_DEFAULT, ge=1, le=TOP_K_MAX)
    order_by: OrderBy | None = Field(
        default=None,
        description="Rows sorted by this field (a list field by its largest or smallest value); rows "
        "without it come last. Without it rows come by document id",
    )
    doc_id: DocIds | None = Field(default=None, description=ONLY_DOCUMENTS)


class AnnotationsAggregateArgs(Strict):
    bucket: Name
    aggregate: str = Field(description="count, sum(field), avg(field), min(field) or max(field)", max_length=80)
    group_by: list[GroupKey] = Field(
        default_factory=list,
        max_length=3,
        description="Up to 3 fields to group by; year(field) or month(field) groups a date field by year or month",
    )
    predicates: Predicates = Field(default_factory=dict, max_length=20)
    doc_id: DocIds | None = Field(default=None, description=ONLY_DOCUMENTS)


class DocumentMetadataArgs(Strict):
    doc_id: DocId


class DocumentArgs(Strict):
    doc_id: DocId
    max_chars: int = Field(default=DOCUMENT_CHARS_DEFAULT, ge=100, le=DOCUMENT_CHARS_MAX)


Cost = Literal["cheap", "moderate", "expensive"]
