"""A stretch of text read as a value of one field's type: the same reading for every finder that has found where a
value is written (a labelled line, a user's pattern, a model's quote), so that all of them store the same types the
loaders store for labels."""

from __future__ import annotations

import re
from typing import Any

from core.models import FieldSpec
from english.numbers import parse_number
from english.quantities import in_unit, quantities, time_unit
from retrievers.loaders.normalize import parse_amount, parse_date, parse_yes_no

MAX_STRING_CHARS = 200
"""The longest string value a finder stores: a name, a kind, an address. Longer is a passage, which the text holds."""
_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")
_NEGATION = re.compile(r"\b(?:no|not|non|none|without)\b", re.IGNORECASE)
_TRAILING = " \t.,;:-–—*_"


def typed(text: str, spec: FieldSpec) -> Any:
    """`text` as a value of `spec`'s type, None when it does not read as one (a finder then stores nothing)."""
    text = text.strip(_TRAILING)
    if not text:
        return None
    if spec.type == "date":
        found = parse_date(text)
        return found.isoformat() if found else None
    if spec.type == "boolean":
        said = parse_yes_no(text.split()[0])
        return said if said is not None else not _NEGATION.search(text)
    if spec.type in ("number", "integer"):
        value = _duration(text, spec) if time_unit(spec.unit, spec.name) else _number(text, spec)
        if value is None:
            return None
        return round(value) if spec.type == "integer" else value
    return text[:MAX_STRING_CHARS] if len(text) <= MAX_STRING_CHARS else None


def _duration(text: str, spec: FieldSpec) -> float | None:
    """A duration in the field's unit of time: "2 hr 55 min" is 175 minutes, "about an hour" 60, and a number
    with no unit is in the field's own ("Prep: 45")."""
    unit = time_unit(spec.unit, spec.name)
    parts = [in_unit(q, unit) for q in quantities(text) if q.unit]
    parts = [p for p in parts if p is not None]
    return sum(parts) if parts else _number(text, spec)


def _number(text: str, spec: FieldSpec) -> float | None:
    """The first number the text writes: an amount for a money field ("RM 1,234.50"), else a plain or spelled
    number ("760 per serving", "twelve")."""
    if spec.role == "money":
        match = re.search(r"[$€£¥₹]?\s*\d[\d,.]*", text)
        return parse_amount(match.group(0)) if match else None
    match = _NUMBER.search(text)
    if match:
        return float(match.group(0).replace(",", ""))
    return parse_number(text.split()[0])
