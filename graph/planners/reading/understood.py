"""Which words of a question a reading understood (`Understood`): what grounding's checks read the question against
(`reading.left`), whichever planner read it. The rules say it themselves (their `Claims`); a model's reading is
laid back on the question's words: where its conditions' words and values, its documents' ids, the words of its
intent and the buckets named stand, and what the rules' own English helpers set aside there (a month without its
year, a unit after a number)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import NamedTuple

from graph.decomposition import Constraint, Decomposition
from graph.planners.reading import dates, intent
from graph.planners.reading.claims import Claims, Span
from graph.planners.reading.quantities import measured_in
from graph.planners.reading.question import Question
from graph.planners.vocabulary import Vocabulary


@dataclass(frozen=True)
class Understood:
    """`claimed`: the spans a reading took (conditions, intent, document ids), in the order taken, with `set_aside`
    among them (words read that no field can take); `bucket_spans`: where the words name the buckets."""

    question: Question
    claimed: tuple[Span, ...]
    set_aside: tuple[Span, ...] = ()
    bucket_spans: tuple[Span, ...] = ()

    @property
    def spans(self) -> list[Span]:
        """Every span understood or set aside, buckets' words included."""
        return [*self.claimed, *self.bucket_spans]

    @classmethod
    def of(cls, question: Question, claims: Claims) -> Understood:
        return cls(question, tuple(claims.spans), tuple(claims.set_aside), tuple(question.mention_spans))


class Read(NamedTuple):
    """A reading of a question, with the words it understood."""

    decomposition: Decomposition
    understood: Understood


def of_model(d: Decomposition, vocabulary: Vocabulary, today: date) -> Understood:
    """A model's reading laid on the question's words. Its conditions on dates are laid last: a month without its
    year that only a date condition took is still set aside (the model chose a year the question does not say)."""
    question = Question.of(d.question, today, vocabulary.bucket_words)
    lowered = question.lowered
    views = [vocabulary.buckets[b] for b in d.buckets if b in vocabulary.buckets]
    question.mentions = vocabulary.named_buckets(lowered)
    claims = Claims()
    claims.claim(*_spans(lowered, d.doc_ids))
    claims.claim(*intent.read_intent(lowered, views).spans)
    dated = {(v.name, f.name) for v in views for f in v.typed("date")}
    claims.claim(*_spans(lowered, [u.text for u in d.unmapped]))  # already said to be unmapped
    for c in d.constraints:
        if (c.bucket, c.field) not in dated:
            claims.claim(*_spans_of(lowered, c), *_quantities_of(question, c))
    if dated:
        for span in dates.bare_months(question, claims):
            claims.put_aside(span)
    for c in d.constraints:
        if (c.bucket, c.field) in dated:
            claims.claim(*_spans_of(lowered, c))
    for view in views:
        for c in d.constraints:
            f = view.get(c.field) if c.bucket == view.name else None
            if f is None or f.type not in ("integer", "number"):
                continue
            for q in question.quantities:
                unit = measured_in(view, f, lowered, q.span[1]) if claims.taken(q.span) else None
                if unit is not None and not claims.taken(unit.span):
                    (claims.claim if unit.why is None else claims.put_aside)(unit.span)
    return Understood.of(question, claims)


def _quantities_of(question: Question, c: Constraint) -> list[Span]:
    """The quantities of the question a condition compares with: said in its words, or of its value."""
    said = c.source_text.lower()
    values = [v for v in (c.value if isinstance(c.value, list) else [c.value]) if not isinstance(v, (bool, str))]
    return [q.span for q in question.quantities if said and (q.text in said or said in q.text) or q.value in values]


def _spans_of(lowered: str, c: Constraint) -> list[Span]:
    values = c.value if isinstance(c.value, list) else [c.value]
    return _spans(lowered, [c.source_text, *(str(v) for v in values if isinstance(v, (str, int, float)))])


def _spans(lowered: str, texts: list[str]) -> list[Span]:
    """Where each text stands in the question (its first place, as whole words), if it does."""
    found = []
    for text in texts:
        said = " ".join(str(text).lower().split())
        m = re.search(rf"(?<!\w){re.escape(said)}(?!\w)", lowered) if said else None
        if m:
            found.append(m.span())
    return found
