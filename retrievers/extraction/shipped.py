"""The schemas of the buckets every database has: the fields their datasets' loaders label, declared for any
document that enters the bucket, so that a user's own contracts, receipts and invoices get the same fields, found
in their text, as the labelled datasets (`found_by="rule"` where a shipped rule finds the field)."""

from __future__ import annotations

from core.models import FieldSpec
from retrievers.loaders import cuad, invoices, kleister_nda, sroie


def _unique(*specs: FieldSpec) -> list[FieldSpec]:
    return list({spec.name: spec for spec in specs}.values())


SHIPPED: dict[str, list[FieldSpec]] = {
    "contracts": _unique(*cuad.FIELDS, *kleister_nda.FIELDS),
    "receipts": list(sroie.FIELDS),
    "invoices": list(invoices.FIELDS),
}
