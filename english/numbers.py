"""Number words: the one table (`data/numbers.toml`) and the views its readers take of it, the days a unit of time
counts for, and a number as a question writes it ("1,250", "sixty", "twenty-five", "a hundred").

Hand-written because thirty words do not justify a dependency, and a word-to-number library would also accept
things like "a couple of" that the readers refuse.
"""

from __future__ import annotations

import re

from english.tables import table

NUMBER_WORDS: dict[str, int] = dict(table("numbers")["words"])
"""Every number word, zero to nineteen and the tens, in counting order."""
DIGIT_WORDS = [w for w, v in NUMBER_WORDS.items() if 1 <= v <= 9]
TEEN_WORDS = [w for w, v in NUMBER_WORDS.items() if 10 <= v <= 19]
TENS_WORDS = [w for w, v in NUMBER_WORDS.items() if v >= 20]
SMALL_WORDS = [w for w, v in NUMBER_WORDS.items() if v < 20]
"""zero to nineteen."""
COUNT_WORDS = {w: v for w, v in NUMBER_WORDS.items() if 2 <= v <= 20}
"""Counts a writer spells out ("three contracts"); not "one", which is as often a pronoun ("one of the parties")."""

MINUTES_PER_UNIT: dict[str, int] = dict(table("numbers")["minutes_per_unit"])
"""Units of time, singular, in minutes."""
DAYS_PER_UNIT: dict[str, float] = {
    unit: minutes / MINUTES_PER_UNIT["day"] for unit, minutes in MINUTES_PER_UNIT.items()
}
MONTHS = {m: i for i, m in enumerate(table("numbers")["calendar"]["months"], start=1)}
WEEKDAYS = list(table("numbers")["calendar"]["weekdays"])
ORDINALS: dict[str, int] = dict(table("numbers")["ordinals"])
"""first to twentieth, and thirtieth."""
ORDINAL_DAY = (
    rf"(?:(?:twenty|thirty)[- ]?(?:{'|'.join(w for w, v in ORDINALS.items() if v < 10)})"
    rf"|{'|'.join(sorted(ORDINALS, key=len, reverse=True))})"
)
"""A day of the month in ordinal words, "first" to "thirty-first" (thirty-ninth too: `ordinal_day` refuses it)."""

WORD_NUMBER = (
    rf"(?:(?:{'|'.join(TENS_WORDS)})(?:[- ](?:{'|'.join(DIGIT_WORDS)}))?|{'|'.join(SMALL_WORDS[1:])})(?:\s+hundred)?"
    r"|(?:a|an|one)\s+hundred"
)
"""A number in words as a question writes it: "sixty", "twenty-five", "a hundred"."""
NUMBER = rf"(?:\d[\d,]*(?:\.\d+)?|{WORD_NUMBER}|an?)"
"""A number in digits or words, or "a"/"an" ("a year")."""


def ordinal_day(text: str) -> int | None:
    """'first' -> 1, 'twenty-first' -> 21, 'Thirtieth' -> 30; None for words no day of a month is called."""
    words = re.split(r"[- ]+", text.strip().lower())
    tens = {"twenty": 20, "thirty": 30}.get(words[0], 0) if len(words) == 2 else 0
    value = tens + ORDINALS.get(words[-1], 0) if len(words) == 1 or tens else 0
    return value if 1 <= value <= 31 else None


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


def in_years_and_months(days: int) -> str | None:
    """A duration of `days` in the years and months it was most likely written in ("two years" is stored as 730
    days, "six months" as 180: `DAYS_PER_UNIT`), when it is at least six months and a whole number of them; None
    otherwise ("45 days" stays days)."""
    years, rest = divmod(days, round(DAYS_PER_UNIT["year"]))
    months, left = divmod(rest, round(DAYS_PER_UNIT["month"]))
    if left or days < 6 * DAYS_PER_UNIT["month"]:
        return None
    said = [f"{n} {unit}{'s' if n > 1 else ''}" for n, unit in ((years, "year"), (months, "month")) if n]
    return " ".join(said)
