"""Quantities: a number with its comparison ("under 60 days", "over RM 100") on the number field it is about, in
days when it says a unit of time, with the unit said after it ("above 20 V") on the field that records the number's
unit, a unit no row is in set aside for grounding to ask about; and comparisons left with nothing to compare ("at
least X"), which grounding asks about."""

from __future__ import annotations

import re
from dataclasses import dataclass

from english.lexicon import UNIT_WORDS
from english.quantities import COMPARISON_WORDS, in_unit, time_unit
from graph.decomposition import Unmapped
from graph.planners.reading.claims import Claims, Found, overlap, say
from graph.planners.reading.dates import nearness, said_most
from graph.planners.reading.question import Question
from graph.planners.vocabulary import BucketWords
from retrievers.postgres.field_catalog import CatalogField

_UNIT_AFTER = re.compile(r"\s*([a-z][a-z/]{0,10}|%)(?![a-z])")


def read(question: Question, view: BucketWords, claims: Claims) -> list[Found]:
    lowered = question.lowered
    found: list[Found] = []
    for q in question.quantities:
        if claims.taken(q.span):
            continue
        numeric = view.typed("integer", "number")
        if q.unit:
            candidates = [f for f in numeric if time_unit(f.unit, f.name)]
        else:
            candidates = [f for f in numeric if not time_unit(f.unit, f.name)]
            if not q.money:
                candidates = [f for f in candidates if view.field_mentions(lowered, f)] or [
                    f for f in candidates if f.role == "money"
                ]
        if not candidates:
            found.append(Unmapped(text=q.text))  # "more than two parties": no number field says it
            continue
        target = max(
            candidates,
            key=lambda f: (
                nearness(view.field_mentions(lowered, f), q.span),
                said_most(view.field_mentions(lowered, f), q.span),
                f.role == "money",
                "duration" in f.aliases,
                f.kind == "properties",  # the document's own amount before a line item's
                f.doc_count,
            ),
        )
        scale = in_unit(q, time_unit(target.unit, target.name)) / q.value if q.unit and q.value else 1.0
        low = round(q.value * scale, 2)
        value = [low, round(q.high * scale, 2)] if q.op == "between" else low
        found.append(say(claims, target, q.op, value, q.span, q.text))
        unit = measured_in(view, target, lowered, q.span[1])
        if unit is not None and unit.unit is not None:
            found.append(say(claims, unit.field, "=", unit.unit, unit.span, unit.word))
        elif unit is not None:
            claims.put_aside(unit.span)  # no row is in it: grounding asks (`reading.left`)
    return found + _counted_by_a_field(lowered, view, claims)


_BARE_NUMBER = re.compile(r"(?<![\w.,$€£])(\d+(?:\.\d+)?)\s+(?=[a-z])")


def _counted_by_a_field(lowered: str, view: BucketWords, claims: Claims) -> list[Found]:
    """A bare number right before the words of a number field ("which recipes have 4 servings?"): that field's
    value. Quantities need a comparison, a unit or money to be one ("more than 4 servings"); a number alone
    before a field's name says it as plainly, and was asked back ("could not match '4'")."""
    found: list[Found] = []
    for m in _BARE_NUMBER.finditer(lowered):
        if claims.taken(m.span()):
            continue
        named = [
            (f, mention)
            for f in view.typed("integer", "number")
            for mention in view.field_mentions(lowered, f)
            if mention.span[0] == m.end() and not claims.taken(mention.span)
        ]
        if len(named) == 1:
            (f, mention) = named[0]
            number = float(m.group(1))
            value = int(number) if f.type == "integer" and number.is_integer() else number
            claims.claim(mention.span)
            found.append(say(claims, f, "=", value, m.span(1), m.group(1)))
    return found


@dataclass(frozen=True)
class UnitSaid:
    """A unit said right after a number ("20 V", "3 hertz"): the value the field recording the number's unit holds
    for it (`field`, `unit`), or why no row can be in it."""

    word: str
    span: tuple[int, int]
    text: str
    field: CatalogField | None = None
    unit: str | None = None
    why: str | None = None


def measured_in(view: BucketWords, target: CatalogField, lowered: str, end: int) -> UnitSaid | None:
    """The unit said at `end` of `lowered` (after a number) for `target`: on a field that records the number's unit
    (a datasheet's `unit`), the value it holds for the word, or why not (its rows are never in it: 400 mV is not
    above 20 V, and no row says which are in hertz); on a field with no such unit, a unit word ("volts") it is not
    in is a why too. Currencies are read apart (`reading.currencies`); other words after a number are no unit."""
    said = _UNIT_AFTER.match(lowered, end)
    if not said:
        return None
    word, span, text = said.group(1), said.span(1), said.group(0).strip()
    unit_field = view.get(target.unit_field) if target.unit_field else None
    if unit_field is not None and unit_field.role != "currency":
        held = {str(v).lower(): str(v) for v, _ in view.catalog.values(view.name, unit_field.name)}
        unit = held.get(UNIT_WORDS.get(word, word))
        if unit is not None:
            return UnitSaid(word, span, text, unit_field, unit)
        if word in UNIT_WORDS:
            why = f"no {target.name} of {view.name} is recorded in {word} (units held: {', '.join(held.values())})"
            return UnitSaid(word, span, text, why=why)
        return None
    if word in UNIT_WORDS and UNIT_WORDS[word] != (target.unit or "").lower():
        return UnitSaid(word, span, text, why=f"no {target.name} of {view.name} is recorded in {word}")
    return None


def dangling(question: Question) -> list[Unmapped]:
    """A comparison with no number or date this planner can read after it ("at least X", "at most ??", "less than
    half") bounds nothing, and the figure would silently count without it: unmapped, so the run asks. Read from the
    question's quantities and dates (read once, `Question`), whatever any reading took."""
    lowered = question.lowered
    read = [q.span for q in question.quantities]
    read += [d.span for d in (*question.dates, *question.relative_dates)]
    found: list[Unmapped] = []
    for m in COMPARISON_WORDS.finditer(lowered):
        if not any(overlap(m.span(), span) for span in read):
            after = re.match(r"\s*[^\s?.,;]*", lowered[m.end() :]).group()
            found.append(
                Unmapped(
                    text=(m.group() + after).strip(), why="no number or date this can compare with is read after it"
                )
            )
    return found
