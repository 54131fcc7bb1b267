"""Sample receipts: eight till receipts for staff expenses, with the same four fields as SROIE.

Dates and totals are printed in several formats ("12/03/2023", "05 MAR 2023", "USD 23.40") and go through the
same normalisation as the real receipts, with the printed string kept as the raw value.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from core.models import Document, SourceDocument
from retrievers.loaders.common import RowBuilder, source_document
from retrievers.loaders.normalize import parse_amount, parse_date
from retrievers.loaders.sroie import FIELDS

BUCKET = "receipts"
__all__ = ["BUCKET", "FIELDS", "documents"]


@dataclass(frozen=True)
class _Receipt:
    number: int
    company: str
    address: str
    printed_date: str  # day first, as the till prints it
    time: str
    items: tuple[tuple[str, int, float], ...]  # (description, quantity, unit price)
    tax_percent: float
    total_format: str  # how the till prints the total, e.g. "${:.2f}"
    payment: str
    tags: tuple[str, ...]


_RECEIPTS = [
    _Receipt(
        1,
        "Blue Kettle Cafe",
        "88 Harbour Road, Newark, NJ 07105",
        "12/03/2023",
        "08:42",
        (("Flat white", 2, 4.20), ("Blueberry muffin", 1, 3.50), ("Avocado toast", 1, 9.80)),
        6.625,
        "${:.2f}",
        "VISA ending 4417",
        ("meals",),
    ),
    _Receipt(
        2,
        "Harbor Hardware & Supply",
        "410 Dock Street, Newark, NJ 07105",
        "05 MAR 2023",
        "14:10",
        (("Cable ties 300 mm, pack of 100", 2, 7.99), ("Duct tape 48 mm", 3, 5.49), ("Safety gloves, size L", 4, 6.25)),
        6.625,
        "${:.2f}",
        "Cash",
        ("maintenance",),
    ),
    _Receipt(
        3,
        "Metro Office Mart",
        "1500 Main Street, Columbus, OH 43215",
        "2022-11-21",
        "11:05",
        (
            ("Copy paper A4, box of 5 reams", 2, 38.50),
            ("Toner cartridge TN-2420", 1, 74.99),
            ("Heavy-duty stapler", 1, 21.00),
        ),
        7.5,
        "USD {:.2f}",
        "Corporate card ending 9021",
        ("office",),
    ),
    _Receipt(
        4,
        "Sunrise Pharmacy",
        "27 Elm Avenue, Boston, MA 02116",
        "07-01-24",
        "17:36",
        (("First-aid kit refill", 1, 29.95), ("Instant cold packs, pack of 4", 2, 8.49)),
        6.25,
        "{:.2f}",
        "Mastercard ending 1180",
        ("office", "safety"),
    ),
    _Receipt(
        5,
        "Riverside Fuel Station",
        "Route 9, Exit 14, Albany, NY 12205",
        "18/08/2022",
        "06:58",
        (("Diesel, gallons", 38, 4.99), ("Windshield washer fluid", 1, 6.49)),
        0.0,
        "${:.2f}",
        "Fleet card 7781",
        ("travel",),
    ),
    _Receipt(
        6,
        "Corner Bookshop",
        "9 Beacon Street, Boston, MA 02108",
        "30 JUN 2023",
        "12:20",
        (("ISO 9001 in Practice, 5th edition", 1, 42.00), ("Notebook, dotted", 2, 6.50)),
        0.0,
        "USD {:.2f}",
        "VISA ending 4417",
        ("training",),
    ),
    _Receipt(
        7,
        "Green Leaf Grocer",
        "302 Ferry Street, Newark, NJ 07105",
        "02/10/2023",
        "12:02",
        (("Sandwich platter, large", 2, 34.00), ("Sparkling water 12-pack", 2, 6.99), ("Fruit bowl", 1, 18.50)),
        0.0,
        "${:.2f}",
        "VISA ending 4417",
        ("meals",),
    ),
    _Receipt(
        8,
        "Lakeside Taxi Co.",
        "1180 North Lake Shore Drive, Chicago, IL 60610",
        "14-09-2021",
        "21:47",
        (("Fare, O'Hare Airport to West Lake Street", 1, 46.75), ("Tip", 1, 8.00)),
        0.0,
        "{:.2f}",
        "Cash",
        ("travel",),
    ),
]


def documents() -> Iterator[SourceDocument]:
    for receipt in _RECEIPTS:
        subtotal = round(sum(quantity * price for _, quantity, price in receipt.items), 2)
        tax = round(subtotal * receipt.tax_percent / 100, 2)
        printed_total = receipt.total_format.format(subtotal + tax)
        purchase_date = parse_date(receipt.printed_date, day_first=True)
        document = Document(
            doc_id=f"sample-receipt-{receipt.number:03d}",
            bucket=BUCKET,
            title=f"{receipt.company} receipt {purchase_date:%Y-%m-%d}",
            author=receipt.company,
            tags=["sample", *receipt.tags],
            created_at=purchase_date,
            source="sample://receipts",
            body=_body(receipt, subtotal, tax, printed_total),
        )
        row = RowBuilder()
        row.add("company", receipt.company, receipt.company)
        row.add("date", purchase_date, receipt.printed_date)
        row.add("address", receipt.address, receipt.address)
        row.add("total", parse_amount(printed_total), printed_total)
        yield source_document(document, [row.build()])


def _body(receipt: _Receipt, subtotal: float, tax: float, printed_total: str) -> str:
    items = [
        f"{description}  {quantity} x {price:.2f}  {quantity * price:.2f}"
        for description, quantity, price in receipt.items
    ]
    return "\n".join(
        [
            receipt.company.upper(),
            receipt.address,
            f"RECEIPT NO: R{receipt.number:05d}-"
            f"{receipt.printed_date.replace('/', '').replace('-', '').replace(' ', '')}",
            f"DATE: {receipt.printed_date}  TIME: {receipt.time}",
            "-" * 32,
            *items,
            "-" * 32,
            f"SUBTOTAL  {subtotal:.2f}",
            f"SALES TAX {receipt.tax_percent:g}%  {tax:.2f}",
            f"TOTAL  {printed_total}",
            f"PAID BY {receipt.payment}",
            "THANK YOU FOR YOUR VISIT - PLEASE KEEP THIS RECEIPT",
        ]
    )
