"""The one result every tool returns, success or failure: the agent reads a status, never a traceback.

Hits are typed: a passage of a search, an annotation row, a group of an aggregate, a document's metadata or its
text. The graph and the evals read them by attribute, so a renamed key fails where it is renamed, not silently
where it is read; the JSON a model sees is the models' dump, the same keys as before they were typed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

Status = Literal["ok", "no_results", "low_confidence", "timeout", "unavailable", "invalid_request", "rate_limited"]
SOURCE_FAILED: tuple[Status, ...] = ("unavailable", "timeout", "rate_limited")
"""Statuses that say a source failed, not that it found nothing: an answer names them."""


class HitModel(BaseModel):
    """Exact keys, so that a stored envelope's hits are read back as the kind they were written as."""

    model_config = ConfigDict(extra="forbid")


class PassageMetadata(HitModel):
    title: str | None = None
    bucket: str
    author: str | None = None
    tags: list[str] = Field(default_factory=list)
    created_at: str | None = None
    chars: tuple[int, int] = Field(description="Offsets of the chunk in the document's body")


class PassageHit(HitModel):
    """A chunk found by a search: search_text, search_semantic, fused_search."""

    doc_id: str
    chunk_id: str
    score: float
    snippet: str
    metadata: PassageMetadata


class RowMetadata(HitModel):
    title: str | None = None
    kind: str


class AnnotationHit(HitModel):
    """An annotation row satisfying every predicate: annotations_search."""

    doc_id: str
    annotation_id: str
    row: dict[str, Any]
    metadata: RowMetadata


class AggregateGroup(HitModel):
    """One group of annotations_aggregate: the group's field values, its documents and the aggregate's value."""

    group: dict[str, Any]
    documents: int
    value: Any = None


class AggregateTotal(HitModel):
    """The aggregate over every matching row (not the sum of the groups: a document can fall in several)."""

    documents: int
    value: Any = None


class Coverage(HitModel):
    """How much of the bucket an annotation tool's answer covers, so that an answer never leaves documents out
    silently: the documents of the bucket in the run's scope (within the call's doc_id list, if any); per field a
    document must have to be counted or listed (a condition's, the measured field of sum/avg/min/max), how many of
    them have no value for it; the same for each group_by field (those documents fall in the blank group, or
    nowhere without a row); where known, how many have no annotation row at all; and over the whole bucket, per field
    how many documents' values were found in their own text rather than labelled (`extracted`)."""

    documents: int
    missing: dict[str, int] = Field(default_factory=dict)
    ungrouped: dict[str, int] = Field(default_factory=dict)
    unannotated: int | None = None
    extracted: dict[str, int] = Field(default_factory=dict)
    by_model: dict[str, int] = Field(default_factory=dict)
    """Of `extracted`, the documents whose value the chat model read."""
    rules_right_percent: dict[str, int] = Field(default_factory=dict)
    """Of `extracted`, the fields a shipped rule reads: how often its values are right, in percent, on labelled
    documents it was not tuned on (`rules_measured_on`), which an answer over them must say."""
    rules_measured_on: str = ""
    unrecorded: dict[str, int] = Field(default_factory=dict)
    """Per field the call asked to have no value (`missing`), how many documents have none, with or without a row: a
    document with none recorded may state one that extraction did not read, which an answer over them must say."""


class DocumentMetadata(HitModel):
    title: str | None = None
    bucket: str
    author: str | None = None
    tags: list[str] = Field(default_factory=list)
    created_at: str | None = None
    source: str | None = None
    version: int
    chars: int


class DocumentInfoHit(HitModel):
    """get_document_metadata."""

    doc_id: str
    summary: str | None = None
    annotation_ids: list[str]
    metadata: DocumentMetadata


class DocumentTextHit(HitModel):
    """get_document: the body without markup, cut at max_chars."""

    doc_id: str
    text: str
    truncated: bool
    metadata: DocumentMetadata


Hit = PassageHit | AnnotationHit | AggregateGroup | DocumentInfoHit | DocumentTextHit


class Envelope(BaseModel):
    """`hint` says what to try next (for `no_results`), why (for `invalid_request`, with the allowed values),
    or which source failed (for `unavailable` and `timeout`). `total` is set by annotations_aggregate only:
    the aggregate over all matching rows, beside the groups in `hits`. `total_is_lower_bound` is set when the search
    stopped counting matches at `total_hits` and more match (annotations_search: `MATCHES_COUNTED_UP_TO`).
    `coverage` is set by the annotation tools: how many documents of the bucket the fields they read leave out."""

    status: Status
    hits: list[Hit] = Field(default_factory=list)
    total_hits: int = 0
    total_is_lower_bound: bool = False
    hint: str | None = None
    retry_after_s: float | None = None
    took_ms: float = 0.0
    total: AggregateTotal | None = None
    coverage: Coverage | None = None

    def total_said(self) -> str:
        """`total_hits` as a reader takes it: "more than 1,000" where the search stopped counting."""
        return matched_total([self]).said

    @property
    def failed(self) -> bool:
        return self.status in SOURCE_FAILED

    def passages(self) -> list[PassageHit]:
        return [h for h in self.hits if isinstance(h, PassageHit)]

    def rows(self) -> list[AnnotationHit]:
        return [h for h in self.hits if isinstance(h, AnnotationHit)]

    def groups(self) -> list[AggregateGroup]:
        return [h for h in self.hits if isinstance(h, AggregateGroup)]

    def doc_ids(self) -> list[str]:
        """The documents of the hits, in their order, once each."""
        return list(dict.fromkeys(h.doc_id for h in self.hits if not isinstance(h, AggregateGroup)))

    def citable(self) -> set[tuple[str, str | None, str | None]]:
        """(doc_id, annotation_id, chunk_id) of every hit an answer may cite."""
        keys = set()
        for h in self.hits:
            if isinstance(h, PassageHit):
                keys.add((h.doc_id, None, h.chunk_id))
            elif isinstance(h, AnnotationHit):
                keys.add((h.doc_id, h.annotation_id, None))
            elif not isinstance(h, AggregateGroup):
                keys.add((h.doc_id, None, None))
        return keys


class MatchedTotal(NamedTuple):
    """The matches of one or more searches: their sum, and whether it is a lower bound (a search stopped counting)."""

    count: int
    lower_bound: bool

    @property
    def said(self) -> str:
        return f"more than {self.count:,}" if self.lower_bound else str(self.count)


def matched_total(envelopes: Iterable[Envelope]) -> MatchedTotal:
    envelopes = list(envelopes)
    return MatchedTotal(sum(e.total_hits for e in envelopes), any(e.total_is_lower_bound for e in envelopes))


def failure(status: Status, hint: str, retry_after_s: float | None = None) -> Envelope:
    return Envelope(status=status, hint=hint, retry_after_s=retry_after_s)
