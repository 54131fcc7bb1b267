"""SROIE 2019: 973 scanned Malaysian receipts, OCR text plus company, date, address and total (bucket `receipts`).

Reads `derived_receipts.jsonl`. The labels are raw strings in many formats (15+ date formats, totals with
"$" or "RM"): each becomes a typed field, with the raw string kept beside it.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from core.models import Document, FieldSpec, SourceDocument
from retrievers.loaders.common import RowBuilder, read_jsonl, require_file, source_document
from retrievers.loaders.normalize import parse_amount, parse_date

BUCKET = "receipts"
SHARED_FOLDER = "sroie"

# The total has no unit: SROIE's receipts are in ringgit, the sample corpus's (which shares these fields) in dollars,
# and no receipt row says which.
FIELDS = [
    FieldSpec(
        name="company",
        type="string",
        description="Shop or company that issued the receipt, as printed (spellings vary)",
        aliases=["shop", "store", "merchant", "vendor", "seller", "company", "restaurant"],
        role="name",
    ),
    FieldSpec(
        name="date",
        type="date",
        description="Date of the purchase",
        aliases=["date", "bought on", "purchased on", "purchase date"],
    ),
    FieldSpec(
        name="address",
        type="string",
        description="Address of the shop as printed on the receipt",
        aliases=["address", "location", "located"],
        role="text",
    ),
    FieldSpec(
        name="total",
        type="number",
        description="Total amount paid, in the receipt's currency, which no row records (SROIE's receipts are in "
        "Malaysian ringgit, the sample corpus's in US dollars)",
        aliases=["total", "paid", "spent", "spend", "cost", "amount"],
        role="money",
    ),
]


def load(path: Path, *, limit: int | None = None) -> Iterator[SourceDocument]:
    """The receipts under `path` (the `sroie` folder), in file order, lazily."""
    records = read_jsonl(require_file(path / "derived_receipts.jsonl", "SROIE"))
    return islice((_receipt(path, record) for record in records), limit)


def _receipt(folder: Path, record: dict[str, Any]) -> SourceDocument:
    labels: dict[str, str] = record["entities"]
    # Malaysian receipts write the day first; dates like "12/28/2017" still come out right (see parse_date).
    purchase_date = parse_date(labels.get("date"), day_first=True)
    company = (labels.get("company") or "").strip()
    document = Document(
        doc_id=record["receipt_id"],
        bucket=BUCKET,
        title=company or record["receipt_id"],
        author=company or None,
        tags=["sroie", record["split"]],
        created_at=purchase_date,
        source=str(folder / "derived_receipts.jsonl"),
        body=record["text"],
    )
    row = RowBuilder()
    row.add("company", company, labels.get("company"))
    row.add("date", purchase_date, labels.get("date"))
    row.add("address", (labels.get("address") or "").strip(), labels.get("address"))
    row.add("total", parse_amount(labels.get("total")), labels.get("total"))
    return source_document(document, [row.build()])
