"""What the readers share: which spans of the question are claimed (`Claims`), what a reader found (`Said`, a
condition on a field, or `Unmapped`), and how the conditions said of one bucket become its constraints
(`BucketConstraints`: one condition per field; two bounds of one field joined into one range, or asked about)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from english.lexicon import CONTAINING_VERBS, HOLDING_VERBS, NEGATIONS
from graph.decomposition import Constraint, Unmapped
from retrievers.postgres.annotation_filters import bounds_of
from retrievers.postgres.field_catalog import CatalogField

Span = tuple[int, int]
TOKEN = re.compile(r"[\w$€£¥₹][\w'’&.$€£/-]*")
"""A word of a question as the readers count them ("what's", "w/o", "$100", "D.I.Y.")."""


NEGATION_REACH = 25
"""How many characters before a reader's words a negation may stand and still be said of them ("not governed by",
"no governing law", "don't say which law")."""


def overlap(a: Span, b: Span) -> bool:
    return a[0] < b[1] and b[0] < a[1]


NEGATED_VERB_REACH = 60
"""How far a negated verb of holding carries over the thing held, when no clause begins between them: "don't require
anyone to carry insurance" (blind set H: read as requiring it, a count that looked right)."""
_CLAUSE_BREAK = re.compile(r"[,;:()]|\b(?:and|or|but|that|which|who|whose|where|when|while|if|because|unless)\b")
_FIRST_WORD = re.compile(r"\W*(\w+)")


def negation_before(lowered: str, start: int, reach: int = NEGATION_REACH) -> Span | None:
    """Where the last negation (`NEGATIONS`) stands in the `reach` characters before `start`, read in that window as
    if it began the question, or further back before a verb of holding ("doesn't require", "without needing") whose
    clause runs on to `start` (`NEGATED_VERB_REACH`); None when there is none."""
    window = max(0, start - reach)
    negations = list(NEGATIONS.finditer(lowered[window:start]))
    if negations:
        return window + negations[-1].start(), window + negations[-1].end()
    window = max(0, start - NEGATED_VERB_REACH)
    negations = list(NEGATIONS.finditer(lowered[window:start]))
    if not negations:
        return None
    nearest = negations[-1]
    between = lowered[window + nearest.end() : start]
    verb = _FIRST_WORD.match(between)
    if verb and verb.group(1) in HOLDING_VERBS | CONTAINING_VERBS and not _CLAUSE_BREAK.search(between):
        return window + nearest.start(), window + nearest.end()
    return None


@dataclass
class Claims:
    """The spans of the question the readers have taken, in the order taken. A reader asks `taken` before it reads
    words and `claim`s what it read; nothing else changes the list."""

    spans: list[Span] = field(default_factory=list)
    set_aside: list[Span] = field(default_factory=list)
    """Claimed spans whose words say something no field can take (a month without its year, a unit no row is in):
    no later reader reads them, and grounding reports them (`reading.left`)."""

    def claim(self, *spans: Span) -> None:
        self.spans.extend(spans)

    def put_aside(self, span: Span) -> None:
        self.claim(span)
        self.set_aside.append(span)

    def taken(self, span: Span) -> bool:
        return any(overlap(span, s) for s in self.spans)


@dataclass(frozen=True)
class Said:
    """A condition a reader read on one field of its bucket, with the words that said it."""

    field: CatalogField
    op: str
    value: Any
    source: str


Found = Said | Unmapped
"""What a reader returns, in the order it read them (the order unmapped words are reported in)."""


def say(claims: Claims, f: CatalogField, op: str, value: Any, span: Span, source: str) -> Said:
    """A condition read at `span`, which it claims."""
    claims.claim(span)
    return Said(f, op, value, source)


def equal_or_in(values: list) -> tuple[str, object]:
    return ("=", values[0]) if len(values) == 1 else ("in", values)


_LOWER_BOUNDS, _UPPER_BOUNDS = (">", ">="), ("<", "<=")
_RANGE_OPS = {*_LOWER_BOUNDS, *_UPPER_BOUNDS, "between"}


_NAMED, _EXCLUDED = {"=", "in"}, {"!=", "not in"}


class BucketConstraints:
    """The constraints of one bucket, from what its readers said in order: a field takes one condition, the first
    said, unless two bounds of it join into one range, or values named and excluded join into the values left
    (`joined_values`); two that cannot be one are unmapped."""

    def __init__(self, bucket: str):
        self.bucket = bucket
        self.found: dict[str, Constraint] = {}

    def add(self, said: Said) -> Unmapped | None:
        f, op = said.field, said.op
        new = Constraint(bucket=self.bucket, field=f.name, op=op, value=said.value, source_text=said.source)
        before = self.found.setdefault(f.name, new)
        if before is new or (before.op, before.value) == (op, new.value):
            return None
        if {before.op, op} <= _NAMED | _EXCLUDED:
            joined = joined_values(before, new)
        elif {before.op, op} <= _RANGE_OPS:
            joined = joined_bounds(before, new, f.type)  # a field takes one condition: one range, or a question
        else:
            return None
        if isinstance(joined, Constraint):
            self.found[f.name] = joined
            return None
        return Unmapped(text=said.source, why=joined)

    def constraints(self) -> list[Constraint]:
        return list(self.found.values())


def joined_values(first: Constraint, second: Constraint) -> Constraint | str:
    """Two conditions naming values of one field as one: the values named less those excluded ("US law other than
    New York": every US state's but New York's; an outside probe counted Ontario's and China's with them, the US
    left out), the exclusions together, or the values named inside others named ("Delaware contracts under US law");
    else why they cannot be one (two sets of values that do not hold each other)."""

    def values(c: Constraint) -> list:
        return list(c.value) if isinstance(c.value, list) else [c.value]

    both = f"{first.source_text!r} and {second.source_text!r}"
    said = f"{first.source_text} and {second.source_text}"
    if first.op in _EXCLUDED and second.op in _EXCLUDED:
        excluded = list(dict.fromkeys([*values(first), *values(second)]))
        return first.model_copy(update={"op": "not in", "value": excluded, "source_text": said})
    if first.op in _EXCLUDED or second.op in _EXCLUDED:
        named, excluded = (second, first) if first.op in _EXCLUDED else (first, second)
        left = [v for v in values(named) if v not in values(excluded)]
    else:
        a, b = values(first), values(second)
        left = a if set(a) <= set(b) else b if set(b) <= set(a) else []
        if not left:
            return f"{both} both name {first.field}; ask with one of them"
    if not left:
        return f"no {first.field} can be {both}"
    op, value = equal_or_in(left)
    return first.model_copy(update={"op": op, "value": value, "source_text": said})


def joined_bounds(first: Constraint, second: Constraint, field_type: str) -> Constraint | str:
    """A lower and an upper bound the question sets on one field ("at least 3 and at most 4", "after 2015 and before
    2020", "more than 10 and less than 20") as the one condition a field takes, `between`; else why they cannot be
    one. An excluded end of a whole-number or date field moves in to the next value ("more than 3 and less than 6"
    is between 4 and 5); a field of decimals has no next value, and its end stays excluded (`bounds`)."""
    lower = next((c for c in (first, second) if c.op in _LOWER_BOUNDS), None)
    upper = next((c for c in (first, second) if c.op in _UPPER_BOUNDS), None)
    both = f"{first.source_text!r} and {second.source_text!r}"
    if lower is None or upper is None:
        return f"{both} both bound {first.field}; ask with one range ('between X and Y') or one bound"
    low, high = _included_end(lower, field_type, +1), _included_end(upper, field_type, -1)
    bounds = "[]"
    if low is None or high is None:  # decimals: no next value to move an excluded end to
        low, high = lower.value, upper.value
        bounds = bounds_of(lower.op, upper.op)
    if low > high or (low == high and bounds != "[]"):
        return f"no {first.field} can be {both}"
    said = f"{lower.source_text} and {upper.source_text}"
    return first.model_copy(update={"op": "between", "value": [low, high], "bounds": bounds, "source_text": said})


def _included_end(bound: Constraint, field_type: str, step: int) -> Any:
    """The bound as an included end: itself when its operator includes it, else the next whole number or day past
    it in the direction `step`; None on a field of decimals, which has no next value."""
    if bound.op in (">=", "<="):
        return bound.value
    if field_type == "integer":
        return math.floor(bound.value) + 1 if step > 0 else math.ceil(bound.value) - 1
    if field_type == "date":
        return (date.fromisoformat(bound.value) + timedelta(days=step)).isoformat()
    return None


def plain(token: str) -> str:
    """A token without its clitic: "what's" -> "what", "don't" -> "do", "state's" -> "state"."""
    return re.sub(r"(?:n['’]t|['’](?:s|re|ve|ll|d|m)?)$", "", token.strip(".'’"))


def has_digit(token: str) -> bool:
    return any(c.isdigit() for c in token)
