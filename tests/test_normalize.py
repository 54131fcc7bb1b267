"""Label normalisation: each rule gives the value a user expects, and refuses what it cannot know."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrievers.loaders.normalize import (
    is_perpetual,
    parse_amount,
    parse_date,
    parse_duration,
    parse_durations,
    parse_yes_no,
    split_jurisdictions,
    split_parties,
)


@pytest.mark.parametrize(
    ("raw", "days"),
    [
        ("30 days", [30]),
        ("6 months", [180]),
        ("1 year", [365]),
        ("successive 1 year", [365]),
        ("Successive 5 years", [1825]),
        ("twelve (12) months", [365]),
        ("18_months", [545]),
        ("6 weeks", [42]),
        ("(6) months", [180]),
        ("60) days", [60]),
        ("three (3) years", [1095]),
        ("forty-five days", [45]),
        ("sixty (60) days' prior written notice", [60]),
        ("an additional four (4) -year period", [1460]),
        ("0.5 year", [182]),
        # Counts of renewals are not durations: the contract renews twice, each time for 10 years.
        ("2 successive 10 years", [3650]),
        ("10 1 years", [365]),
        # Several values in one cell: all kept, in order; the same value written twice is one value.
        ("60 days; 180 days", [60, 180]),
        ("4 years, 6 months", [1460, 180]),
        ("180 days / 6 months", [180]),
        # Nothing to measure.
        ("perpetual", []),
        ("successive [] years", []),
        ("7/22/2019; 7/22/2022", []),
        ("[]", []),
        ("", []),
        (None, []),
    ],
)
def test_durations_become_days(raw, days):
    assert parse_durations(raw) == days


def test_twelve_months_and_one_year_are_the_same_period():
    assert parse_duration("12 months") == parse_duration("1 year") == 365
    assert parse_duration("24 months") == parse_duration("2 years")


def test_a_single_duration_is_refused_when_the_label_holds_several():
    assert parse_duration("2 years") == 730
    assert parse_duration("60 days; 180 days") is None
    assert parse_duration("perpetual") is None


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("25/12/2018", date(2018, 12, 25)),
        ("12-01-19", date(2019, 1, 12)),
        ("18/03/18", date(2018, 3, 18)),
        ("05 MAR 2018", date(2018, 3, 5)),
        ("02/JAN/2017", date(2017, 1, 2)),
        ("28 MAR 18", date(2018, 3, 28)),
        ("24-MAR-2018", date(2018, 3, 24)),
        ("2018-03-23", date(2018, 3, 23)),
        ("2018/02/22", date(2018, 2, 22)),
        ("2017-02-10", date(2017, 2, 10)),
        ("2018/02/05", date(2018, 2, 5)),
        ("11.02.18", date(2018, 2, 11)),
        ("4/02/2017", date(2017, 2, 4)),
        ("(06/12/2016)", date(2016, 12, 6)),
        ("OCT 3, 2016", date(2016, 10, 3)),
        ("20180304", date(2018, 3, 4)),
        ("25032018", date(2018, 3, 25)),
        # Month first where reading the day first is impossible: 28 cannot be a month.
        ("12/28/2017", date(2017, 12, 28)),
    ],
)
def test_receipt_dates_parse_day_first(raw, expected):
    assert parse_date(raw, day_first=True) == expected


def test_contract_dates_parse_month_first():
    assert parse_date("6/21/1999", day_first=False) == date(1999, 6, 21)
    assert parse_date("06/12/2016", day_first=False) == date(2016, 6, 12)
    assert parse_date("31/01/2025", day_first=False) == date(2025, 1, 31)


@pytest.mark.parametrize(
    "raw",
    ["[]/[]/2020", "07/[]/2033", "09/14/200[]", "[ ]/[ ]/20[ ]", "OCT 2016", "2016", "31/02/2018", "soon", "", None],
)
def test_a_date_with_an_unknown_or_impossible_part_is_no_date(raw):
    assert parse_date(raw, day_first=False) is None


@pytest.mark.parametrize(
    ("raw", "amount"),
    [
        ("$12.30", 12.3),
        ("RM 1,234.50", 1234.5),
        ("RM7.70", 7.7),
        ("12.30", 12.3),
        ("-5.09", -5.09),
        ("1,007.50", 1007.5),
        ("1.234,50", 1234.5),
        ("12,30", 12.3),
        ("1,234", 1234.0),
        ("EUR 5", 5.0),
        ("12.30 USD", 12.3),
        ("€3.50", 3.5),
        (4.11, 4.11),
        (319, 319.0),
    ],
)
def test_amounts_become_numbers(raw, amount):
    assert parse_amount(raw) == pytest.approx(amount)


@pytest.mark.parametrize("raw", ["", "abc", ".", "12.30.40,1", "$", None, True])
def test_text_that_is_no_amount_gives_none(raw):
    assert parse_amount(raw) is None


@pytest.mark.parametrize(
    ("raw", "value"), [("Yes", True), ("no", False), (" YES ", True), ("", None), ("Maybe", None), (None, None)]
)
def test_yes_no(raw, value):
    assert parse_yes_no(raw) is value


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("perpetual", True),
        ("Perpetual", True),
        ("6/21/2000", False),
        ("09/05/2019; perpetual", None),
        ("", None),
        (None, None),
    ],
)
def test_perpetual_is_only_said_when_the_label_says_it_alone(raw, value):
    assert is_perpetual(raw) is value


def test_parties_lose_their_aliases_and_group_definitions():
    raw = (
        'Premier Nutrition Company, LLC, ("Buyer" or "PNC"); Fonterra (USA) Inc., ("Supplier" or "Fonterra"); '
        '(each "Party", collectively "Parties")'
    )
    assert split_parties(raw) == ["Premier Nutrition Company, LLC", "Fonterra (USA) Inc."]


def test_parties_written_twice_in_different_case_are_one_party():
    raw = (
        'Electrameccanica Vehicles Corp ("EMV"); Chongqing Zongshen Co., LTD. ("Manufacturer"); '
        'ELECTRAMECCANICA VEHICLES CORP ("EMV")'
    )
    assert split_parties(raw) == ["Electrameccanica Vehicles Corp", "Chongqing Zongshen Co., LTD."]


def test_party_aliases_in_bare_quotes_are_removed():
    assert split_parties('Excite, Inc."Excite"; CyberShop "Client"') == ["Excite, Inc.", "CyberShop"]


@pytest.mark.parametrize(
    ("raw", "places"),
    [
        ("New York", ["New York"]),
        ("England; Wales", ["England", "Wales"]),
        ("Province of Ontario, Canada", ["Ontario, Canada"]),
        ("British Columbia,Canada", ["British Columbia, Canada"]),
        ("New York; Massachussets", ["New York", "Massachusetts"]),
        ("[* * *]", []),
        ("[]", []),
    ],
)
def test_governing_law_is_split_and_cleaned(raw, places):
    assert split_jurisdictions(raw) == places


@given(st.text(max_size=40))
def test_no_parser_raises_on_arbitrary_text(text):
    assert isinstance(parse_durations(text), list)
    assert parse_date(text) is None or isinstance(parse_date(text), date)
    assert parse_amount(text) is None or isinstance(parse_amount(text), float)
    assert all(isinstance(name, str) and name for name in split_parties(text) + split_jurisdictions(text))
