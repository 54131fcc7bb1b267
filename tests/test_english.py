"""The English the planners read (`english`): proper names in running text, quantities with their comparison and
unit, dates as ranges, numbers in words. Plain functions of text: no catalog, no engine."""

from __future__ import annotations

from datetime import date

import pytest

from english.dates import date_ranges, relative_dates
from english.names import proper_names
from english.numbers import parse_number
from english.quantities import quantities


def test_proper_names_in_running_text():
    text = (
        "Sachin Warrier is a singer. He worked as a software engineer at Tata Consultancy Services in Kochi. "
        "Later he joined the American staff of Roger O. Egeberg's office at the Bank of England in March."
    )
    assert [n.text for n in proper_names(text)] == [
        "Sachin Warrier",
        "Tata Consultancy Services",
        "Kochi",
        "Roger O. Egeberg",
        "Bank of England",
    ]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("under 60 days", [("<", 60.0, None, "day")]),
        ("at least two years", [(">=", 2.0, None, "year")]),
        ("more than 500", [(">", 500.0, None, None)]),
        ("sixty (60) days or less", [("<=", 60.0, None, "day")]),
        ("between 30 and 90 days", [("between", 30.0, 90.0, "day")]),
        ("twenty-five weeks", [("=", 25.0, None, "week")]),
        ("over RM 1,250.50", [(">", 1250.5, None, None)]),
        ("at least 100 and at most 200 days", [(">=", 100.0, None, "day"), ("<=", 200.0, None, "day")]),  # shared
        ("at least 3 parties and more than 90 days", [(">=", 3.0, None, None), (">", 90.0, None, "day")]),
        ("in 2018", []),
    ],
)
def test_quantities_are_read_with_their_comparison_and_unit(text, expected):
    assert [(q.op, q.value, q.high, q.unit) for q in quantities(text)] == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("in 2018", [("between", ["2018-01-01", "2018-12-31"])]),
        ("in March 2018", [("between", ["2018-03-01", "2018-03-31"])]),
        ("before 2015", [("<", "2015-01-01")]),
        ("after June 2019", [(">", "2019-06-30")]),
        ("since 2020", [(">=", "2020-01-01")]),
        ("between 2012 and 2014", [("between", ["2012-01-01", "2014-12-31"])]),
        ("between March 2012 and May 2014", [("between", ["2012-03-01", "2014-05-31"])]),
        ("after 2015 and before 2020", [(">", "2015-12-31"), ("<", "2020-01-01")]),  # two dates, not one range
        ("between 10 June 2017 and 20 June 2017", [("between", ["2017-06-10", "2017-06-20"])]),
        ("from 1st March 2018 to March 31, 2018", [("between", ["2018-03-01", "2018-03-31"])]),
        (
            "no earlier than 1 July 1998 and no later than 31 December 1998",
            [(">=", "1998-07-01"), ("<=", "1998-12-31")],
        ),
        ("on or before Sept. 30, 2019", [("<=", "2019-09-30")]),
        ("from 1 March to 31 March 2018", [("between", ["2018-03-01", "2018-03-31"])]),  # the year of the second end
        ("between June 10 and June 20, 2017", [("between", ["2017-06-10", "2017-06-20"])]),
        ("from December to January 2019", [("between", ["2018-12-01", "2019-01-31"])]),
        ("receipts from March", []),  # no year at all: the month is asked about (`of which year?`)
        ("signed after 2015 and may expire", [(">", "2015-12-31")]),  # the second end says its year
        ("on 2021-03-04", [("=", "2021-03-04")]),
        # said after the date (blind set H: "signed in 2018 or later" counted 2018's alone)
        ("signed in 2018 or later", [(">=", "2018-01-01")]),
        ("from 2018 onwards", [(">=", "2018-01-01")]),
        ("in 2005 or earlier", [("<=", "2005-12-31")]),
        ("signed in 2019 and after January 2020", [("between", ["2019-01-01", "2019-12-31"]), (">", "2020-01-31")]),
        # decades (blind set H: "contracts that date from the 1990s" was asked back)
        ("date from the 1990s", [("between", ["1990-01-01", "1999-12-31"])]),
        ("in the 90's", [("between", ["1990-01-01", "1999-12-31"])]),
        ("before the 2000s", [("<", "2000-01-01")]),
    ],
)
def test_dates_become_ranges(text, expected):
    assert [(d.op, d.value) for d in date_ranges(text)] == expected


def test_number_words():
    assert [parse_number(w) for w in ("sixty", "twenty-five", "a hundred", "1,200", "twelve")] == [
        60,
        25,
        100,
        1200,
        12,
    ]
    assert parse_number("several") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("signed in the last 3 years", [(">=", "2023-06-15")]),
        ("signed in last 3 years", [(">=", "2023-06-15")]),
        ("from the past two years", [(">=", "2024-06-15")]),
        # the verb (an outside probe: "which contracts last 3 years?" was read as signed in the last 3 years)
        ("Which contracts last 3 years?", []),
        ("NDAs that last two years", []),
    ],
)
def test_relative_dates_are_periods_before_today_and_last_alone_is_a_verb(text, expected):
    assert [(d.op, d.value) for d in relative_dates(text, date(2026, 6, 15))] == expected
