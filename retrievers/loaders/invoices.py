"""invoice2data's test invoices: 12 invoices in five languages with expected fields (bucket `invoices`).

Reads `derived_invoices.jsonl`. Each invoice gets a `properties` row (issuer, number, dates, amounts, currency,
VAT number) and one `line_item` row per item of its `lines`. The expected JSON was written for invoice2data's
templates, so fields vary between invoices; the loader maps their spellings onto one set of names.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from core.models import AnnotationRow, Document, FieldSpec, SourceDocument
from retrievers.loaders.common import RowBuilder, read_jsonl, require_file, source_document
from retrievers.loaders.normalize import parse_amount, parse_date

BUCKET = "invoices"
SHARED_FOLDER = "invoice2data_samples"

FIELDS = [
    FieldSpec(
        name="issuer",
        type="string",
        description="Company that issued the invoice",
        aliases=["issuer", "from", "sent by", "supplier", "vendor", "seller", "issued by"],
        role="name",
    ),
    FieldSpec(
        name="invoice_number",
        type="string",
        description="Invoice number exactly as printed",
        aliases=["invoice number", "invoice no", "number", "invoice id"],
        role="identifier",
    ),
    FieldSpec(
        name="date",
        type="date",
        description="Invoice date",
        aliases=["date", "invoice date", "dated", "issued", "billed on"],
    ),
    FieldSpec(
        name="date_due",
        type="date",
        description="Date payment is due",
        aliases=["due", "due date", "payable by", "payment due"],
    ),
    FieldSpec(
        name="amount",
        type="number",
        description="Total to pay, taxes included, in `currency`",
        aliases=["amount", "total", "billed", "cost", "paid", "worth", "value"],
        role="money",
        unit_field="currency",
    ),
    FieldSpec(
        name="amount_untaxed",
        type="number",
        description="Total before taxes, in `currency`",
        aliases=["untaxed", "net", "before tax", "excluding tax", "excluding vat", "net amount"],
        role="money",
        unit_field="currency",
    ),
    FieldSpec(
        name="amount_tax",
        type="number",
        description="Tax amount, in `currency`",
        aliases=["tax", "tax amount", "vat amount", "taxes"],
        role="money",
        unit_field="currency",
    ),
    FieldSpec(
        name="currency",
        type="string",
        description="ISO 4217 currency code, e.g. 'EUR', 'USD'",
        aliases=["currency"],
        role="currency",
    ),
    FieldSpec(
        name="vat",
        type="string",
        description="Issuer's VAT or tax registration number",
        aliases=["vat", "vat number", "tax id", "vat id", "tax number"],
        role="identifier",
    ),
    FieldSpec(
        name="partner_name",
        type="string",
        description="Legal name of the issuing party as printed",
        aliases=["partner", "partner name", "legal name"],
        role="name",
    ),
    FieldSpec(
        name="line_number",
        type="integer",
        description="Line item rows: position of the item on the invoice, from 1",
        aliases=["line", "line number", "position"],
    ),
    FieldSpec(
        name="description",
        type="string",
        description="Line item rows: what was bought",
        aliases=["item", "description", "product", "article"],
        role="text",
    ),
    FieldSpec(
        name="code",
        type="string",
        description="Line item rows: product or article code",
        aliases=["code", "product code", "article code", "item code", "sku"],
        role="identifier",
    ),
    FieldSpec(
        name="quantity",
        type="number",
        description="Line item rows: quantity bought",
        aliases=["quantity", "qty"],
        unit_field="unit",
    ),
    FieldSpec(
        name="unit",
        type="string",
        description="Line item rows: unit of the quantity, e.g. 'kg', 'PCS'",
        aliases=["unit", "uom", "unit of measure"],
    ),
    FieldSpec(
        name="unit_price",
        type="number",
        description="Line item rows: price of one unit",
        aliases=["unit price", "price", "price each", "per unit"],
        role="money",
        unit_field="currency",
    ),
    FieldSpec(
        name="subtotal",
        type="number",
        description="Line item rows: price of the line",
        aliases=["subtotal", "line total", "line amount"],
        role="money",
        unit_field="currency",
    ),
    FieldSpec(
        name="tax_percent",
        type="number",
        description="Tax rate in percent: of the line on line item rows, of the whole invoice on properties rows",
        aliases=["tax rate", "vat rate", "tax percent", "tax percentage"],
        unit="percent",
    ),
    FieldSpec(
        name="section",
        type="string",
        description="Line item rows: section heading the item is listed under",
        aliases=["section", "heading"],
    ),
    FieldSpec(
        name="note",
        type="string",
        description="Line item rows: note printed under the item, e.g. a serial number",
        aliases=["note", "serial number"],
        role="text",
    ),
]

# Line item field -> the keys invoice2data's templates use for it, in order of preference.
_LINE_KEYS = {
    "description": ("name", "desc"),
    "code": ("code", "item"),
    "quantity": ("qty",),
    "unit": ("uom",),
    "unit_price": ("price_unit", "price"),
    "subtotal": ("price_subtotal",),
    "tax_percent": ("line_tax_percent", "taxpercent"),
}
_NUMERIC_LINE_FIELDS = {"quantity", "unit_price", "subtotal", "tax_percent"}


def load(path: Path, *, limit: int | None = None) -> Iterator[SourceDocument]:
    """The invoices under `path` (the `invoice2data_samples` folder), in file order, lazily."""
    records = read_jsonl(require_file(path / "derived_invoices.jsonl", "invoice2data"))
    return islice((_invoice(path, record) for record in records), limit)


def _invoice(folder: Path, record: dict[str, Any]) -> SourceDocument:
    # Every upstream fixture expects exactly one invoice per file.
    expected: dict[str, Any] = record["expected"][0]
    invoice_date = parse_date(expected.get("date"), day_first=False)
    document = Document(
        doc_id=record["doc_id"],
        bucket=BUCKET,
        title=expected.get("desc") or record["doc_id"],
        author=expected.get("issuer"),
        tags=["invoice2data"],
        created_at=invoice_date,
        source=str(folder / record["source_file"]),
        body=record["text"],
    )
    return source_document(document, [_properties(expected), *_line_items(expected)])


def _properties(expected: dict[str, Any]) -> AnnotationRow | None:
    row = RowBuilder()
    for name in ("issuer", "invoice_number", "currency", "partner_name"):
        row.add(name, _text(expected.get(name)), expected.get(name))
    for name in ("date", "date_due"):
        row.add(name, parse_date(expected.get(name), day_first=False), expected.get(name))
    for name in ("amount", "amount_untaxed", "amount_tax"):
        row.add(name, parse_amount(expected.get(name)), expected.get(name))
    # One template calls the issuer's VAT number `static_vat`; Orlen's is a bare number (a Polish NIP).
    vat = expected.get("vat", expected.get("static_vat"))
    row.add("vat", _text(vat), vat)
    return row.build()


def _line_items(expected: dict[str, Any]) -> list[AnnotationRow]:
    """One row per item. Entries that are only a section heading or a note describe their neighbours:
    a heading applies to the items after it, a note to the item before it."""
    rows: list[RowBuilder] = []
    section = None
    for entry in expected.get("lines") or expected.get("line_items") or []:
        if "sectionheader" in entry:
            section = entry["sectionheader"].strip("- ")
            continue
        if "line_note" in entry and rows:
            rows[-1].add("note", entry["line_note"], entry["line_note"])
            continue
        row = RowBuilder(kind="line_item")
        row.add("line_number", len(rows) + 1)
        row.add("section", section)
        for name, keys in _LINE_KEYS.items():
            key = next((k for k in keys if k in entry), None)
            raw = entry.get(key) if key else None
            row.add(name, parse_amount(raw) if name in _NUMERIC_LINE_FIELDS else _text(raw), raw)
        rows.append(row)
    return [row for builder in rows if (row := builder.build()) is not None]


def _text(value: Any) -> str | None:
    """A label as stripped text; numbers that are identifiers (a VAT number) become their digits."""
    return None if value is None else str(value).strip()
