"""What a question asks for, read from its English: a count, a figure (sum, average, extreme), the document that
holds an extreme, the group with the most, a list, one value to look up, or text to read.

The words here are English, not a corpus's: which field an extreme or a grouping is on comes from the bucket's
vocabulary (the field the question names, else the field whose role or unit fits the word: "cheapest" is about
money, "longest" about a duration, "oldest" about a date).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from english.intents import (
    AVERAGE,
    COMPARE,
    COUNT,
    COUNT_WHOLE,
    GROUPING,
    LIST,
    LOOKUP,
    MOST,
    MOST_SPENT,
    QUESTION_START,
    SPEND,
    SUM,
    SUMMARY,
    SUPERLATIVE,
    SUPERLATIVES,
    TEXT,
    VALUE_ASKED,
    VALUE_OF,
    WHAT_IS_THE,
    WHICH_MOST,
    asking,
    is_claim,
)
from english.lexicon import FILLER, STOPWORDS
from english.quantities import time_unit
from graph.decomposition import STRUCTURED_INTENTS, Constraint, Intent, OrderBy
from graph.planners.reading import leftovers
from graph.planners.reading.question import Question
from graph.planners.vocabulary import BucketWords, Mention, find_mentions
from retrievers.postgres.field_catalog import CatalogField


@dataclass(frozen=True)
class Reading:
    intent: Intent | None
    """None when the words say nothing: a list when the question constrains fields, a question for text if not."""
    spans: list[tuple[int, int]] = field(default_factory=list)
    measure: str | None = None
    group_by: tuple[str, ...] = ()
    order_by: OrderBy | None = None
    limit: int | None = None
    listed_by_text: bool = False
    """Documents of a bucket it names asked for in words no reading took, read as a question for text
    (`Decomposition.listed_by_text`)."""


def read_intent(lowered: str, views: list[BucketWords]) -> Reading:
    """What the question asks for, the first reading that fits in this order: a summary, a comparison, the group
    with the most, an extreme, a count, a sum or average, text, a grouped figure, a list, a lookup; else None."""
    view = views[0] if views else None
    if m := SUMMARY.search(lowered):
        return Reading("summarize", [m.span()])
    if m := COMPARE.search(lowered):
        return Reading("compare", [m.span()])
    count = COUNT.search(lowered)
    measure_words: list[tuple[int, int]] = []
    measure = count and count.group(0).startswith("count") and (AVERAGE.search(lowered) or SUPERLATIVE.search(lowered))
    if measure and measure.end() < count.start():
        measure_words, count = [count.span()], None  # "the average calorie count", "the lowest ...": a measure
    if count and view and _asks_a_measure(lowered, count, view):
        if not (AVERAGE.search(lowered) or SUM.search(lowered)):
            return Reading("lookup", [count.span()])
        measure_words, count = [count.span()], None  # "on average, how many days' notice ...": a measure
    if view and (top := _group_with_most(lowered, view)):
        return top
    if view and not count and (extreme := _extreme(lowered, view)):
        return replace(extreme, spans=[*extreme.spans, *measure_words])
    if count:
        groups, spans = _grouping(lowered, view)
        whole = [m.span() for m in COUNT_WHOLE.finditer(lowered)]
        return Reading("count", [count.span(), *whole, *spans], "count", groups)
    if view and (m := AVERAGE.search(lowered) or SUM.search(lowered) or _total_of_a_field(lowered, view)):
        function = "avg" if AVERAGE.search(lowered) else "sum"
        target = _measured(lowered[: m.start()] + " " * (m.end() - m.start()) + lowered[m.end() :], view)
        if target is None:
            return Reading("sum", [m.span()])  # a figure asked of a bucket with no amount: the decomposer says so
        groups, spans = _grouping(lowered, view)
        measure_words += [mention.span for mention in view.field_mentions(lowered, target)]
        return Reading("sum", [m.span(), *measure_words, *spans], f"{function}({target.name})", groups)
    if VALUE_OF.match(lowered):
        return Reading("lookup")
    if TEXT.search(lowered):
        return Reading("qa")
    if view and (groups := _grouping(lowered, view))[0]:
        spent = SPEND.search(lowered) or re.search(r"\btotals?\b", lowered)
        target = _measured(lowered, view) if spent else None
        if target is not None:  # "gardenia spend per month", "invoice total per currency"
            return Reading("sum", groups[1], f"sum({target.name})", groups[0])
        return Reading("count", groups[1], "count", groups[0])
    if LIST.search(lowered) or (view and _asks_for_documents(lowered, view)):
        return Reading("list")
    if LOOKUP.search(lowered):
        return Reading("lookup")
    return Reading(None)


def _asks_a_measure(lowered: str, count: re.Match, view: BucketWords) -> bool:
    """ "How many days' notice is needed to stop the Vitalibis hosting agreement from renewing?", "how many calories
    in the pad thai": how many of a unit of time, where the bucket has a field of time, or of what a number field
    measures, asks for a value, not for documents counted (blind set H and the recipes set: "1: count over 1
    documents", "10: count over 10 documents"). A bucket with no such field keeps the count ("over how many
    centuries were the tombs built?" is then a question for its text)."""
    word = re.match(r"\s+([a-z]+)", lowered[count.end() :])
    if count.group(0) != "how many" or word is None:
        return False
    if time_unit(word.group(1), "") is not None and _durations(view):
        return True
    return _measure_named_at(lowered, view, count.end() + word.start(1))


def _measure_named_at(lowered: str, view: BucketWords, at: int) -> bool:
    """Whether what a number field measures is named from `at` on ("calories", "servings")."""
    return any(m.span[0] == at for f in view.typed("integer", "number") for m in view.field_mentions(lowered, f))


def _total_of_a_field(lowered: str, view: BucketWords) -> re.Match | None:
    """ "total calories across all the French recipes", "total servings of the Thai recipes": "total" right
    before what a number field measures is its sum (the recipes set showed the rows and no total)."""
    return next((t for t in re.finditer(r"\btotal\s+", lowered) if _measure_named_at(lowered, view, t.end())), None)


def _asks_for_documents(lowered: str, view: BucketWords) -> bool:
    """'What contracts ...', 'what invoices ...': a question that starts by naming its bucket asks for a list."""
    first = re.match(r"what (\w+)", lowered)
    return bool(first) and any(first.group(1).startswith(alias.lower()) for alias in view.aliases if " " not in alias)


def _measured(lowered: str, view: BucketWords) -> CatalogField | None:
    """The number a sum or average is over: the numeric field the question names, else the bucket's money field."""
    numeric = view.typed("integer", "number")
    named = [f for f in numeric if view.field_mentions(lowered, f)]
    money = [f for f in numeric if f.role == "money"]
    if named and not any(f.role == "money" for f in named):
        # "the line items": a field of a kind of row that has an amount means that amount
        named += [f for f in money if f.kind in {n.kind for n in named} and f.kind != "properties"]
    chosen = named or money
    return max(chosen, key=lambda f: (f.role == "money", f.kind == "properties", f.doc_count)) if chosen else None


def _grouped_field(words: str, view: BucketWords, lowered: str) -> str | None:
    """The field a grouping names: a year or month of a date field, or a field by its words."""
    period = re.match(r"(year|month)s?\b", words)
    if period:
        dates = view.typed("date")
        if not dates:
            return None
        named = [f for f in dates if view.field_mentions(lowered, f)]
        chosen = max(named or dates, key=lambda f: f.doc_count)
        return f"{period.group(1)}({chosen.name})"
    named = [f for f in view.fields if f.type != "boolean" and view.field_mentions(words, f)]
    return max(named, key=lambda f: f.doc_count).name if named else None


def _grouping(lowered: str, view: BucketWords | None) -> tuple[tuple[str, ...], list[tuple[int, int]]]:
    if view is None:
        return (), []
    for m in GROUPING.finditer(lowered):
        name = _grouped_field(m.group("words"), view, lowered)
        if name:
            period = re.match(r"(?:year|month)s?\b", m.group("words"))
            return (name,), [(m.start(), m.start("words") + period.end() if period else m.end())]
    return (), []


def _group_with_most(lowered: str, view: BucketWords) -> Reading | None:
    """'Which shop do we have the most receipts from?', 'which year has the most?', 'which law comes up most?':
    the groups of a field, the largest first, the first one the answer."""
    which = WHICH_MOST.search(lowered)
    if not which or not MOST.search(which.group("rest")):
        return None
    name = _grouped_field(which.group("words"), view, lowered)
    if name is None:
        return None
    target = _measured(which.group("rest"), view) if SPEND.search(which.group("rest")) else None
    most = MOST.search(lowered, which.start("rest"))
    spans = [which.span("words"), most.span()]
    if target is not None:
        return Reading("sum", spans, f"sum({target.name})", (name,), limit=1)
    return Reading("count", spans, "count", (name,), limit=1)


def _extreme(lowered: str, view: BucketWords) -> Reading | None:
    """A superlative: its value as a figure when the question asks for one ("how much was our biggest receipt",
    "longest NDA term, in days?", "the most we spent in one go"), else the document that holds it ("biggest
    receipt?", "oldest NDA")."""
    spent = MOST_SPENT.search(lowered)
    if spent and (target := _measured(lowered, view)) is not None:
        return Reading("sum", [spent.span()], f"{'max' if spent.group(1) == 'most' else 'min'}({target.name})")
    m = SUPERLATIVE.search(lowered)
    # "a maximum voltage above 20 V" names a field; "at least 3", "at most 5" are bounds
    if not m or re.search(r"\b(?:an?|at)\s+$", lowered[: m.start()]):
        return None
    direction, about = SUPERLATIVES[m.group(1)]
    target = _extreme_field(lowered, view, about, m.start(), m.end())
    if target is None:
        return None
    mentions = [mention.span for mention in view.field_mentions(lowered, target)]
    named = bool(mentions) and target.type != "date"
    # "what is the latest expiration date" asks for a date, "what is the oldest NDA" for the NDA, and so does "what
    # is the lowest calorie recipe" (the bucket's noun after the field's words)
    value_asked = VALUE_ASKED.search(lowered) or (mentions and WHAT_IS_THE.search(lowered))
    document_asked = any(_bucket_noun_at(lowered, view, end) for _, end in mentions)
    if not lowered.startswith("which") and (value_asked or named) and not document_asked:
        function = "max" if direction == "desc" else "min"
        return Reading("sum", [m.span(), *mentions], f"{function}({target.name})")
    return Reading("list", [m.span(), *mentions], order_by=OrderBy(field=target.name, direction=direction), limit=1)


def _bucket_noun_at(lowered: str, view: BucketWords, end: int) -> bool:
    """Whether the next word after `end` (a field's words) names the bucket's documents ("calorie recipe")."""
    word = re.match(r"\s+([a-z]+)", lowered[end:])
    return bool(word) and any(word.group(1).rstrip("s") == alias.lower().rstrip("s") for alias in view.aliases)


def _durations(view: BucketWords) -> list[CatalogField]:
    """Number fields of time, the one users call a duration first ("a 2-year NDA" is its term, not its notice)."""
    days = [f for f in view.typed("integer", "number") if time_unit(f.unit, f.name)]
    return sorted(days, key=lambda f: ("duration" not in f.aliases, -f.doc_count))


def _names_unorderable(lowered: str, view: BucketWords, end: int) -> bool:
    """Whether the words right after a superlative (ending at `end`) name a field that holds no numbers or dates."""
    return any(
        not lowered[end : m.span[0]].strip()
        for f in view.fields
        if f.type not in ("integer", "number", "date")
        for m in view.field_mentions(lowered, f)
    )


def _beside(span: tuple[int, int], start: int, end: int, lowered: str) -> bool:
    """Whether a mention stands right after a superlative at `start`-`end`, or right before it (not the superlative's
    own word: "last" is also a word of the term's length)."""
    if span[0] >= end:
        return not lowered[end : span[0]].strip()
    return span[1] <= start and not lowered[span[1] : start].strip()


def _extreme_field(lowered: str, view: BucketWords, about: str, start: int, end: int) -> CatalogField | None:
    """The field a superlative is on: a number or date field the question names; else one that fits the word (money
    for "cheapest", a duration in days for "longest", a date for "oldest"; for "longest" in a bucket with no
    duration, the date that runs latest, such as a validity's end)."""
    orderable = view.typed("integer", "number", "date")
    named = [f for f in orderable if view.field_mentions(lowered, f)]
    if about == "named":  # "the most servings", "expires last": the field's words beside it, not anywhere
        named = [f for f in named if any(_beside(m.span, start, end, lowered) for m in view.field_mentions(lowered, f))]
    if named:
        return max(named, key=lambda f: f.doc_count)
    if about == "named" or _names_unorderable(lowered, view, end):
        return None  # "the lowest rating" where rating holds text: not the lowest of another field (calories)
    numeric = view.typed("integer", "number")
    if about == "money":
        fitting = [f for f in numeric if f.role == "money" and f.kind == "properties"] or numeric
    elif about == "duration":
        fitting = _durations(view)
        if not fitting:
            dates = view.typed("date")
            return max(dates, key=lambda f: str(f.max or "")) if dates else None
    else:
        fitting = view.typed("date")
    return (
        fitting[0] if about == "duration" and fitting else max(fitting, key=lambda f: f.doc_count) if fitting else None
    )


def read(question: Question, views: list[BucketWords], doc_ids: dict[str, str]) -> Reading:
    """What the words ask for (`read_intent`), then what the documents and buckets they name say of it, in this
    order: a question naming documents by id looks them up (unless it asks for their text); one that says nothing
    looks up a value when it opens with a field ("VAT number on the Free invoice?"), or lists when it names a bucket
    without asking ("starbucks receipts"). Still None when the words say nothing at all: the constraints decide
    (`settled`). All of it is read from the question proper (`asking`: not from a phrase set off before it)."""
    start = asking(question.lowered)
    lowered = question.lowered[start:]
    reading = read_intent(lowered, views)
    reading = replace(reading, spans=[(s + start, e + start) for s, e in reading.spans])
    if doc_ids and reading.intent not in ("qa", "summarize"):
        # a value of named documents ("the VAT number of X123", "which law governs the PaxMedica agreement"), or
        # their text when a question names no field of them ("how is liability limited in the Bluefly agreement?")
        asks_text = QUESTION_START.match(lowered) and not _field_words(lowered, views)
        return Reading("qa" if asks_text else "lookup")
    if reading.intent is None and opens_with_a_field(lowered, views):
        return replace(reading, intent="lookup")
    if reading.intent in (None, "list") and asks_which_value(lowered, views):
        return replace(reading, intent="lookup")
    if reading.intent is None and question.mentions and not QUESTION_START.match(lowered):
        return replace(reading, intent="list")
    return reading


def settled(
    reading: Reading,
    question: Question,
    views: list[BucketWords],
    constraints: list[Constraint],
    understood: list[tuple[int, int]],
    words_left: Callable[[], bool],
) -> Reading:
    """The reading with the intent the words left open settled once the conditions are read: a list when there are
    some that do more than say which documents, a question for text if not ("what happens to the Cologuard
    promotion deal with Pfizer if Exact Sciences gets acquired?": its parties and kind name the document, the other
    words ask about its text); so is a "which ..." question about a thing in documents it names
    (`_documents_listed`). A list or count with no condition, order or grouping whose words no reading took are
    content words is a question for text too ("which came out later, X or Y", "which magazine started first, X or
    Y", "over how many centuries were the tombs built?", a claim that says "count"): words to search for, not
    documents to list or count; unless it counts documents it names, or lists them with words that name nothing or
    by a clause the documents speak of (`words_left`): the run then asks. A claim that states something with no
    condition is never a figure or a list (`_states_a_claim`); nor is a sum asked of documents a question names in
    a bucket with no amount to add up: their text says what is paid."""
    describing = {f.name for view in views for f in view.role("name")} | {v.kind.name for v in views if v.kind}
    naming_only = bool(constraints) and all(c.field in describing for c in constraints)
    open_or_a_thing = reading.intent is None or reading.intent == "list" and not _documents_listed(question)
    if naming_only and open_or_a_thing and leftovers.content(question.lowered, understood):
        return replace(reading, intent="qa")
    if reading.intent == "sum" and reading.measure is None and naming_only:
        return replace(reading, intent="qa")  # "how much do they pay under the Vitamin Shoppe deal?": no amount field
    said = reading.intent or ("list" if constraints else "qa")
    about_text = not (constraints or reading.order_by or reading.group_by)
    if said in STRUCTURED_INTENTS and about_text and _states_a_claim(question.lowered, understood):
        return replace(reading, intent="qa")
    if said in ("list", "count") and about_text and leftovers.content(question.lowered, understood):
        documents_asked = bool(question.mentions) and (said == "count" or words_left())
        if not documents_asked:
            return replace(reading, intent="qa", listed_by_text=bool(question.mentions))
    return replace(reading, intent=said)


LISTED_WITHIN = 4
"""How many words after "which", "list" or "show" the documents listed are named ("which of my agreements")."""


def _documents_listed(question: Question) -> bool:
    """Whether a "which ..." question asks for documents: their noun follows within LISTED_WITHIN words ("which
    Indian recipes", "show me the agreements"), not a thing in one ("which state's courts hear disputes under the
    Modus Media agreement?" was answered with the agreement's row of parties)."""
    asked = LIST.search(question.lowered)
    if asked is None:
        return True  # "all the contracts ...": the documents themselves
    window = question.lowered[asked.end() :].split()[:LISTED_WITHIN]
    reach = asked.end() + len(" ".join(window)) + 1
    return any(asked.end() <= start < reach for start, _ in question.mention_spans)


CLAIM_WORDS = 4
"""How many content words a statement needs to be a claim to check against the text ("A total of 1,000 people in
the UK are asymptomatic carriers of vCJD infection."), not a terse request ("starbucks receipts")."""


def _states_a_claim(lowered: str, understood: list[tuple[int, int]]) -> bool:
    """Whether the text states a claim (`is_claim`) of at least CLAIM_WORDS content words: read word by word, its
    "total" or "policy" made it a sum or a list of documents, and SciFact's claims were asked back unsearched."""
    words = [w for w in leftovers.topic_terms(lowered, understood) if w not in FILLER]
    return is_claim(lowered) and len(words) >= CLAIM_WORDS


def _field_words(lowered: str, views: list[BucketWords]) -> list[Mention]:
    """Where the question says a field's own words: not a stopword alias ("with" of parties, as in "the agreement
    with IBM")."""
    return [
        m
        for view in views
        for f in view.fields
        for m in view.field_mentions(lowered, f)
        if m.text.lower() not in STOPWORDS
    ]


WHICH_VALUE = re.compile(r"^(?:which|what)\s+(?P<asked>(?:[\w-]+(?:'s|’s)?\s+){0,2})")
"""The words a "which"/"what" question opens with before its verb: "which state's law governs ...", "what law
applies to ..."."""


def asks_which_value(lowered: str, views: list[BucketWords]) -> bool:
    """Whether "which"/"what" asks for a field's value ("which state's law governs the Link Plus agreement?", "what
    law applies to ...") rather than for documents ("which contracts ..."): a field's words follow it, and no bucket
    word does."""
    opening = WHICH_VALUE.match(lowered)
    if not opening:
        return False
    start, end = opening.span("asked")
    named = any(start <= m.span[0] < end for m in _field_words(lowered, views))
    buckets = any(m.span[0] < end for view in views for m in find_mentions(lowered, view.aliases, whole=True))
    return named and not buckets


def opens_with_a_field(lowered: str, views: list[BucketWords]) -> bool:
    """Whether the question starts by naming a field of a document ("VAT number on ...", "effective date of ...")."""
    return any(m.span[0] == 0 for view in views for f in view.fields for m in view.field_mentions(lowered, f))
