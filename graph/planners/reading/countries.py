"""Places by their country, on a field whose values are places (a contract's governing law): "US law" or "American
law" is every US state a document's law is in, "Canadian law" Ontario's and Canada's; "a country other than the US",
"outside the US" and "non-US law" are every place held that is not in it, and "foreign law" every place outside the
country most documents' places are in. The values name states and provinces, not their countries, so no value
matches the country's own name, and "non-US law" read word by word left the US out (every contract counted)."""

from __future__ import annotations

import re
from collections import Counter

from english.places import COUNTRY_NAMES, country_of
from graph.planners.reading.claims import Claims, Found, equal_or_in, negation_before, say
from graph.planners.reading.question import Question
from graph.planners.vocabulary import BucketWords
from retrievers.postgres.field_catalog import CatalogField

_COUNTRY = "|".join(sorted((re.escape(name) for name in COUNTRY_NAMES), key=len, reverse=True))
OUTSIDE = re.compile(
    rf"(?:\b(?:a|any|some)\s+)?(?:\b(?:country|countries|state|jurisdiction)\s+)?"
    rf"\b(?:other than|outside(?: of)?|except(?: for)?|apart from|besides)\s+(?:the\s+)?(?P<place>{_COUNTRY})(?!\w)"
    rf"|\bnon[- ](?P<non>{_COUNTRY})(?!\w)"
)
"""A place said to be outside a country ("a country other than the US", "outside the United States", "non-US")."""
INSIDE = re.compile(rf"(?<![\w-])(?P<place>{_COUNTRY})(?=\s+(?:law|state|states|province|provinces)\b)")
"""A country said of a law or of its states ("US law", "American law", "Canadian law", "a US state")."""
FOREIGN = re.compile(r"\b(?:foreign|overseas|international)(?=\s+(?:law|laws|jurisdictions?|countr(?:y|ies))\b)")
"""A law said foreign: outside the country most of the documents' places are in (for CUAD's contracts, the US)."""
PLACES_SHARE = 0.8
"""The share of a text field's values that must be places for it to be a field of places."""


def read(question: Question, view: BucketWords, claims: Claims) -> list[Found]:
    said = _countries_said(question, claims)
    f = _places_field(view) if said else None  # the field's values are read only for a question naming a country
    if f is None:
        return []
    held = [str(v) for v in view.values(f).values]
    found: list[Found] = []
    for span, country, outside in said:
        if claims.taken(span):
            continue
        inside = [v for v in held if country_of(v) == (country or _home_country(view, f))]
        if outside:
            found.append(say(claims, f, "not in", inside, span, question.text[span[0] : span[1]]))
        elif inside:
            found.append(say(claims, f, *equal_or_in(inside), span, question.text[span[0] : span[1]]))
    return found


def _countries_said(question: Question, claims: Claims) -> list[tuple[tuple[int, int], str | None, bool]]:
    """Each country the question says of a law, as (span, country, outside it); "foreign" is outside a country not
    named (None: the one most documents' places are in), "not governed by US law" outside the one named."""
    lowered, said = question.lowered, []
    for pattern, outside in ((OUTSIDE, True), (INSIDE, False)):
        for m in pattern.finditer(lowered):
            which = "non" if m.group("place") is None else "place"
            if not claims.taken(m.span()) and _said_as_a_country(question.text, m.span(which)):
                negated = outside or negation_before(lowered, m.start()) is not None
                said.append((m.span(), COUNTRY_NAMES[m.group(which)], negated))
    said += [(m.span(), None, True) for m in FOREIGN.finditer(lowered) if not claims.taken(m.span())]
    return said


def _home_country(view: BucketWords, f: CatalogField) -> str | None:
    """The country most documents' places are in."""
    countries: Counter[str | None] = Counter()
    for value, documents in view.catalog.values(view.name, f.name):
        countries[country_of(str(value))] += documents
    countries.pop(None, None)
    return countries.most_common(1)[0][0] if countries else None


def _places_field(view: BucketWords) -> CatalogField | None:
    """The text field most documents have whose values are places, if any."""
    fields = [
        f
        for f in view.typed("string")
        if (values := view.values(f).values)
        and sum(country_of(str(v)) is not None for v in values) >= PLACES_SHARE * len(values)
    ]
    return max(fields, key=lambda f: f.doc_count) if fields else None


def _said_as_a_country(text: str, span: tuple[int, int]) -> bool:
    """ "US" said as the country, not "us" the pronoun ("a party other than us"): written in capitals."""
    said = text[span[0] : span[1]]
    return said.lower().replace(".", "") != "us" or said.replace(".", "") == "US"
