"""The full dates a contract writes, found in a bounded window around each year, so that a rule stays linear in
the document however long it is (the sentence around a match is `english.sentences.sentence_span`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date

from english.numbers import MONTHS

_MONTH = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_DAY = r"[0-3]?\d(?:\s?(?:s\s?t|n\s?d|r\s?d|t\s?h))?"
_YEAR = r"(?:19|20)\d\d"
DATE_PATTERN = (
    rf"(?:(?P<month1>{_MONTH})\.?\s*(?P<day1>{_DAY}),?\s*(?P<year1>{_YEAR})"
    rf"|(?P<day2>{_DAY})\s+(?:day\s+)?(?:of\s+)?(?P<month2>{_MONTH})\.?\s*,?\s+(?:of\s+)?(?P<year2>{_YEAR})"
    rf"|(?P<month3>[01]?\d)/(?P<day3>[0-3]?\d)/(?P<year3>{_YEAR}))(?!\d)"
)
"""A full date as contracts write it: "February 10, 2017", "6th day of January, 2012", "3/1/2003" (month first,
as in EDGAR's American contracts). A date missing its day or year is no date here."""
# A date may touch the word before it when text extraction lost a space ("as of1 August 2019").
_DATE_RE = re.compile(rf"(?<![\d/.]){DATE_PATTERN}", re.IGNORECASE)
# Every full date ends with its year: years are found first (a cheap scan), then the date is read in the few
# characters before each, so the month names are not tried at every character of a long contract.
_YEAR_RE = re.compile(rf"(?<!\d){_YEAR}(?!\d)")
_DATE_CHARS = 40
"""The most characters a date takes before its year ("30th day of September, of ")."""
_MONTH_NUMBER = {name[:3]: number for name, number in MONTHS.items()}


def date_of(match: re.Match) -> date | None:
    """The calendar date a `DATE_PATTERN` match names, or None when it names none (February 30)."""
    for n in "123":
        if match[f"year{n}"]:
            month = match[f"month{n}"]
            month_number = int(month) if month.isdigit() else _MONTH_NUMBER[month[:3].lower()]
            try:
                return date(int(match[f"year{n}"]), month_number, int(re.match(r"\d+", match[f"day{n}"])[0]))
            except ValueError:
                return None
    return None


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
