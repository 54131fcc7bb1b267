"""The rule planner's decompose step: a question's words mapped to intent, buckets and catalog constraints.

No model is involved, and no word list written for a corpus: what the words can mean comes from the index itself,
through the scope's `Vocabulary` (the catalog's buckets and their aliases, each field's aliases, role and unit, the
value lists of text fields) and, when no word names a bucket, which bucket holds the chunk closest to the question.
English itself (quantities, dates, currencies, negation, superlatives, grouping words) is the `english` package's.

The question is read by small readers (`graph.planners.reading`), in the order `RuleDecomposer.read` lists: each
claims the spans of the question it took (`Claims`), so that a reader later in the order does not read them again.
Order matters where two readers could take the same words, and is chosen so: kinds before dates before quantities
(a bucket word, then "in 2018", then "more than 2000 days"), currencies before flags before values (a currency's
word or a yes/no field's word names no value), and a field said to have no value last (its words are another
reader's when a condition follows them). The reading, with the words it understood, is then grounded in the
catalog (`grounding.ground`), as a model's is, and checked there against the question's words.

A word that looks like a condition but maps to nothing (a shop no receipt names, a currency no invoice is in, a
month without its year) is kept in `unmapped` with the nearest values the catalog holds: a count, sum or list
cannot be computed without it, so the planner asks instead of answering from passages.
"""

from __future__ import annotations

from datetime import date

from graph.context import MAX_CATALOG_READS
from graph.decomposition import STRUCTURED_INTENTS, Constraint, Decomposition, Unmapped
from graph.planners.catalog_reads import RecordedCatalog, recorded
from graph.planners.catalog_view import CatalogView
from graph.planners.grounding import ground
from graph.planners.reading import (
    buckets,
    countries,
    currencies,
    dates,
    flags,
    intent,
    kinds,
    left,
    presence,
    quantities,
    shape,
    values,
    which,
)
from graph.planners.reading.claims import BucketConstraints, Claims, Found, Said
from graph.planners.reading.question import Question
from graph.planners.reading.understood import Read, Understood
from graph.planners.vocabulary import BucketWords, Vocabulary

CONDITION_READERS = (
    kinds.read,
    dates.read,
    quantities.read,
    currencies.read,
    flags.read,
    countries.read,
    values.read,
    presence.read,
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
        """`within`: the buckets a follow-up question stays in unless its words name another. The reading is
        grounded (`grounding.ground`): one that would answer another question than the one asked (another bucket's
        documents, a condition left out, words read that name nothing) is returned with what could not be used as
        `unmapped`, so that the run asks; when another bucket holds the names left, the question is read again
        there. A question for text that names a bucket is searched in the closest bucket too. A question about one
        document by a name several documents share says which do (`which.settled`). The reads of the
        index's content it makes (at most `max_reads` searches) come with it."""
        with recorded(max_reads) as log:
            readings = [self.read(question, within)]

            def again(first: Decomposition) -> Read | None:
                other = buckets.bucket_instead(first, self.vocabulary)
                if other:
                    readings.append(self.read(question, within, forced=other))
                    return readings[-1]
                return None

            d = ground(readings[0].decomposition, self.vocabulary, understood=readings[0].understood,
                       within=within, again=again)  # fmt: skip
            d = buckets.searched_too(d, readings[-1].understood, self.vocabulary)
            d = which.settled(d, self.vocabulary)
        return d.model_copy(update={"catalog_reads": log.reads})

    def read(self, asked: str, within: list[str] | None, forced: str | None = None) -> Read:
        """One reading, in steps: the documents named by id; the buckets (`forced` when another bucket holds the
        names left); what the words ask for; each bucket's conditions; the intent the words left open; what the
        answer shows. With it, which words it understood, for grounding's checks."""
        question = Question.of(asked, self.today, self.vocabulary.bucket_words)
        claims = Claims()
        doc_ids, several = buckets.doc_ids(question, self.vocabulary, claims)
        names = [forced] if forced else buckets.named(question, self.vocabulary, within, doc_ids)
        views = [self.vocabulary.buckets[b] for b in names]
        reading = intent.read(question, views, doc_ids)
        claims.claim(*reading.spans)
        constraints, unmapped = self.conditions_in(question, views, claims)
        understood = Understood.of(question, claims)

        def words_left() -> bool:  # what grounding will find a list cannot be computed without (`left`)
            return bool(
                unmapped
                or left.unreadable(understood, views, constraints, "list", self.vocabulary)
                or left.clause_held(understood, names, constraints, self.vocabulary)
            )

        reading = intent.settled(reading, question, views, constraints, understood.spans, words_left)
        if reading.intent not in STRUCTURED_INTENTS or doc_ids:
            unmapped = []  # a question for text, or about documents named by id: nothing left to compute without
        d = shape.decomposition(question, reading, names, views, constraints, claims.spans, understood.spans, doc_ids)
        return Read(d.model_copy(update={"unmapped": unmapped, "several": several}), understood)

    @classmethod
    def conditions_in(
        cls, question: Question, views: list[BucketWords], claims: Claims
    ) -> tuple[list[Constraint], list[Unmapped]]:
        """Each bucket's conditions (`conditions`), in the buckets' order, with what could not be mapped."""
        unmapped: list[Unmapped] = []
        constraints: list[Constraint] = []
        for view in views:
            constraints += cls.conditions(question, view, claims, unmapped)
        return constraints, unmapped

    @staticmethod
    def conditions(question: Question, view: BucketWords, claims: Claims, unmapped: list[Unmapped]) -> list[Constraint]:
        """The constraints the condition readers read in one bucket, in order (`CONDITION_READERS`); what they could
        not map, and bounds of one field that make no one range, are added to `unmapped` in the order read."""
        said = BucketConstraints(view.name)
        for reader in CONDITION_READERS:
            found: list[Found] = reader(question, view, claims)
            for item in found:
                left_over = said.add(item) if isinstance(item, Said) else item
                if left_over is not None:
                    unmapped.append(left_over)
        return said.constraints()

    def read_conditions(self, text: str, bucket: str) -> tuple[list[Constraint], list[Unmapped]]:
        """The conditions a phrase says in one bucket ("governed by New York law"), read as a question's are, with
        the words read that no field takes (`left.unread`): how a model's condition given as words is grounded."""
        question = Question.of(text, self.today, self.vocabulary.bucket_words)
        view = self.vocabulary.buckets[bucket]
        claims = Claims()
        unmapped: list[Unmapped] = []
        found = self.conditions(question, view, claims, unmapped)
        return found, [*unmapped, *left.unread(Understood.of(question, claims), [view], found)]
