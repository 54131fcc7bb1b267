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
INSIDE = re.compile(rf"(?<![\w-])(?P<place>{_COUNTRY})(?=\s+law\b)")
"""A country said of a law ("US law", "American law", "Canadian law")."""
FOREIGN = re.compile(r"\b(?:foreign|overseas|international)(?=\s+(?:law|laws|jurisdictions?|countr(?:y|ies))\b)")
"""A law said foreign: outside the country most of the documents' places are in (for CUAD's contracts, the US)."""
PLACES_SHARE = 0.8
"""The share of a text field's values that must be places for it to be a field of places."""


def read(question: Question, view: BucketWords, claims: Claims) -> list[Found]:
    f = _places_field(view)
    if f is None:
        return []
    found: list[Found] = []
    held = [str(v) for v in view.values(f).values]
    for pattern, outside in ((OUTSIDE, True), (INSIDE, False)):
        for m in pattern.finditer(question.lowered):
            which = "non" if m.group("place") is None else "place"
            span = m.span()
            if claims.taken(span) or not _said_as_a_country(question.text, m.span(which)):
                continue
            country = COUNTRY_NAMES[m.group(which)]
            inside = [v for v in held if country_of(v) == country]
            if outside or negation_before(question.lowered, span[0]):  # "not governed by US law"
                found.append(say(claims, f, "not in", inside, span, question.text[span[0] : span[1]]))
            elif inside:
                found.append(say(claims, f, *equal_or_in(inside), span, question.text[span[0] : span[1]]))
    for m in FOREIGN.finditer(question.lowered):
        countries = Counter()
        for value, documents in view.catalog.values(view.name, f.name):
            countries[country_of(str(value))] += documents
        countries.pop(None, None)
        if not claims.taken(m.span()) and countries:
            home = countries.most_common(1)[0][0]
            inside = [v for v in held if country_of(v) == home]
            found.append(say(claims, f, "not in", inside, m.span(), question.text[m.start() : m.end()]))
    return found


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
