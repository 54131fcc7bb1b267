"""The rule planner's decompose step: a question's words mapped to intent, buckets and catalog constraints.

No model is involved, and no word list written for a corpus: what the words can mean comes from the index itself,
through the scope's `Vocabulary` (the catalog's buckets and their aliases, each field's aliases, role and unit, the
value lists of text fields) and, when no word names a bucket, which bucket holds the chunk closest to the question.
English itself (quantities, dates, currencies, negation, superlatives, grouping words) is the `english` package's.

The question is read by small readers (`graph.planners.reading`), in the order `RuleDecomposer.read` lists: each
claims the spans of the question it took (`Claims`), so that a reader later in the order does not read them again.
Order matters where two readers could take the same words, and is chosen so: kinds before dates before quantities
(a bucket word, then "in 2018", then "more than 2000 days"), currencies before flags before values (a currency's
word or a yes/no field's word names no value). The reading is then grounded in the catalog (`grounding.ground`),
as a model's is.

A word that looks like a condition but maps to nothing (a shop no receipt names, a currency no invoice is in) is
kept in `unmapped` with the nearest values the catalog holds: a count, sum or list cannot be computed without it,
so the planner asks instead of answering from passages.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from english.lexicon import AMOUNT_SLOT, NAME_SLOT
from graph.context import MAX_CATALOG_READS
from graph.decomposition import STRUCTURED_INTENTS, Constraint, Decomposition, Unmapped
from graph.planners.catalog_reads import RecordedCatalog, recorded
from graph.planners.catalog_view import CatalogView
from graph.planners.grounding import ground
from graph.planners.reading import (
    buckets,
    currencies,
    dates,
    flags,
    intent,
    kinds,
    leftovers,
    quantities,
    shape,
    values,
)
from graph.planners.reading.claims import BucketConstraints, Claims, Found, Said
from graph.planners.reading.question import Question
from graph.planners.vocabulary import BucketWords, Vocabulary

CONDITION_READERS = (
    kinds.read,
    dates.read,
    quantities.read,
    quantities.dangling,
    currencies.read,
    flags.read,
    values.read,
)
"""The readers of a bucket's conditions, in the order they run: each sees the spans the ones before it claimed."""


class RuleDecomposer:
    """question -> Decomposition, from the catalog: buckets, field catalogs, value lists, closeness of content."""

    def __init__(self, catalog: CatalogView, today: date | None = None):
        self.catalog = RecordedCatalog(catalog)
        self.vocabulary = Vocabulary(self.catalog)
        self.today = today or date.today()

    def decompose(
        self, question: str, within: list[str] | None = None, max_reads: int = MAX_CATALOG_READS
    ) -> Decomposition:
        """`within`: the buckets a follow-up question stays in unless its words name another. A reading that would
        answer another question than the one asked (another bucket's documents, a condition left out) is returned
        with what could not be used as `unmapped`, so that the run asks. The reads of the index's content it makes
        (at most `max_reads`) come with it."""
        with recorded(max_reads) as log:
            d = self.read(question, within)
            d = ground(
                d,
                self.vocabulary,
                within=within,
                again=lambda first: (
                    (other := buckets.bucket_instead(first, self.vocabulary))
                    and self.read(question, within, forced=other)
                ),
            )
        return d.model_copy(update={"catalog_reads": log.reads})

    def read(self, asked: str, within: list[str] | None, forced: str | None = None) -> Decomposition:
        """One reading: document ids, buckets (`forced` when another bucket holds the unmapped names), intent,
        conditions per bucket, what is left unmapped, and what the answer shows."""
        question = Question.of(asked, self.today, self.vocabulary.bucket_words)
        text, lowered = question.text, question.lowered
        claims = Claims()
        doc_ids = buckets.doc_ids(question, self.vocabulary, claims)
        names, question.mentions = (
            ([forced], []) if forced else buckets.buckets(question, self.vocabulary, within, doc_ids)
        )
        views = [self.vocabulary.buckets[b] for b in names]
        reading = intent.read(question, views, doc_ids)
        claims.claim(*reading.spans)
        unmapped: list[Unmapped] = []
        constraints: list[Constraint] = []
        for view in views:
            constraints += self.conditions(question, view, claims, unmapped)
        # the intent the words left open: a list when there are conditions, else a question for text
        intent_ = reading.intent or ("list" if constraints else "qa")
        understood = claims.spans + question.mention_spans
        if intent_ in STRUCTURED_INTENTS and not doc_ids:
            value_spans = [
                s
                for s in claims.spans
                if any(c.source_text and text[s[0] : s[1]] in c.source_text for c in constraints)
            ]
            unmapped += leftovers.names_left(
                text,
                lowered,
                understood,
                views,
                self.vocabulary,
                question.mention_spans,
                value_spans,
                NAME_SLOT | (AMOUNT_SLOT if intent_ == "sum" else set()),
            )
            about_text = not (constraints or reading.order_by or reading.group_by) and leftovers.content(
                lowered, understood
            )
            documents_asked = (
                intent_ == "count" and question.mentions or intent_ == "list" and unmapped and question.mentions
            )
            if about_text and intent_ in ("list", "count") and not documents_asked:
                # "which came out later, X or Y", "which magazine started first, X or Y", "over how many centuries
                # were the tombs built?", a claim that says "count": no bucket, value, order or grouping named, so
                # words to search for, not a list or a count of documents
                intent_, unmapped = "qa", []
        else:
            unmapped = []
        if intent_ not in STRUCTURED_INTENTS and not doc_ids:
            fields = set().union(*(view.field_words_all for view in views))
            asked_words = [w for w in leftovers.asked_about(lowered, understood) if w not in fields]
            unmapped = leftovers.absent(asked_words, names, constraints, self.vocabulary)
        reading = replace(reading, intent=intent_)
        if intent_ == "sum" and not reading.measure:
            unmapped.append(Unmapped(text=f"an amount to add up in {', '.join(names)}"))
        if intent_ in ("qa", "summarize") and question.mentions and not (constraints or doc_ids):
            names = buckets.with_closest(text, self.vocabulary, names)
        show = shape.shown_fields(views, lowered, claims.spans, {c.field for c in constraints}, reading)
        aggregate, group_by, unit_field = shape.aggregate(reading, views, constraints)
        return Decomposition(
            question=text,
            intent=intent_,
            buckets=names,
            constraints=constraints,
            topic_terms=leftovers.topic_terms(lowered, understood),
            sub_queries=shape.sub_queries(text, intent_),
            aggregate=aggregate,
            group_by=group_by,
            unit_field=unit_field,
            order_by=reading.order_by,
            limit=reading.limit,
            show_fields=show if intent_ in ("list", "lookup") else [],
            doc_ids=sorted(doc_ids),
            unmapped=unmapped,
        )

    @staticmethod
    def conditions(question: Question, view: BucketWords, claims: Claims, unmapped: list[Unmapped]) -> list[Constraint]:
        """The constraints the condition readers read in one bucket, in order (`CONDITION_READERS`); what they could
        not map, and bounds of one field that make no one range, are added to `unmapped` in the order read."""
        said = BucketConstraints(view.name)
        for reader in CONDITION_READERS:
            found: list[Found] = reader(question, view, claims)
            for item in found:
                left = said.add(item) if isinstance(item, Said) else item
                if left is not None:
                    unmapped.append(left)
        return said.constraints()

    def read_conditions(self, text: str, bucket: str) -> tuple[list[Constraint], list[Unmapped]]:
        """The conditions a phrase says in one bucket ("governed by New York law"), read as a question's are: how a
        model's condition given as words is grounded."""
        question = Question.of(text, self.today, self.vocabulary.bucket_words)
        unmapped: list[Unmapped] = []
        found = self.conditions(question, self.vocabulary.buckets[bucket], Claims(), unmapped)
        return found, unmapped
