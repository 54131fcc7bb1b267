"""Typed values from the raw label strings of the datasets: durations, dates, amounts, yes/no, parties, laws.

Every function returns the typed value, or None (or an empty list) when the string does not say enough:
a parser here never guesses. Loaders keep the raw string beside whatever comes out, so a value this module
refuses is still searchable as text.
"""

from __future__ import annotations

import re
from datetime import date, datetime

from dateutil import parser as date_parser

from english.numbers import DAYS_PER_UNIT, DIGIT_WORDS, NUMBER_WORDS, TEEN_WORDS, TENS_WORDS

# --- durations ----------------------------------------------------------------------------------------

# Number words as contracts write them ("sixty (60) days", "forty-five days"): the one table of `english.numbers`.
_WORD_NUMBER = (
    rf"(?:(?:{'|'.join(TENS_WORDS)})(?:[\s-]?(?:{'|'.join(DIGIT_WORDS)}))?"
    rf"|{'|'.join(TEEN_WORDS)}|{'|'.join(DIGIT_WORDS)})"
)
# A number directly followed by its unit is one duration. The number may sit in parentheses, as in
# "twelve (12) months" or the truncated CUAD label "60) days"; a hyphen may join it to the unit ("four (4)
# -year period"). A number that is not next to a unit is a count, not a duration: in "2 successive 10 years"
# or "10 1 years" the contract renews 2 or 10 times, each time for 10 years or 1 year.
_DURATION_RE = re.compile(
    rf"(?<![\w.])\(?(?P<number>\d+(?:\.\d+)?|{_WORD_NUMBER})\)?[\s-]*(?P<unit>day|week|month|year)s?\b",
    re.IGNORECASE,
)


def _duration_days(number: float, unit: str) -> int:
    """Days in one duration: 30 days a month and 365 a year, except that whole years of months count as years.

    So "12 months" and "1 year" are both 365 days (a user asking for a one-year notice period means both),
    "6 months" is 180 days (which is how contracts that write "180 days / 6 months" count it) and
    "18 months" is 365 + 180 = 545 days. Fractions are rounded to whole days ("0.5 year" -> 182).
    """
    if unit == "month":
        years, months = divmod(number, 12)
        return round(years * DAYS_PER_UNIT["year"] + months * DAYS_PER_UNIT["month"])
    return round(number * DAYS_PER_UNIT[unit])


def parse_durations(raw: str | None) -> list[int]:
    """Every duration in a label, in days, in the order written, without repeats.

    A cell can hold several durations ("60 days; 180 days", "4 years, 6 months" where one is the renewal and
    the other a notice period): all are kept, none is silently chosen. "180 days / 6 months" is one value.
    Labels in the Kleister form ("18_months") work too. Anything with no number next to a unit ("perpetual",
    "successive []", a date) gives an empty list.
    """
    if not raw:
        return []
    days: list[int] = []
    for match in _DURATION_RE.finditer(raw.replace("_", " ")):
        value = _duration_days(_number_value(match["number"]), match["unit"].lower())
        if value not in days:
            days.append(value)
    return days


def _number_value(text: str) -> float:
    """The number of a duration: digits ("0.5"), or words ("sixty", "forty-five", "twenty one")."""
    if text[0].isdigit():
        return float(text)
    return sum(NUMBER_WORDS[word] for word in re.split(r"[\s-]+", text.lower()))


def parse_duration(raw: str | None) -> int | None:
    """The single duration of a label in days, or None when it has none or several different ones."""
    days = parse_durations(raw)
    return days[0] if len(days) == 1 else None


# --- dates --------------------------------------------------------------------------------------------

# Two defaults that differ in every part: a date parsed with both gives the same answer only when the
# string itself names the year, the month and the day. dateutil silently fills missing parts from its
# default (today's date), which would turn "OCT 2016" into a day nobody wrote.
_DEFAULTS = (datetime(2001, 1, 1), datetime(2002, 2, 2))
_COMPACT_DATE_RE = re.compile(r"^\d{8}$")
_YEAR_FIRST_RE = re.compile(r"^\d{4}\D")


def parse_date(raw: str | None, *, day_first: bool = True) -> date | None:
    """A calendar date from a label in any common format, or None when the label does not name a full date.

    `day_first` settles ambiguous numeric dates ("06/12/2016"): True for SROIE's Malaysian receipts, False
    for CUAD's m/d/yyyy labels. A first number above 12 overrides it ("12/28/2017" is December 28 either
    way; dateutil does this). Handled by hand, because dateutil gets them wrong or refuses them:
    - eight digits: "20180304" is ISO 8601's basic form (yyyymmdd), which dateutil reads day-first as
      2018-04-03; "25032018" (a SROIE label) is day, month, year.
    - a date that starts with a four-digit year is year, month, day ("2017-02-10", "2018/02/22"): no format
      puts the day second, but dateutil told "day first" reads "2017-02-10" as October 2.
    - surrounding brackets and spaces, as in the SROIE label "(06/12/2016)".
    - CUAD writes an unknown part as "[]" ("[]/[]/2020", "07/[]/2033"): that is no full date, so None.
    """
    if not raw:
        return None
    text = raw.strip().strip("()").strip()
    if not text or "[" in text:
        return None
    if _COMPACT_DATE_RE.match(text):
        return _compact_date(text, day_first)
    year_first = bool(_YEAR_FIRST_RE.match(text))
    try:
        first, second = (
            date_parser.parse(text, dayfirst=day_first and not year_first, yearfirst=year_first, default=default)
            for default in _DEFAULTS
        )
    except (ValueError, OverflowError):
        return None
    return first.date() if first == second else None


def _compact_date(digits: str, day_first: bool) -> date | None:
    """Eight digits: ISO's basic form yyyymmdd when that is a valid date, else ddmmyyyy (or mmddyyyy)."""
    for layout in ("%Y%m%d", "%d%m%Y" if day_first else "%m%d%Y"):
        try:
            return datetime.strptime(digits, layout).date()
        except ValueError:
            continue
    return None


def is_perpetual(raw: str | None) -> bool | None:
    """Whether an expiration or renewal label says the contract has no end ("perpetual", "Perpetual").

    None when there is no label, or when the label gives both an end and "perpetual" ("09/05/2019; perpetual"):
    which one applies is for a reader of the contract to say.
    """
    parts = [part.strip().lower() for part in re.split(r"[;,]", raw or "") if part.strip()]
    answers = {part == "perpetual" for part in parts}
    return answers.pop() if len(answers) == 1 else None


# --- amounts, yes/no ----------------------------------------------------------------------------------

_CURRENCY_RE = re.compile(r"^(?:[A-Z]{2,3}|[$€£¥₹])\s*|\s*(?:[A-Z]{2,3}|[$€£¥₹])$")
_AMOUNT_RE = re.compile(r"^[-+]?(?:\d+|\d{1,3}(?:[,.]\d{3})+)?(?:[.,]\d+)?$")


def parse_amount(raw: str | float | int | None) -> float | None:
    """A money amount as a float: "$12.30", "RM 1,234.50", "12.30", "EUR 5", "-5.09", "1.234,50".

    A currency symbol or a 2-3 letter code before or after the number is dropped (it belongs in its own
    field). Separators: when both "," and "." appear, the last one is the decimal mark ("1.234,50" and
    "1,234.50" are both 1234.5); a single "," followed by one or two digits is a decimal comma ("12,30");
    a single "." is a decimal point; any other "," or "." groups thousands ("1,007" is 1007, as on SROIE's
    receipts). Numbers (already typed upstream, as in invoice2data's JSON) pass through.
    """
    if raw is None or isinstance(raw, bool):
        return None
    if isinstance(raw, (int, float)):
        return float(raw)
    text = _CURRENCY_RE.sub("", raw.strip().upper()).replace(" ", "")
    if not text or not _AMOUNT_RE.match(text) or not any(c.isdigit() for c in text):
        return None
    decimal_mark = _decimal_mark(text)
    for group_mark in {",", "."} - {decimal_mark}:
        text = text.replace(group_mark, "")
    return float(text.replace(decimal_mark, ".") if decimal_mark else text)


def _decimal_mark(number: str) -> str | None:
    """Which of "," and "." is the decimal mark of a number that passed `_AMOUNT_RE`, if either is."""
    if "," in number and "." in number:
        return max(",", ".", key=number.rfind)
    mark = "," if "," in number else "."
    if number.count(mark) == 1 and (mark == "." or re.search(r",\d{1,2}$", number)):
        return mark
    return None


_YES = {"yes", "y", "true"}
_NO = {"no", "n", "false"}


def parse_yes_no(raw: str | None) -> bool | None:
    """True for "Yes", False for "No" (any case), None for anything else, including an empty label."""
    if raw is None:
        return None
    text = raw.strip().lower()
    return True if text in _YES else False if text in _NO else None


# --- parties and governing law ------------------------------------------------------------------------

# A parenthesis that holds a quote is a defined-term alias ("(\"Buyer\" or \"PNC\")"); one without quotes is
# part of the name ("Fonterra (USA) Inc.") and stays.
_ALIAS_RE = re.compile(r"\([^()]*[\"“”][^()]*\)")
# A few labels give the alias in bare quotes after the name: 'Excite, Inc."Excite"'.
_TRAILING_ALIAS_RE = re.compile(r"\s*[\"“][^\"“”]*[\"”]\s*$")
_QUOTES = '"“”'


def split_parties(raw: str | None) -> list[str]:
    """The party names of a CUAD "Parties" label, without their defined-term aliases or duplicates.

    CUAD separates parties with ";" and follows each name with its alias in parentheses. Entries that still
    hold quotes after the aliases are removed are definitions of the parties as a group ('(each "Party",
    collectively "Parties")', 'MS and MSCI individually as "Party"'), not parties, and are dropped. A party
    listed twice in different case (upper-case heading and body text) is kept once, as first written.
    """
    parties: list[str] = []
    seen: set[str] = set()
    for entry in (raw or "").split(";"):
        name = re.sub(r"\s+", " ", _TRAILING_ALIAS_RE.sub("", _ALIAS_RE.sub("", entry))).strip(" ,;")
        if not name or any(q in name for q in _QUOTES) or name.lower() in seen:
            continue
        seen.add(name.lower())
        parties.append(name)
    return parties


# Spelling fixes seen in the labels; each maps a misspelling to the name every other label uses.
_JURISDICTION_SPELLING = {"massachussets": "Massachusetts"}
_JURISDICTION_PREFIX_RE = re.compile(r"^(?:the\s+)?(?:state|commonwealth|province)\s+of\s+", re.IGNORECASE)


def split_jurisdictions(raw: str | None) -> list[str]:
    """The jurisdictions of a governing-law label: "England; Wales" -> ["England", "Wales"].

    Cleans what varies between labels for the same place: "Province of Ontario, Canada" and
    "British Columbia,Canada" become "Ontario, Canada" and "British Columbia, Canada". A comma is not a
    separator, because it usually qualifies a place ("Ontario, Canada"). Redacted or unknown values
    ("[]", "[* * *]") are dropped.
    """
    places: list[str] = []
    for entry in (raw or "").split(";"):
        place = re.sub(r"\s*,\s*", ", ", re.sub(r"\s+", " ", entry)).strip(" ,")
        place = _JURISDICTION_PREFIX_RE.sub("", place)
        place = _JURISDICTION_SPELLING.get(place.lower(), place)
        if place and "[" not in place and place not in places:
            places.append(place)
    return places
