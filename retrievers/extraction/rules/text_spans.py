"""The full dates a contract writes, found in a bounded window around each year, so that a rule stays linear in
the document however long it is (the sentence around a match is `english.sentences.sentence_span`).
"""

from __future__ import annotations

import heapq
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
# The rule of dashes that stood under a blank filled in by hand, flattened into the line by the text's extraction
# ("31 December,         ---------         1996", "1st day of        --- November, 2003").
_UNDERLINE = r"(?:-{3,}\s+)?"
DATE_PATTERN = (
    rf"(?:(?P<month1>{_MONTH})\.?\s*(?P<day1>{_DAY})\s*,?\s*(?P<year1>{_YEAR})"
    rf"|(?P<day2>{_DAY}|{_DAY_IN_WORDS})\s+(?:day\s+)?(?:of\s+)?(?:the\s+month\s+of\s+)?{_UNDERLINE}"
    rf"(?P<month2>{_MONTH})\.?\s*,?\s+{_UNDERLINE}(?:day\s+)?(?:of\s+)?(?P<year2>{_YEAR}))(?!\d)"
)
"""A full date as contracts write it with its month named: "February 10, 2017", "April 15 , 2010", "6th day of
January, 2012", "the first (1st) day of the month of July, 2017", "the 20 March day of 1998", "31 December, ---
1996". A date missing its day or year is no date here."""
# A date in figures: "3/1/2003", "11/4/10", "29/3/18", "12-23-2019". Month first, as in EDGAR's American
# contracts, unless the first number cannot be a month (29/3/18) or the document writes its dates day first.
_NUMERIC_DATE_RE = re.compile(
    r"(?<![\w/.-])(?P<first>[0-3]?\d)(?P<sep>[/-])(?P<second>[0-3]?\d)(?P=sep)(?P<year>(?:19|20)\d\d|\d\d)"
    r"(?![\w/-]|[.,]\d)"
)
# What follows a date's first number ("/4/10" of "11/4/10"), one pattern per separator: found first, since a pattern
# that starts with a given character is scanned for quickly, then the date is read from the two characters before it.
_NUMERIC_DATE_TAILS = tuple(re.compile(rf"{sep}[0-3]?\d{sep}(?:19|20)?\d\d(?![\w/-]|[.,]\d)") for sep in ("/", "-"))
_CENTURY_PIVOT = 50
"""A two-digit year below it is this century's ("05" is 2005), from it the last's ("97" is 1997)."""
_MOST_NUMERIC_DATES_READ = 10_000
"""How many dates in figures are read to tell whether a document writes its days first: enough for any contract."""
# A date may touch the word before it when text extraction lost a space ("as of1 August 2019").
_DATE_RE = re.compile(rf"(?<![\d/.]){DATE_PATTERN}", re.IGNORECASE)
# Every full date ends with its year: years are found first (a cheap scan), then the date is read in the few
# characters before each, so the month names are not tried at every character of a long contract.
_YEAR_RE = re.compile(rf"(?<!\d){_YEAR}(?!\d)")
_DATE_CHARS = 60
"""The most characters a date takes before its year ("twenty-seventh (27th) day of the month of September, ")."""
_UNDERLINED_DATE_CHARS = 160
"""The same for a date split by a flattened underline and the spaces around it, read only where one stands before
the year: a wider window at every year would cost about a millisecond a contract."""
_MONTH_NUMBER = {name[:3]: number for name, number in MONTHS.items()}


def date_of(match: re.Match) -> date | None:
    """The calendar date a `DATE_PATTERN` match names, or None when it names none (February 30)."""
    for n in "12":
        if match[f"year{n}"]:
            month_number = _MONTH_NUMBER[match[f"month{n}"][:3].lower()]
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
    """Every full date in `body[start:end]`, in order, with its match: months named or dates in figures."""
    return heapq.merge(
        _named_dates_in(body, start, end), _numeric_dates_in(body, start, end), key=lambda found: found[1].start()
    )


def _numeric_dates_in(body: str, start: int, end: int | None) -> Iterator[tuple[date, re.Match]]:
    """Every date in figures in `body[start:end]`, in order; whether the document writes its days first is
    worked out only when a date could be read either way (3/4/11)."""
    day_first = None
    for match in _numeric_date_matches(body, start, end):
        first, second = int(match["first"]), int(match["second"])
        if first <= 12 and second <= 12 and day_first is None:
            day_first = _writes_days_first(body)
        month, day = (second, first) if first > 12 or (day_first and second <= 12) else (first, second)
        year = int(match["year"])
        if len(match["year"]) == 2:
            year += 2000 if year < _CENTURY_PIVOT else 1900
        try:
            value = date(year, month, day)
        except ValueError:
            continue
        yield value, match


def _numeric_date_matches(body: str, start: int, end: int | None) -> Iterator[re.Match]:
    """Every `_NUMERIC_DATE_RE` match in `body[start:end]`, in order, each read back from its tail."""
    stop = len(body) if end is None else end
    tails = (pattern.finditer(body, start, stop) for pattern in _NUMERIC_DATE_TAILS)
    for tail in heapq.merge(*tails, key=lambda tail: tail.start()):
        for begin in (tail.start() - 2, tail.start() - 1):
            match = _NUMERIC_DATE_RE.match(body, max(begin, start), tail.end())
            if match and match.end() == tail.end():
                yield match
                break


def _writes_days_first(body: str) -> bool:
    """Whether the document's dates in figures that can be read only one way are all day first (29/3/18)."""
    day_first = month_first = False
    for count, match in enumerate(_numeric_date_matches(body, 0, None)):
        if count >= _MOST_NUMERIC_DATES_READ:
            break
        first, second = int(match["first"]), int(match["second"])
        day_first = day_first or first > 12 >= second
        month_first = month_first or second > 12 >= first
    return day_first and not month_first


def _named_dates_in(body: str, start: int, end: int | None) -> Iterator[tuple[date, re.Match]]:
    """Every full date with its month named in `body[start:end]`, in order."""
    last_end = start
    for year in _YEAR_RE.finditer(body, start, len(body) if end is None else end):
        wide = body.find("---", max(0, year.start() - _UNDERLINED_DATE_CHARS), year.start()) >= 0
        reach = _UNDERLINED_DATE_CHARS if wide else _DATE_CHARS
        for match in _DATE_RE.finditer(body, max(last_end, year.start() - reach), year.end()):
            if match.end() == year.end():
                last_end = match.end()
                value = date_of(match)
                if value is not None:
                    yield value, match
                break
