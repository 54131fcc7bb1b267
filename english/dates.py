"""Dates a question states: absolute ones ("in 2018", "before March 2019", "between 10 June 2017 and 20 June 2017")
and ones relative to today ("in the last 12 months", "older than five years", "already expired"), each as the
operator and the ISO dates of the range it covers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from english.numbers import MONTHS, NUMBER, parse_number
from english.tables import table

_MONTH_NAMES = "|".join(MONTHS) + r"|sept|" + "|".join(m[:3] for m in MONTHS)
MONTH_WORD = re.compile(
    r"\b(?:january|february|march|april|june|july|august|september|sept|october|november|december)\b"
)
"""Month names (not "may", a verb), checked for a year beside them."""


def _one_date(n: int, *, year_optional: bool = False) -> str:
    """A date as people write it, its parts in groups numbered `n`: 2018-03-01; 1 March 2018, 1st of March, 2018;
    March 1, 2018; March 2018; 2018. With `year_optional`, also 1 March or March, for the first end of a range, which
    takes the second's year ("from 1 March to 31 March 2018", `_range`). The second end always says its year: "after
    2015 and may expire" is no range ending in May. A decade is its ten years ("the 1990s", "the 90's")."""
    month = rf"(?P<month{n}>{_MONTH_NAMES})\.?"
    day = r"\d{1,2}(?:st|nd|rd|th)?"
    year = rf"(?:,?\s+(?P<year{n}>(?:19|20)\d\d)\b)" + ("?" if year_optional else "")
    return (
        rf"(?:(?P<iso{n}>\d{{4}}-\d{{2}}-\d{{2}})"
        rf"|(?:(?P<day{n}>{day})\s+(?:of\s+)?)?{month}(?:\s+(?P<mday{n}>{day})\b)?{year}"
        rf"|(?:the\s+)?(?P<decade{n}>(?:19|20)?\d0)['’]?s\b"
        rf"|(?P<alone{n}>(?:19|20)\d\d)\b)"
    )


_SAID = table("comparisons")["before_date"]
_EARLIEST, _LATEST, _BEFORE, _AFTER = (tuple(_SAID[k]) for k in ("earliest", "latest", "before", "after"))
_FROM_THEN, _UNTIL_THEN = (tuple(_SAID[k]) for k in ("from_then", "until_then"))
"""Said after the date: "2018 or later", "2018 onwards" (from its first day); "2005 or earlier" (to its last)."""
_DATE_CMP = "|".join(map(re.escape, sorted((*_EARLIEST, *_LATEST, *_BEFORE, *_AFTER), key=len, reverse=True)))
_DATE_EXPR = re.compile(
    rf"(?P<cmp>{_DATE_CMP}|in|during|from|between|on)?\s*{_one_date(1, year_optional=True)}"
    # a second date after "and", "to" or "-" ends a range ("between 2012 and 2014", "from 1 March to 31 March 2018");
    # "after 2015 and before 2020" is two dates
    rf"(?:\s+(?:and|to|-)\s+{_one_date(2)})?"
    # "or later" ends the date; "and before 2020" begins another
    rf"(?:\s+(?P<then>{'|'.join(map(re.escape, sorted((*_FROM_THEN, *_UNTIL_THEN), key=len, reverse=True)))})\b"
    rf"(?!\s+(?:the\s+)?(?:['’]?\d|(?:{_MONTH_NAMES})\b)))?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class DateRange:
    op: str
    value: str | list[str]
    span: tuple[int, int]
    text: str


def _amount(name: str) -> str:
    return rf"(?P<{name}>{NUMBER}|a|an)?\s*"


_RELATIVE = re.compile(
    # "last" alone is the verb ("contracts that last 3 years"); "the last", "in last", "past" are a period
    r"\b(?:(?P<past>(?:(?:(?:in |within |during |over |from |of )?the |(?:in |within |during |over |from |of ))"
    r"(?:last|past|previous)|past|previous)\s+" + _amount("past_n") + r"(?P<past_unit>day|week|month|year)s?)"
    r"|(?P<future>(?:in |within |during |over )?(?:the )?(?:next|coming|following)\s+"
    + _amount("future_n")
    + r"(?P<future_unit>day|week|month|year)s?)"
    r"|(?P<older>older than\s+" + _amount("older_n") + r"(?P<older_unit>day|week|month|year)s?(?:\s+old)?)"
    r"|(?P<ago>(?:more than\s+)?" + _amount("ago_n") + r"(?P<ago_unit>day|week|month|year)s?\s+ago)"
    r"|(?P<expired>(?:already|have|has)\s+(?:expired|lapsed|run out|ran out))"
    r"|(?P<this>this|last)\s+(?P<this_unit>year|month))\b",
    re.IGNORECASE,
)


def _shifted(today: date, unit: str, amount: float) -> date:
    from dateutil.relativedelta import relativedelta

    return today + relativedelta(**{f"{unit}s": int(amount)})


def relative_dates(question: str, today: date) -> list[DateRange]:
    """Dates said relative to today: 'in the last 12 months' -> >= a year ago; 'in the next two years' -> between
    today and two years on; 'older than five years' -> < five years ago; 'already expired' -> < today;
    'this year' / 'last year' -> that calendar year."""
    found = []
    for m in _RELATIVE.finditer(question):
        said = next((m.group(f"{k}_n") for k in ("past", "future", "older", "ago") if m.group(f"{k}_n")), None)
        amount = parse_number(said) if said and said.lower() not in ("a", "an") else 1.0
        if amount is None:
            continue
        text, span = m.group(0), m.span()
        if m.group("past"):
            found.append(
                DateRange(">=", _shifted(today, m.group("past_unit").lower(), -amount).isoformat(), span, text)
            )
        elif m.group("future"):
            end = _shifted(today, m.group("future_unit").lower(), amount)
            found.append(DateRange("between", [today.isoformat(), end.isoformat()], span, text))
        elif m.group("older") or m.group("ago"):
            unit = (m.group("older_unit") or m.group("ago_unit")).lower()
            found.append(DateRange("<", _shifted(today, unit, -amount).isoformat(), span, text))
        elif m.group("expired"):
            found.append(DateRange("<", today.isoformat(), span, text))
        else:
            year = today.year - (m.group("this").lower() == "last")
            if m.group("this_unit").lower() == "year":
                found.append(DateRange("between", [f"{year}-01-01", f"{year}-12-31"], span, text))
            else:
                first = _shifted(today.replace(day=1), "month", -(m.group("this").lower() == "last"))
                last = _shifted(first, "month", 1).toordinal() - 1
                found.append(DateRange("between", [first.isoformat(), date.fromordinal(last).isoformat()], span, text))
    return found


def _period(m: re.Match, n: int, year: str | None = None) -> tuple[date, date]:
    """The first and last day of the `n`-th date of a `_DATE_EXPR` match: a day, a month or a year; `year` for a
    date that does not say its own. ValueError for a date that is none (31 February, no year at all)."""
    if m.group(f"iso{n}"):
        day = date.fromisoformat(m.group(f"iso{n}"))
        return day, day
    if decade := m.group(f"decade{n}"):
        first = int(decade) if len(decade) == 4 else 1900 + int(decade)  # "the 90s": last century's
        return date(first, 1, 1), date(first + 9, 12, 31)
    said = m.group(f"year{n}") or m.group(f"alone{n}") or year
    if said is None:
        raise ValueError("a date without its year")
    y, month = int(said), m.group(f"month{n}")
    if not month:
        return date(y, 1, 1), date(y, 12, 31)
    number = MONTHS.get(month.lower()) or next(v for k, v in MONTHS.items() if k.startswith(month.lower()[:3]))
    if said := m.group(f"day{n}") or m.group(f"mday{n}"):
        day = date(y, number, int(re.match(r"\d+", said).group()))
        return day, day
    last = date(y + (number == 12), number % 12 + 1, 1).toordinal() - 1
    return date(y, number, 1), date.fromordinal(last)


def _says_its_year(m: re.Match, n: int) -> bool:
    """Whether the `n`-th date of a `_DATE_EXPR` match says its year (a date, a year, a decade: not "1 March")."""
    return any(m.group(f"{part}{n}") for part in ("year", "alone", "iso", "decade"))


def _range(m: re.Match) -> tuple[date, date]:
    """The first and last day a `_DATE_EXPR` match covers. A first end without its year takes the second's, a year
    earlier when it would otherwise come after it ("from December to January 2019")."""
    if not _says_its_year(m, 2):
        return _period(m, 1)
    end = _period(m, 2)[1]
    start = _period(m, 1, str(end.year))[0]
    if start > end and not _says_its_year(m, 1):
        start = _period(m, 1, str(end.year - 1))[0]
    return start, end


def date_ranges(question: str) -> list[DateRange]:
    """'in 2018' -> between 2018-01-01 and 2018-12-31; 'before March 2019' -> < 2019-03-01;
    'since 2015' and '2015 or later' -> >= 2015-01-01; 'no later than 31 December 1998' -> <= 1998-12-31;
    'the 1990s' -> between 1990-01-01 and 1999-12-31;
    'between 10 June 2017 and 20 June 2017' -> between 2017-06-10 and 2017-06-20."""
    found = []
    for m in _DATE_EXPR.finditer(question):
        try:
            start, end = _range(m)
        except (ValueError, StopIteration):  # 31 February, a month without a year, or a month no name matches
            continue
        cmp, then = (m.group("cmp") or "").lower(), (m.group("then") or "").lower()
        if then in _FROM_THEN:
            found.append(DateRange(">=", start.isoformat(), m.span(), m.group(0)))
        elif then in _UNTIL_THEN:
            found.append(DateRange("<=", end.isoformat(), m.span(), m.group(0)))
        elif cmp in _BEFORE:
            found.append(DateRange("<", start.isoformat(), m.span(), m.group(0)))
        elif cmp in _AFTER:
            found.append(DateRange(">", end.isoformat(), m.span(), m.group(0)))
        elif cmp in _EARLIEST:
            found.append(DateRange(">=", start.isoformat(), m.span(), m.group(0)))
        elif cmp in _LATEST:
            found.append(DateRange("<=", end.isoformat(), m.span(), m.group(0)))
        elif start == end:
            found.append(DateRange("=", start.isoformat(), m.span(), m.group(0)))
        else:
            found.append(DateRange("between", [start.isoformat(), end.isoformat()], m.span(), m.group(0)))
    return found
