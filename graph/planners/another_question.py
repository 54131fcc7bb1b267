"""Readings that would answer another question than the one asked, found after the rule decomposer has read a
question: a bucket this scope holds nothing of, a bucket word that only qualifies another noun, a counted noun no
bucket holds, a condition no field records. Each gives the `Unmapped` that makes the run ask, or None. Found by
outside probes, where each gave a figure of other documents as the answer (`tests/test_unanswerable.py`).
"""

from __future__ import annotations

import re

from english.lexicon import CLAUSE_WORDS, STOPWORDS
from english.value_match import normalise
from english.words import counted_noun, plural, singular
from graph.decomposition import STRUCTURED_INTENTS, Decomposition, Unmapped
from graph.planners.reading.leftovers import NEAREST_HELD
from graph.planners.vocabulary import BucketWords, Vocabulary, find_mentions
from tools.catalog import Catalog


def another_bucket_or_noun(d: Decomposition, vocabulary: Vocabulary, catalog: Catalog) -> Unmapped | None:
    """The first reading of another bucket's documents than the ones the question is about, if any."""
    return (
        empty_bucket_named(d, vocabulary, catalog)
        or bucket_word_as_modifier(d, vocabulary, catalog)
        or unknown_counted(d, vocabulary, catalog)
    )


def empty_bucket_named(d: Decomposition, vocabulary: Vocabulary, catalog: Catalog) -> Unmapped | None:
    """A bucket named by its name ("certificates", "datasheet") that holds no document in this scope, where no
    bucket holding some is named: the question is about documents the scope lacks, which another bucket's rows
    must not stand in for ("how many certificates expire this year?" is not a count of contracts). Only for a
    question asking for documents (a list, a count, a sum or a lookup) or for "how many" of them by any of the
    bucket's words ("how many certs"): "certificates of deposit" in a question for text is a topic."""
    lowered = d.question.lower()
    if d.doc_ids or vocabulary.named_buckets(lowered):
        return None
    noun = counted_noun(lowered)
    for name, info in catalog.empty_buckets.items():
        names = [name, name.rstrip("s")]
        said = find_mentions(lowered, names, whole=True) if d.intent in (*STRUCTURED_INTENTS, "lookup") else []
        said = said or (find_mentions(noun, [*names, *info.aliases], whole=True) if noun else [])
        if said:
            return Unmapped(
                text=said[0].text,
                why=f"scope {catalog.scope!r} holds no {name} (bucket {name} has no documents here; the "
                f"buckets that do: {', '.join(catalog.buckets)})",
            )
    return None


def bucket_word_as_modifier(d: Decomposition, vocabulary: Vocabulary, catalog: Catalog) -> Unmapped | None:
    """Things a bucket word only qualifies: in "how many purchase orders" or "total spent on purchase orders",
    "purchase" (a receipts word) qualifies "orders", which no bucket, field or value names, so a figure over
    receipts would answer another question. A bucket word in the singular followed by a plural that names
    nothing; only for a count, sum or list ("paper mills" in a question for text is a topic)."""
    if d.intent not in STRUCTURED_INTENTS:
        return None
    lowered = d.question.lower()
    for bucket, mentions in vocabulary.named_buckets(lowered):
        view = vocabulary.buckets[bucket]
        for m in mentions:
            head = re.match(r"\s+([a-z]+)", lowered[m.span[1] :])
            if m.text.endswith("s") or not head or not plural(head.group(1)):
                continue
            noun = head.group(1)
            if not vocabulary.named_buckets(noun) and not _names_something(view, f"{m.text} {noun}", noun):
                return Unmapped(
                    text=f"{m.text} {noun}",
                    why=f"no bucket holds {noun}: {m.text!r} names {bucket}, but {m.text} {noun} are not "
                    f"{bucket} (the buckets here: {', '.join(catalog.buckets)})",
                )
    return None


def unknown_counted(d: Decomposition, vocabulary: Vocabulary, catalog: Catalog) -> Unmapped | None:
    """A count of a noun nothing in the scope names, where no bucket is named ("how many orders did we place in
    2018?"): the bucket closest to the question is not what is counted, so counting its documents under the
    question's other conditions (a year) would answer another question."""
    noun = counted_noun(d.question.lower())
    if d.intent != "count" or d.doc_ids or not noun:
        return None
    if vocabulary.named_buckets(d.question.lower()) or vocabulary.named_buckets(noun):
        return None
    for view in vocabulary.buckets.values():
        if _names_something(view, noun):
            return None
        if any(view.values(f).match([noun], STOPWORDS) for f in view.typed("string") if f.values is not None):
            return None
    return Unmapped(text=noun, why=f"no bucket holds {noun} (the buckets here: {', '.join(catalog.buckets)})")


def condition_left_out(d: Decomposition, vocabulary: Vocabulary) -> Unmapped | None:
    """A figure or list over a whole bucket with words left that no field, value or bucket word covers ("how
    many invoices are unpaid?", "total of receipts on weekends"): the words say which documents, and leaving
    them out would give the figure of every document as theirs."""
    whole_bucket = not (d.constraints or d.group_by or d.order_by or d.doc_ids) and len(d.buckets) == 1
    if d.intent not in STRUCTURED_INTENTS or not whole_bucket:
        return None
    view = vocabulary.buckets.get(d.buckets[0])
    if view is None:
        return None
    covered = {*view.field_words_all, *view.generic_words, *(w for a in view.aliases for w in normalise(a).split())}
    left = [w for w in d.topic_terms if w not in covered and singular(w) not in covered]
    if not left:
        return field_left_out(d, view)
    unrecorded = [spec.name for spec in view.unvalued if set(left) & set(view.field_words_of(spec))]
    meant = view.flags_meant(d.question)  # offered beside a field no value is read for: its words may mean another
    if unrecorded:
        why = (
            f"no document of {view.name} here has a value for {', '.join(unrecorded)}: none is labelled with it, "
            "and no rule reads it from their text"
            + (" (the yes/no fields closest in meaning are offered)" if meant else "")
        )
    elif meant:
        why = f"no field of {view.name} is named by these words (the yes/no fields closest in meaning are offered)"
    else:
        why = f"no field of {view.name} records it"
    clause = all(w in CLAUSE_WORDS for w in left)  # "a non-solicit clause": the clause is what its words say
    return Unmapped(
        text=" ".join(d.topic_terms if clause else left),
        nearest=meant,
        why=f"{why}, and a figure over every document of {view.name} would leave it out",
    )


def field_left_out(d: Decomposition, view: BucketWords) -> Unmapped | None:
    """A figure or list over a whole bucket whose question names a field it takes nothing of ("how many contracts
    are governed by the laws of a US state?": every contract was counted, an outside probe): the field's words say
    which documents, in words no value of it matched."""
    lowered = d.question.lower()
    used = {*d.show_fields, *re.findall(r"\w+", d.aggregate or "")}
    for f in view.fields:
        if f.name in used or not any(normalise(m.text) not in view.aliases for m in view.field_mentions(lowered, f)):
            continue
        held = ", ".join(str(v) for v in (f.values or f.examples)[:NEAREST_HELD])
        which = f" (the values recorded include {held})" if held else ""
        return Unmapped(
            text=" ".join(d.topic_terms) or f.name,
            why=f"the question names {f.name} but no value of it I could read{which}, and a figure over every "
            f"document of {view.name} would leave it out",
        )
    return None


def _names_something(view: BucketWords, *phrases: str) -> bool:
    """Whether one of `phrases` (in the plural or not) is, whole, a word or phrase of the bucket: an alias, a field's
    name or alias ("invoice number", "type"), a word naming the bucket as a whole, or a short-listed value."""
    known = {
        *view.aliases,
        *(phrase for f in view.fields for phrase in view.field_words(f)),
        *view.generic_words,
        *view.short_values,
    }
    known = {normalise(k) for k in known}
    return any({normalise(p), " ".join(map(singular, normalise(p).split()))} & known for p in phrases)
