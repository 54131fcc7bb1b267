"""Yes/no fields: a field named by its aliases or its name's words ("liability cap" for cap_on_liability, "non
compete" for non_compete), true, or false when a negation stands just before it."""

from __future__ import annotations

import re

from english.lexicon import NEGATIONS
from english.words import FLAG_STEM_CHARS, STEM_CHARS, stem
from graph.planners.reading.claims import Claims, Found, say
from graph.planners.reading.question import Question
from graph.planners.vocabulary import BucketWords, Mention, find_mentions
from retrievers.postgres.field_catalog import CatalogField


def read(question: Question, view: BucketWords, claims: Claims) -> list[Found]:
    lowered = question.lowered
    found: list[Found] = []
    for f in view.typed("boolean"):
        mentions = [m for m in flag_mentions(f, lowered) if not claims.taken(m.span)]
        if mentions:
            m = mentions[0]
            negated = NEGATIONS.search(lowered[max(0, m.span[0] - 25) : m.span[0]]) is not None
            found.append(say(claims, f, "=", not negated, m.span, m.text))
    return found


def flag_mentions(f: CatalogField, lowered: str) -> list[Mention]:
    """A yes/no field's aliases, or its name's words close together in any order ("liability cap" for
    cap_on_liability, "non compete" and "noncompete" for non_compete)."""
    found = find_mentions(lowered, list(f.aliases))
    words = [w for w in f.name.split("_") if len(w) > 2 or w == "ip"]
    if not words:
        return found
    stems = [re.escape(stem(w, FLAG_STEM_CHARS)) if len(w) >= STEM_CHARS else re.escape(w) for w in words]
    for m in re.finditer(r"\b(?:" + "|".join(stems) + r")\w*(?:\W+\w+){0," + str(len(words) + 1) + "}", lowered):
        window = m.group(0)
        if all(re.search(rf"\b{s}", window) for s in stems):
            end = max(re.search(rf"\b{s}\w*", window).end() for s in stems)
            found.append(Mention((m.start(), m.start() + end), window[:end]))
    joined = re.search(rf"\b{''.join(stems)}\w*", lowered)
    if joined:
        found.append(Mention(joined.span(), joined.group(0)))
    return sorted(found, key=lambda m: m.span)
