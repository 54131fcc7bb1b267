"""Sample invoices: eight invoices between the sample companies, each with line items and computed totals.

Invoice numbers and part numbers appear verbatim in the text (for exact keyword search) and some line items
name parts from the sample datasheets. sample-invoice-008 is a re-issued copy of sample-invoice-003: a
near-duplicate with the same invoice number.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta

from core.models import AnnotationRow, Document, FieldSpec, SourceDocument
from retrievers.loaders.common import RowBuilder, source_document
from retrievers.loaders.invoices import FIELDS as INVOICE_FIELDS
from retrievers.loaders.sample.companies import COMPANIES, Company

BUCKET = "invoices"
_LINE_FIELDS = ("line_number", "code", "description", "quantity", "unit_price", "subtotal")
FIELDS = [
    *(
        spec
        for spec in INVOICE_FIELDS
        if spec.name
        in {
            "issuer",
            "invoice_number",
            "date",
            "date_due",
            "amount",
            "amount_untaxed",
            "amount_tax",
            "currency",
            "vat",
            "tax_percent",
            *_LINE_FIELDS,
        }
    ),
    FieldSpec(
        name="customer",
        type="string",
        description="Company the invoice is addressed to",
        aliases=["customer", "client", "buyer", "billed to", "bill to", "addressed to"],
        role="name",
    ),
]


@dataclass(frozen=True)
class _Invoice:
    number: int
    issuer: str  # key into COMPANIES
    customer: str
    invoice_number: str
    issued: date
    payment_days: int
    currency: str
    tax_percent: float
    lines: tuple[tuple[str, str, float, float], ...]  # (code, description, quantity, unit price)
    note: str
    author: str
    tags: tuple[str, ...]
    reissued: date | None = None


_INVOICES = [
    _Invoice(
        1,
        "northwind",
        "cobalt",
        "INV-2023-0147",
        date(2023, 4, 12),
        30,
        "GBP",
        20.0,
        (
            ("NWC-RES-10K-0603", "Thick film chip resistor 10 kOhm 1% 0603", 5000, 0.004),
            ("NWC-CAP-100N-0402", "MLCC capacitor 100 nF 16 V X7R 0402", 10000, 0.006),
            ("KST-LDO-3V3", "LDO voltage regulator 3.3 V 500 mA SOT-223", 200, 0.42),
        ),
        "Goods shipped on 11 April 2023 under delivery note DN-55821 in two cartons. Reels are sealed in "
        "moisture barrier bags; please report any damaged packaging within five working days.",
        "Tom Okafor",
        ("components",),
    ),
    _Invoice(
        2,
        "kestrel",
        "northwind",
        "KA-INV-10432",
        date(2022, 6, 30),
        45,
        "USD",
        0.0,
        (
            ("SOW-01", "Dashboard development, June 2022 (64 hours)", 64, 150.0),
            ("SOW-01-R", "Monthly reporting service, June 2022", 1, 2500.0),
        ),
        "Services delivered under the Master Services Agreement of March 1, 2022 and Statement of Work SOW-01. "
        "Timesheets for the 64 hours are attached to the email that carried this invoice.",
        "Tom Okafor",
        ("services", "analytics"),
    ),
    _Invoice(
        3,
        "tamarack",
        "harbor_point",
        "TP-88213",
        date(2021, 11, 5),
        30,
        "USD",
        8.875,
        (
            ("CTN-4812", "Corrugated shipping carton 48x12x12 in", 2400, 1.15),
            ("SLV-250", "Printed sleeve, 250 g pack", 6000, 0.21),
            ("TRY-FG-9", "Food-grade tray, 9 in", 3000, 0.34),
        ),
        "Delivered to the Newark distribution centre, dock 3, on 4 November 2021. Pallets are returnable; "
        "uncollected pallets are charged at USD 12.00 each after 60 days.",
        "Marco Reyes",
        ("packaging",),
    ),
    _Invoice(
        4,
        "orion_facility",
        "harbor_point",
        "OFS-2021-0930",
        date(2021, 9, 30),
        30,
        "USD",
        0.0,
        (
            ("MNT-Q3", "Quarterly preventive maintenance, Q3 2021", 1, 4200.0),
            ("CALL-EM", "Emergency call-out, 14 August 2021 (refrigeration)", 1, 680.0),
            ("PRT-CMP", "Replacement compressor relay", 2, 95.5),
        ),
        "Work orders WO-3312 and WO-3340 are attached. The emergency call-out was answered within the four-hour "
        "response time agreed in the Facilities Maintenance Agreement.",
        "Tom Okafor",
        ("maintenance", "facilities"),
    ),
    _Invoice(
        5,
        "nimbus",
        "veridian",
        "NH-000512",
        date(2023, 7, 1),
        14,
        "EUR",
        21.0,
        (
            ("HOST-PRO", "Managed hosting, QualityTrack production, July 2023", 1, 1850.0),
            ("BKP-500", "Backup storage 500 GB", 1, 120.0),
            ("SUP-GOLD", "Gold support plan", 1, 450.0),
        ),
        "Monthly availability in June 2023 was 99.97%, above the 99.9% commitment, so no service credit applies.",
        "Priya Natarajan",
        ("hosting", "software"),
    ),
    _Invoice(
        6,
        "silverleaf",
        "veridian",
        "SSL-2023-118",
        date(2023, 1, 15),
        30,
        "EUR",
        0.0,
        (("QT-MAINT-200", "QualityTrack annual maintenance, 200 seats, 2023", 200, 38.0),),
        "VAT reverse charge: the customer accounts for VAT under Article 196 of Council Directive 2006/112/EC.",
        "Tom Okafor",
        ("software", "license"),
    ),
    _Invoice(
        7,
        "brightline",
        "harbor_point",
        "BL-7781-22",
        date(2022, 3, 18),
        30,
        "USD",
        0.0,
        (
            ("FRT-LTL", "LTL freight Newark to Columbus, per pallet", 6, 142.0),
            ("FSC", "Fuel surcharge", 1, 96.4),
            ("LFT", "Liftgate delivery", 1, 75.0),
        ),
        "Shipment BOL 7781-22 picked up on 16 March 2022 and delivered on 17 March 2022, signed for by R. Diaz.",
        "Marco Reyes",
        ("logistics",),
    ),
    _Invoice(
        8,
        "tamarack",
        "harbor_point",
        "TP-88213",
        date(2021, 11, 5),
        30,
        "USD",
        8.875,
        (
            ("CTN-4812", "Corrugated shipping carton 48x12x12 in", 2400, 1.15),
            ("SLV-250", "Printed sleeve, 250 g pack", 6000, 0.21),
            ("TRY-FG-9", "Food-grade tray, 9 in", 3000, 0.34),
        ),
        "Delivered to the Newark distribution centre, dock 3, on 4 November 2021. Pallets are returnable; "
        "uncollected pallets are charged at USD 12.00 each after 60 days.",
        "Marco Reyes",
        ("packaging", "duplicate"),
        reissued=date(2021, 12, 1),
    ),
]


def documents() -> Iterator[SourceDocument]:
    for invoice in _INVOICES:
        issuer, customer = COMPANIES[invoice.issuer], COMPANIES[invoice.customer]
        subtotals = [round(quantity * price, 2) for _, _, quantity, price in invoice.lines]
        untaxed = round(sum(subtotals), 2)
        tax = round(untaxed * invoice.tax_percent / 100, 2)
        totals = (untaxed, tax, round(untaxed + tax, 2))
        document = Document(
            doc_id=f"sample-invoice-{invoice.number:03d}",
            bucket=BUCKET,
            title=f"Invoice {invoice.invoice_number} from {issuer.name}",
            author=invoice.author,
            tags=["sample", *invoice.tags],
            created_at=invoice.reissued or invoice.issued,
            source="sample://invoices",
            body=_body(invoice, issuer, customer, subtotals, totals),
        )
        rows = [_properties(invoice, issuer, customer, totals), *_line_items(invoice, subtotals)]
        yield source_document(document, rows)


def _properties(
    invoice: _Invoice, issuer: Company, customer: Company, totals: tuple[float, float, float]
) -> AnnotationRow | None:
    untaxed, tax, amount = totals
    row = RowBuilder()
    row.add("issuer", issuer.name)
    row.add("customer", customer.name)
    row.add("invoice_number", invoice.invoice_number)
    row.add("date", invoice.issued)
    row.add("date_due", invoice.issued + timedelta(days=invoice.payment_days))
    row.add("currency", invoice.currency)
    row.add("amount_untaxed", untaxed)
    row.add("amount_tax", tax)
    row.add("amount", amount)
    row.add("tax_percent", invoice.tax_percent)
    row.add("vat", issuer.vat)
    return row.build()


def _line_items(invoice: _Invoice, subtotals: list[float]) -> list[AnnotationRow | None]:
    rows = []
    for number, ((code, description, quantity, price), subtotal) in enumerate(
        zip(invoice.lines, subtotals, strict=True), start=1
    ):
        row = RowBuilder(kind="line_item")
        for name, value in zip(
            _LINE_FIELDS, (number, code, description, float(quantity), price, subtotal), strict=True
        ):
            row.add(name, value)
        rows.append(row.build())
    return rows


def _body(
    invoice: _Invoice, issuer: Company, customer: Company, subtotals: list[float], totals: tuple[float, float, float]
) -> str:
    untaxed, tax, amount = totals
    due = invoice.issued + timedelta(days=invoice.payment_days)
    header = [issuer.name, issuer.address]
    if issuer.vat:
        header.append(f"VAT registration number: {issuer.vat}")
    title = "INVOICE"
    if invoice.reissued:
        title += f" - DUPLICATE COPY, re-issued on {invoice.reissued:%d %B %Y} at the customer's request"
    details = [
        title,
        f"Invoice number: {invoice.invoice_number}",
        f"Invoice date: {invoice.issued:%d %B %Y}",
        f"Due date: {due:%d %B %Y}",
        f"Bill to: {customer.name}, {customer.address}",
    ]
    lines = ["Line  Code  Description  Quantity  Unit price  Amount"] + [
        f"{number}  {code}  {description}  {quantity:g}  {price:g}  {_money(invoice.currency, subtotal)}"
        for number, ((code, description, quantity, price), subtotal) in enumerate(
            zip(invoice.lines, subtotals, strict=True), start=1
        )
    ]
    summary = [
        f"Subtotal: {_money(invoice.currency, untaxed)}",
        f"Tax ({invoice.tax_percent:g}%): {_money(invoice.currency, tax)}",
        f"Total due: {_money(invoice.currency, amount)}",
    ]
    terms = (
        f"Payment terms: payment is due within {invoice.payment_days} days of the invoice date, by bank transfer, "
        f"quoting invoice number {invoice.invoice_number}. Amounts unpaid after the due date may bear interest as "
        f"agreed between the parties. Questions about this invoice: accounts@"
        f"{issuer.name.split()[0].lower()}.example."
    )
    return "\n\n".join(
        ["\n".join(header), "\n".join(details), "\n".join(lines), "\n".join(summary), terms, invoice.note]
    )


def _money(currency: str, value: float) -> str:
    return f"{currency} {value:,.2f}"
