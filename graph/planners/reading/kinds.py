"""Kinds of document: a bucket word that names a kind ("NDAs", "leases"), or the words just before a bucket word
("distributor agreements", "joint venture agreements"), as a condition on the bucket's kind field."""

from __future__ import annotations

from english.lexicon import STOPWORDS
from english.value_match import ValueIndex, normalise
from english.words import singular
from graph.decomposition import Candidate, Unmapped
from graph.planners.reading.claims import TOKEN, Claims, Found, equal_or_in, overlap, say
from graph.planners.reading.flags import flag_mentions
from graph.planners.reading.question import Question
from graph.planners.vocabulary import BucketWords

KINDS_RECORDED = 0.8
"""The share of a bucket's documents with a kind recorded from which a kind word that matches none is asked about: a
user's contracts whose kinds the rules read leave one or two without (an outside probe: "how many NDAs do we have?"
counted all 30 contracts, none an NDA, as the bucket); a bucket of abstracts beside memos has far fewer."""
KIND_MEANING = 0.6
"""Cosine (MiniLM) a kind word needs with a kind value to mean it: "confidentiality agreement" and "Non-Disclosure
Agreement" score about 0.7, "lease" and the closest contract type below 0.5."""


def read(question: Question, view: BucketWords, claims: Claims) -> list[Found]:
    """The kinds the words before and at each mention of the bucket match, by their words or, failing that, by
    meaning ("confidentiality agreements" are Non-Disclosure Agreements). A kind word that matches none, in a bucket
    where most documents have a kind (`KINDS_RECORDED`), is unmapped: no document is of that kind, or it is one of
    the few whose kind is not recorded (a bucket with many documents of no recorded kind, such as abstracts beside
    memos, may hold them, so there the word only names the bucket).
    A bucket word inside a longer name of a yes/no clause ("an irrevocable or perpetual license") is the clause's,
    read by `flags`; a kind's words that hold a clause's shorter name ("non-compete agreements") stay the kind's."""
    kind = view.kind
    if kind is None:
        return []
    lowered, catalog = question.lowered, view.catalog
    index = view.values(kind)
    kinds: list[str] = []
    said: list[tuple[tuple[int, int], str]] = []
    found: list[Found] = []
    clauses = [m.span for f in view.typed("boolean") for m in flag_mentions(f, lowered)]
    for m in question.mentions_of(view.name):
        before = list(TOKEN.finditer(lowered[: m.span[0]]))[-3:]
        for start in range(len(before) + 1):
            span = (before[start].start() if start < len(before) else m.span[0], m.span[1])
            if claims.taken(span) or any(overlap(span, c) and c[1] - c[0] > span[1] - span[0] for c in clauses):
                continue
            words = [singular(w) for w in normalise(lowered[span[0] : span[1]]).split()]
            if set(words) <= view.generic_words or words[0] in STOPWORDS:
                continue
            match = index.match(words, view.generic_words, fuzzy=False)
            if match:
                kinds += [v for v in match.values if v not in kinds]
                said.append((span, lowered[span[0] : span[1]]))
                for other, values in _coordinated(lowered, span[0], words[-1], index, view.generic_words, claims):
                    kinds += [v for v in values if v not in kinds]
                    said.append((other, lowered[other[0] : other[1]]))
                break
            if start < len(before):
                continue
            meant = catalog.nearest_in_meaning(" ".join(words), index.values)
            if meant and meant[1] >= KIND_MEANING:
                kinds.append(meant[0])
                said.append((span, lowered[span[0] : span[1]]))
            elif kind.doc_count >= KINDS_RECORDED * catalog.buckets[view.name].documents:
                nearest = [Candidate(field=kind.name, value=v) for v in index.nearest(m.text)]
                found.append(Unmapped(text=m.text, nearest=nearest))
    if kinds:
        claims.claim(*(span for span, _ in said[1:]))
        found.append(say(claims, kind, *equal_or_in(kinds), said[0][0], " / ".join(text for _, text in said)))
    return found


CONJUNCTIONS = ("or", "and", "and/or")


def _coordinated(
    lowered: str, start: int, noun: str, kinds: ValueIndex, generic: set[str], claims: Claims
) -> list[tuple[tuple[int, int], list[str]]]:
    """The kinds said before one, joined to it by "or", "and" or a comma, that share its bucket word ("reseller or
    distributor agreements", "license, supply and distributor agreements"): each word is a kind with that noun. A
    blind question counted the distributor agreement alone, leaving the three reseller agreements out. Read back
    until a word is no kind."""
    tokens = list(TOKEN.finditer(lowered[:start]))
    found: list[tuple[tuple[int, int], list[str]]] = []
    while tokens:
        joined = tokens[-1].group() in CONJUNCTIONS
        if joined:
            tokens.pop()
        elif lowered[tokens[-1].end() : start].strip() != ",":
            break
        if not tokens or claims.taken(tokens[-1].span()):
            break
        word = tokens.pop()
        match = kinds.match([singular(word.group()), noun], generic, fuzzy=False)
        if not match:
            break
        found.append((word.span(), match.values))
        start = word.start()
    return found
