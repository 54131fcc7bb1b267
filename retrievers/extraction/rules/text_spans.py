"""The full dates a contract writes, found in a bounded window around each year, so that a rule stays linear in
the document however long it is (the sentence around a match is `english.sentences.sentence_span`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

from english.numbers import MONTHS, ORDINAL_DAY, ordinal_day

_MONTH = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_DAY = r"[0-3]?\d(?:\s?(?:s\s?t|n\s?d|r\s?d|t\s?h))?"
# A day in words, with its figures after it as some contracts repeat them: "first (1st)", "thirtieth (30th)".
_DAY_IN_WORDS = rf"(?<![\w-]){ORDINAL_DAY}(?:\s*\(\s*[0-3]?\d\s?(?:st|nd|rd|th)?\s*\))?"
_YEAR = r"(?:19|20)\d\d"
DATE_PATTERN = (
    rf"(?:(?P<month1>{_MONTH})\.?\s*(?P<day1>{_DAY})\s*,?\s*(?P<year1>{_YEAR})"
    rf"|(?P<day2>{_DAY}|{_DAY_IN_WORDS})\s+(?:day\s+)?(?:of\s+)?(?:the\s+month\s+of\s+)?"
    rf"(?P<month2>{_MONTH})\.?\s*,?\s+(?:of\s+)?(?P<year2>{_YEAR})"
    rf"|(?P<month3>[01]?\d)/(?P<day3>[0-3]?\d)/(?P<year3>{_YEAR}))(?!\d)"
)
"""A full date as contracts write it: "February 10, 2017", "April 15 , 2010", "6th day of January, 2012", "the first
(1st) day of the month of July, 2017", "3/1/2003" (month first, as in EDGAR's American contracts). A date missing its
day or year is no date here."""
# A date may touch the word before it when text extraction lost a space ("as of1 August 2019").
_DATE_RE = re.compile(rf"(?<![\d/.]){DATE_PATTERN}", re.IGNORECASE)
# Every full date ends with its year: years are found first (a cheap scan), then the date is read in the few
# characters before each, so the month names are not tried at every character of a long contract.
_YEAR_RE = re.compile(rf"(?<!\d){_YEAR}(?!\d)")
_DATE_CHARS = 60
"""The most characters a date takes before its year ("twenty-seventh (27th) day of the month of September, ")."""
_MONTH_NUMBER = {name[:3]: number for name, number in MONTHS.items()}


def date_of(match: re.Match) -> date | None:
    """The calendar date a `DATE_PATTERN` match names, or None when it names none (February 30)."""
    for n in "123":
        if match[f"year{n}"]:
            month = match[f"month{n}"]
            month_number = int(month) if month.isdigit() else _MONTH_NUMBER[month[:3].lower()]
            try:
                return date(int(match[f"year{n}"]), month_number, _day(match[f"day{n}"]))
            except (ValueError, TypeError):
                return None
    return None


def _day(written: str) -> int | None:
    """The day of the month a `_DAY` or `_DAY_IN_WORDS` match names: "10t h" -> 10, "first (1st)" -> 1."""
    figures = re.match(r"\d+", written)
    return int(figures[0]) if figures else ordinal_day(re.match(r"[\w -]+?(?=\s*(?:\(|$))", written)[0])


def dates_in(body: str, start: int = 0, end: int | None = None) -> Iterator[tuple[date, re.Match]]:
    """Every full date in `body[start:end]`, in order, with its match."""
    last_end = start
    for year in _YEAR_RE.finditer(body, start, len(body) if end is None else end):
        for match in _DATE_RE.finditer(body, max(last_end, year.start() - _DATE_CHARS), year.end()):
            if match.end() == year.end():
                last_end = match.end()
                value = date_of(match)
                if value is not None:
                    yield value, match
                break
