"""The schemas of the buckets every database has: the fields their datasets' loaders label, declared for any
document that enters the bucket, so that a user's own contracts, receipts and invoices get the same fields, found
in their text, as the labelled datasets have (`found_by="rule"` where a shipped rule finds the field)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from core.models import FieldSpec
from retrievers.extraction.rules import rules_of
from retrievers.loaders import cuad, invoices, kleister_nda, sroie
from retrievers.protocols import DocumentStore


def with_rules(bucket: str, specs: Iterable[FieldSpec]) -> list[FieldSpec]:
    """`specs` of `bucket`, each found by its shipped rule where there is one, a learned clause decision included
    (a loader's specs go through this, so that ingesting a labelled dataset declares the fields as a user's folder
    finds them)."""
    rules = rules_of(bucket)
    return [spec.model_copy(update={"found_by": "rule"}) if spec.name in rules else spec for spec in specs]


def _unique(*specs: FieldSpec) -> list[FieldSpec]:
    return list({spec.name: spec for spec in specs}.values())


_LABELLED_FIELDS = {
    "contracts": lambda: _unique(*cuad.FIELDS, *kleister_nda.FIELDS),
    "receipts": lambda: sroie.FIELDS,
    "invoices": lambda: invoices.FIELDS,
}
"""The fields each bucket's datasets label, by bucket."""


@cache
def shipped(bucket: str) -> list[FieldSpec]:
    """The schema shipped for `bucket` ([] for a bucket with none), each field found by its rule where there is one.
    Built on first use, by ingest and `ragent extract`: knowing which fields the learned clauses read parses their
    weights (about 0.1 s), which a question never needs."""
    fields = _LABELLED_FIELDS.get(bucket)
    return with_rules(bucket, fields()) if fields else []


def declared_specs(store: DocumentStore, bucket: str) -> list[FieldSpec]:
    """The fields declared for `bucket` with the user's words for them, as ingest and `ragent extract` read them: its
    shipped schema declared first, so that a data folder made by an earlier release gets the fields this one ships
    and the ones it widens to several values (`record_field_specs(only_new=True)`)."""
    if schema := shipped(bucket):
        store.record_field_specs(bucket, schema, only_new=True)
    return store.described_specs(bucket)
