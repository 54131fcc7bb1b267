"""What the planners read of a scope's index, as a Protocol: `tools.catalog.Catalog` is the real one (Postgres, the
keyword and vector indexes, through the tools); tests give a catalog of plain data (`tests/fake_catalog.py`)."""

from __future__ import annotations

from typing import Protocol

from core.models import FieldSpec
from retrievers.postgres.field_catalog import CatalogField
from tools.catalog import BucketInfo


class CatalogView(Protocol):
    scope: str

    @property
    def buckets(self) -> dict[str, BucketInfo]:
        """Buckets holding documents in this scope (every bucket while none does yet), in name order."""

    @property
    def empty_buckets(self) -> dict[str, BucketInfo]:
        """Buckets that exist but hold no document in this scope, while others do."""

    def fields(self, bucket: str) -> list[CatalogField]:
        """The bucket's fields, each with its vocabulary (aliases, role, unit, unit_field)."""

    def declared(self, bucket: str) -> list[FieldSpec]:
        """The fields the bucket declares (its schema), whether or not a document of the scope has a value."""

    def values(self, bucket: str, field: str) -> list[tuple[str, int]]:
        """Distinct text values of a field with their document counts, most common first."""

    def documents(self, doc_ids: list[str]) -> dict[str, str]:
        """Which of `doc_ids` are documents of this scope, with their buckets."""

    def documents_titled(self, words: list[str], limit: int = 2) -> dict[str, list[tuple[str, str, str]]]:
        """For each word, up to `limit` documents (id, bucket, title) whose title or id holds it, spaces and
        punctuation aside."""

    def documents_matching(
        self, bucket: str, predicates: dict, doc_ids: list[str] | None = None, limit: int = 50
    ) -> tuple[list[tuple[str, str | None, dict]], bool]:
        """The documents of the bucket (among `doc_ids`) with a row passing `predicates`, once each as (id, title,
        row), and whether more rows match than the `limit` read."""

    def text_hits(self, bucket: str, words: str, filters: dict | None = None) -> int | None:
        """How many chunks of the bucket hold any of `words` (in the documents passing `filters`); None when the
        keyword index cannot say."""

    def documents_holding(self, bucket: str, word: str, doc_id: str | None = None, limit: int = 20) -> list[str] | None:
        """The documents of the bucket (or `doc_id` alone) whose text holds `word`, when at most `limit` chunks do;
        None when more do or the keyword index cannot say."""

    def nearest_in_meaning(self, phrase: str, values: list[str]) -> tuple[str, float] | None:
        """The value closest in meaning to `phrase`, with its cosine; None for no values."""

    def meaning_scores(self, phrase: str, values: list[str]) -> list[float]:
        """Each value's closeness in meaning to `phrase` (a cosine), in the values' order."""

    def closeness(self, question: str) -> dict[str, float]:
        """Each bucket's best chunk score for the question; nothing when a search fails."""
