"""Values: text values the phrases of the question name (a country also by its demonym), as conditions on the
fields that hold them."""

from __future__ import annotations

import re

from english.lexicon import CLAUSE_WORDS, DEMONYMS, FILLER, STOPWORDS
from english.value_match import QUALITY, normalise
from english.words import POSSESSIVE
from graph.planners.reading.claims import TOKEN, Claims, Found, equal_or_in, negation_before, say
from graph.planners.reading.question import Question
from graph.planners.vocabulary import BucketWords
from retrievers.postgres.field_catalog import CatalogField

MAX_PHRASE_WORDS = 6
COMMON_WORD = 50
"""A lowercase word that names a value only by being one of its words ("fall" in "Quaker Fabric Corporation Of Fall
River") is taken for that name only when the documents' text does not hold it more than this many times as often as
the value's documents: on the shipped corpora "gardenia" is in 2 receipt passages per GARDENIA receipt and
"microsoft" in 28 contract passages per Microsoft contract, while "fall" is in 206 per Fall River one and
"distributor" in 500 per contract with a party so named."""
MAX_NAMED_VALUES = 200
"""More values than this for one phrase is a word too common to be a name ("sdn bhd"): it is not a constraint."""


def read(question: Question, view: BucketWords, claims: Claims) -> list[Found]:
    """Longest phrases first, one field per phrase: the field the question's words name, then a field of names or
    kinds before free text, then the best match, then the most documents. Phrases naming values of one field joined
    by "or", "and" or a comma are alternatives ("Kestrel or Silverleaf"); side by side, they are one name ("Popular
    bookstore": the values both match, or the first phrase's when none does). No bucket's word names a value, and a
    lower-case word away from the bucket's words names a kind only by its own form, not by its stem (`kinds` reads
    the words before the bucket's)."""
    text, lowered = question.text, question.lowered
    generic = question.bucket_words | view.field_words_but_flags | STOPWORDS | FILLER
    fields = [f for f in view.typed("string") if f.role != "currency"]
    mentioned = {f.name for f in fields if view.field_mentions(lowered, f)}
    kind = view.kind.name if view.kind else None
    named: dict[str, tuple[CatalogField, list[str], list[tuple[int, int]], list[str]]] = {}
    first_said: dict[str, int] = {}
    for words, span in phrases(lowered, claims, generic):
        if claims.taken(span):
            continue
        best = None
        said = text[span[0] : span[1]]
        name_like = len(words) > 1 or any(c.isupper() for c in said)
        for f in fields:
            match = view.values(f).match(words, generic, fuzzy=name_like)
            if match and len(match.values) <= MAX_NAMED_VALUES:
                rank = (f.name in mentioned, f.role != "text", QUALITY[match.how], match.whole, f.doc_count)
                if best is None or rank > best[0]:
                    best = (rank, f, match.values)
        if best is not None and not name_like and not _named_rather_than_said(view, words, best):
            best = None
        if best is not None and not name_like and best[1].name == kind and best[0][2] == QUALITY["stems"]:
            best = None  # "require a party to maintain insurance": a verb, not the kind Maintenance Agreement
        if best is not None and not name_like and best[1].name != kind and best[1].role != "name" and not best[0][3]:
            best = None  # "the other company's people": an ordinary word, not part of People's Republic of China
        if best is not None and best[1].name == kind and _names_a_clause(lowered, span):
            best = None  # "a non-solicit clause": a clause, not the kind Non-Compete/No-Solicit/... Agreement
        if best is None:
            country = DEMONYMS.get(" ".join(words))
            best = _demonym(view, fields, lowered, country) if country else None
        if best is None:
            continue
        _, f, values = best
        claims.claim(span)
        for v in values:
            first_said[v] = min(first_said.get(v, span[0]), span[0])
        if f.name not in named:
            named[f.name] = (f, list(values), [span], [text[span[0] : span[1]]])
            continue
        _, kept, spans, sources = named[f.name]
        between = lowered[min(spans[-1][1], span[1]) : max(spans[-1][0], span[0])]
        if re.search(r"\b(?:or|and)\b|,|/", between) or not between.strip():
            if re.search(r"\b(?:or|and)\b|,|/", between):
                kept.extend(v for v in values if v not in kept)
            else:
                kept[:] = [v for v in kept if v in values] or kept
        else:
            kept.extend(v for v in values if v not in kept)
        spans.append(span)
        sources.append(text[span[0] : span[1]])
    found: list[Found] = []
    for f, values, spans, sources in named.values():
        order = sorted(range(len(spans)), key=lambda i: spans[i])
        spans, sources = [spans[i] for i in order], [sources[i] for i in order]
        values = sorted(values, key=lambda v: first_said.get(v, 0))
        if negation_before(lowered, spans[0][0]):
            op, value = ("!=", values[0]) if len(values) == 1 else ("not in", values)
        else:
            op, value = equal_or_in(values)
        found.append(say(claims, f, op, value, spans[0], " / ".join(sources)))
    return found


def _names_a_clause(lowered: str, span: tuple[int, int]) -> bool:
    """Whether the words at `span` stand just before a word for a clause ("a non-solicit clause", "exclusivity
    provisions"): they say what a clause is about, and a count of the contracts of a kind so named would answer
    another question (an outside probe: "how many contracts have a non-solicit clause?" counted the non-compete
    agreements)."""
    after = re.match(r"\W*(\w+)", lowered[span[1] :])
    return bool(after) and after.group(1) in CLAUSE_WORDS


def _named_rather_than_said(view: BucketWords, words: list[str], best) -> bool:
    """Whether a lowercase single word that matched a value of a name field is that name, not an ordinary word that
    also occurs in it: the documents' text must not hold it far more often than the value's documents are
    (COMMON_WORD), nor name a field no document has a value for (`BucketWords.unvalued`). Kinds and short-listed
    values need no check."""
    _, f, values = best
    if f.role != "name" or len(words) > 1:
        return True
    if words[0] in view.unvalued_words:
        return False  # "escrow" of source code escrow, not the party I-ESCROW, INC.
    documents = sum(n for v, n in view.catalog.values(view.name, f.name) if v in set(values))
    return (view.catalog.text_hits(view.name, words[0]) or 0) <= COMMON_WORD * max(documents, 1)


def _demonym(view: BucketWords, fields: list[CatalogField], lowered: str, country: str):
    candidates = []
    for f in fields:
        values = [v for v in view.values(f).values if country.lower() in v.lower()]
        if values:
            candidates.append(((bool(view.field_mentions(lowered, f)), 0, True, len(values)), f, values))
    return max(candidates, key=lambda c: c[0]) if candidates else None


def phrases(lowered: str, claims: Claims, generic: set[str]) -> list[tuple[list[str], tuple[int, int]]]:
    """Runs of up to MAX_PHRASE_WORDS words no other reading took, longest first, each as normalised words (without
    a possessive ending) with its span; a run starts and ends with a word that is not `generic` (a stop word, a
    bucket's or a field's word)."""
    tokens = [m for m in TOKEN.finditer(lowered) if not claims.taken(m.span())]
    runs: list[list[re.Match]] = []
    for token in tokens:
        if runs and lowered[runs[-1][-1].end() : token.start()].strip(" ,'’") == "":
            runs[-1].append(token)
        else:
            runs.append([token])
    found = []
    for run in runs:
        for size in range(min(MAX_PHRASE_WORDS, len(run)), 0, -1):
            for i in range(len(run) - size + 1):
                part = run[i : i + size]
                words = normalise(POSSESSIVE.sub("", " ".join(t.group(0) for t in part))).split()
                if words and not _generic(words[0], generic) and not _generic(words[-1], generic):
                    found.append((words, (part[0].start(), part[-1].end())))
    return sorted(found, key=lambda p: -len(p[0]))


def _generic(word: str, generic: set[str]) -> bool:
    return word in generic or word.removesuffix("s") in generic
