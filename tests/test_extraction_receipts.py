"""Receipt rules: the shop, date, address and total a reader sees on a receipt, each cited from the lines saying it."""

from __future__ import annotations

import time

import pytest

from retrievers.extraction.rules.receipts import RULES
from retrievers.loaders import shared_data_dir

# Two receipts as SROIE's OCR gives them, one line per OCR box (abridged).
HARDWARE = """TAN WOON YANN
BOOK TA .K(TAMAN DAYA) SDN BHD
789417-W
NO.53 55,57 & 59, JALAN SAGU 18,
TAMAN DAYA,
81100 JOHOR BAHRU,
JOHOR.
DOCUMENT NO : TD01167104
DATE:
25/12/2018 8:13:39 PM
CASHIER:
MANIS
KF MODELLING CLAY KIDDY FISH
1 PC
9.000
9.00
TOTAL:
ROUNDING ADJUSTMENT:
0.00
ROUND D TOTAL (RM):
9.00
CASH
10.00
CHANGE
1.00
THANK YOU"""

STATIONERY = """SANYU STATIONERY SHOP
NO. 31G&33G, JALAN SETIA INDAH X ,U13/X
40170 SETIA ALAM
MOBILE /WHATSAPPS : +6012-918 7937
TEL: +603-3362 4137
GST ID NO: 001531760640
TAX INVOICE
OWNED BY :
SANYU SUPPLY SDN BHD (1135772-K)
CASH SALES COUNTER
DATE: 22/05/2017
ITEM
TOTAL SALES (EXCLUDING GST)
33.02
TOTAL GST
1.98
TOTAL SALES (INCLUSIVE OF GST)
35.00
CASH
50.00
CHANGE
15.00"""


def _one(field: str, body: str):
    found = RULES[field](body)
    assert len(found) == 1, found
    return found[0]


def test_company_is_the_name_as_printed_with_its_legal_form_and_cites_its_line() -> None:
    found = _one("company", HARDWARE)
    assert found.value == "BOOK TA .K(TAMAN DAYA) SDN BHD"
    assert HARDWARE[found.start : found.end] == "BOOK TA .K(TAMAN DAYA) SDN BHD"


def test_company_of_a_shop_without_legal_form_is_the_name_above_its_address_not_its_owner() -> None:
    found = _one("company", STATIONERY)
    assert found.value == "SANYU STATIONERY SHOP"
    assert STATIONERY[found.start : found.end] == "SANYU STATIONERY SHOP"


def test_company_split_over_two_lines_is_joined() -> None:
    body = "HOME MASTER HARDWARE &\nELECTRICAL\n(001234567-X)\nNO.113G, JALAN SETIA\n40170 SETIA ALAM\nTEL: 03-1234"
    found = _one("company", body)
    assert found.value == "HOME MASTER HARDWARE & ELECTRICAL"
    assert body[found.start : found.end] == "HOME MASTER HARDWARE &\nELECTRICAL"


def test_address_joins_its_lines_from_street_to_state_and_cites_them() -> None:
    found = _one("address", HARDWARE)
    assert found.value == "NO.53 55,57 & 59, JALAN SAGU 18, TAMAN DAYA, 81100 JOHOR BAHRU, JOHOR."
    assert HARDWARE[found.start : found.end].split("\n") == [
        "NO.53 55,57 & 59, JALAN SAGU 18,",
        "TAMAN DAYA,",
        "81100 JOHOR BAHRU,",
        "JOHOR.",
    ]
    assert _one("address", STATIONERY).value == "NO. 31G&33G, JALAN SETIA INDAH X ,U13/X 40170 SETIA ALAM"


def test_date_is_the_sale_date_day_first_and_cites_its_line() -> None:
    found = _one("date", HARDWARE)
    assert found.value == "2018-12-25"
    assert HARDWARE[found.start : found.end] == "25/12/2018 8:13:39 PM"
    assert _one("date", STATIONERY).value == "2017-05-22"


def test_date_skips_a_product_code_that_looks_like_a_date() -> None:
    body = "SHOP SDN BHD\nHC03-7-15 - 5/40/160\n19-09-17 15:39 SH01 ZJ03"
    assert _one("date", body).value == "2017-09-19"


def test_total_is_the_amount_paid_not_the_cash_tendered_nor_the_untaxed_total() -> None:
    found = _one("total", HARDWARE)
    assert found.value == 9.0
    assert "ROUND D TOTAL (RM):" in HARDWARE[found.start : found.end]
    assert _one("total", STATIONERY).value == 35.0


def test_total_read_from_a_column_of_amounts_under_a_column_of_labels() -> None:
    body = "ITEMS\nSUB-TOTAL (EX)\nTOTAL TAX\nROUNDING\nTOTAL\nCASH\nCHANGE\n16.98\n1.02\n0.00\n18.00\n20.00\n2.00"
    found = _one("total", body)
    assert found.value == 18.0
    assert body[found.start : found.end].startswith("TOTAL\n") and body[found.start : found.end].endswith("18.00")


def test_total_rounded_to_five_sen_when_the_receipt_prints_the_rounding() -> None:
    body = "TOTAL AMT....... RM\n60.31\nROUNDING ADJ....\n-0.01\nRM\n60.30\nCASH.... RM\n70.30"
    assert _one("total", body).value == 60.3


@pytest.mark.parametrize("body", ["", "\n\n\n", "\x00" * 1000, "hello world", "TOTAL", "NO.1 JALAN 12345"])
def test_odd_input_gives_nothing_or_a_value_and_never_raises(body: str) -> None:
    for rule in RULES.values():
        for found in rule(body):
            assert 0 <= found.start <= found.end <= len(body)


def test_a_huge_single_line_is_read_quickly() -> None:
    body = ("TOTAL 12.30 12/12/2018 JALAN 12345 SDN BHD " * 250_000)[:10_000_000]
    started = time.perf_counter()
    for rule in RULES.values():
        rule(body)
    assert time.perf_counter() - started < 10


def test_many_short_lines_are_read_quickly() -> None:
    body = "ITEM 1.00\nTOTAL\n2.00\n01/02/2018\n" * 100_000
    started = time.perf_counter()
    for rule in RULES.values():
        rule(body)
    assert time.perf_counter() - started < 10


def test_sroie_train_scores_as_tuned() -> None:
    """The figure the rules were tuned to on SROIE's train split (needs the shared data)."""
    if not (shared_data_dir() / "sroie" / "derived_receipts.jsonl").exists():
        pytest.skip("SROIE is not in the shared data folder")
    from evals.extraction.sroie import score

    assert score("train").overall().f1 >= 0.88
