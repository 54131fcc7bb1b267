"""Invoice rules: the number, date, amount, currency, VAT number and issuer a reader sees, each cited from its line."""

from __future__ import annotations

import time

import pytest

from retrievers.extraction.rules.invoices import RULES
from retrievers.loaders import shared_data_dir

# An invoice as pdftotext lays it out (abridged from invoice2data's Coolblue sample): two columns kept by spaces.
DUTCH = """FACTUUR.                                                   Coolblue B.V.
                                                           Weena 664
Pino Bluebird                                              3012 CN Rotterdam
Sessamestreet 32                                           KvK Rotterdam 24330087
1025 RX Amsterdam                                          BTW NL810433941B01
Factuurnummer: 993548900                                   IBAN NL50INGB0683251309
Factuurdatum: 19 april 2014
Orderdatum: 18 april 2014
Apple iPad Air Wifi 16 GB Zilver          1          € 399,00        21%         € 399,00
Totaal excl. BTW                                                                 € 593,36
Totaal                                                                           € 717,97
Uw BTW nummer: NL00333599698"""

# A date printed under its label, in the label's column.
COLUMNS = """Invoice INV/2023/03/0008
Invoice Date:                                 Due Date:
03/20/2023                                    04/04/2023
Total                                                   $ 279.84"""


def _one(field: str, body: str):
    found = RULES[field](body)
    assert len(found) == 1, found
    return found[0]


def test_number_date_amount_currency_vat_and_issuer_of_a_dutch_invoice() -> None:
    expected = {
        "invoice_number": "993548900",
        "date": "2014-04-19",
        "amount": 717.97,
        "currency": "EUR",
        "vat": "NL810433941B01",
        "issuer": "Coolblue B.V.",
    }
    for field, value in expected.items():
        assert _one(field, DUTCH).value == value, field


def test_each_value_cites_the_line_it_was_read_from() -> None:
    cited = {field: DUTCH[f.start : f.end] for field in RULES for f in RULES[field](DUTCH)}
    assert cited["invoice_number"].startswith("Factuurnummer: 993548900")
    assert cited["date"] == "Factuurdatum: 19 april 2014"
    assert cited["amount"].startswith("Totaal ") and cited["amount"].endswith("€ 717,97")
    assert "BTW NL810433941B01" in cited["vat"]


def test_the_buyers_vat_number_is_not_the_issuers() -> None:
    assert RULES["vat"]("Uw BTW nummer: NL00333599698") == []


def test_a_date_under_its_label_and_a_number_after_the_word_invoice() -> None:
    assert _one("date", COLUMNS).value == "2023-03-20"
    assert _one("invoice_number", COLUMNS).value == "INV/2023/03/0008"
    assert _one("amount", COLUMNS).value == 279.84
    assert _one("currency", COLUMNS).value == "USD"


def test_the_invoice_date_wins_over_an_order_date() -> None:
    body = "Order Date: 15-10-2015\nInvoice Date: 20-10-2015"
    assert _one("date", body).value == "2015-10-20"


@pytest.mark.parametrize("body", ["", "\n\n", "\x00" * 1000, "Invoice", "Total", "€ $"])
def test_odd_input_gives_nothing_or_a_value_and_never_raises(body: str) -> None:
    for rule in RULES.values():
        for found in rule(body):
            assert 0 <= found.start <= found.end <= len(body)


def test_huge_inputs_are_read_quickly() -> None:
    one_line = "Invoice Number: 123 Total 12.30 € Date: 01/02/2018 VAT DE123456789 " * 150_000
    many_lines = "Total 1.00 €\nDate: 01/02/2018\nInvoice No: A1\n" * 100_000
    started = time.perf_counter()
    for body in (one_line, many_lines):
        for rule in RULES.values():
            rule(body)
    assert time.perf_counter() - started < 10


def test_the_twelve_samples_score_as_written() -> None:
    """The smoke figure on invoice2data's samples (needs the shared data)."""
    if not (shared_data_dir() / "invoice2data_samples" / "derived_invoices.jsonl").exists():
        pytest.skip("invoice2data's samples are not in the shared data folder")
    from evals.extraction.invoices import score
    from evals.extraction.tally import Tally

    counts, _, _ = score()
    total = sum(counts.values(), Tally())
    assert total.precision >= 0.9 and total.f1 >= 0.8
