"""Dates: absolute and relative ranges the question states, each on the date field its words name (nearest to the
date first, else the most common one); a month said without its year is set aside, for grounding to ask about, and
a negated date is its opposite ("not before 2020" is on or after it, "not signed in 2005" outside that year)."""

from __future__ import annotations

from english.dates import MONTH_WORD, DateRange
from graph.planners.reading.claims import Claims, Found, negation_before, overlap, say
from graph.planners.reading.question import Question
from graph.planners.vocabulary import BucketWords, Mention
from retrievers.postgres.field_catalog import CatalogField

DATE_NEGATION_REACH = 20
"""How far before a date a negation makes it the opposite ("were not signed in 2005", "do not expire before 2020")."""
OPPOSITE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "=": "!=", "between": "not between"}


def read(question: Question, view: BucketWords, claims: Claims) -> list[Found]:
    date_fields = view.typed("date")
    if not date_fields:
        return []
    lowered = question.lowered
    found: list[Found] = []
    for d in stated(question):
        if claims.taken(d.span):
            continue
        f = _date_field(view, date_fields, lowered, d)
        if not negation_before(lowered, d.span[0], DATE_NEGATION_REACH):
            found.append(say(claims, f, d.op, d.value, d.span, d.text))
        else:  # "do not expire before 2020": on or after it; "not signed in 2005": outside that year
            found.append(say(claims, f, OPPOSITE[d.op], d.value, d.span, d.text))
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


def said_most(mentions: list[Mention], span: tuple[int, int]) -> int:
    """How many characters the nearest mention of a field says: of two fields named as near a quantity, the one
    named more fully ("a renewal term of one year" is the renewal term's, not the term's, whose word it holds)."""
    gaps = [(max(m.span[0] - span[1], span[0] - m.span[1], 0), -(m.span[1] - m.span[0])) for m in mentions]
    return -min(gaps)[1] if gaps else 0


def nearness(mentions: list[Mention], span: tuple[int, int]) -> float:
    """How close the nearest mention of a field is to a quantity or date (1 adjacent, 0 for no mention): "at least
    90 days notice to stop renewal" is about the notice."""
    gaps = [max(m.span[0] - span[1], span[0] - m.span[1], 0) for m in mentions]
    return 1.0 / (1 + min(gaps)) if gaps else 0.0
