"""Yes/no fields: a field named by its aliases or its name's words ("liability cap" for cap_on_liability, "non
compete" for non_compete), true, or false when a negation stands just before it. Where the mentions of several
fields overlap, the one saying more of its field's words wins, then the longest: "grant an irrevocable or perpetual
license" names irrevocable_or_perpetual_license (four words of an alias), not license_grant (two name words) nor
the `perpetual` term."""

from __future__ import annotations

import re

from english.words import FLAG_STEM_CHARS, STEM_CHARS, stem
from graph.planners.reading.claims import Claims, Found, negation_before, overlap, say
from graph.planners.reading.question import Question
from graph.planners.vocabulary import BucketWords, Mention, find_mentions
from retrievers.postgres.field_catalog import CatalogField

NAME_WORDS_APART = 5
"""How many other words may stand among a yes/no field's name words, within one clause of the question: "soliciting
or poaching the other side's employees" names no_solicit_of_employees."""


def read(question: Question, view: BucketWords, claims: Claims) -> list[Found]:
    lowered = question.lowered
    named = []
    for f in view.typed("boolean"):
        m = next((m for m in flag_mentions(f, lowered) if not claims.taken(m.span)), None)
        if m is not None:
            named.append((m, f))
    chosen: list[tuple[Mention, CatalogField]] = []
    for m, f in sorted(named, key=lambda mf: (-len(mf[0].alias.split()), mf[0].span[0] - mf[0].span[1])):
        if not any(overlap(m.span, other.span) for other, _ in chosen):
            chosen.append((m, f))
    found: list[Found] = []
    for m, f in sorted(chosen, key=lambda mf: mf[0].span):
        found.append(say(claims, f, "=", negation_before(lowered, m.span[0]) is None, m.span, m.text))
    return found


def flag_mentions(f: CatalogField, lowered: str) -> list[Mention]:
    """A yes/no field's aliases (by the longer stems of `FLAG_STEM_CHARS`: "transition services" is not
    "TransMontaigne services"), or its name's words close together in one clause, in any order ("liability cap" for
    cap_on_liability, "non compete" and "noncompete" for non_compete)."""
    found = find_mentions(lowered, list(f.aliases), stem_chars=FLAG_STEM_CHARS)
    words = [w for w in f.name.split("_") if len(w) > 2 or w == "ip"]
    if not words:
        return found
    stems = [re.escape(stem(w, FLAG_STEM_CHARS)) if len(w) >= STEM_CHARS else re.escape(w) for w in words]
    within = r"(?:[^\w.;:?!]+\w+){0," + str(len(words) + NAME_WORDS_APART) + "}"
    for m in re.finditer(r"\b(?:" + "|".join(stems) + r")\w*" + within, lowered):
        window = m.group(0)
        if all(re.search(rf"\b{s}", window) for s in stems):
            end = max(re.search(rf"\b{s}\w*", window).end() for s in stems)
            found.append(Mention((m.start(), m.start() + end), window[:end], " ".join(words)))
    joined = re.search(rf"\b{''.join(stems)}\w*", lowered)
    if joined:
        found.append(Mention(joined.span(), joined.group(0), " ".join(words)))
    return sorted(found, key=lambda m: m.span)
