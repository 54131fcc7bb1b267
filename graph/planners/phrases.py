"""The English the rule planner reads: quantities with comparisons, durations, money, dates, demonyms.

Hand-written because no library in the dependency set parses "under sixty (60) days" or "at least two years"
into an operator and a number of days; every rule is a pattern a user has been seen to write.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date
from itertools import pairwise

_SMALL = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
NUMBER_WORDS = {w: i for i, w in enumerate(_SMALL)} | {w: 20 + 10 * i for i, w in enumerate(_TENS)}
_WORD_NUMBER = (
    rf"(?:(?:{'|'.join(_TENS)})(?:[- ](?:{'|'.join(_SMALL[1:10])}))?|{'|'.join(_SMALL[1:])})(?:\s+hundred)?"
    r"|(?:a|an|one)\s+hundred"
)
_NUMBER = rf"(?:\d[\d,]*(?:\.\d+)?|{_WORD_NUMBER}|an?)"

DAYS_PER_UNIT = {"day": 1, "week": 7, "month": 30, "year": 365}
_UNIT = r"(?P<unit{n}>days?|weeks?|months?|years?|yrs?)"
_CURRENCY = r"(?P<cur{n}>\$|€|£|rm|usd|eur|gbp|myr)?"

COMPARATORS: dict[str, str] = {
    phrase: op
    for op, phrases in (
        ("between", ["between", "from"]),
        (
            ">=",
            [
                "at least",
                "no less than",
                "not less than",
                "minimum of",
                "a minimum of",
                "no fewer than",
                "greater than or equal to",
                "more than or equal to",
                "greater or equal to",
                "equal to or greater than",
                "equal to or more than",
            ],
        ),
        (
            "<=",
            [
                "at most",
                "no more than",
                "not more than",
                "up to",
                "maximum of",
                "a maximum of",
                "not exceeding",
                "less than or equal to",
                "fewer than or equal to",
                "smaller than or equal to",
                "lower than or equal to",
                "less or equal to",
                "equal to or less than",
                "equal to or lower than",
            ],
        ),
        (
            ">",
            [
                "more than",
                "over",
                "above",
                "greater than",
                "longer than",
                "exceeding",
                "higher than",
                "in excess of",
                "bigger than",
                "larger than",
            ],
        ),
        (
            "<",
            [
                "less than",
                "under",
                "below",
                "fewer than",
                "shorter than",
                "lower than",
                "smaller than",
                "cheaper than",
                "within",
            ],
        ),
        ("=", ["exactly", "equal to"]),
    )
    for phrase in phrases
}
_COMPARATOR = "|".join(sorted(map(re.escape, COMPARATORS), key=len, reverse=True))
_SUFFIX_OPS = {
    "or less": "<=",
    "or fewer": "<=",
    "or shorter": "<=",
    "or below": "<=",
    "or under": "<=",
    "or more": ">=",
    "or longer": ">=",
    "or above": ">=",
    "or over": ">=",
    "or greater": ">=",
}

_QUANTITY = re.compile(
    rf"(?:\b(?P<cmp>{_COMPARATOR})\s+)?"
    + r"(?<!\w)"  # a number inside a word (f99999, covid19, often) is part of a name, not a quantity
    + _CURRENCY.format(n=1)
    + r"\s*(?P<num1>"
    + _NUMBER
    + r")(?:\s*\(\d[\d,.]*\))?\s*(?:-\s*)?"
    + _UNIT.format(n=1)
    + "?"
    + r"(?:\s*\b(?P<join>and|to)\s+"
    + _CURRENCY.format(n=2)
    + r"\s*(?P<num2>"
    + _NUMBER
    + r")(?:\s*\(\d[\d,.]*\))?\s*"
    + _UNIT.format(n=2)
    + "?)?"
    + rf"(?:\s*\b(?P<suffix>{'|'.join(_SUFFIX_OPS)}))?"
    + r"(?!\w)",  # nor is one a word goes on from (5k, 3x, 10_days)
    re.IGNORECASE,
)
_YEAR_ONLY = re.compile(r"^(19|20)\d\d$")


@dataclass(frozen=True)
class Quantity:
    """A number the question states, with its comparison, unit and where it stands in the question."""

    op: str
    value: float
    high: float | None
    unit: str | None
    money: bool
    span: tuple[int, int]
    text: str


def parse_number(text: str) -> float | None:
    """'1,250' -> 1250, 'sixty' -> 60, 'twenty-five' -> 25, 'a hundred' -> 100."""
    text = text.strip().lower()
    if re.fullmatch(r"\d[\d,]*(?:\.\d+)?", text):
        return float(text.replace(",", ""))
    hundred = text.endswith("hundred")
    words = (
        re.split(r"[- ]+", text.removesuffix("hundred").strip()) if text.removesuffix("hundred").strip() else ["one"]
    )
    if any(w not in NUMBER_WORDS and w not in ("a", "an") for w in words):
        return None
    value = sum(NUMBER_WORDS.get(w, 1) for w in words)
    return float(value * 100 if hundred else value)


def quantities(question: str) -> list[Quantity]:
    """Every stated quantity; a bare year (2018) is a date, not a quantity, unless it carries a unit or money, and a
    number that is part of a word ("f99999", "5k") is none."""
    found = []
    for m in _QUANTITY.finditer(question):
        unit = (m.group("unit1") or m.group("unit2") or "").lower().rstrip("s") or None
        unit = "year" if unit == "yr" else unit
        money = bool(m.group("cur1") or m.group("cur2"))
        raw = m.group("num1")
        if raw.lower() in ("a", "an") and not unit:
            continue
        if _YEAR_ONLY.match(raw) and not unit and not money:
            continue
        if not unit and not money and not m.group("cmp") and not m.group("suffix"):
            continue
        value = parse_number(raw)
        high = parse_number(m.group("num2")) if m.group("num2") else None
        if value is None:
            continue
        op = COMPARATORS.get((m.group("cmp") or "").lower(), "=")
        if op == "=" and high is not None and m.group("join").lower() == "to":  # "30 to 50 days" is a range
            op = "between"
        if m.group("suffix"):
            op = _SUFFIX_OPS[m.group("suffix").lower()]
        if op == "between" and high is None:
            continue
        found.append(Quantity(op=op, value=value, high=high, unit=unit, money=money, span=m.span(), text=m.group(0)))
    return _units_shared(question, found)


_JOINED = re.compile(r"\s*(?:,\s*)?(?:and|but|to)\s*", re.IGNORECASE)


def _units_shared(question: str, found: list[Quantity]) -> list[Quantity]:
    """Two bounds joined by "and" share the unit or currency one of them says: "at least 100 and at most 200 days",
    "over RM 10 but under 20"."""
    shared = list(found)
    for i, (a, b) in enumerate(pairwise(found)):
        if not _JOINED.fullmatch(question[a.span[1] : b.span[0]]):
            continue
        if not (a.unit or a.money) and (b.unit or b.money):
            shared[i] = replace(a, unit=b.unit, money=b.money)
        elif not (b.unit or b.money) and (a.unit or a.money):
            shared[i + 1] = replace(b, unit=a.unit, money=a.money)
    return shared


def in_days(quantity: Quantity) -> float | None:
    return quantity.value * DAYS_PER_UNIT[quantity.unit] if quantity.unit in DAYS_PER_UNIT else None


_MONTHS = {
    m: i
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ],
        start=1,
    )
}
_MONTH_NAMES = "|".join(_MONTHS) + r"|sept|" + "|".join(m[:3] for m in _MONTHS)


def _one_date(n: int, *, year_optional: bool = False) -> str:
    """A date as people write it, its parts in groups numbered `n`: 2018-03-01; 1 March 2018, 1st of March, 2018;
    March 1, 2018; March 2018; 2018. With `year_optional`, also 1 March or March, for the first end of a range, which
    takes the second's year ("from 1 March to 31 March 2018", `_range`). The second end always says its year: "after
    2015 and may expire" is no range ending in May."""
    month = rf"(?P<month{n}>{_MONTH_NAMES})\.?"
    day = r"\d{1,2}(?:st|nd|rd|th)?"
    year = rf"(?:,?\s+(?P<year{n}>(?:19|20)\d\d)\b)" + ("?" if year_optional else "")
    return (
        rf"(?:(?P<iso{n}>\d{{4}}-\d{{2}}-\d{{2}})"
        rf"|(?:(?P<day{n}>{day})\s+(?:of\s+)?)?{month}(?:\s+(?P<mday{n}>{day})\b)?{year}"
        rf"|(?P<alone{n}>(?:19|20)\d\d)\b)"
    )


_EARLIEST = ("since", "as of", "no earlier than", "not earlier than", "on or after", "later than or equal to")
_LATEST = ("no later than", "not later than", "on or before", "earlier than or equal to")
_BEFORE = ("before", "until", "prior to", "by", "earlier than")
_AFTER = ("after", "later than")
_DATE_CMP = "|".join(map(re.escape, sorted((*_EARLIEST, *_LATEST, *_BEFORE, *_AFTER), key=len, reverse=True)))
_DATE_EXPR = re.compile(
    rf"(?P<cmp>{_DATE_CMP}|in|during|from|between|on)?\s*{_one_date(1, year_optional=True)}"
    # a second date after "and", "to" or "-" ends a range ("between 2012 and 2014", "from 1 March to 31 March 2018");
    # "after 2015 and before 2020" is two dates
    rf"(?:\s+(?:and|to|-)\s+{_one_date(2)})?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class DateRange:
    op: str
    value: str | list[str]
    span: tuple[int, int]
    text: str


def _amount(name: str) -> str:
    return rf"(?P<{name}>{_NUMBER}|a|an)?\s*"


_RELATIVE = re.compile(
    r"\b(?:(?P<past>(?:in |within |during |over |from |of )?(?:the )?(?:last|past|previous)\s+"
    + _amount("past_n")
    + r"(?P<past_unit>day|week|month|year)s?)"
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
    said = m.group(f"year{n}") or m.group(f"alone{n}") or year
    if said is None:
        raise ValueError("a date without its year")
    y, month = int(said), m.group(f"month{n}")
    if not month:
        return date(y, 1, 1), date(y, 12, 31)
    number = _MONTHS.get(month.lower()) or next(v for k, v in _MONTHS.items() if k.startswith(month.lower()[:3]))
    if said := m.group(f"day{n}") or m.group(f"mday{n}"):
        day = date(y, number, int(re.match(r"\d+", said).group()))
        return day, day
    last = date(y + (number == 12), number % 12 + 1, 1).toordinal() - 1
    return date(y, number, 1), date.fromordinal(last)


def _range(m: re.Match) -> tuple[date, date]:
    """The first and last day a `_DATE_EXPR` match covers. A first end without its year takes the second's, a year
    earlier when it would otherwise come after it ("from December to January 2019")."""
    if not (m.group("year2") or m.group("alone2") or m.group("iso2")):
        return _period(m, 1)
    end = _period(m, 2)[1]
    start = _period(m, 1, str(end.year))[0]
    if start > end and not (m.group("year1") or m.group("alone1") or m.group("iso1")):
        start = _period(m, 1, str(end.year - 1))[0]
    return start, end


def date_ranges(question: str) -> list[DateRange]:
    """'in 2018' -> between 2018-01-01 and 2018-12-31; 'before March 2019' -> < 2019-03-01;
    'since 2015' -> >= 2015-01-01; 'no later than 31 December 1998' -> <= 1998-12-31;
    'between 10 June 2017 and 20 June 2017' -> between 2017-06-10 and 2017-06-20."""
    found = []
    for m in _DATE_EXPR.finditer(question):
        try:
            start, end = _range(m)
        except (ValueError, StopIteration):  # 31 February, a month without a year, or a month no name matches
            continue
        cmp = (m.group("cmp") or "").lower()
        if cmp in _BEFORE:
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


DEMONYMS = {
    "american": "United States",
    "australian": "Australia",
    "british": "United Kingdom",
    "canadian": "Canada",
    "chinese": "China",
    "dutch": "Netherlands",
    "english": "England",
    "french": "France",
    "german": "Germany",
    "hong kong": "Hong Kong",
    "indian": "India",
    "irish": "Ireland",
    "israeli": "Israel",
    "italian": "Italy",
    "japanese": "Japan",
    "korean": "Korea",
    "malaysian": "Malaysia",
    "scottish": "Scotland",
    "singaporean": "Singapore",
    "spanish": "Spain",
    "swedish": "Sweden",
    "swiss": "Switzerland",
    "taiwanese": "Taiwan",
}
NEGATIONS = re.compile(
    r"(?:\b(?:no|not|without|lack(?:s|ing)?|missing|excluding|exclude|absent|neither|nor|never|"
    r"(?:do|does|did|is|are|has|have)n['’]?t)\b|\bw/o(?!\w))",
    re.IGNORECASE,
)

STOPWORDS = set(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "by",
        "for",
        "to",
        "from",
        "with",
        "without",
        "and",
        "or",
        "not",
        "no",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "do",
        "does",
        "did",
        "what",
        "which",
        "who",
        "whom",
        "when",
        "where",
        "why",
        "how",
        "many",
        "much",
        "all",
        "any",
        "each",
        "every",
        "me",
        "my",
        "our",
        "us",
        "we",
        "i",
        "you",
        "your",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "their",
        "them",
        "than",
        "then",
        "as",
        "into",
        "about",
        "over",
        "under",
        "list",
        "show",
        "find",
        "give",
        "tell",
        "have",
        "has",
        "had",
        "per",
        "more",
        "less",
        "least",
        "most",
        "please",
        "documents",
        "document",
        "both",
        "but",
        "such",
        "they",
        "will",
    ]
)
"""Words that only phrase a question. They include every English stop word the keyword index drops ("will",
"such"): a word the index never keeps would look like a word no document holds."""

_CAPITAL = r"[A-ZÀ-ÖØ-Þ]"
_NAME_WORD = rf"(?:{_CAPITAL}\.|{_CAPITAL}[\w'’&!-]*)"
_NAME_CONNECTORS = r"(?:of|the|de|du|da|del|von|van|der|la|le|&)"
_PROPER_NAME = re.compile(
    rf"\"(?P<quoted>[^\"]{{2,80}})\"|(?P<words>{_NAME_WORD}(?:\s+(?:{_NAME_CONNECTORS}\s+)*{_NAME_WORD})*)"
)
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+|\n)\W*$")
_CALENDAR_WORDS = set(_MONTHS) | {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}


@dataclass(frozen=True)
class Name:
    text: str
    span: tuple[int, int]


def _trimmed(words: str, starts_sentence: bool) -> str:
    """A capitalised run without the function words capitalised only because they start the sentence ("Are
    Local H" -> "Local H"; mid-sentence, "For Against" is a name) and without a possessive or closing stop."""
    kept = words.split()
    while starts_sentence and kept and kept[0].lower() in STOPWORDS:
        kept.pop(0)
    return re.sub(r"(?:['’]s|[.,;:])$", "", " ".join(kept))


def proper_names(text: str) -> list[Name]:
    """The names running text mentions: quoted titles and runs of capitalised words with the small words names
    hold ("Bank of England", "Roger O. Egeberg"). Not a lone capitalised word that only starts a sentence
    ("Later", "Winners"), not dates, not demonyms ("American" qualifies, it names nothing to look up)."""
    found = []
    for m in _PROPER_NAME.finditer(text):
        starts_sentence = _SENTENCE_START.search(text[: m.start()]) is not None
        name = m.group("quoted").strip() if m.group("quoted") else _trimmed(m.group("words"), starts_sentence)
        words = name.lower().split()
        if len(name) < 3 or all(w in _CALENDAR_WORDS or w in DEMONYMS or w in STOPWORDS for w in words):
            continue
        if not m.group("quoted") and starts_sentence and len(words) == 1 and name == m.group("words"):
            continue
        found.append(Name(name, m.span()))
    return found
