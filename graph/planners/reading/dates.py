"""Dates: absolute and relative ranges the question states, each on the date field its words name (nearest to the
date first, else the most common one); a month said without its year is set aside, for grounding to ask about."""

from __future__ import annotations

from english.dates import MONTH_WORD, DateRange
from graph.planners.reading.claims import Claims, Found, overlap, say
from graph.planners.reading.question import Question
from graph.planners.vocabulary import BucketWords, Mention
from retrievers.postgres.field_catalog import CatalogField


def read(question: Question, view: BucketWords, claims: Claims) -> list[Found]:
    date_fields = view.typed("date")
    if not date_fields:
        return []
    lowered = question.lowered
    found: list[Found] = []
    for d in stated(question):
        if not claims.taken(d.span):
            found.append(say(claims, _date_field(view, date_fields, lowered, d), d.op, d.value, d.span, d.text))
    for span in bare_months(question, claims):
        claims.put_aside(span)  # a month needs a year
    return found


def stated(question: Question) -> list[DateRange]:
    """The date ranges the question states: relative ones, then absolute ones no relative one or quantity with a
    unit covers ("more than 2000 days" is no year)."""
    ranges = list(question.relative_dates)
    measured = [q.span for q in question.quantities if q.unit or q.money]
    ranges += [
        d
        for d in question.dates
        if not any(overlap(d.span, r.span) for r in ranges) and not any(overlap(d.span, q) for q in measured)
    ]
    return ranges


def bare_months(question: Question, claims: Claims) -> list[tuple[int, int]]:
    """Months named without a year ("in March"): in no stated range, and in no span another reading took."""
    ranges = stated(question)
    return [
        m.span()
        for m in MONTH_WORD.finditer(question.lowered)
        if not any(overlap(m.span(), r.span) for r in ranges) and not claims.taken(m.span())
    ]


def _date_field(view: BucketWords, date_fields: list[CatalogField], lowered: str, d: DateRange) -> CatalogField:
    """The date field the question's words name (nearest to the date first), else the most common one."""
    return max(date_fields, key=lambda f: (nearness(view.field_mentions(lowered, f), d.span), f.doc_count))


def nearness(mentions: list[Mention], span: tuple[int, int]) -> float:
    """How close the nearest mention of a field is to a quantity or date (1 adjacent, 0 for no mention): "at least
    90 days notice to stop renewal" is about the notice."""
    gaps = [max(m.span[0] - span[1], span[0] - m.span[1], 0) for m in mentions]
    return 1.0 / (1 + min(gaps)) if gaps else 0.0
