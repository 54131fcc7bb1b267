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
        negation = negation_before(lowered, m.span[0]) or _negated_word(f, lowered, m)
        act = _names_what_it_forbids(f, m)
        if negation is None:  # "contracts that can be assigned without consent" are those without anti_assignment
            said = not (act and PERMITTING.search(lowered[max(0, m.span[0] - PERMIT_CHARS) : m.span[0]]))
        else:  # "don't let either side poach employees" have no_solicit_of_employees; "no non-compete" not
            said = act and bool(FORBIDDING.search(lowered[max(0, negation[0] - MODAL_CHARS) : m.span[0]]))
            claims.claim(negation)  # its word is read ("non-vegetarian"), not one no field records
        found.append(say(claims, f, "=", said, m.span, m.text))
    return found


NON_BEFORE = re.compile(r"\bnon[- ]?$")
""""non" joined to a yes/no field's word ("non-vegetarian", "non vegetarian"): it negates that word alone, so it is
read here, not as a negation reaching the words after it ("non-vegetarian Thai dishes" are Thai)."""
OPPOSITE_PARTICLES = {"in": r"out\s+of", "on": r"off", "with": r"without", "within": r"outside(?:\s+of)?"}
"""A field named with a particle ("in_stock", "on_sale") is negated by the opposite one before its other words: "out
of stock" named in_stock by "stock" and counted the products in stock (the fifteenth outside probe)."""


def _negated_word(f: CatalogField, lowered: str, m: Mention) -> tuple[int, int] | None:
    """Where a word joined to the mention negates it alone: "non-", or the opposite of the particle the field's
    name starts with."""
    if non := NON_BEFORE.search(lowered, 0, m.span[0]):
        return non.span()
    particle = f.name.split("_", 1)[0]
    if particle not in OPPOSITE_PARTICLES or m.text.lower().startswith(particle + " "):
        return None
    said = re.search(rf"\b{OPPOSITE_PARTICLES[particle]}\s+$", lowered[: m.span[0]])
    return said.span() if said else None


PROHIBITIVE = re.compile(r"^(?:non|no|anti|covenant_not)_")
"""The fields of clauses that forbid something (non_compete, no_solicit_of_employees, anti_assignment)."""
FORBIDDING = re.compile(
    r"\b(?:may|must|shall|will|can|could|should|is|are)\s+not\b|"
    r"(?:\bnot|n['’]t)\s+(?:be\s+)?(?:let|allow(?:ed)?|permit(?:ted)?|able)\b|"
    r"\b(?:neither|no|none)\b(?:\s+[\w'’]+){0,3}?\s+(?:may|must|shall|will|can|could|should)\b"
)
"""A negation that forbids the act after it ("may not poach", "don't let either side poach", "is not allowed to
solicit", "neither party may disparage"), not one that says a clause is missing ("don't have a clause about
poaching")."""
MODAL_CHARS = 8
"""How far before a negation its modal verb may stand ("may not")."""


PERMITTING = re.compile(
    r"\b(?:can|may|could|might)(?!n['’]?t|not)\s+(?:be\s+)?$|\b(?:allowed|free|permitted)\s+to\s+(?:be\s+)?$"
)
"""A word that allows the act just after it ("can be assigned", "free to hire"), not "cannot", "may not"."""
PERMIT_CHARS = 20
"""How far before the act its permitting words are read."""


def _names_what_it_forbids(f: CatalogField, m: Mention) -> bool:
    """Whether the mention of a clause that forbids something names the act it forbids ("poach", "assigned"), not
    the clause itself ("non-compete", "no-solicit"): said forbidden, the clause is there; said allowed, it is not
    (an outside probe: both listed the opposite contracts)."""
    named_by_its_prohibition = re.search(r"\b(?:non|no|anti|not)\b|\bnon\w", m.text)
    return bool(PROHIBITIVE.match(f.name)) and not named_by_its_prohibition


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
