"""Quantities a question states, with their comparison, unit and money sign: "under sixty (60) days", "at least two
years", "over RM 1,250.50", "between 30 and 90 days", "60 days or less".

Hand-written because no library in the dependency set parses these into an operator and a number of days; every
phrase is one a user has been seen to write (`data/comparisons.toml`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from itertools import pairwise

from english.numbers import MINUTES_PER_UNIT, NUMBER, parse_number
from english.tables import table

COMPARATORS: dict[str, str] = {
    phrase: op for op, phrases in table("comparisons")["before_number"].items() for phrase in phrases
}
"""A comparison before a number, as the operator it means."""
SUFFIX_OPS: dict[str, str] = dict(table("comparisons")["after_number"])
"""A comparison after a number ("60 days or less")."""

_COMPARATOR = "|".join(sorted(map(re.escape, COMPARATORS), key=len, reverse=True))
_UNIT = r"(?P<unit{n}>minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|yrs?)"
_UNIT_SPELLED = {"yr": "year", "hr": "hour", "min": "minute"}
_CURRENCY = r"(?P<cur{n}>\$|€|£|rm|usd|eur|gbp|myr)?"


def _amount(n: int, hyphen: bool) -> str:
    """A number (group `num<n>`) with its currency before it and its unit after it ("RM 50", "sixty (60) days",
    "two-year" when `hyphen`)."""
    unit_joint = r"(?:-\s*)?" if hyphen else ""
    return rf"{_CURRENCY.format(n=n)}\s*(?P<num{n}>{NUMBER})(?:\s*\(\d[\d,.]*\))?\s*{unit_joint}{_UNIT.format(n=n)}?"


_QUANTITY = re.compile(
    rf"(?:\b(?P<cmp>{_COMPARATOR})\s+)?"
    + r"(?<!\w)"  # a number inside a word (f99999, covid19, often) is part of a name, not a quantity
    + _amount(1, hyphen=True)
    + rf"(?:\s*\b(?P<join>and|to)\s+{_amount(2, hyphen=False)})?"
    + rf"(?:\s*\b(?P<suffix>{'|'.join(SUFFIX_OPS)}))?"
    + r"(?!\w)",  # nor is one a word goes on from (5k, 3x, 10_days)
    re.IGNORECASE,
)
_YEAR_ONLY = re.compile(r"^(19|20)\d\d$")
COMPARISON_WORDS = re.compile(
    r"\b(?:at least|at most|(?:no |not )?(?:more|less|fewer|greater) than|a (?:minimum|maximum) of)\b"
)
"""Comparisons that only bound a number or a date (not "over" or "under", which also say "under New York law")."""


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


def quantities(question: str) -> list[Quantity]:
    """Every stated quantity; a bare year (2018) is a date, not a quantity, unless it carries a unit or money, and a
    number that is part of a word ("f99999", "5k") is none."""
    found = []
    for m in _QUANTITY.finditer(question):
        unit = (m.group("unit1") or m.group("unit2") or "").lower().rstrip("s") or None
        unit = _UNIT_SPELLED.get(unit, unit)
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
            op = SUFFIX_OPS[m.group("suffix").lower()]
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


def in_unit(quantity: Quantity, unit: str) -> float | None:
    """The quantity's value in `unit` (a unit of time), None when it says no unit of time."""
    if quantity.unit not in MINUTES_PER_UNIT or unit not in MINUTES_PER_UNIT:
        return None
    return quantity.value * MINUTES_PER_UNIT[quantity.unit] / MINUTES_PER_UNIT[unit]


def time_unit(unit: str, name: str) -> str | None:
    """The unit of time a number field is in: its unit ("days", "minutes"), or its name's last word
    ("notice_period_days", "prep_minutes"); None for a field that is no duration."""
    said = unit.lower().rstrip("s")
    said = _UNIT_SPELLED.get(said, said)
    if said in MINUTES_PER_UNIT:
        return said
    last = name.lower().rsplit("_", 1)[-1]  # a whole plural word only: "calories_min" is no field of minutes
    return last[:-1] if last.endswith("s") and last[:-1] in MINUTES_PER_UNIT else None
